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

    /// The path `run` takes, chosen by `prepare` from the input's type.
    enum Plan {
        /// float32, row by row (``softmaxRow``).
        case float
        /// uint8/int8: `table[255 - v] = expf(-input_scale * beta * v)`, as TFLite's optimized kernel
        /// (PopulateSoftmaxLookupTable), with the output scale and zero point (``outputScale``, ``outputZeroPoint``).
        case quantized(table: [Float])
        /// int16 (16x8 models): TFLite's `SoftmaxInt16` tables, exp on [-10, 0] and 1 / (1 + x) on [0, 1], and the
        /// multiplier that maps `(x - max) · input_scale · beta` onto the exp table's input.
        case int16((exp: [Int16], reciprocal: [Int16], multiplier: Int32, shift: Int))
    }

    /// The path `run` takes (nil before `prepare`).
    private(set) var plan: Plan?
    var outputScale: Float = 0, outputZeroPoint: Int32 = 0

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32, .uint8, .int8, .int16)
        guard input.rank >= 1 else { throw KernelError.invalid("softmax needs rank >= 1") }
        if input.type == .int16 {
            guard output.type == .int16 else { throw KernelError.unsupported("int16 softmax into \(output.type)") }
            try Int16Activations.expectSymmetric(input, output)
            let range = Double(65535)
            let exp = Int16Activations.lookupTable(inputScale: 10.0 / range, inputZeroPoint: 32767, outputScale: 2.0 / range, outputZeroPoint: 0) {
                Foundation.exp($0)
            }
            let reciprocal = Int16Activations.lookupTable(inputScale: 1.0 / range, inputZeroPoint: -32768, outputScale: 2.0 / range,
                                                          outputZeroPoint: 0) { 1.0 / (1.0 + $0) }
            // TFLite multiplies the float scale by the float beta in single precision, then divides in double.
            let (multiplier, shift) = IntegerArithmetic.quantizeMultiplier(Double(try QuantizedTensorInfo(input).scale * beta) / (10.0 / 65535.0))
            guard shift <= 30 else { throw KernelError.unsupported("int16 softmax input scale too large") }
            plan = .int16((exp, reciprocal, multiplier, shift))
            output.shape = input.shape
            return
        }
        if input.type != .float32 {
            guard output.type == input.type else { throw KernelError.unsupported("\(input.type) softmax into \(output.type)") }
            let qi = try QuantizedTensorInfo(input), qo = try QuantizedTensorInfo(output)
            let scale = -qi.scale * beta
            var table = [Float](repeating: 0, count: 256)
            for v in 0...255 { table[255 - v] = expf(scale * Float(v)) }
            plan = .quantized(table: table)
            outputScale = qo.scale
            outputZeroPoint = qo.zeroPoint
        } else {
            plan = .float
            output.type = .float32
        }
        output.shape = input.shape
    }

    /// TFLite's `SoftmaxInt16`: each `x - max` rescaled so [-10, 0] spans the exp table's [-32767, 32767] input,
    /// looked up in Q0.15, summed in int32; the sum normalized to [1, 2) (its leading zeros) and looked up in the
    /// 1 / (1 + x) table; each exp times that reciprocal, shifted back by the sum's magnitude with rounding.
    func runInt16(_ input: Tensor, _ output: Tensor, _ t: (exp: [Int16], reciprocal: [Int16], multiplier: Int32, shift: Int)) {
        let depth = input.dim(-1), rows = input.elementCount / max(depth, 1)
        let src = input.pointer(Int16.self), dst = output.pointer(Int16.self)
        t.exp.withUnsafeBufferPointer { expTable in
            t.reciprocal.withUnsafeBufferPointer { reciprocalTable in
                for r in 0..<rows {
                    let x = src + r * depth, y = dst + r * depth
                    var maximum = Int16.min
                    for j in 0..<depth { maximum = max(maximum, x[j]) }
                    var sum: Int32 = 0
                    for j in 0..<depth {
                        let scaled = IntegerArithmetic.multiplyByQuantizedMultiplier(Int32(x[j]) - Int32(maximum), t.multiplier, t.shift)
                        let centered = Int16(min(max(scaled &+ 32767, -32768), 32767))
                        y[j] = Int16Activations.lookup(centered, expTable.baseAddress!)
                        sum &+= Int32(y[j])
                    }
                    // TFLite's shifts are undefined for a sum of 0 or past int32 (over 65,538 values a row); kept in range here.
                    let headroomPlusOne = min(max(UInt32(bitPattern: sum).leadingZeroBitCount, 1), 31)
                    let shiftedSum = Int32(truncatingIfNeeded: ((Int64(sum) << Int64(headroomPlusOne - 1)) + (1 << 13)) >> 14)
                    let centeredSum = Int16(min(max(shiftedSum &- (1 << 15) &- (1 << 16), -32768), 32767))
                    let reciprocal = Int64(Int16Activations.lookup(centeredSum, reciprocalTable.baseAddress!))
                    let rightShift = Int64(31 - headroomPlusOne)
                    let round: Int64 = rightShift > 0 ? 1 << (rightShift - 1) : 0
                    for j in 0..<depth {
                        let value = (Int64(y[j]) * reciprocal + round) >> rightShift
                        y[j] = Int16(min(max(value, 0), 32767))
                    }
                }
            }
        }
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
                    let q = (shifted[Int(x[j])] * inverse).rounded(.toNearestOrAwayFromZero) + Float(outputZeroPoint)
                    y[j] = Element(truncatingIfNeeded: clampedToRange(q, low, high))
                }
            }
        }
        table.withUnsafeBufferPointer { t in
            if input.type == .int8 { run(Int8.self, t.baseAddress!) } else { run(UInt8.self, t.baseAddress!) }
        }
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        switch plan {
        case .quantized(let table)?: runQuantized(input, output, table: table)
        case .int16(let tables)?: runInt16(input, output, tables)
        case .float?: runFloat(input, output, threads: context.threads)
        case nil: throw KernelError.invalid("SOFTMAX ran before it was prepared")
        }
    }

    /// float32: each row's `exp(beta · (x - max)) / sum`, rows split over threads; in AVX registers at the avx2 level
    /// and above (``lite_f32_softmax_row__avx2``: the same exponentials, the sum in eight lanes), else ``softmaxRow``.
    private func runFloat(_ input: Tensor, _ output: Tensor, threads: Int) {
        let depth = input.dim(-1)
        guard depth > 0 else { return }
        let rows = input.elementCount / depth
        let src = input.floats, dst = output.floats, beta = self.beta
        let vectorRow = KernelConfiguration.current.float?.softmaxRow
        parallelFor(rows, threads: threads, minimumChunk: 16, workPerItem: 4 * depth) { range in
            for r in range {
                if let vectorRow {
                    vectorRow(src + r * depth, dst + r * depth, depth, beta)
                } else {
                    softmaxRow(src + r * depth, dst + r * depth, depth, beta: beta, log: false)
                }
            }
        }
    }
}

/// One row of softmax or log-softmax, as TFLite's float kernels compute it, with ``vectorizableExp`` (about 1 ulp from
/// libm's `expf`; a libm call per element is far slower). The exponentials are stored
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
