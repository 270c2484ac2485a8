#ifndef LITE_AVX2_F32_VMATH8_H
#define LITE_AVX2_F32_VMATH8_H

// Sigmoid, exp and tanh of eight float lanes, shared by the vector math kernels (f32_vmath.c) and the float LSTM
// step (f32_lstm.c), so both compute the same values. Include after LITE_TARGET_AVX2_BEGIN so it is compiled for
// AVX2 and FMA.
#include <immintrin.h>

/// `1 / (1 + e^-x)` of eight floats (see lite_f32_vmath.h).
static inline __m256 lite_sigmoid8(__m256 x) {
    const __m256 magic = _mm256_set1_ps(12583039.0f);
    const __m256 z = _mm256_max_ps(_mm256_set1_ps(-87.33f), _mm256_or_ps(x, _mm256_set1_ps(-0.0f)));
    const __m256 t = _mm256_fmadd_ps(z, _mm256_set1_ps(1.44269504f), magic);
    const __m256 scale = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(t), 23));
    const __m256 n = _mm256_sub_ps(t, magic);
    __m256 r = _mm256_fmadd_ps(n, _mm256_set1_ps(-0.693359375f), z);
    r = _mm256_fmadd_ps(n, _mm256_set1_ps(2.1219444e-4f), r);
    __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(1.98756915e-4f), r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256 e = _mm256_mul_ps(_mm256_add_ps(_mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r), one), scale);
    const __m256 f = _mm256_div_ps(e, _mm256_add_ps(e, one));
    return _mm256_blendv_ps(_mm256_sub_ps(one, f), f, x);
}

/// Cephes' expf as `vectorizableExp` computes it, eight lanes (see lite_f32_vmath.h).
static inline __m256 lite_exp8(__m256 x) {
    const __m256 magic = _mm256_set1_ps(12582912.0f);  // 1.5·2^23
    const __m256 low = _mm256_set1_ps(-87.3f), high = _mm256_set1_ps(88.3f);
    // x < low ? low : (x > high ? high : x), NaN kept.
    __m256 clamped = _mm256_blendv_ps(x, high, _mm256_cmp_ps(x, high, _CMP_GT_OQ));
    clamped = _mm256_blendv_ps(clamped, low, _mm256_cmp_ps(x, low, _CMP_LT_OQ));
    const __m256 t = _mm256_add_ps(_mm256_mul_ps(clamped, _mm256_set1_ps(1.44269504f)), magic);
    const __m256 n = _mm256_sub_ps(t, magic);
    const __m256 r = _mm256_add_ps(_mm256_sub_ps(clamped, _mm256_mul_ps(n, _mm256_set1_ps(0.693359375f))),
                                   _mm256_mul_ps(n, _mm256_set1_ps(2.1219444e-4f)));
    __m256 p = _mm256_set1_ps(1.98756915e-4f);
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(5.0000001201e-1f));
    const __m256 polynomial = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_mul_ps(p, r), r), r), _mm256_set1_ps(1.0f));
    const __m256i exponent = _mm256_add_epi32(_mm256_sub_epi32(_mm256_castps_si256(t), _mm256_castps_si256(magic)), _mm256_set1_epi32(127));
    return _mm256_mul_ps(polynomial, _mm256_castsi256_ps(_mm256_slli_epi32(exponent, 23)));
}

/// `vectorizableTanh` of eight lanes.
static inline __m256 lite_tanh8(__m256 x) {
    const __m256 sign = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
    const __m256 magnitude = _mm256_andnot_ps(sign, x);
    const __m256 large = _mm256_sub_ps(one, _mm256_div_ps(_mm256_set1_ps(2.0f),
                                                          _mm256_add_ps(lite_exp8(_mm256_mul_ps(_mm256_set1_ps(2.0f), magnitude)), one)));
    const __m256 x2 = _mm256_mul_ps(x, x);
    __m256 series = _mm256_set1_ps(21844.0f / 6081075.0f);
    series = _mm256_sub_ps(_mm256_mul_ps(series, x2), _mm256_set1_ps(1382.0f / 155925.0f));
    series = _mm256_add_ps(_mm256_mul_ps(series, x2), _mm256_set1_ps(62.0f / 2835.0f));
    series = _mm256_sub_ps(_mm256_mul_ps(series, x2), _mm256_set1_ps(17.0f / 315.0f));
    series = _mm256_add_ps(_mm256_mul_ps(series, x2), _mm256_set1_ps(2.0f / 15.0f));
    series = _mm256_sub_ps(_mm256_mul_ps(series, x2), _mm256_set1_ps(1.0f / 3.0f));
    const __m256 small = _mm256_add_ps(x, _mm256_mul_ps(_mm256_mul_ps(x, x2), series));
    // x < 0 ? -large : large, then magnitude < 0.4 ? small : that.
    const __m256 signed_large = _mm256_blendv_ps(large, _mm256_xor_ps(large, sign),
                                                 _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ));
    return _mm256_blendv_ps(signed_large, small, _mm256_cmp_ps(magnitude, _mm256_set1_ps(0.4f), _CMP_LT_OQ));
}

#endif
