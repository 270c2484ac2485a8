import LiteFormat

/// The integer view of an affine-quantized tensor: one scale and zero point, or one per channel.
struct QuantizedTensorInfo {
    let scales: [Float]
    let zeroPoints: [Int32]
    let dimension: Int

    init(_ tensor: Tensor) throws {
        guard let q = tensor.quantization, !q.scale.isEmpty else {
            throw KernelError.invalid("tensor \(tensor.index) (\(tensor.type)) has no quantization parameters")
        }
        guard q.scale.allSatisfy({ $0 > 0 && $0.isFinite }) else { throw KernelError.invalid("tensor \(tensor.index) has a non-positive scale") }
        scales = q.scale
        zeroPoints = try q.zeroPoint.map { z in
            // `magnitude`, not `abs`: the absolute value of Int32.min does not fit an Int32.
            guard let value = Int32(exactly: z), value.magnitude <= 1 << 16 else { throw KernelError.invalid("zero point \(z) out of range") }
            return value
        }
        dimension = q.quantizedDimension
    }

    init(scales: [Float], zeroPoints: [Int32], dimension: Int = 0) {
        self.scales = scales
        self.zeroPoints = zeroPoints
        self.dimension = dimension
    }

    var scale: Float { scales[0] }
    var zeroPoint: Int32 { zeroPoints[0] }
}

/// The range of a quantized element type.
func quantizedRange(_ type: TensorType) throws -> (Int32, Int32) {
    switch type {
    case .uint8: return (0, 255)
    case .int8: return (-128, 127)
    case .int16: return (-32768, 32767)
    default: throw KernelError.unsupported("quantized type \(type)")
    }
}

/// Per-output-channel requantization of a convolution, as TFLite's `PopulateConvolutionQuantizationParams`:
/// `input_scale * filter_scale[c] / output_scale` in double, then `QuantizeMultiplier`.
struct ChannelRequantization {
    let multipliers: [Int32]
    let shifts: [Int]
    /// For `fast` numerics: each multiplier as a double, and the left (2^shift, shift > 0) and right (2^shift,
    /// shift ≤ 0) scale factors.
    let fastMultipliers: [Double]
    let fastLeft: [Double]
    let fastRight: [Double]
    let outputZeroPoint: Int32
    let low: Int32, high: Int32
    /// Channels `0..<upwardChannels` round their final shift's ties toward +infinity even where the kernel's own
    /// rule is `MultiplyByQuantizedMultiplier`'s ties away from zero. LiteRT's int8 DEPTHWISE_CONV_2D requantizes
    /// each full group of 8 channels with vector code that rounds ties up and the channels left over one by one
    /// with `MultiplyByQuantizedMultiplier` (its outputs on scales a power of two apart, where ties are frequent:
    /// the `q_depthwise_int8_ties` op golden). Real layers with a fused ReLU rarely show it: their negative
    /// values, the only ones the two roundings part on, clamp to the zero point.
    var upwardChannels = 0

    /// Whether channel `c`'s final shift rounds ties up, in a kernel whose own rule is `roundingUp`.
    @inline(__always)
    func roundsUp(_ c: Int, kernelRoundsUp roundingUp: Bool) -> Bool { roundingUp || c < upwardChannels }

    init(input: QuantizedTensorInfo, filter: QuantizedTensorInfo, output: QuantizedTensorInfo, channels: Int,
         activation: FusedActivation, outputType: TensorType) throws {
        guard filter.scales.count == 1 || filter.scales.count == channels else {
            throw KernelError.invalid("\(filter.scales.count) filter scales for \(channels) channels")
        }
        var multipliers: [Int32] = [], shifts: [Int] = []
        for c in 0..<channels {
            let filterScale = filter.scales.count == 1 ? filter.scales[0] : filter.scales[c]
            // uint8 per-tensor kernels take TFLite's legacy GetQuantizedConvolutionMultipler, whose
            // input_scale * filter_scale product is a float (MobileNetV1 0.25 and the AutoML labeler differ by
            // one step in a few outputs otherwise); per-channel multipliers are computed in double.
            let product = filter.scales.count == 1 && outputType == .uint8 ? Double(input.scale * filterScale) : Double(input.scale) * Double(filterScale)
            let (m, s) = IntegerArithmetic.quantizeMultiplier(product / Double(output.scale))
            guard s <= 30 else { throw KernelError.unsupported("requantization multiplier of channel \(c) is too large") }
            multipliers.append(m)
            shifts.append(s)
        }
        self.multipliers = multipliers
        self.shifts = shifts
        fastMultipliers = multipliers.map { Double($0) }
        fastLeft = shifts.map { $0 > 0 ? Double(sign: .plus, exponent: $0, significand: 1) : 1 }
        fastRight = shifts.map { $0 > 0 ? 1 : Double(sign: .plus, exponent: $0, significand: 1) }
        outputZeroPoint = output.zeroPoint
        let (typeMin, typeMax) = try quantizedRange(outputType)
        (low, high) = try IntegerArithmetic.activationRange(activation, scale: output.scale, zeroPoint: output.zeroPoint, typeMin: typeMin, typeMax: typeMax)
    }

    /// The rescale of TFLite's GEMM-based kernels (ties of the final shift toward +infinity), clamped.
    @inline(__always)
    func applyRoundingUp(_ accumulator: Int32, channel: Int) -> Int32 {
        let scaled = IntegerArithmetic.multiplyByQuantizedMultiplierRoundingUp(accumulator, multipliers[channel], shifts[channel]) + outputZeroPoint
        return min(max(scaled, low), high)
    }

    /// `clamp(MultiplyByQuantizedMultiplier(acc, m[c], shift[c]) + output_zero_point)` (ties up for the
    /// ``upwardChannels``).
    @inline(__always)
    func apply(_ accumulator: Int32, channel: Int) -> Int32 {
        if channel < upwardChannels { return applyRoundingUp(accumulator, channel: channel) }
        let scaled = IntegerArithmetic.multiplyByQuantizedMultiplier(accumulator, multipliers[channel], shifts[channel]) + outputZeroPoint
        return min(max(scaled, low), high)
    }
}

/// The integer arithmetic of an 8- or 16-bit MUL or DIV: the inputs' offsets (minus their zero points), the output's
/// zero point, the rescale and the fused activation's clamp.
struct QuantizedBinaryParameters {
    let offset1: Int32, offset2: Int32, outputOffset: Int32
    let multiplier: Int32, shift: Int
    let low: Int32, high: Int32
}

/// A float result (already rounded) clamped to the integer range `low...high` as a float first, so that an infinite
/// value (from hostile scales) cannot trap in the conversion; NaN gives `low`.
@inline(__always)
func clampedToRange(_ value: Float, _ low: Int32, _ high: Int32) -> Int32 {
    value.isNaN ? low : Int32(min(max(value, Float(low)), Float(high)))
}

/// Reads element `i` of a uint8 or int8 tensor as int32.
@inline(__always)
func loadQuantized(_ pointer: UnsafeRawPointer, _ i: Int, signed: Bool) -> Int32 {
    signed ? Int32(pointer.load(fromByteOffset: i, as: Int8.self)) : Int32(pointer.load(fromByteOffset: i, as: UInt8.self))
}

/// `sums[d] += pixel[d]` over `pixels` consecutive pixels of `depth` uint8 or int8 channels: one contiguous pass that
/// vectorizes, for average pooling and means over H and W.
@inline(__always)
func accumulatePixels(_ source: UnsafeRawPointer, pixels: Int, depth: Int, signed: Bool, into sums: UnsafeMutablePointer<Int32>) {
    if signed {
        accumulatePixels(source.assumingMemoryBound(to: Int8.self), pixels: pixels, depth: depth, into: sums)
    } else {
        accumulatePixels(source.assumingMemoryBound(to: UInt8.self), pixels: pixels, depth: depth, into: sums)
    }
}

/// The same over typed elements (int16 too).
@inline(__always)
func accumulatePixels<Element: BinaryInteger>(_ source: UnsafePointer<Element>, pixels: Int, depth: Int, into sums: UnsafeMutablePointer<Int32>) {
    for i in 0..<pixels {
        let pixel = source + i * depth
        for d in 0..<depth { sums[d] &+= Int32(truncatingIfNeeded: pixel[d]) }
    }
}

/// Stores an already clamped value into element `i` of a uint8 or int8 tensor.
@inline(__always)
func storeQuantized(_ pointer: UnsafeMutableRawPointer, _ i: Int, _ value: Int32, signed: Bool) {
    if signed {
        pointer.storeBytes(of: Int8(truncatingIfNeeded: value), toByteOffset: i, as: Int8.self)
    } else {
        pointer.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: i, as: UInt8.self)
    }
}

extension ChannelRequantization {
    /// Requantizes a [rows, channels] matrix of exact integer accumulators (held in a floating-point type) plus an
    /// optional int32 bias into uint8/int8, with TFLite's rounding (`roundingUp`: the GEMM kernels' variant; see
    /// also ``upwardChannels``).
    @inline(__always)
    func requantize<Accumulator: ExactAccumulator>(_ accumulators: UnsafePointer<Accumulator>, rows: Range<Int>, channels: Int,
                                                     bias: UnsafePointer<Int32>?, into output: UnsafeMutableRawPointer,
                                                     signed: Bool, roundingUp: Bool) {
        multipliers.withUnsafeBufferPointer { m in
            shifts.withUnsafeBufferPointer { s in
                let zero = outputZeroPoint, low = self.low, high = self.high
                for r in rows {
                    for c in 0..<channels {
                        let acc = accumulators[r * channels + c].int32 &+ (bias?[c] ?? 0)
                        let scaled = roundsUp(c, kernelRoundsUp: roundingUp)
                            ? IntegerArithmetic.multiplyByQuantizedMultiplierRoundingUp(acc, m[c], s[c])
                            : IntegerArithmetic.multiplyByQuantizedMultiplier(acc, m[c], s[c])
                        let value = min(max(scaled &+ zero, low), high)
                        if signed {
                            output.storeBytes(of: Int8(truncatingIfNeeded: value), toByteOffset: r * channels + c, as: Int8.self)
                        } else {
                            output.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: r * channels + c, as: UInt8.self)
                        }
                    }
                }
            }
        }
    }
}

extension ChannelRequantization {
    /// `fast` numerics: TFLite's fixed-point rescale replayed in double precision, in plain loops the compiler
    /// vectorizes (the integer version needs 64-bit multiplies, which AVX2 lacks). `SaturatingRoundingDoublingHighMul`
    /// is `floor(x·m / 2^31 + 1/2)` (ties toward +infinity, both signs); the final shift rounds ties toward +infinity
    /// (`roundingUp`, the GEMM kernels, and the ``upwardChannels``) or away from zero. Every step is exact in double
    /// except x·m (up to 2^62), rounded to 53 bits: the result can differ from TFLite's by one step only when
    /// x·m / 2^31 lies within 2^-21 of a half, about one value in two million.
    @inline(__always)
    func requantizeFast(_ accumulators: UnsafePointer<Float>, rows: Range<Int>, channels: Int, bias: UnsafePointer<Double>?,
                        into output: UnsafeMutableRawPointer, signed: Bool, roundingUp: Bool) {
        let zero = Double(outputZeroPoint), lowest = Double(low), highest = Double(high)
        let upward = roundingUp ? channels : min(upwardChannels, channels)
        let magic: Double = 6_755_399_441_055_744
        let magicBits = Int64(bitPattern: magic.bitPattern)
        fastMultipliers.withUnsafeBufferPointer { m in
            fastLeft.withUnsafeBufferPointer { l in
                fastRight.withUnsafeBufferPointer { r in
                    let multiplier = m.baseAddress!, left = l.baseAddress!, right = r.baseAddress!
                    withUnsafeTemporaryAllocation(of: Int64.self, capacity: channels) { rounded in
                        let values = rounded.baseAddress!
                        for row in rows {
                            let accumulator = accumulators + row * channels
                            // Two loops rather than `bias?[c] ?? 0`, which compiles to a masked load from the null
                            // pointer: legal, but AMD CPUs take a slow microcode assist on every one.
                            if let bias {
                                for c in 0..<channels { values[c] = Int64(bitPattern: (Double(accumulator[c]) + bias[c]).bitPattern) }
                            } else {
                                for c in 0..<channels { values[c] = Int64(bitPattern: Double(accumulator[c]).bitPattern) }
                            }
                            for c in 0..<channels {
                                let x = Double(bitPattern: UInt64(bitPattern: values[c])) * left[c]
                                let high = (x * multiplier[c] * 0x1p-31 + 0.5).rounded(.down)
                                let y = high * right[c]
                                var v = c < upward ? (y + 0.5).rounded(.down) : (y + Double(signOf: y, magnitudeOf: 0.5)).rounded(.towardZero)
                                v += zero
                                v = v < lowest ? lowest : v
                                v = v > highest ? highest : v
                                values[c] = Int64(bitPattern: (v + magic).bitPattern) &- magicBits
                            }
                            if signed {
                                let out = (output + row * channels).assumingMemoryBound(to: Int8.self)
                                for c in 0..<channels { out[c] = Int8(truncatingIfNeeded: values[c]) }
                            } else {
                                let out = (output + row * channels).assumingMemoryBound(to: UInt8.self)
                                for c in 0..<channels { out[c] = UInt8(truncatingIfNeeded: values[c]) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// TFLite's fixed-point steps in double (see `ChannelRequantization.requantizeFast`): `SaturatingRoundingDoublingHighMul`.
@inline(__always)
func highMultiplyInDouble(_ x: Double, _ multiplier: Double) -> Double {
    (x * multiplier * 0x1p-31 + 0.5).rounded(.down)
}

/// `RoundingDivideByPOT` in double: `x · 2^-exponent` (given as `scale`), ties away from zero.
@inline(__always)
func divideByPowerOfTwoInDouble(_ x: Double, scale: Double) -> Double {
    let y = x * scale
    return (y + Double(signOf: y, magnitudeOf: 0.5)).rounded(.towardZero)
}

/// Writes `x - zeroPoint` for every element of a uint8/int8 tensor into `destination`.
@inline(__always)
func convertQuantized<Value: ExactAccumulator>(_ tensor: Tensor, zeroPoint: Int32, into destination: UnsafeMutablePointer<Value>) {
    if tensor.type == .int8 {
        let src = tensor.pointer(Int8.self)
        for i in 0..<tensor.elementCount { destination[i] = Value(exactly: Int32(src[i]) - zeroPoint) }
    } else if tensor.type == .int16 {
        let src = tensor.pointer(Int16.self)
        for i in 0..<tensor.elementCount { destination[i] = Value(exactly: Int32(src[i]) - zeroPoint) }
    } else {
        let src = tensor.pointer(UInt8.self)
        for i in 0..<tensor.elementCount { destination[i] = Value(exactly: Int32(src[i]) - zeroPoint) }
    }
}

/// A floating-point type holding exact integer accumulators. The conversions are concrete per type: Swift's
/// generic `BinaryFloatingPoint` <-> integer conversions take a slow bit-by-bit path (a large share of a quantized
/// model's run).
protocol ExactAccumulator {
    init(exactly value: Int32)
    var int32: Int32 { get }
}

extension Double: ExactAccumulator {
    @inline(__always) init(exactly value: Int32) { self.init(value) }
    @inline(__always) var int32: Int32 { Int32(self) }
}

extension Float: ExactAccumulator {
    @inline(__always) init(exactly value: Int32) { self.init(value) }
    @inline(__always) var int32: Int32 { Int32(self) }
}

