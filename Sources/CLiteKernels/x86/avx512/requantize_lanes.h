#ifndef LITE_AVX512_REQUANTIZE_LANES_H
#define LITE_AVX512_REQUANTIZE_LANES_H

// TFLite's per-channel requantization of 16 int32 accumulators in one zmm register, shared by the AVX-512 GEMM
// requantization and the VNNI depthwise kernel. Include after LITE_TARGET_AVX512_BEGIN (or _AVX512VNNI_) so these
// helpers are compiled for that level in each file that uses them.
#include <immintrin.h>
#include <stddef.h>

#include "even_odd_lanes.h"
#include "lite_qs8_vnni.h"

/// One 16-channel block's requantization data in registers, loaded once and used for many pixels or rows.
typedef struct {
    __m512i left, multiplier, odd_multiplier;
    __m512i even_addend, odd_addend, even_shift, odd_shift, even_correction, odd_correction;
    __m512i zero, lowest, highest;
} lite_requantization16;

/// Channels `c ..< c + 16` of `params` (its per-channel arrays hold whole blocks of 16).
static inline __attribute__((always_inline)) lite_requantization16 lite_load_requantization16(const lite_qs8_requantization_avx512 *params,
                                                                                              ptrdiff_t c) {
    lite_requantization16 k;
    k.left = _mm512_loadu_si512(params->left_shifts + c);
    k.multiplier = _mm512_loadu_si512(params->multipliers + c);
    k.odd_multiplier = _mm512_loadu_si512(params->odd_multipliers + c);
    k.even_addend = _mm512_loadu_si512(params->addends + c);
    k.odd_addend = _mm512_loadu_si512(params->addends + c + 8);
    k.even_shift = _mm512_loadu_si512(params->total_shifts + c);
    k.odd_shift = _mm512_loadu_si512(params->total_shifts + c + 8);
    k.even_correction = _mm512_loadu_si512(params->negative_corrections + c);
    k.odd_correction = _mm512_loadu_si512(params->negative_corrections + c + 8);
    k.zero = _mm512_set1_epi32(params->output_zero_point);
    k.lowest = _mm512_set1_epi32(params->low);
    k.highest = _mm512_set1_epi32(params->high);
    return k;
}

/// Whether any of the block's channels rounds ties away from zero (has a negative correction).
static inline int lite_requantization16_rounds_away(const lite_requantization16 *k) {
    return (_mm512_test_epi64_mask(k->even_correction, k->even_correction) | _mm512_test_epi64_mask(k->odd_correction, k->odd_correction)) != 0;
}

/// `x` (16 channels' accumulators, every constant added) times 2^left (wrapping in int32 like TFLite's
/// `x * (1 << left_shift)`), then `(x·m + addend) >> (31 + r)` in 64-bit lanes: ties up, or with `rounds_away` the
/// channel's negative correction (2^31) taken off where the doubling high product `x·m + 2^30` is negative, which
/// makes ties of negative values round away from zero. Then the zero point (unless the addends hold it) and the
/// clamp. The flags are constants at each call site, so each combination compiles to a loop of its own.
static inline __attribute__((always_inline)) __m512i lite_requantize16(__m512i x, const lite_requantization16 *k, int has_left_shifts,
                                                                      int rounds_away, int folds_zero_point) {
    if (has_left_shifts) x = _mm512_sllv_epi32(x, k->left);
    const __m512i even = _mm512_mul_epi32(x, k->multiplier);
    const __m512i odd = _mm512_mul_epi32(_mm512_srli_epi64(x, 32), k->odd_multiplier);
    __m512i even_total = _mm512_add_epi64(even, k->even_addend), odd_total = _mm512_add_epi64(odd, k->odd_addend);
    if (rounds_away) {
        // x·m + 2^30 < 0 exactly when x·m < -2^30.
        const __m512i bound = _mm512_set1_epi64(-(1ll << 30));
        even_total = _mm512_mask_sub_epi64(even_total, _mm512_cmplt_epi64_mask(even, bound), even_total, k->even_correction);
        odd_total = _mm512_mask_sub_epi64(odd_total, _mm512_cmplt_epi64_mask(odd, bound), odd_total, k->odd_correction);
    }
    __m512i v = lite_join_even_odd_lanes16(_mm512_srav_epi64(even_total, k->even_shift), _mm512_srav_epi64(odd_total, k->odd_shift));
    if (!folds_zero_point) v = _mm512_add_epi32(v, k->zero);
    return _mm512_min_epi32(_mm512_max_epi32(v, k->lowest), k->highest);
}

#endif
