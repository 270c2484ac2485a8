#if defined(__x86_64__)

#include <immintrin.h>

#include "../isa_targets.h"
#include "../../include/lite_f32_vmath.h"

LITE_TARGET_AVX512_BEGIN

/// ``lite_sigmoid8`` (avx2/f32_vmath8.h) in sixteen lanes: the same operations in the same order, so every lane computes
/// the value the AVX2 kernel computes.
static inline __m512 lite_sigmoid16(__m512 x) {
    const __m512 magic = _mm512_set1_ps(12583039.0f);
    const __m512 z = _mm512_max_ps(_mm512_set1_ps(-87.33f), _mm512_or_ps(x, _mm512_set1_ps(-0.0f)));
    const __m512 t = _mm512_fmadd_ps(z, _mm512_set1_ps(1.44269504f), magic);
    const __m512 scale = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_castps_si512(t), 23));
    const __m512 n = _mm512_sub_ps(t, magic);
    __m512 r = _mm512_fmadd_ps(n, _mm512_set1_ps(-0.693359375f), z);
    r = _mm512_fmadd_ps(n, _mm512_set1_ps(2.1219444e-4f), r);
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(1.98756915e-4f), r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    const __m512 one = _mm512_set1_ps(1.0f);
    const __m512 e = _mm512_mul_ps(_mm512_add_ps(_mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r), one), scale);
    const __m512 f = _mm512_div_ps(e, _mm512_add_ps(e, one));
    // The sign bit of x picks f (negative x) or 1 - f, as `vblendvps` does in the AVX2 kernel.
    return _mm512_mask_blend_ps(_mm512_movepi32_mask(_mm512_castps_si512(x)), _mm512_sub_ps(one, f), f);
}

void lite_f32_sigmoid__avx512(const float *input, float *output, size_t count, int multiply_by_input) {
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        const __m512 x = _mm512_loadu_ps(input + i);
        const __m512 f = lite_sigmoid16(x);
        _mm512_storeu_ps(output + i, multiply_by_input ? _mm512_mul_ps(x, f) : f);
    }
    if (i < count) {
        // The last values in a zero-filled register: every operation is rounded alone, so lanes match.
        const __mmask16 lanes = (__mmask16)((1u << (count - i)) - 1);
        const __m512 x = _mm512_maskz_loadu_ps(lanes, input + i);
        const __m512 f = lite_sigmoid16(x);
        _mm512_mask_storeu_ps(output + i, lanes, multiply_by_input ? _mm512_mul_ps(x, f) : f);
    }
}

LITE_TARGET_END

#endif
