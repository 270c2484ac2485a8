#ifndef LITE_AVX2_RESCALE_H
#define LITE_AVX2_RESCALE_H

// TFLite's double-rounding rescale on AVX2 lanes, shared by the quantized elementwise kernels and the integer
// LSTM. Include after LITE_TARGET_AVX2_BEGIN (and after byte_packing.h) so it is compiled for AVX2.
#include <immintrin.h>
#include <stdint.h>

/// TFLite's `MultiplyByQuantizedMultiplier(x, m, shift)` (double rounding) on eight int32 lanes, exactly.
///
/// `x` is first shifted left by `max(shift, 0)` (wrapping, as TFLite's int32 arithmetic). The high multiply
/// `SaturatingRoundingDoublingHighMul(y, m)` is `⌊(y·m + 2^30) / 2^31⌋` for either sign of the product (m ≥ 0, so its
/// saturating case never arises), computed in 64-bit lanes; AVX2 shifts those only logically, so the nudge carries
/// 2^63 and 2^32 is taken off after the shift. `RoundingDivideByPOT(h, r)` then rounds half away from zero in 32-bit
/// lanes: `(h >> r) + (remainder > threshold)`, the threshold one larger for negative h.
typedef struct {
    __m256i multiplier, nudge, bias, mask, half_mask;
    __m128i left_shift, right_shift;
} lite_rescale8;

/// The constants of a rescale by `m` (≥ 0) and `shift` (-31...30).
static inline lite_rescale8 lite_rescale8_make(int32_t m, int32_t shift) {
    lite_rescale8 r;
    r.multiplier = _mm256_set1_epi64x((int64_t)m);
    r.nudge = _mm256_set1_epi64x((int64_t)((UINT64_C(1) << 30) + (UINT64_C(1) << 63)));
    r.bias = _mm256_set1_epi64x(INT64_C(1) << 32);
    r.left_shift = _mm_cvtsi64_si128(shift > 0 ? shift : 0);
    const int32_t right = shift < 0 ? -shift : 0;
    r.right_shift = _mm_cvtsi64_si128(right);
    const int32_t mask = (int32_t)(uint32_t)((INT64_C(1) << right) - 1);
    r.mask = _mm256_set1_epi32(mask);
    r.half_mask = _mm256_set1_epi32(mask >> 1);
    return r;
}

static inline __m256i lite_rescale8_apply(const lite_rescale8 *r, __m256i x) {
    const __m256i y = _mm256_sll_epi32(x, r->left_shift);
    const __m128i shift31 = _mm_cvtsi64_si128(31);
    const __m256i even = _mm256_sub_epi64(
        _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epi32(y, r->multiplier), r->nudge), shift31), r->bias);
    const __m256i odd = _mm256_sub_epi64(
        _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(y, 32), r->multiplier), r->nudge), shift31),
        r->bias);
    const __m256i high = lite_join_even_odd_lanes8(even, odd);
    const __m256i remainder = _mm256_and_si256(high, r->mask);
    // cmpgt gives -1 where true: subtracting it adds one.
    const __m256i threshold = _mm256_sub_epi32(r->half_mask, _mm256_cmpgt_epi32(_mm256_setzero_si256(), high));
    return _mm256_sub_epi32(_mm256_sra_epi32(high, r->right_shift), _mm256_cmpgt_epi32(remainder, threshold));
}

#endif
