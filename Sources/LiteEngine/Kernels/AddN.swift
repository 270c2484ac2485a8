/// ADD_N: the sum of two or more tensors of one shape and type (float32 or int32, no broadcasting), added in input
/// order as TFLite's reference kernel adds them; int32 wraps.
final class AddN: Kernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        guard node.inputs.count >= 2, node.outputs.count == 1 else {
            throw KernelError.invalid("ADD_N takes two or more inputs and one output, has \(node.inputs.count) and \(node.outputs.count)")
        }
    }

    override func prepare() throws {
        let first = try input(0), output = try self.output(0)
        try expectType(first, .float32, .int32)
        for i in 1..<node.inputs.count {
            let other = try input(i)
            guard other.type == first.type, other.shape == first.shape else {
                throw KernelError.invalid("ADD_N input \(i) is \(other.type) \(other.shape), input 0 \(first.type) \(first.shape)")
            }
        }
        output.type = first.type
        output.shape = first.shape
    }

    override func run(_ context: RunContext) throws {
        let count = node.outputs[0].elementCount
        if node.outputs[0].type == .float32 {
            let out = node.outputs[0].floats
            out.update(from: node.inputs[0]!.floats, count: count)
            for input in node.inputs.dropFirst() {
                let values = input!.floats
                for i in 0..<count { out[i] += values[i] }
            }
        } else {
            let out = node.outputs[0].pointer(Int32.self)
            out.update(from: node.inputs[0]!.pointer(Int32.self), count: count)
            for input in node.inputs.dropFirst() {
                let values = input!.pointer(Int32.self)
                for i in 0..<count { out[i] &+= values[i] }
            }
        }
    }
}
