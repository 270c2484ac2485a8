import Foundation
import LiteFormat

/// 16x8 quantization (the converter's `EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8`): int16
/// activations, symmetric (zero point 0), int8 weights and int64 biases. TFLite runs its reference integer kernels for
/// most of these ops; the helpers here are the arithmetic they share.
enum Int16Activations {
    /// TFLite's `MultiplyByQuantizedMultiplier` for an int64 accumulator (common.cc, the same in both of its rounding
    /// modes): the Q31 multiplier rounded to 15 bits (`(m + 2^15) >> 16`, at most 0x7FFF), then one right shift by
    /// `15 - shift` that rounds ties toward +infinity. Not the 32-bit version's two roundings: an int16 layer's
    /// outputs differ from it by a step on about one value in 2^15.
    /// Wrapping arithmetic: a corrupt model's bias can push the product past int64, where TFLite's result is undefined.
    @inline(__always)
    static func multiplyByQuantizedMultiplier(_ x: Int64, _ multiplier: Int32, _ shift: Int) -> Int32 {
        let reduced: Int64 = multiplier < 0x7FFF_0000 ? (Int64(multiplier) + (1 << 15)) >> 16 : 0x7FFF
        let totalShift = Int64(15 - shift)
        let result = (x &* reduced &+ (1 &<< (totalShift - 1))) >> totalShift
        return Int32(truncatingIfNeeded: result)
    }

    /// The shifts `multiplyByQuantizedMultiplier` is defined for (TFLite asserts -31...7; up to 14 the shift stays a
    /// right shift, so those are computed the same way rather than refused).
    static func checkShift(_ shift: Int, _ what: @autoclosure () -> String) throws {
        guard (-31...14).contains(shift) else { throw KernelError.unsupported("\(what()): rescale exponent \(shift) outside -31...14") }
    }

    /// int16 activations are symmetric: TFLite's kernels ignore (or refuse) other zero points, so a tensor with one is
    /// refused here.
    static func expectSymmetric(_ tensors: Tensor?...) throws {
        for case let tensor? in tensors where tensor.type == .int16 {
            let zeroPoint = try QuantizedTensorInfo(tensor).zeroPoint
            guard zeroPoint == 0 else { throw KernelError.unsupported("int16 tensor \(tensor.index) with zero point \(zeroPoint) (16x8 models are symmetric)") }
        }
    }

    /// The bias of a 16x8 CONV_2D, DEPTHWISE_CONV_2D or FULLY_CONNECTED: int64 (the converter's), one per channel.
    static func bias(_ tensor: Tensor?, channels: Int) throws -> [Int64] {
        guard let tensor else { return [] }
        guard tensor.type == .int64, tensor.elementCount == channels, tensor.data != nil, tensor.storage != .arena else {
            throw KernelError.unsupported("16x8 bias must be a constant int64 [\(channels)], is \(tensor)")
        }
        return Array(UnsafeBufferPointer(start: tensor.pointer(Int64.self), count: channels))
    }
}

extension Int16Activations {
    /// TFLite's `LUTPopulate<int16_t>` (common.h, `LUTPopulateInt16<FloatT>`): 512 segments over the int16 input range
    /// and a closing anchor; each anchor is the scaled function value minus half the error the linear interpolation
    /// makes at the segment's midpoint. Every step in `F` (double for SOFTMAX's tables, as TFLite keeps them for
    /// backward compatibility), rounded as `std::round` (half away from zero), so the tables are TFLite's bit for bit.
    static func lookupTable<F: BinaryFloatingPoint>(inputScale: F, inputZeroPoint: Int32, outputScale: F, outputZeroPoint: Int32,
                                                    _ transform: (F) -> F) -> [Int16] {
        let inputMin = inputScale * F(-32768 - inputZeroPoint), inputMax = inputScale * F(32767 - inputZeroPoint)
        let outputMin = outputScale * F(-32768 - outputZeroPoint), outputMax = outputScale * F(32767 - outputZeroPoint)
        let step = (inputMax - inputMin) / 512, halfStep = step / 2
        let inverse = F(65536) / (outputMax - outputMin)
        func entry(_ value: F) -> Int16 { Int16(value.isNaN ? 0 : min(max(value, -32768), 32767)) }
        var table = (0..<512).map { i -> Int16 in
            let value = transform(inputMin + F(i) * step)
            let midpoint = transform(inputMin + F(i) * step + halfStep)
            let next = transform(inputMin + F(i + 1) * step)
            let sample = (value * inverse).rounded(.toNearestOrAwayFromZero)
            let interpolated = ((next * inverse + (value * inverse).rounded(.toNearestOrAwayFromZero)) / 2).rounded(.toNearestOrAwayFromZero)
            let error = interpolated - (midpoint * inverse).rounded(.toNearestOrAwayFromZero)
            return entry(sample - (error / 2).rounded(.toNearestOrAwayFromZero))
        }
        table.append(entry((transform(inputMax) * inverse).rounded(.toNearestOrAwayFromZero)))
        return table
    }

    /// An int16 op's function of the stored value through TFLite's interpolated table of `transform` (``lookupTable(...)``
    /// read by ``lookup(_:_:)``), for ``QuantizedLookupTable/init(type:function:)`` to tabulate over every stored value.
    static func interpolated(input: Tensor, output: Tensor, _ transform: (Float) -> Float) throws -> (Int32) -> Int32 {
        let qi = try QuantizedTensorInfo(input), qo = try QuantizedTensorInfo(output)
        let table = lookupTable(inputScale: qi.scale, inputZeroPoint: qi.zeroPoint, outputScale: qo.scale, outputZeroPoint: qo.zeroPoint, transform)
        return { x in table.withUnsafeBufferPointer { Int32(lookup(Int16(truncatingIfNeeded: x), $0.baseAddress!)) } }
    }

    /// TFLite's `LUTLookup` for int16: the anchor at `256 + (v >> 7)` plus the slope to the next one times the low 7
    /// bits, rounded (`(slope·offset + 64) >> 7`); the slope is wrapped to int16 as TFLite stores it.
    @inline(__always)
    static func lookup(_ value: Int16, _ table: UnsafePointer<Int16>) -> Int16 {
        let index = 256 + Int(value >> 7), offset = Int32(value & 0x7F)
        let base = Int32(table[index])
        let slope = Int32(Int16(truncatingIfNeeded: Int32(table[index + 1]) - base))
        return Int16(truncatingIfNeeded: base + ((slope * offset + 64) >> 7))
    }
}

extension Int16Activations {
    /// TFLite's `CheckedLog2`: the float log2 of `x` rounded, and whether `x` is within 0.1% (in log2) of that power of
    /// two.
    static func checkedLog2(_ x: Float) -> (Int, Bool) {
        let log2x = logf(x) * (1 / logf(2))
        let rounded = log2x.rounded(.toNearestOrAwayFromZero)
        return (rounded.isFinite ? Int(rounded) : 0, abs(log2x - rounded) < 1e-3)
    }

    /// How TFLite's int16 LOGISTIC and TANH (activations.cc) read their input.
    enum SigmoidInput {
        /// The table interpolation's input `(x·multiplier + round) >> shift`: `scale · 4096 · 3` doubled until it exceeds
        /// 32767 / 2 (at most 31 times), then truncated.
        case rescaled(multiplier: Int32, shift: Int32)
        /// An input scale within 0.1% of 2^-12 (TANH: also 2^-11, `leftShift` 1): LiteRT's optimized kernel, gemmlowp's
        /// fixed-point logistic or tanh of the input read as Q3.12 (shifted left once, saturating, for 2^-11).
        case fixedPoint(leftShift: Int)
    }

    static func sigmoidInput(inputScale: Float, outputScale: Float, tanh: Bool, op: String) throws -> SigmoidInput {
        let (outputLog2, outputIsPowerOfTwo) = checkedLog2(outputScale)
        guard outputIsPowerOfTwo, outputLog2 == -15 else { throw KernelError.unsupported("int16 \(op) output scale \(outputScale) (must be 2^-15)") }
        let (inputLog2, inputIsPowerOfTwo) = checkedLog2(inputScale)
        let leftShift = 12 + inputLog2
        if inputIsPowerOfTwo && (leftShift == 0 || (tanh && leftShift == 1)) { return .fixedPoint(leftShift: leftShift) }
        var multiplier = Double(inputScale) * 4096.0 * 3.0
        var shift: Int32 = 0
        while multiplier <= 32767.0 / 2.0 && shift <= 30 {
            shift += 1
            multiplier *= 2
        }
        guard multiplier < 2_147_483_648 else { throw KernelError.unsupported("int16 \(op) input scale \(inputScale) too large") }
        return .rescaled(multiplier: Int32(multiplier), shift: shift)
    }

    /// TFLite's `sigmoid_table_uint16` (internal/common.h): sigmoid(i / 24) in Q0.16 for i in 0..<256, the table its
    /// int16 LOGISTIC and TANH interpolate in (tanh(x) = 2·sigmoid(2x) − 1). Its values are not one rounding of
    /// sigmoid (35 differ from round, 11 from ceil), so they are TFLite's own, copied.
    static let sigmoidTable: [UInt32] = [
        32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794, 41432, 42064, 42688,
        43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409,
        51865, 52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
        57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110,
        61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186,
        63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
        64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900,
        64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208,
        65221, 65234, 65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
        65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433, 65438, 65442, 65445, 65449,
        65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
        65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
        65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
        65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530,
        65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
        65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535,
    ]

    /// The input rescaled (`(x·multiplier + round) >> shift`) and the table interpolated at its magnitude with
    /// `fractionBits` bits between entries, in unsigned 32-bit; `saturated` past the table's end.
    @inline(__always)
    private static func sigmoidInterpolation(_ x: Int32, multiplier: Int32, shift: Int32, fractionBits: UInt32,
                                             saturated: UInt32) -> (input: Int32, value: UInt32) {
        let round: Int32 = shift > 0 ? 1 << (shift - 1) : 0
        let input = (x &* multiplier &+ round) >> shift
        let magnitude = UInt32(input.magnitude), index = Int(magnitude >> fractionBits)
        guard index < 255 else { return (input, saturated) }
        let (a, b) = (sigmoidTable[index], sigmoidTable[index + 1])
        return (input, (a << fractionBits) &+ (magnitude & ((1 << fractionBits) - 1)) &* (b &- a))
    }

    /// reference_integer_ops::Logistic for int16: 9 fraction bits between table entries (1/24 per 512 input steps),
    /// mirrored for negative inputs (1 − sigmoid(|x|)), back to Q0.15.
    static func logistic(_ x: Int32, multiplier: Int32, shift: Int32) -> Int32 {
        let (input, value) = sigmoidInterpolation(x, multiplier: multiplier, shift: shift, fractionBits: 9, saturated: 0x7FFF << 10)
        let result = input >= 0 ? value &+ (1 << 9) : (1 << 25) &- value &+ (1 << 9) &- 1
        return Int32(Int16(truncatingIfNeeded: result >> 10))
    }

    /// reference_integer_ops::Tanh for int16: the same table at 8 fraction bits (tanh(x) = 2·sigmoid(2x) − 1), the
    /// mirroring in signed 32-bit arithmetic.
    static func tanh(_ x: Int32, multiplier: Int32, shift: Int32) -> Int32 {
        let (input, value) = sigmoidInterpolation(x, multiplier: multiplier, shift: shift, fractionBits: 8, saturated: 0xFFFF << 8)
        let signed = Int32(bitPattern: value)
        let result = input >= 0 ? signed &- (1 << 23) &+ (1 << 7) : 0 &- signed &+ (1 << 23) &+ (1 << 7) &- 1
        return Int32(Int16(truncatingIfNeeded: result >> 8))
    }
}

extension ChannelRequantization {
    /// The int16 kernels' rescale: `clamp(MultiplyByQuantizedMultiplier(acc, m[c], shift[c]) + zero_point)` with the
    /// int64 form of the multiply.
    @inline(__always)
    func applyWide(_ accumulator: Int64, channel: Int) -> Int32 {
        let scaled = Int16Activations.multiplyByQuantizedMultiplier(accumulator, multipliers[channel], shifts[channel]) &+ outputZeroPoint
        return min(max(scaled, low), high)
    }

    func checkWideShifts(_ what: String) throws {
        for shift in shifts { try Int16Activations.checkShift(shift, what) }
    }
}

/// The sums of a 16x8 CONV_2D or FULLY_CONNECTED (TFLite's reference `ConvPerChannel` and `FullyConnected` for int16
/// inputs): `acc = Σ x·(w − w_zero) + bias` in int64, then rescaled.
/// The sums are a double-precision GEMM over the inputs' rows: each product is below 2^22 in magnitude, so sums of up to
/// 2^31 of them are exact doubles, whatever the summation order.
final class Int16MatrixProduct {
    /// How the int64 sums become outputs. CONV_2D: ``ChannelRequantization/applyWide(_:channel:)``. FULLY_CONNECTED
    /// (LiteRT's int16 kernels, per tensor and per channel): `round(Double(acc) · scale[c])` with
    /// `scale[c] = Double(input_scale) · Double(filter_scale[c]) / Double(output_scale)`, ties away from zero, no Q31
    /// multiplier (it differs from the multiplier's rounding on about one output in 40, `q16_fully_connected`).
    enum Rescale { case multiplier, doubleScale }

    let units: Int
    let depth: Int
    /// [units, depth]: the weights minus their zero point.
    let weights: [Double]
    let bias: [Int64]
    let requantization: ChannelRequantization
    let rescale: Rescale
    /// Per channel, for ``Rescale/doubleScale``.
    let scales: [Double]

    init(weights tensor: Tensor, units: Int, bias biasTensor: Tensor?, input: Tensor, output: Tensor, activation: FusedActivation, op: String,
         rescale: Rescale) throws {
        guard tensor.type == .int8 else { throw KernelError.unsupported("\(op) of int16 with \(tensor.type) weights (16x8 has int8)") }
        guard output.type == .int16 else { throw KernelError.unsupported("\(op) of int16 into \(output.type)") }
        guard tensor.storage != .arena, tensor.data != nil else { throw KernelError.unsupported("quantized weights must be constant") }
        try Int16Activations.expectSymmetric(input, output)
        self.units = units
        depth = tensor.elementCount / max(units, 1)
        bias = try Int16Activations.bias(biasTensor, channels: units)
        let weightInfo = try QuantizedTensorInfo(tensor)
        requantization = try ChannelRequantization(input: try QuantizedTensorInfo(input), filter: weightInfo, output: try QuantizedTensorInfo(output),
                                                   channels: units, activation: activation, outputType: .int16)
        self.rescale = rescale
        if rescale == .multiplier { try requantization.checkWideShifts(op) }
        let inputScale = Double(try QuantizedTensorInfo(input).scale), outputScale = Double(try QuantizedTensorInfo(output).scale)
        scales = (0..<units).map { c in inputScale * Double(weightInfo.scales.count == 1 ? weightInfo.scales[0] : weightInfo.scales[c]) / outputScale }
        let raw = tensor.pointer(Int8.self), depth = self.depth
        weights = [Double](unsafeUninitializedCapacity: tensor.elementCount) { buffer, count in
            for u in 0..<units {
                let zero = Double(weightInfo.zeroPoints.count == 1 ? weightInfo.zeroPoints[0] : weightInfo.zeroPoints[u])
                for k in 0..<depth { buffer[u * depth + k] = Double(raw[u * depth + k]) - zero }
            }
            count = tensor.elementCount
        }
    }

    /// `rows` rows of `depth` values (the inputs as doubles, or their im2col) into [rows, units] int16 outputs;
    /// `products` holds rows·units doubles.
    func run(rows: Int, columns: UnsafePointer<Double>, products: UnsafeMutablePointer<Double>, output: UnsafeMutablePointer<Int16>, threads: Int) {
        let units = self.units, bias = self.bias, requantization = self.requantization, scales = self.scales, rescale = self.rescale
        weights.withUnsafeBufferPointer { w in
            BLAS.dgemmTransposedB(m: rows, n: units, k: depth, a: columns, b: w.baseAddress!, c: products, threads: threads)
        }
        let (zero, low, high) = (Double(requantization.outputZeroPoint), Double(requantization.low), Double(requantization.high))
        parallelFor(rows, threads: threads, minimumChunk: 64, workPerItem: 4 * units) { range in
            for r in range {
                for u in 0..<units {
                    let acc = Int64(products[r * units + u]) &+ (bias.isEmpty ? 0 : bias[u])
                    switch rescale {
                    case .multiplier:
                        output[r * units + u] = Int16(truncatingIfNeeded: requantization.applyWide(acc, channel: u))
                    case .doubleScale:
                        let value = (Double(acc) * scales[u]).rounded(.toNearestOrAwayFromZero) + zero
                        output[r * units + u] = Int16(value.isNaN ? zero : min(max(value, low), high))
                    }
                }
            }
        }
    }
}
