/// BROADCAST_TO: the input broadcast (numpy rules) to the shape given by the second input (int32 or int64, known when
/// planning).
final class BroadcastTo: Kernel {
    override var foldsAtPlanning: Bool { true }

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        _ = try elementSize(input)
        let shape = try integers(try self.input(1))
        guard shape.count >= input.rank, shape.allSatisfy({ $0 >= 0 }),
              try broadcastShape(input.shape, shape) == shape else {
            throw KernelError.invalid("BROADCAST_TO of \(input.shape) to \(shape)")
        }
        output.type = input.type
        output.shape = shape
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let padded = Array(repeating: 1, count: output.rank - input.rank) + input.shape
        copyRepeating(input.data!, inputShape: padded, into: output.data!, outputShape: output.shape, elementSize: input.type.byteSize!)
    }
}
