// TFLite's integer requantization of int32 accumulators, 16 channels per step in zmm registers: `vpmuldq`
// multiplies the even lanes, and the odd ones after a 32-bit shift, into 64-bit products; each half is shifted by its
// channels' amounts (`vpsravq`) and the two are interleaved back.
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>

#include "../isa_targets.h"
#include "lite_qs8_vnni.h"

LITE_TARGET_AVX512_BEGIN

#include "even_odd_lanes.h"

void lite_qs8_requantize_row__avx512(const lite_qs8_requantization_avx512 *params, const int32_t *accumulators, const int32_t *constants,
                                     const int32_t *row_sum_factors, int32_t row_sum, ptrdiff_t channels, void *output,
                                     int rounding_up) {
    const __m512i zero = _mm512_set1_epi32(params->output_zero_point);
    const __m512i lowest = _mm512_set1_epi32(params->low), highest = _mm512_set1_epi32(params->high);
    const __m512i nudge = _mm512_set1_epi64(1 << 30);
    const int uniform = params->has_uniform_row_sum_factor != 0;
    // 0 - factor·rowSum, wrapping.
    const __m512i uniform_term =
        _mm512_set1_epi32((int32_t)(0u - (uint32_t)params->uniform_row_sum_factor * (uint32_t)row_sum));
    const __m512i sum = _mm512_set1_epi32(row_sum);
    const int has_left_shifts = params->has_left_shifts != 0, folds_zero_point = params->folds_zero_point != 0;
    uint8_t *out = (uint8_t *)output;
    for (ptrdiff_t c = 0; c < channels; c += 16) {
        __m512i x = _mm512_add_epi32(_mm512_loadu_si512(accumulators + c), _mm512_loadu_si512(constants + c));
        if (uniform) {
            x = _mm512_add_epi32(x, uniform_term);
        } else {
            x = _mm512_sub_epi32(x, _mm512_mullo_epi32(_mm512_loadu_si512(row_sum_factors + c), sum));
        }
        // x·2^left wraps in int32 like TFLite's `x * (1 << left_shift)`.
        if (has_left_shifts) x = _mm512_sllv_epi32(x, _mm512_loadu_si512(params->left_shifts + c));
        const __m512i even = _mm512_mul_epi32(x, _mm512_loadu_si512(params->multipliers + c));
        const __m512i odd = _mm512_mul_epi32(_mm512_srli_epi64(x, 32), _mm512_loadu_si512(params->odd_multipliers + c));
        const __m512i even_addend = _mm512_loadu_si512(params->addends + c), odd_addend = _mm512_loadu_si512(params->addends + c + 8);
        __m512i even_total = _mm512_add_epi64(even, even_addend), odd_total = _mm512_add_epi64(odd, odd_addend);
        if (!rounding_up) {
            const __m512i even_negative = _mm512_srai_epi64(_mm512_add_epi64(even, nudge), 63);
            const __m512i odd_negative = _mm512_srai_epi64(_mm512_add_epi64(odd, nudge), 63);
            even_total = _mm512_sub_epi64(even_total, _mm512_and_si512(even_negative, _mm512_loadu_si512(params->negative_corrections + c)));
            odd_total = _mm512_sub_epi64(odd_total, _mm512_and_si512(odd_negative, _mm512_loadu_si512(params->negative_corrections + c + 8)));
        }
        const __m512i even_result = _mm512_srav_epi64(even_total, _mm512_loadu_si512(params->total_shifts + c));
        const __m512i odd_result = _mm512_srav_epi64(odd_total, _mm512_loadu_si512(params->total_shifts + c + 8));
        __m512i v = lite_join_even_odd_lanes16(even_result, odd_result);
        if (!folds_zero_point) v = _mm512_add_epi32(v, zero);
        v = _mm512_min_epi32(_mm512_max_epi32(v, lowest), highest);
        // Clamped to the output type's range, so the low byte is the uint8 or int8 value.
        const __m128i bytes = _mm512_cvtepi32_epi8(v);
        if (c + 16 <= channels) {
            _mm_storeu_si128((__m128i *)(out + c), bytes);
        } else {
            _mm_mask_storeu_epi8(out + c, (__mmask16)((1u << (channels - c)) - 1), bytes);
        }
    }
}

/// One row of `lite_qs8_requantize_block__avx512`'s 16-channel step; the flags are constants at each call so that
/// the common case is a loop of its own without tests in it.
static inline __attribute__((always_inline)) void lite_qs8_requantize_block_row(
    const int32_t *accumulators, int32_t row_sum, __m512i constant, __m512i factors, __m512i left, __m512i multiplier,
    __m512i odd_multiplier, __m512i even_addend, __m512i odd_addend, __m512i even_shift, __m512i odd_shift, __m512i zero,
    __m512i lowest, __m512i highest, __mmask16 mask, uint8_t *output, int uniform, int has_left_shifts, int folds_zero_point) {
    const __m512i per_row = _mm512_set1_epi32(row_sum);
    const __m512i term = uniform ? per_row : _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_mullo_epi32(factors, per_row));
    __m512i x = _mm512_add_epi32(_mm512_add_epi32(_mm512_loadu_si512(accumulators), constant), term);
    // x·2^left wraps in int32 like TFLite's `x * (1 << left_shift)`.
    if (has_left_shifts) x = _mm512_sllv_epi32(x, left);
    const __m512i even = _mm512_srav_epi64(_mm512_add_epi64(_mm512_mul_epi32(x, multiplier), even_addend), even_shift);
    const __m512i odd =
        _mm512_srav_epi64(_mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), odd_multiplier), odd_addend), odd_shift);
    __m512i v = lite_join_even_odd_lanes16(even, odd);
    if (!folds_zero_point) v = _mm512_add_epi32(v, zero);
    v = _mm512_min_epi32(_mm512_max_epi32(v, lowest), highest);
    _mm_mask_storeu_epi8(output, mask, _mm512_cvtepi32_epi8(v));
}

void lite_qs8_requantize_block__avx512(const lite_qs8_requantization_avx512 *params, const int32_t *accumulators,
                                       ptrdiff_t accumulator_stride, ptrdiff_t rows, const int32_t *constants,
                                       const int32_t *row_sum_factors, int32_t *row_sums, ptrdiff_t channels, void *output,
                                       ptrdiff_t output_stride) {
    const __m512i zero = _mm512_set1_epi32(params->output_zero_point);
    const __m512i lowest = _mm512_set1_epi32(params->low), highest = _mm512_set1_epi32(params->high);
    const int uniform = params->has_uniform_row_sum_factor != 0;
    // With one factor for every channel, the row-sum term is one number per row: turn the sums into the terms.
    if (uniform) {
        const uint32_t factor = (uint32_t)params->uniform_row_sum_factor;
        for (ptrdiff_t i = 0; i < rows; i++) row_sums[i] = (int32_t)(0u - factor * (uint32_t)row_sums[i]);
    }
    const int has_left_shifts = params->has_left_shifts != 0, folds_zero_point = params->folds_zero_point != 0;
    uint8_t *out = (uint8_t *)output;
    for (ptrdiff_t c = 0; c < channels; c += 16) {
        const __m512i constant = _mm512_loadu_si512(constants + c), factors = _mm512_loadu_si512(row_sum_factors + c);
        const __m512i left = _mm512_loadu_si512(params->left_shifts + c), multiplier = _mm512_loadu_si512(params->multipliers + c);
        const __m512i odd_multiplier = _mm512_loadu_si512(params->odd_multipliers + c);
        const __m512i even_addend = _mm512_loadu_si512(params->addends + c), odd_addend = _mm512_loadu_si512(params->addends + c + 8);
        const __m512i even_shift = _mm512_loadu_si512(params->total_shifts + c);
        const __m512i odd_shift = _mm512_loadu_si512(params->total_shifts + c + 8);
        const ptrdiff_t remaining = channels - c;
        const __mmask16 mask = (__mmask16)((1u << (remaining < 16 ? remaining : 16)) - 1);
        if (uniform && !has_left_shifts && folds_zero_point) {
            for (ptrdiff_t i = 0; i < rows; i++) {
                lite_qs8_requantize_block_row(accumulators + (i * accumulator_stride + c), row_sums[i], constant, factors, left,
                                              multiplier, odd_multiplier, even_addend, odd_addend, even_shift, odd_shift, zero,
                                              lowest, highest, mask, out + (i * output_stride + c), 1, 0, 1);
            }
        } else {
            for (ptrdiff_t i = 0; i < rows; i++) {
                lite_qs8_requantize_block_row(accumulators + (i * accumulator_stride + c), row_sums[i], constant, factors, left,
                                              multiplier, odd_multiplier, even_addend, odd_addend, even_shift, odd_shift, zero,
                                              lowest, highest, mask, out + (i * output_stride + c), uniform, has_left_shifts,
                                              folds_zero_point);
            }
        }
    }
}

LITE_TARGET_END

#endif
