/// FILL: a tensor of the shape given by the first input (int32 or int64, known when planning) with every element the
/// second input's one value (any fixed-size type).
final class Fill: Kernel {
    override var foldsAtPlanning: Bool { true }

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let value = try input(1), output = try self.output(0)
        _ = try elementSize(value)
        guard value.elementCount == 1 else { throw KernelError.invalid("FILL value must be a scalar, is \(value.shape)") }
        let shape = try integers(try input(0))
        guard shape.allSatisfy({ $0 >= 0 }) else { throw KernelError.invalid("FILL shape \(shape)") }
        output.type = value.type
        output.shape = shape
    }

    override func run(_ context: RunContext) throws {
        let value = node.inputs[1]!, output = node.outputs[0]
        let size = value.type.byteSize!
        for i in 0..<output.elementCount { (output.data! + i * size).copyMemory(from: value.data!, byteCount: size) }
    }
}
