import Foundation
import LiteFormat

/// LOCAL_RESPONSE_NORMALIZATION: along the last axis, `x / (bias + alpha · Σ x²)^beta` with the sum over the channels
/// within `radius` (TFLite's reference kernel; `powf` per element). float32.
final class LocalResponseNormalization: Kernel {
    let options: LocalResponseNormalizationOptions

    required init(_ node: NodeContext) throws {
        options = try LocalResponseNormalizationOptions(node.options)
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32)
        guard input.rank == 4, options.radius >= 0 else { throw KernelError.unsupported("LOCAL_RESPONSE_NORMALIZATION of \(input.shape), radius \(options.radius)") }
        output.type = .float32
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, depth = input.dim(-1)
        guard depth > 0 else { return }
        let src = input.floats, dst = node.outputs[0].floats
        let (radius, bias, alpha, beta) = (options.radius, options.bias, options.alpha, options.beta)
        for r in 0..<(input.elementCount / depth) {
            let x = src + r * depth, y = dst + r * depth
            for c in 0..<depth {
                var sum: Float = 0
                for k in max(0, c - radius)..<min(depth, c + radius + 1) { sum += x[k] * x[k] }
                y[c] = x[c] * powf(bias + alpha * sum, -beta)
            }
        }
    }
}
