import LiteFormat

/// L2_NORMALIZATION: each row of the last axis divided by its L2 norm, or by 1e-6 where the norm is smaller (TFLite's
/// epsilon); float32, no fused activation.
final class L2Normalization: Kernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
        guard try ArithmeticOptions(node.options).activation == .none else { throw KernelError.unsupported("L2_NORMALIZATION with a fused activation") }
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32)
        guard input.rank >= 1 else { throw KernelError.invalid("L2_NORMALIZATION needs rank >= 1") }
        output.type = .float32
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, depth = input.dim(-1)
        guard depth > 0 else { return }
        let src = input.floats, dst = node.outputs[0].floats
        for r in 0..<(input.elementCount / depth) {
            let x = src + r * depth, y = dst + r * depth
            var squares: Float = 0
            for c in 0..<depth { squares += x[c] * x[c] }
            let norm = max(squares.squareRoot(), 1e-6)
            for c in 0..<depth { y[c] = x[c] / norm }
        }
    }
}
