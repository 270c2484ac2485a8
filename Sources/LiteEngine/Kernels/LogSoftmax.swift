import Foundation
import LiteFormat

/// LOG_SOFTMAX over the last dimension: `(x - max) - log(sum(exp(x - max)))`. float32; uint8 and int8 as TFLite's
/// optimized kernel (activations.cc `LogSoftmaxEval`, optimized_ops `LogSoftmax`): the exponentials from a
/// 256-entry float table relative to the row maximum (the same table as SOFTMAX), summed in order in single
/// precision, `logf` of the sum, and each output `rint` (ties to even) of its float log-probability on the output's
/// quantization, which TFLite fixes at scale 16/256 and zero point 255 (uint8) or 127 (int8).
final class LogSoftmax: Kernel {
    /// The path `run` takes, chosen by `prepare` from the input's type.
    private enum Plan {
        /// float32, row by row (``softmaxRow``).
        case float
        /// uint8/int8: `table[255 - v] = expf(-input_scale · v)`.
        case quantized(table: [Float])
    }

    private var plan: Plan?
    private var scales: (input: Float, output: Float, zeroPoint: Int32) = (0, 0, 0)

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        guard input.rank >= 1 else { throw KernelError.invalid("log_softmax needs rank >= 1") }
        plan = nil
        if input.type == .uint8 || input.type == .int8 {
            guard output.type == input.type else { throw KernelError.unsupported("\(input.type) log_softmax into \(output.type)") }
            let qi = try QuantizedTensorInfo(input), qo = try QuantizedTensorInfo(output)
            let zeroPoint: Int32 = input.type == .uint8 ? 255 : 127
            guard qo.scale == 16.0 / 256, qo.zeroPoint == zeroPoint else {
                throw KernelError.unsupported("\(input.type) log_softmax output needs scale 16/256 and zero point \(zeroPoint), has \(qo.scale) and \(qo.zeroPoint)")
            }
            var table = [Float](repeating: 0, count: 256)
            for v in 0...255 { table[255 - v] = expf(-qi.scale * Float(v)) }
            plan = .quantized(table: table)
            scales = (qi.scale, qo.scale, zeroPoint)
        } else {
            try expectType(input, .float32)
            plan = .float
            output.type = .float32
        }
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let depth = input.dim(-1)
        guard depth > 0 else { return }
        switch plan {
        case .quantized(let table)?:
            table.withUnsafeBufferPointer { t in
                if input.type == .int8 { runQuantized(Int8.self, input, output, t.baseAddress!) } else { runQuantized(UInt8.self, input, output, t.baseAddress!) }
            }
        case .float?:
            for r in 0..<(input.elementCount / depth) {
                softmaxRow(input.floats + r * depth, output.floats + r * depth, depth, beta: 1, log: true)
            }
        case nil:
            throw KernelError.invalid("LOG_SOFTMAX ran before it was prepared")
        }
    }

    private func runQuantized<Element: FixedWidthInteger>(_: Element.Type, _ input: Tensor, _ output: Tensor, _ table: UnsafePointer<Float>) {
        let depth = input.dim(-1), rows = input.elementCount / depth
        let (inputScale, outputScale, zeroPoint) = scales
        // int8 values are offset by 128 onto the table's uint8 indices.
        let offset: Int32 = Element.self == Int8.self ? 128 : 0
        let (low, high) = (Int32(Element.min), Int32(Element.max))
        let src = UnsafePointer<Element>(OpaquePointer(input.data!)), dst = output.data!.assumingMemoryBound(to: Element.self)
        for r in 0..<rows {
            let x = src + r * depth, y = dst + r * depth
            var maximum = Int32(Element.min)
            for j in 0..<depth { maximum = max(maximum, Int32(x[j])) }
            let shifted = table + Int(255 - (maximum + offset))
            var sum: Float = 0
            for j in 0..<depth { sum += shifted[Int(Int32(x[j]) + offset)] }
            // In optimized_ops' order of float operations: (x − max)·s − log(sum), as x·(s/s_out) − (s·max + log(sum))/s_out.
            let scale = inputScale / outputScale
            let precomputed = (inputScale * Float(maximum + offset) + logf(sum)) / outputScale
            for j in 0..<depth {
                let logProbability = scale * Float(Int32(x[j]) + offset) - precomputed
                // rint, then the zero point.
                let q = logProbability.rounded(.toNearestOrEven) + Float(zeroPoint)
                y[j] = Element(truncatingIfNeeded: clampedToRange(q, low, high))
            }
        }
    }
}
