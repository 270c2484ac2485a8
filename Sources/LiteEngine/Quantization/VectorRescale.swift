#if LITE_AVX2
import _Builtin_intrinsics.intel

/// TFLite's `MultiplyByQuantizedMultiplier(x, m, shift)` (double rounding) on eight int32 lanes, exactly, for the
/// elementwise int8 and int16 kernels (MUL, SQUARED_DIFFERENCE) in AVX2 builds.
///
/// `x` is first shifted left by `max(shift, 0)` (wrapping, as TFLite's int32 arithmetic). The high multiply
/// `SaturatingRoundingDoublingHighMul(y, m)` is `⌊(y·m + 2^30) / 2^31⌋` for either sign of the product (m > 0, so its
/// saturating case never arises), computed in 64-bit lanes; AVX2 shifts those only logically, so the nudge carries
/// 2^63 and 2^32 is taken off after the shift. `RoundingDivideByPOT(h, r)` then rounds half away from zero in 32-bit
/// lanes: `(h >> r) + (remainder > threshold)`, the threshold one larger for negative h.
struct EightLaneRescale {
    private let multiplier: __m256i, nudge: __m256i, bias: __m256i
    private let leftShift: __m128i, rightShift: __m128i
    private let mask: __m256i, halfMask: __m256i

    /// nil outside the shifts a 32-bit lane can take (hostile scales); callers then take their scalar loop.
    init?(multiplier m: Int32, shift: Int) {
        guard m >= 0, (-31...30).contains(shift) else { return nil }
        multiplier = _mm256_set1_epi64x(Int64(m))
        nudge = _mm256_set1_epi64x((1 << 30) &+ Int64.min)
        bias = _mm256_set1_epi64x(1 << 32)
        leftShift = _mm_cvtsi64_si128(Int64(max(shift, 0)))
        let right = max(-shift, 0)
        rightShift = _mm_cvtsi64_si128(Int64(right))
        let maskValue = Int32(truncatingIfNeeded: (Int64(1) << right) - 1)
        mask = _mm256_set1_epi32(maskValue)
        halfMask = _mm256_set1_epi32(maskValue >> 1)
    }

    @inline(__always)
    func apply(_ x: __m256i) -> __m256i {
        let y = _mm256_sll_epi32(x, leftShift)
        let shift31 = _mm_cvtsi64_si128(31)
        let even = _mm256_sub_epi64(_mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epi32(y, multiplier), nudge), shift31), bias)
        let odd = _mm256_sub_epi64(_mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(y, 32), multiplier), nudge), shift31), bias)
        let high = joinEvenOddLanes8(even, odd)
        let remainder = _mm256_and_si256(high, mask)
        // cmpgt gives -1 where true: subtracting it adds one.
        let threshold = _mm256_sub_epi32(halfMask, _mm256_cmpgt_epi32(_mm256_setzero_si256(), high))
        return _mm256_sub_epi32(_mm256_sra_epi32(high, rightShift), _mm256_cmpgt_epi32(remainder, threshold))
    }
}

/// `out[i] = clamp(MultiplyByQuantizedMultiplier(sums[i], m, shift) + zero, low, high)` as int8 for the whole groups
/// of eight of `count`; returns how many it wrote.
@inline(__always)
func requantizeEight(_ sums: UnsafePointer<Int32>, _ out: UnsafeMutablePointer<Int8>, _ count: Int, _ rescale: EightLaneRescale,
                     zero: Int32, low: Int32, high: Int32) -> Int {
    let zeros = _mm256_set1_epi32(zero), lows = _mm256_set1_epi32(low), highs = _mm256_set1_epi32(high)
    var k = 0
    while k + 8 <= count {
        let sum = _mm256_loadu_si256(UnsafeRawPointer(sums + k).assumingMemoryBound(to: __m256i_u.self))
        let value = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(rescale.apply(sum), zeros), lows), highs)
        _mm_storel_epi64(UnsafeMutableRawPointer(out + k).assumingMemoryBound(to: __m128i_u.self), packBytes8(value, unsigned: false))
        k += 8
    }
    return k
}

/// Eight int8 or uint8 values from `pointer` as int32 lanes.
@inline(__always)
func widenEightBytes(_ pointer: UnsafeRawPointer, signed: Bool) -> __m256i {
    let bytes = _mm_loadl_epi64(pointer.assumingMemoryBound(to: __m128i_u.self))
    return signed ? _mm256_cvtepi8_epi32(bytes) : _mm256_cvtepu8_epi32(bytes)
}

/// Eight int8, uint8 or int16 values as int32 lanes.
@inline(__always)
func widenEight<Element: FixedWidthInteger>(_ pointer: UnsafePointer<Element>) -> __m256i {
    guard Element.bitWidth == 16 else { return widenEightBytes(pointer, signed: Element.isSigned) }
    return _mm256_cvtepi16_epi32(_mm_loadu_si128(UnsafeRawPointer(pointer).assumingMemoryBound(to: __m128i_u.self)))
}

/// Eight int32 lanes already clamped to `Element`'s range, stored as eight int8, uint8 or int16 values.
@inline(__always)
func storeEight<Element: FixedWidthInteger>(_ value: __m256i, _ pointer: UnsafeMutablePointer<Element>) {
    if Element.bitWidth == 16 {
        // packs works within 128-bit halves: [v0-3 v0-3 | v4-7 v4-7] as words; 32-bit elements 0, 1, 4, 5 are v0-7.
        let words = _mm256_packs_epi32(value, value)
        let ordered = _mm256_permutevar8x32_epi32(words, _mm256_setr_epi32(0, 1, 4, 5, 0, 1, 4, 5))
        _mm_storeu_si128(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: __m128i_u.self), _mm256_castsi256_si128(ordered))
    } else {
        _mm_storel_epi64(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: __m128i_u.self), packBytes8(value, unsigned: !Element.isSigned))
    }
}

/// One 8-bit value repeated in eight int32 lanes.
@inline(__always)
func broadcastByte(_ pointer: UnsafeRawPointer, signed: Bool) -> __m256i {
    _mm256_set1_epi32(signed ? Int32(pointer.load(as: Int8.self)) : Int32(pointer.load(as: UInt8.self)))
}
#endif

/// Runs `body(out, a, stepA, b, stepB, count)` over a numpy broadcast of two operands as runs along the last axis:
/// each operand's step there is 1 (it advances) or 0 (it repeats one value).
@inline(__always)
func forEachBroadcastRun(aShape: [Int], bShape: [Int], outShape: [Int], _ body: (Int, Int, Int, Int, Int, Int) -> Void) {
    let total = outShape.reduce(1, *)
    if aShape == bShape { return total > 0 ? body(0, 0, 1, 0, 1, total) : () }
    let (shape, sa, sb) = mergedBroadcastDimensions(aShape: aShape, bShape: bShape, outShape: outShape)
    let rank = shape.count, inner = shape[rank - 1]
    var index = Array(repeating: 0, count: rank)
    var ia = 0, ib = 0, o = 0
    while o < total {
        body(o, ia, sa[rank - 1], ib, sb[rank - 1], inner)
        o += inner
        var d = rank - 2
        while d >= 0 {
            index[d] += 1
            ia += sa[d]
            ib += sb[d]
            if index[d] < shape[d] { break }
            ia -= sa[d] * shape[d]
            ib -= sb[d] * shape[d]
            index[d] = 0
            d -= 1
        }
    }
}
