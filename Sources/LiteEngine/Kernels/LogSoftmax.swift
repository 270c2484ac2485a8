import LiteFormat

/// LOG_SOFTMAX over the last dimension: `(x - max) - log(sum(exp(x - max)))`.
final class LogSoftmax: Kernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32)
        guard input.rank >= 1 else { throw KernelError.invalid("log_softmax needs rank >= 1") }
        output.type = .float32
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let depth = input.dim(-1)
        guard depth > 0 else { return }
        for r in 0..<(input.elementCount / depth) {
            softmaxRow(input.floats + r * depth, output.floats + r * depth, depth, beta: 1, log: true)
        }
    }
}
