import LiteFormat

/// PACK: stacks N tensors of one shape along a new axis.
final class Pack: Kernel {
    override var foldsAtPlanning: Bool { true }

    var axis = 0

    required init(_ node: NodeContext) throws {
        try super.init(node)
        guard !node.inputs.isEmpty, node.outputs.count == 1 else { throw KernelError.invalid("expects inputs and one output") }
    }

    override func prepare() throws {
        let first = try input(0), output = try self.output(0)
        _ = try elementSize(first)
        axis = try normalizedAxis(try PackOptions(node.options).axis, rank: first.rank + 1)
        for i in 0..<node.inputs.count {
            let t = try input(i)
            guard t.shape == first.shape, t.type == first.type else { throw KernelError.invalid("input \(i) is \(t), input 0 is \(first)") }
        }
        var shape = first.shape
        shape.insert(node.inputs.count, at: axis)
        output.type = first.type
        output.shape = shape
    }

    override func run(_ context: RunContext) throws {
        let output = node.outputs[0]
        let size = output.type.byteSize!
        let outer = output.shape[..<axis].reduce(1, *)
        let inner = output.shape[(axis + 1)...].reduce(1, *) * size
        let count = node.inputs.count
        for (i, input) in node.inputs.enumerated() {
            for o in 0..<outer {
                (output.data! + (o * count + i) * inner).copyMemory(from: input!.data! + o * inner, byteCount: inner)
            }
        }
    }
}
