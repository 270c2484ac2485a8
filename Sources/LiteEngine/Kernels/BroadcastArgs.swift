/// BROADCAST_ARGS (`tf.broadcast_dynamic_shape`): the shape two shapes broadcast to (numpy rules), from two 1-D int32
/// or int64 tensors of the same type; an error when they do not broadcast, as TFLite's broadcast_args.cc.
final class BroadcastArgs: Kernel {
    override var foldsAtPlanning: Bool { true }

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let a = try input(0), b = try input(1), output = try self.output(0)
        try expectType(a, .int32, .int64)
        try expectRank(a, 1)
        try expectRank(b, 1)
        guard b.type == a.type, output.type == a.type else {
            throw KernelError.invalid("BROADCAST_ARGS operands and output must have one type, are \(a.type), \(b.type), \(output.type)")
        }
        output.shape = [max(a.elementCount, b.elementCount)]
    }

    override func run(_ context: RunContext) throws {
        let a = node.inputs[0]!, b = node.inputs[1]!, output = node.outputs[0]
        let shape = try broadcastShape((0..<a.elementCount).map { a.integer(at: $0) }, (0..<b.elementCount).map { b.integer(at: $0) })
        for (i, dimension) in shape.enumerated() {
            if output.type == .int64 { output.pointer(Int64.self)[i] = Int64(dimension) } else { output.pointer(Int32.self)[i] = Int32(truncatingIfNeeded: dimension) }
        }
    }
}
