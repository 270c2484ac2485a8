// 256-entry byte tables (LOGISTIC, TANH, HARD_SWISH, QUANTIZE and the other 8-bit ops that are a table of their
// input) with AVX-512 VBMI's two-source byte permute: each of 64 input bytes picks its entry from the table's lower
// or upper 128 bytes by its low seven bits, and its top bit chooses between the two picks.
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>

#include "../isa_targets.h"
#include "lite_elementwise.h"

LITE_TARGET_AVX512VBMI_BEGIN

static inline __attribute__((always_inline)) __m512i lite_lookup64(__m512i x, __m512i t0, __m512i t1, __m512i t2, __m512i t3) {
    const __m512i lower = _mm512_permutex2var_epi8(t0, x, t1), upper = _mm512_permutex2var_epi8(t2, x, t3);
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lower, upper);
}

void lite_u8_lookup__avx512vbmi(const uint8_t *table, const uint8_t *input, uint8_t *output, size_t count) {
    const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
    const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
    size_t i = 0;
    for (; i + 64 <= count; i += 64) {
        _mm512_storeu_si512(output + i, lite_lookup64(_mm512_loadu_si512(input + i), t0, t1, t2, t3));
    }
    if (i < count) {
        const __mmask64 mask = _cvtu64_mask64((~0ull) >> (64 - (count - i)));
        _mm512_mask_storeu_epi8(output + i, mask, lite_lookup64(_mm512_maskz_loadu_epi8(mask, input + i), t0, t1, t2, t3));
    }
}

LITE_TARGET_END

#endif
