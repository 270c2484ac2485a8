// TFLite's integer requantization of int32 accumulators, 16 channels per step in zmm registers: `vpmuldq`
// multiplies the even lanes, and the odd ones after a 32-bit shift, into 64-bit products; each half is shifted by its
// channels' amounts (`vpsravq`) and the two are interleaved back.
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>

#include "../isa_targets.h"
#include "lite_qs8_vnni.h"

LITE_TARGET_AVX512_BEGIN

#include "requantize_lanes.h"

void lite_qs8_requantize_row__avx512(const lite_qs8_requantization_avx512 *params, const int32_t *accumulators, const int32_t *constants,
                                     const int32_t *row_sum_factors, int32_t row_sum, ptrdiff_t channels, void *output,
                                     int rounding_up) {
    const int uniform = params->has_uniform_row_sum_factor != 0;
    // 0 - factor·rowSum, wrapping.
    const __m512i uniform_term =
        _mm512_set1_epi32((int32_t)(0u - (uint32_t)params->uniform_row_sum_factor * (uint32_t)row_sum));
    const __m512i sum = _mm512_set1_epi32(row_sum);
    const int has_left_shifts = params->has_left_shifts != 0, folds_zero_point = params->folds_zero_point != 0;
    uint8_t *out = (uint8_t *)output;
    for (ptrdiff_t c = 0; c < channels; c += 16) {
        const lite_requantization16 k = lite_load_requantization16(params, c);
        __m512i x = _mm512_add_epi32(_mm512_loadu_si512(accumulators + c), _mm512_loadu_si512(constants + c));
        if (uniform) {
            x = _mm512_add_epi32(x, uniform_term);
        } else {
            x = _mm512_sub_epi32(x, _mm512_mullo_epi32(_mm512_loadu_si512(row_sum_factors + c), sum));
        }
        const __m512i v = lite_requantize16(x, &k, has_left_shifts, !rounding_up, folds_zero_point);
        // Clamped to the output type's range, so the low byte is the uint8 or int8 value.
        const __m128i bytes = _mm512_cvtepi32_epi8(v);
        if (c + 16 <= channels) {
            _mm_storeu_si128((__m128i *)(out + c), bytes);
        } else {
            _mm_mask_storeu_epi8(out + c, (__mmask16)((1u << (channels - c)) - 1), bytes);
        }
    }
}

/// One row of `lite_qs8_requantize_block__avx512`'s 16-channel step: the accumulators plus `term` (the row's row-sum
/// term when `has_term`); the flags are constants at each call so that the common cases are loops of their own
/// without tests in them.
static inline __attribute__((always_inline)) void lite_qs8_requantize_block_row(const int32_t *accumulators, __m512i term,
                                                                                const lite_requantization16 *k, __mmask16 mask,
                                                                                uint8_t *output, int has_term, int has_left_shifts,
                                                                                int folds_zero_point) {
    __m512i x = _mm512_loadu_si512(accumulators);
    if (has_term) x = _mm512_add_epi32(x, term);
    const __m128i bytes = _mm512_cvtepi32_epi8(lite_requantize16(x, k, has_left_shifts, 0, folds_zero_point));
    // Narrowed in a register, then stored: the narrowing store to memory (`vpmovdb m128{k}`, what the compiler makes
    // of a masked store of the narrowed value) is microcoded on AMD's Zen 4 and took a third of this function's time.
    if (mask == 0xFFFF) {
        _mm_storeu_si128((__m128i *)output, bytes);
    } else {
        _mm_mask_storeu_epi8(output, mask, bytes);
    }
}

/// Row i's row-sum term for the 16 channels at `factors`: `-q·row_sums[i]` for every channel (the sums already
/// turned into terms with a uniform factor), or per channel.
static inline __attribute__((always_inline)) __m512i lite_row_sum_term(const int32_t *row_sums, ptrdiff_t i, __m512i factors, int uniform) {
    const __m512i per_row = _mm512_set1_epi32(row_sums[i]);
    return uniform ? per_row : _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_mullo_epi32(factors, per_row));
}

void lite_qs8_requantize_block__avx512(const lite_qs8_requantization_avx512 *params, const int32_t *accumulators,
                                       ptrdiff_t accumulator_stride, ptrdiff_t rows, const int32_t *row_sum_factors, int32_t *row_sums,
                                       ptrdiff_t channels, void *output, ptrdiff_t output_stride) {
    const int uniform = params->has_uniform_row_sum_factor != 0;
    // With one factor for every channel, the row-sum term is one number per row: turn the sums into the terms.
    if (row_sums != NULL && uniform) {
        const uint32_t factor = (uint32_t)params->uniform_row_sum_factor;
        for (ptrdiff_t i = 0; i < rows; i++) row_sums[i] = (int32_t)(0u - factor * (uint32_t)row_sums[i]);
    }
    const int has_left_shifts = params->has_left_shifts != 0, folds_zero_point = params->folds_zero_point != 0;
    const int common = !has_left_shifts && folds_zero_point;
    uint8_t *out = (uint8_t *)output;
    for (ptrdiff_t c = 0; c < channels; c += 16) {
        const __m512i factors = row_sums != NULL && !uniform ? _mm512_loadu_si512(row_sum_factors + c) : _mm512_setzero_si512();
        const lite_requantization16 k = lite_load_requantization16(params, c);
        const ptrdiff_t remaining = channels - c;
        const __mmask16 mask = (__mmask16)((1u << (remaining < 16 ? remaining : 16)) - 1);
        const int32_t *in = accumulators + c;
        uint8_t *o = out + c;
        if (row_sums == NULL && common) {
            for (ptrdiff_t i = 0; i < rows; i++) {
                lite_qs8_requantize_block_row(in + i * accumulator_stride, factors, &k, mask, o + i * output_stride, 0, 0, 1);
            }
        } else if (row_sums != NULL && uniform && common) {
            for (ptrdiff_t i = 0; i < rows; i++) {
                lite_qs8_requantize_block_row(in + i * accumulator_stride, _mm512_set1_epi32(row_sums[i]), &k, mask, o + i * output_stride, 1,
                                              0, 1);
            }
        } else {
            for (ptrdiff_t i = 0; i < rows; i++) {
                const __m512i term = row_sums != NULL ? lite_row_sum_term(row_sums, i, factors, uniform) : _mm512_setzero_si512();
                lite_qs8_requantize_block_row(in + i * accumulator_stride, term, &k, mask, o + i * output_stride, 1, has_left_shifts,
                                              folds_zero_point);
            }
        }
    }
}

LITE_TARGET_END

#endif
