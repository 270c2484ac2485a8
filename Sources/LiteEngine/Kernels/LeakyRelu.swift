import LiteFormat

/// LEAKY_RELU: x where x > 0, else alpha * x.
final class LeakyRelu: Kernel {
    let alpha: Float

    required init(_ node: NodeContext) throws {
        alpha = try LeakyReluOptions(node.options).alpha
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32)
        output.type = .float32
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        let x = node.inputs[0]!.floats, y = node.outputs[0].floats, alpha = self.alpha
        for i in 0..<node.inputs[0]!.elementCount {
            let v = x[i]
            y[i] = v > 0 ? v : v * alpha
        }
    }
}
