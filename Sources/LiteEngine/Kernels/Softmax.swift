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

    /// uint8/int8: `table[255 - v] = expf(-input_scale * beta * v)`, as TFLite's optimized kernel
    /// (PopulateSoftmaxLookupTable), with the output scale and zero point.
    var table: [Float]?
    var outputScale: Float = 0, outputZeroPoint: Int32 = 0

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32, .uint8, .int8)
        guard input.rank >= 1 else { throw KernelError.invalid("softmax needs rank >= 1") }
        if input.type != .float32 {
            guard output.type == input.type else { throw KernelError.unsupported("\(input.type) softmax into \(output.type)") }
            let qi = try QuantizedTensorInfo(input), qo = try QuantizedTensorInfo(output)
            let scale = -qi.scale * beta
            var table = [Float](repeating: 0, count: 256)
            for v in 0...255 { table[255 - v] = expf(scale * Float(v)) }
            self.table = table
            outputScale = qo.scale
            outputZeroPoint = qo.zeroPoint
        } else {
            output.type = .float32
        }
        output.shape = input.shape
    }

    /// TFLite's optimized quantized softmax: float table lookups relative to the row maximum, a float sum in
    /// order, probabilities rounded half away from zero onto the output's quantization.
    func runQuantized(_ input: Tensor, _ output: Tensor, table: [Float]) {
        let depth = input.dim(-1), rows = input.elementCount / max(depth, 1)
        let (outputScale, outputZeroPoint) = (self.outputScale, self.outputZeroPoint)
        @inline(__always) func run<Element: FixedWidthInteger>(_: Element.Type, _ table: UnsafePointer<Float>) {
            let (low, high) = (Int32(Element.min), Int32(Element.max))
            let src = UnsafePointer<Element>(OpaquePointer(input.data!)), dst = output.data!.assumingMemoryBound(to: Element.self)
            for r in 0..<rows {
                let x = src + r * depth, y = dst + r * depth
                var maximum = Int32.min
                for j in 0..<depth { maximum = max(maximum, Int32(x[j])) }
                // table[255 - v] = exp(-scale·v): entry (255 - max) + x[j] is exp(scale·(x[j] - max)).
                let shifted = table + Int(255 - maximum)
                var sum: Float = 0
                for j in 0..<depth { sum += shifted[Int(x[j])] }
                let inverse = 1 / (sum * outputScale)
                for j in 0..<depth {
                    let q = Int32((shifted[Int(x[j])] * inverse).rounded(.toNearestOrAwayFromZero)) + outputZeroPoint
                    y[j] = Element(truncatingIfNeeded: min(max(q, low), high))
                }
            }
        }
        table.withUnsafeBufferPointer { t in
            if input.type == .int8 { run(Int8.self, t.baseAddress!) } else { run(UInt8.self, t.baseAddress!) }
        }
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        if let table { return runQuantized(input, output, table: table) }
        let depth = input.dim(-1)
        guard depth > 0 else { return }
        let rows = input.elementCount / depth
        let src = input.floats, dst = output.floats, beta = self.beta
        parallelFor(rows, threads: context.threads, minimumChunk: 16, workPerItem: 4 * depth) { range in
            for r in range {
                softmaxRow(src + r * depth, dst + r * depth, depth, beta: beta, log: false)
            }
        }
    }
}

/// One row of softmax or log-softmax, as TFLite's float kernels compute it, with ``vectorizableExp`` (about 1 ulp from
/// libm's `expf`; a call per element was 0.07 ms of a [4, 64, 64] attention softmax). The exponentials are stored
/// first and summed in order in a second pass, so that the first pass vectorizes.
@inline(__always)
func softmaxRow(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ n: Int, beta: Float, log: Bool) {
    var maximum = -Float.infinity
    for i in 0..<n { maximum = Swift.max(maximum, x[i]) }
    if log {
        // LogSoftmax: (x - max) - log(sum(exp(x - max))), beta = 1.
        for i in 0..<n { y[i] = vectorizableExp(x[i] - maximum) }
        var sum: Float = 0
        for i in 0..<n { sum += y[i] }
        let logSum = logf(sum)
        for i in 0..<n { y[i] = x[i] - maximum - logSum }
    } else {
        for i in 0..<n { y[i] = vectorizableExp((x[i] - maximum) * beta) }
        var sum: Float = 0
        for i in 0..<n { sum += y[i] }
        let inverse = 1 / sum
        for i in 0..<n { y[i] *= inverse }
    }
}
