import Foundation
import LiteFormat

/// SOFTMAX over the last dimension: `exp(beta * (x - max)) / sum`.
final class Softmax: Kernel {
    let beta: Float

    required init(_ node: NodeContext) throws {
        beta = try SoftmaxOptions(node.options).beta
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32)
        guard input.rank >= 1 else { throw KernelError.invalid("softmax needs rank >= 1") }
        output.type = .float32
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let depth = input.dim(-1)
        guard depth > 0 else { return }
        let rows = input.elementCount / depth
        let src = input.floats, dst = output.floats, beta = self.beta
        parallelFor(rows, threads: context.threads, minimumChunk: 16) { range in
            for r in range {
                softmaxRow(src + r * depth, dst + r * depth, depth, beta: beta, log: false)
            }
        }
    }
}

/// One row of softmax or log-softmax, as TFLite's float kernels compute it.
@inline(__always)
func softmaxRow(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ n: Int, beta: Float, log: Bool) {
    var maximum = -Float.infinity
    for i in 0..<n { maximum = Swift.max(maximum, x[i]) }
    if log {
        // LogSoftmax: (x - max) - log(sum(exp(x - max))), beta = 1.
        var sum: Float = 0
        for i in 0..<n { sum += expf(x[i] - maximum) }
        let logSum = logf(sum)
        for i in 0..<n { y[i] = x[i] - maximum - logSum }
    } else {
        var sum: Float = 0
        for i in 0..<n {
            let e = expf((x[i] - maximum) * beta)
            y[i] = e
            sum += e
        }
        let inverse = 1 / sum
        for i in 0..<n { y[i] *= inverse }
    }
}
