import LiteFormat
#if LITE_AVX2 || LITE_AVX512_VNNI
import _Builtin_intrinsics.intel
#endif

/// ADD: a + b with broadcasting and a fused activation; float32, or uint8/int8 with TFLite's integer
/// arithmetic (add.cc, optimized_ops AddElementwise): both inputs are shifted left by 20 bits, rescaled to
/// twice the larger input scale, summed, and the sum rescaled to the output.
///
/// The input rescale ends with a *truncating* right shift, not a rounding one: LiteRT's builds run the NEON
/// version of AddElementwise (emulated with SSE on x86), which uses `vshlq_s32` there and rounds only the
/// output. The reference kernel rounds both; on real photos the two disagree on exact ties (MobileNetV2
/// birds on pets.jpg: one value of 75,264), and LiteRT's results are the ones to match.
///
/// SUB (a subclass) is the same kernel with the second input's multiplier negated, as TFLite's sub.cc does.
///
/// int32 and int64 (a loop counter in a WHILE body, index arithmetic) add as TFLite's reference kernel does: in the
/// type, wrapping, then clamped to the fused activation's integer range.
class Add: BinaryElementwise {
    override class var hasFusedActivation: Bool { true }
    /// SUB: the second input's rescale multiplier is negated.
    class var subtracts: Bool { false }

    struct QuantizedParameters {
        let offset1: Int32, offset2: Int32, outputOffset: Int32
        let multiplier1: Int32, shift1: Int
        let multiplier2: Int32, shift2: Int
        let outputMultiplier: Int32, outputShift: Int
        let leftShift: Int32
        let low: Int32, high: Int32
        /// `fast` numerics: the multipliers as doubles and the shifts as factors.
        let fast: (m1: Double, r1: Double, m2: Double, r2: Double, mo: Double, lo: Double, ro: Double)
    }

    var quantized: QuantizedParameters?
    enum Sum: FloatBinaryOperation { @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a + b } }
    enum Difference: FloatBinaryOperation { @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a - b } }

    override func prepare() throws {
        let a = try input(0), b = try input(1), output = try self.output(0)
        if try prepareIntegers() { return }
        guard a.type == .uint8 || a.type == .int8 || a.type == .int16 else { return try super.prepare() }
        guard b.type == a.type, output.type == a.type else { throw KernelError.unsupported("\(node.code) of \(a.type) and \(b.type) into \(output.type)") }
        let qa = try QuantizedTensorInfo(a), qb = try QuantizedTensorInfo(b), qo = try QuantizedTensorInfo(output)
        if a.type == .int16 {
            try Int16Activations.expectSymmetric(a, b, output)
            let powersOfTwo = [qa.scale, qb.scale, qo.scale].allSatisfy { $0.significand == 1 }
            if try ArithmeticOptions(node.options).potScaleInt16 && powersOfTwo {
                throw KernelError.unsupported("int16 \(node.code) on power-of-two scales (TFLite's shift-only LSTM path)")
            }
        }
        // int16 shifts by 15: 65535 << 15 still fits the int32 sum.
        let leftShift: Int32 = a.type == .int16 ? 15 : 20
        let twiceMaxInputScale = 2 * Double(max(qa.scale, qb.scale))
        let (m1, s1) = IntegerArithmetic.quantizeMultiplier(Double(qa.scale) / twiceMaxInputScale)
        var (m2, s2) = IntegerArithmetic.quantizeMultiplier(Double(qb.scale) / twiceMaxInputScale)
        if Self.subtracts { m2 = -m2 }
        let (mo, so) = IntegerArithmetic.quantizeMultiplier(twiceMaxInputScale / (Double(1 << leftShift) * Double(qo.scale)))
        guard s1 <= 0, s2 <= 0, so <= 0 else { throw KernelError.unsupported("\(node.code) rescaling multipliers above 1") }
        let (typeMin, typeMax) = try quantizedRange(output.type)
        let (low, high) = try IntegerArithmetic.activationRange(try ArithmeticOptions(node.options).activation, scale: qo.scale,
                                                                zeroPoint: qo.zeroPoint, typeMin: typeMin, typeMax: typeMax)
        quantized = QuantizedParameters(offset1: -qa.zeroPoint, offset2: -qb.zeroPoint, outputOffset: qo.zeroPoint,
                                        multiplier1: m1, shift1: s1, multiplier2: m2, shift2: s2, outputMultiplier: mo, outputShift: so,
                                        leftShift: leftShift, low: low, high: high,
                                        fast: (Double(m1), Double(sign: .plus, exponent: s1, significand: 1),
                                               Double(m2), Double(sign: .plus, exponent: s2, significand: 1),
                                               Double(mo), so > 0 ? Double(sign: .plus, exponent: so, significand: 1) : 1,
                                               so > 0 ? 1 : Double(sign: .plus, exponent: so, significand: 1)))
        output.shape = try broadcastShape(a.shape, b.shape)
    }

    /// The folded PAD whose input this ADD reads in place of its operand `operand` (``takeChannelPad(_:of:)``).
    private var channelPad: (kernel: Kernel, operand: Int)?

    override func takeChannelPad(_ pad: Kernel, of operand: Int) -> Bool {
        guard !Self.subtracts, channelPad == nil, node.inputs.allSatisfy({ $0?.type == .float32 }), node.outputs[0].type == .float32 else { return false }
        channelPad = (pad, operand)
        return true
    }

    /// `other + pad(x)` with the padding read as zeros, one output row (the last axis) at a time: the row's first
    /// channels are sums, the rest `other + 0` (so −0 reads +0, as after a real PAD). Shapes this loop does not take
    /// (a broadcast after a resize) run the PAD and the ordinary sum.
    private func addChannelPadded(_ pad: Kernel, operand: Int, _ context: RunContext) throws {
        let source = pad.node.inputs[0]!, other = node.inputs[1 - operand]!, output = node.outputs[0]
        let channels = output.shape.last ?? 0, sourceChannels = source.shape.last ?? 0
        guard other.shape == output.shape, source.rank == output.rank, source.shape.dropLast() == output.shape.dropLast(),
              sourceChannels <= channels, channels > 0 else {
            try pad.run(context)
            return compute(context.threads, Sum.self)
        }
        let x = source.floats, y = other.floats, out = output.floats, (low, high) = activation
        // Addition is commutative bit for bit (one NaN operand: that NaN; two: the first's payload, which the order
        // keeps).
        let (first, second, firstStride) = operand == 0 ? (UnsafePointer(x), UnsafePointer(y), sourceChannels) : (UnsafePointer(y), UnsafePointer(x), channels)
        let secondStride = operand == 0 ? channels : sourceChannels
        parallelFor(output.elementCount / channels, threads: context.threads, minimumChunk: 16, workPerItem: 4 * channels) { rows in
            for r in rows {
                Self.addRow(first + r * firstStride, second + r * secondStride, out + r * channels, count: sourceChannels, low: low, high: high)
                Self.addRow(y + r * channels + sourceChannels, nil, out + r * channels + sourceChannels, count: channels - sourceChannels,
                            low: low, high: high)
            }
        }
    }

    /// `clamp(a[i] + b[i])`, or `clamp(a[i] + 0)` without `b`, for `i < count`: eight lanes at a time, since rows of
    /// 24-96 channels are too short for the compiler's vector loop (which takes 32 at a time, leaving them scalar).
    @inline(__always)
    private static func addRow(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>?, _ out: UnsafeMutablePointer<Float>, count: Int,
                               low: Float, high: Float) {
        var i = 0
        let low8 = SIMD8<Float>(repeating: low), high8 = SIMD8<Float>(repeating: high)
        while i + 8 <= count {
            let x = UnsafeRawPointer(a + i).loadUnaligned(as: SIMD8<Float>.self)
            let y = b.map { UnsafeRawPointer($0 + i).loadUnaligned(as: SIMD8<Float>.self) } ?? SIMD8<Float>(repeating: 0)
            UnsafeMutableRawPointer(out + i).storeBytes(of: SIMD8<Float>.clamp(x + y, low8, high8), as: SIMD8<Float>.self)
            i += 8
        }
        while i < count {
            out[i] = Float.clamp(a[i] + (b?[i] ?? 0), low, high)
            i += 1
        }
    }

    override func run(_ context: RunContext) throws {
        if let (pad, operand) = channelPad { return try addChannelPadded(pad, operand: operand, context) }
        if integerRange != nil { return Self.subtracts ? computeIntegers { $0 &- $1 } : computeIntegers { $0 &+ $1 } }
        guard let q = quantized else { return Self.subtracts ? compute(context.threads, Difference.self) : compute(context.threads, Sum.self) }
        let a = node.inputs[0]!, b = node.inputs[1]!, output = node.outputs[0]
        if a.type == .int16 { return addInt16(a, b, output, q) }
        let signed = a.type == .int8
        let pa = UnsafeRawPointer(a.data!), pb = UnsafeRawPointer(b.data!), out = output.data!
        if node.numerics == .fast && a.shape == b.shape && Self.addsExactlyInRegisters(q) {
            parallelFor(a.elementCount, threads: context.threads, minimumChunk: 64, workPerItem: 4) { range in
                Self.addExact(pa + range.lowerBound, pb + range.lowerBound, out + range.lowerBound, range.count, q, signed: signed)
            }
            return
        }
        if node.numerics == .fast && a.shape == b.shape {
            parallelFor(a.elementCount, threads: context.threads, minimumChunk: 64, workPerItem: 8) { range in
                let (start, count) = (range.lowerBound, range.count)
                if signed {
                    Self.addFast(pa.assumingMemoryBound(to: Int8.self) + start, pb.assumingMemoryBound(to: Int8.self) + start,
                                 out.assumingMemoryBound(to: Int8.self) + start, count, q)
                } else {
                    Self.addFast(pa.assumingMemoryBound(to: UInt8.self) + start, pb.assumingMemoryBound(to: UInt8.self) + start,
                                 out.assumingMemoryBound(to: UInt8.self) + start, count, q)
                }
            }
            return
        }
        forEachBroadcastPair(aShape: a.shape, bShape: b.shape, outShape: output.shape) { i, ia, ib in
            let x = (loadQuantized(pa, ia, signed: signed) + q.offset1) << q.leftShift
            let y = (loadQuantized(pb, ib, signed: signed) + q.offset2) << q.leftShift
            let sum = (IntegerArithmetic.saturatingRoundingDoublingHighMul(x, q.multiplier1) >> Int32(-q.shift1))
                &+ (IntegerArithmetic.saturatingRoundingDoublingHighMul(y, q.multiplier2) >> Int32(-q.shift2))
            let value = IntegerArithmetic.multiplyByQuantizedMultiplier(sum, q.outputMultiplier, q.outputShift) + q.outputOffset
            storeQuantized(out, i, min(max(value, q.low), q.high), signed: signed)
        }
    }
}

extension Add {
    /// int16 (16x8 models, general scales): TFLite's AddElementwise with a left shift of 15. Inputs of one shape take
    /// LiteRT's NEON loop (emulated on x86) in whole groups of 16: each input shifted left by `15 + shift` and rescaled by
    /// one rounding high multiply (`vqrdmulh`, ties up); the elements left over, and broadcasts, take the reference
    /// arithmetic, where the input rescale rounds twice (`MultiplyByQuantizedMultiplierSmallerThanOneExp` of `x << 15`).
    /// The two differ by one in an input's rescale on about a quarter of the values and in the output only next to its
    /// rounding ties (`q16_add_large`: 1 of 65,536). SUB keeps the reference arithmetic throughout, as LiteRT's outputs
    /// show (`q16_sub_large`).
    func addInt16(_ a: Tensor, _ b: Tensor, _ output: Tensor, _ q: QuantizedParameters) {
        let pa = a.pointer(Int16.self), pb = b.pointer(Int16.self), out = output.pointer(Int16.self)
        var start = 0
        if a.shape == b.shape && !Self.subtracts {
            start = a.elementCount / 16 * 16
            let shift1 = Int32(q.leftShift) + Int32(q.shift1), shift2 = Int32(q.leftShift) + Int32(q.shift2)
            for i in 0..<start {
                let x = Self.roundingHighMultiply(Self.neonShift(Int32(pa[i]) + q.offset1, shift1), q.multiplier1)
                let y = Self.roundingHighMultiply(Self.neonShift(Int32(pb[i]) + q.offset2, shift2), q.multiplier2)
                let sum = Self.roundingHighMultiply(x &+ y, q.outputMultiplier)
                let value = IntegerArithmetic.roundingDivideByPOT(sum, -q.outputShift) + q.outputOffset
                out[i] = Int16(truncatingIfNeeded: min(max(value, q.low), q.high))
            }
        }
        forEachBroadcastPair(aShape: a.shape, bShape: b.shape, outShape: output.shape) { i, ia, ib in
            guard i >= start else { return }
            let x = (Int32(pa[ia]) + q.offset1) << q.leftShift
            let y = (Int32(pb[ib]) + q.offset2) << q.leftShift
            let sum = IntegerArithmetic.multiplyByQuantizedMultiplier(x, q.multiplier1, q.shift1)
                &+ IntegerArithmetic.multiplyByQuantizedMultiplier(y, q.multiplier2, q.shift2)
            let value = IntegerArithmetic.multiplyByQuantizedMultiplier(sum, q.outputMultiplier, q.outputShift) + q.outputOffset
            out[i] = Int16(truncatingIfNeeded: min(max(value, q.low), q.high))
        }
    }

    /// NEON's `vshlq_s32`: a left shift, or for a negative count a truncating arithmetic right shift (wrapping like the
    /// 32-bit lane).
    @inline(__always)
    static func neonShift(_ x: Int32, _ count: Int32) -> Int32 {
        count >= 0 ? x &<< count : x >> min(-count, 31)
    }

    /// NEON's `vqrdmulhq_s32`: `(2·x·m + 2^31) >> 32`, ties up, saturating the one overflow (both operands INT32_MIN).
    @inline(__always)
    static func roundingHighMultiply(_ x: Int32, _ m: Int32) -> Int32 {
        if x == .min && m == .min { return .max }
        return Int32(truncatingIfNeeded: (Int64(x) * Int64(m) + (1 << 30)) >> 31)
    }
}

extension Add {
    /// `fast` numerics for inputs of one shape: the integer ADD above (inputs shifted left 20 bits, each rescaled,
    /// summed, the sum rescaled) replayed in double in a plain loop the compiler vectorizes; see
    /// `ChannelRequantization.requantizeFast` for why it equals the integer result except within 2^-21 of a tie.
    @inline(__always)
    static func addFast<Element: FixedWidthInteger>(_ a: UnsafePointer<Element>, _ b: UnsafePointer<Element>, _ out: UnsafeMutablePointer<Element>,
                                                     _ count: Int, _ q: QuantizedParameters) {
        let f = q.fast
        let shift = Double(sign: .plus, exponent: Int(q.leftShift), significand: 1)
        let offset1 = Double(q.offset1), offset2 = Double(q.offset2)
        let zero = Double(q.outputOffset), lowest = Double(q.low), highest = Double(q.high)
        let magic: Double = 6_755_399_441_055_744
        let magicBits = Int64(bitPattern: magic.bitPattern)
        for i in 0..<count {
            let x = (Double(Int32(truncatingIfNeeded: a[i])) + offset1) * shift
            let y = (Double(Int32(truncatingIfNeeded: b[i])) + offset2) * shift
            // The inputs' rescale ends in a plain arithmetic shift (floor), as the integer kernel above.
            let sum = (highMultiplyInDouble(x, f.m1) * f.r1).rounded(.down) + (highMultiplyInDouble(y, f.m2) * f.r2).rounded(.down)
            var v = divideByPowerOfTwoInDouble(highMultiplyInDouble(sum * f.lo, f.mo), scale: f.ro) + zero
            v = v < lowest ? lowest : v
            v = v > highest ? highest : v
            out[i] = Element(truncatingIfNeeded: Int64(bitPattern: (v + magic).bitPattern) &- magicBits)
        }
    }
}

extension Add {
    /// Whether `addExact` runs: an AVX-512 or AVX2 build, and an output rescale whose right shift keeps its rounding
    /// inside 32-bit lanes (see `addExact`); AVX2 also needs the inputs' total shifts at most 62.
    static func addsExactlyInRegisters(_ q: QuantizedParameters) -> Bool {
        guard q.outputShift >= -22 else { return false }
        return QuantizedGEMM.isUsed || (QuantizedGEMMAVX2.isUsed && q.shift1 >= -31 && q.shift2 >= -31)
    }

    /// `fast` numerics for inputs of one shape in AVX-512 builds: the integer ADD above, exactly, 16 elements per step
    /// (AVX2 builds: 8).
    /// Each input's rescale `SaturatingRoundingDoublingHighMul(x, m) >> s` is `⌊(x·m + 2^30) / 2^(31+s)⌋` (the high
    /// multiply is `⌊(x·m + 2^30) / 2^31⌋` for either sign of the product, and floors nest), one 64-bit add and shift;
    /// x = (value + offset)·2^20 is below 2^29 in magnitude, so the saturating case never arises. The output rescale
    /// rounds ties away from zero, done as in `QuantizedDepthwiseDotProduct`: `t = ⌊(sum·m + 2^30) / 2^31⌋ + K` with
    /// `K = 2^(r-1) + zero·2^r`, one less where `t < K` (a negative high product) and r > 0, then `t >> r`. Both input
    /// rescales halve at least, so |sum| < 2^30, |t - K| < 2^30 and |K| < 2^30 for r ≤ 22: t fits int32.
    static func addExact(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ out: UnsafeMutableRawPointer, _ count: Int,
                         _ q: QuantizedParameters, signed: Bool) {
        #if LITE_AVX512_VNNI
        let right = -q.outputShift
        let k = (right > 0 ? Int64(1) << (right - 1) : 0) + Int64(q.outputOffset) << right
        let offset1 = _mm512_set1_epi32(q.offset1), offset2 = _mm512_set1_epi32(q.offset2)
        let m1 = _mm512_set1_epi64(Int64(q.multiplier1)), m2 = _mm512_set1_epi64(Int64(q.multiplier2))
        let mo = _mm512_set1_epi64(Int64(q.outputMultiplier))
        let nudge = _mm512_set1_epi64(1 << 30), outputNudge = _mm512_set1_epi64((1 << 30) + k << 31)
        let shift1 = _mm_cvtsi64_si128(Int64(31 - q.shift1)), shift2 = _mm_cvtsi64_si128(Int64(31 - q.shift2))
        let shift31 = _mm_cvtsi64_si128(31), outputShift = _mm_cvtsi64_si128(Int64(right))
        let offsetK = SIMD16<Int32>(repeating: Int32(truncatingIfNeeded: k)), tieAdjust = SIMD16<Int32>(repeating: right > 0 ? 1 : 0)
        let lowest = _mm512_set1_epi32(q.low), highest = _mm512_set1_epi32(q.high)
        // `(x·m + nudge) >> shift` per lane, x in 32-bit lanes, m and nudge in 64-bit ones.
        @inline(__always) func rescale(_ x: __m512i, _ m: __m512i, _ nudge: __m512i, _ shift: __m128i) -> __m512i {
            let even = _mm512_sra_epi64(_mm512_add_epi64(_mm512_mul_epi32(x, m), nudge), shift)
            let odd = _mm512_sra_epi64(_mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), m), nudge), shift)
            return joinEvenOddLanes(even, odd)
        }
        @inline(__always) func widen(_ pointer: UnsafeRawPointer, _ mask: UInt16) -> __m512i {
            let bytes = _mm_maskz_loadu_epi8(mask, pointer)
            return signed ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes)
        }
        var i = 0
        while i < count {
            let mask = UInt16(truncatingIfNeeded: count - i >= 16 ? 0xFFFF : (1 << (count - i)) - 1)
            let x = _mm512_slli_epi32(_mm512_add_epi32(widen(a + i, mask), offset1), 20)
            let y = _mm512_slli_epi32(_mm512_add_epi32(widen(b + i, mask), offset2), 20)
            let sum = _mm512_add_epi32(rescale(x, m1, nudge, shift1), rescale(y, m2, nudge, shift2))
            var t = unsafeBitCast(rescale(sum, mo, outputNudge, shift31), to: SIMD16<Int32>.self)
            t.replace(with: t &- tieAdjust, where: t .< offsetK)
            let v = _mm512_min_epi32(_mm512_max_epi32(_mm512_sra_epi32(unsafeBitCast(t, to: __m512i.self), outputShift), lowest), highest)
            let bytes = _mm512_cvtepi32_epi8(v)
            if mask == 0xFFFF {
                _mm_storeu_si128((out + i).assumingMemoryBound(to: __m128i_u.self), bytes)
            } else {
                _mm_mask_storeu_epi8(out + i, mask, bytes)
            }
            i += 16
        }
        #elseif LITE_AVX2
        let right = -q.outputShift
        let k = (right > 0 ? Int64(1) << (right - 1) : 0) + Int64(q.outputOffset) << right
        let offset1 = _mm256_set1_epi32(q.offset1), offset2 = _mm256_set1_epi32(q.offset2)
        let m1 = _mm256_set1_epi64x(Int64(q.multiplier1)), m2 = _mm256_set1_epi64x(Int64(q.multiplier2))
        let mo = _mm256_set1_epi64x(Int64(q.outputMultiplier))
        // AVX2 shifts 64-bit lanes right only logically: (t + 2^63 as unsigned) >> s = (t >> s) + 2^(63-s), so the
        // nudges carry 2^63 and the shifted bias is taken off after.
        @inline(__always) func biased(_ nudge: Int64, _ shift: Int64) -> (__m256i, __m256i, __m128i) {
            (_mm256_set1_epi64x(nudge &+ Int64.min), _mm256_set1_epi64x(1 &<< (63 &- shift)), _mm_cvtsi64_si128(shift))
        }
        let input1 = biased(1 << 30, Int64(31 - q.shift1)), input2 = biased(1 << 30, Int64(31 - q.shift2))
        let output = biased((1 << 30) + k << 31, 31)
        let outputShift = _mm_cvtsi64_si128(Int64(right))
        let offsetK = _mm256_set1_epi32(Int32(truncatingIfNeeded: k)), tieAdjust = _mm256_set1_epi32(right > 0 ? -1 : 0)
        let lowest = _mm256_set1_epi32(q.low), highest = _mm256_set1_epi32(q.high)
        // `(x·m + nudge) >> shift` per lane, x in 32-bit lanes, m and nudge in 64-bit ones.
        @inline(__always) func rescale(_ x: __m256i, _ m: __m256i, _ shift: (__m256i, __m256i, __m128i)) -> __m256i {
            let even = _mm256_sub_epi64(_mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epi32(x, m), shift.0), shift.2), shift.1)
            let odd = _mm256_sub_epi64(_mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), m), shift.0), shift.2), shift.1)
            return joinEvenOddLanes8(even, odd)
        }
        @inline(__always) func eight(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer) -> __m128i {
            @inline(__always) func widen(_ pointer: UnsafeRawPointer) -> __m256i {
                let bytes = _mm_loadl_epi64(pointer.assumingMemoryBound(to: __m128i_u.self))
                return signed ? _mm256_cvtepi8_epi32(bytes) : _mm256_cvtepu8_epi32(bytes)
            }
            let x = _mm256_slli_epi32(_mm256_add_epi32(widen(a), offset1), 20)
            let y = _mm256_slli_epi32(_mm256_add_epi32(widen(b), offset2), 20)
            let sum = _mm256_add_epi32(rescale(x, m1, input1), rescale(y, m2, input2))
            var t = rescale(sum, mo, output)
            t = _mm256_add_epi32(t, _mm256_and_si256(_mm256_cmpgt_epi32(offsetK, t), tieAdjust))
            let v = _mm256_min_epi32(_mm256_max_epi32(_mm256_sra_epi32(t, outputShift), lowest), highest)
            return packBytes8(v, unsigned: !signed)
        }
        var i = 0
        while i + 8 <= count {
            _mm_storel_epi64((out + i).assumingMemoryBound(to: __m128i_u.self), eight(a + i, b + i))
            i += 8
        }
        if i < count {
            // The last values through 8-byte buffers, so that no load or store passes the tensors' ends.
            var tail: (UInt64, UInt64, UInt64) = (0, 0, 0)
            withUnsafeMutableBytes(of: &tail) { buffer in
                let base = buffer.baseAddress!
                base.copyMemory(from: a + i, byteCount: count - i)
                (base + 8).copyMemory(from: b + i, byteCount: count - i)
                _mm_storel_epi64((base + 16).assumingMemoryBound(to: __m128i_u.self), eight(base, base + 8))
                (out + i).copyMemory(from: base + 16, byteCount: count - i)
            }
        }
        #else
        preconditionFailure("Add.addExact needs a build with LITE_AVX2 or LITE_AVX512_VNNI")
        #endif
    }
}

extension Add {
}

/// Calls `body(outputIndex, aIndex, bIndex)` for every output element of a numpy broadcast.
@inline(__always)
func forEachBroadcastPair(aShape: [Int], bShape: [Int], outShape: [Int], _ body: (Int, Int, Int) -> Void) {
    forEachBroadcastRun(aShape: aShape, bShape: bShape, outShape: outShape) { o, ia, stepA, ib, stepB, count in
        for k in 0..<count { body(o + k, ia + k * stepA, ib + k * stepB) }
    }
}
