#if LITE_AVX2
import _Builtin_intrinsics.intel
#endif

/// SQUARED_DIFFERENCE: (a - b)² with broadcasting; float32, or int8 with TFLite's integer arithmetic
/// (squared_difference.cc): each input, less its zero point and shifted left by 7, is rescaled to twice the larger
/// input scale, the difference squared in int32, and the square rescaled to the output by
/// `(2·max_scale)² / (2^14 · output_scale)`; every rescale is `MultiplyByQuantizedMultiplier` with a multiplier below one.
final class SquaredDifference: BinaryElementwise, FloatBinaryOperation {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { (a - b) * (a - b) }

    struct QuantizedParameters {
        let offset1: Int32, offset2: Int32, outputOffset: Int32
        let multiplier1: Int32, shift1: Int, multiplier2: Int32, shift2: Int
        let outputMultiplier: Int32, outputShift: Int
    }

    var quantized: QuantizedParameters?

    /// The left shift that makes room below the rescaled inputs' integer part (7 for int8, as TFLite's kernel).
    static let leftShift = 7

    override func prepare() throws {
        let a = try input(0), b = try input(1), output = try self.output(0)
        guard a.type == .int8 else { return try super.prepare() }
        guard b.type == .int8, output.type == .int8 else { throw KernelError.unsupported("SQUARED_DIFFERENCE of \(a.type) and \(b.type) into \(output.type)") }
        let qa = try QuantizedTensorInfo(a), qb = try QuantizedTensorInfo(b), qo = try QuantizedTensorInfo(output)
        for zero in [qa.zeroPoint, qb.zeroPoint, qo.zeroPoint] where !(-128...127).contains(zero) {
            throw KernelError.invalid("int8 zero point \(zero) out of range")
        }
        let twiceMaximumScale = 2 * Double(max(qa.scale, qb.scale))
        let (m1, s1) = IntegerArithmetic.quantizeMultiplier(Double(qa.scale) / twiceMaximumScale)
        let (m2, s2) = IntegerArithmetic.quantizeMultiplier(Double(qb.scale) / twiceMaximumScale)
        let (mo, so) = IntegerArithmetic.quantizeMultiplier(twiceMaximumScale * twiceMaximumScale / (Double(1 << (2 * Self.leftShift)) * Double(qo.scale)))
        guard so <= 0 else { throw KernelError.unsupported("SQUARED_DIFFERENCE output rescale above one (output scale \(qo.scale))") }
        quantized = QuantizedParameters(offset1: -qa.zeroPoint, offset2: -qb.zeroPoint, outputOffset: qo.zeroPoint,
                                        multiplier1: m1, shift1: s1, multiplier2: m2, shift2: s2, outputMultiplier: mo, outputShift: so)
        output.shape = try broadcastShape(a.shape, b.shape)
    }

    override func run(_ context: RunContext) throws {
        guard let q = quantized else { return compute(context.threads, SquaredDifference.self) }
        let a = node.inputs[0]!, b = node.inputs[1]!, output = node.outputs[0]
        let pa = UnsafePointer<Int8>(OpaquePointer(a.data!)), pb = UnsafePointer<Int8>(OpaquePointer(b.data!))
        let out = output.data!.assumingMemoryBound(to: Int8.self)
        #if LITE_AVX2
        let rescales = node.numerics == .fast ? vectorRescales : nil
        #endif
        forEachBroadcastRun(aShape: a.shape, bShape: b.shape, outShape: output.shape) { o, ia, stepA, ib, stepB, count in
            var k = 0
            #if LITE_AVX2
            if let rescales { k = Self.squareEight(pa + ia, stepA, pb + ib, stepB, out + o, count, q, rescales) }
            #endif
            while k < count {
                let x = (Int32(pa[ia + k * stepA]) + q.offset1) << Int32(Self.leftShift)
                let y = (Int32(pb[ib + k * stepB]) + q.offset2) << Int32(Self.leftShift)
                // Each rescaled input is below 2^15 in magnitude (half of 255·2^7), so the square fits in int32.
                let difference = IntegerArithmetic.multiplyByQuantizedMultiplier(x, q.multiplier1, q.shift1)
                    - IntegerArithmetic.multiplyByQuantizedMultiplier(y, q.multiplier2, q.shift2)
                let value = IntegerArithmetic.multiplyByQuantizedMultiplier(difference * difference, q.outputMultiplier, q.outputShift) + q.outputOffset
                out[o + k] = Int8(truncatingIfNeeded: min(max(value, -128), 127))
                k += 1
            }
        }
    }

    #if LITE_AVX2
    private var vectorRescales: (EightLaneRescale, EightLaneRescale, EightLaneRescale)? {
        guard let q = quantized, let r1 = EightLaneRescale(multiplier: q.multiplier1, shift: q.shift1),
              let r2 = EightLaneRescale(multiplier: q.multiplier2, shift: q.shift2),
              let ro = EightLaneRescale(multiplier: q.outputMultiplier, shift: q.outputShift) else { return nil }
        return (r1, r2, ro)
    }

    /// The whole groups of eight of a run, exactly as the scalar loop (`fast` numerics in AVX2 builds); returns how
    /// many it wrote. A step of 0 repeats the operand's one value in every lane.
    @inline(__always)
    static func squareEight(_ x: UnsafePointer<Int8>, _ stepA: Int, _ y: UnsafePointer<Int8>, _ stepB: Int, _ out: UnsafeMutablePointer<Int8>,
                            _ count: Int, _ q: QuantizedParameters, _ r: (EightLaneRescale, EightLaneRescale, EightLaneRescale)) -> Int {
        let offset1 = _mm256_set1_epi32(q.offset1), offset2 = _mm256_set1_epi32(q.offset2), zero = _mm256_set1_epi32(q.outputOffset)
        let low = _mm256_set1_epi32(-128), high = _mm256_set1_epi32(127)
        @inline(__always) func scaled(_ v: __m256i, _ offset: __m256i, _ rescale: EightLaneRescale) -> __m256i {
            rescale.apply(_mm256_slli_epi32(_mm256_add_epi32(v, offset), Int32(leftShift)))
        }
        let repeatedA = scaled(broadcastByte(x, signed: true), offset1, r.0), repeatedB = scaled(broadcastByte(y, signed: true), offset2, r.1)
        var k = 0
        while k + 8 <= count {
            let sa = stepA == 0 ? repeatedA : scaled(widenEightBytes(x + k, signed: true), offset1, r.0)
            let sb = stepB == 0 ? repeatedB : scaled(widenEightBytes(y + k, signed: true), offset2, r.1)
            let difference = _mm256_sub_epi32(sa, sb)
            let value = _mm256_add_epi32(r.2.apply(_mm256_mullo_epi32(difference, difference)), zero)
            let clamped = _mm256_min_epi32(_mm256_max_epi32(value, low), high)
            _mm_storel_epi64(UnsafeMutableRawPointer(out + k).assumingMemoryBound(to: __m128i_u.self), packBytes8(clamped, unsigned: false))
            k += 8
        }
        return k
    }
    #endif
}
