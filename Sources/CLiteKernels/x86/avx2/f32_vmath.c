#if defined(__x86_64__)

#include <immintrin.h>
#include <string.h>

#include "../isa_targets.h"
#include "../../include/lite_f32_vmath.h"

LITE_TARGET_AVX2_BEGIN

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

void lite_f32_sigmoid__avx2(const float *input, float *output, size_t count, int multiply_by_input) {
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m256 x = _mm256_loadu_ps(input + i);
        const __m256 f = lite_sigmoid8(x);
        _mm256_storeu_ps(output + i, multiply_by_input ? _mm256_mul_ps(x, f) : f);
    }
    if (i < count) {
        float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        memcpy(lanes, input + i, (count - i) * sizeof(float));
        const __m256 x = _mm256_loadu_ps(lanes), f = lite_sigmoid8(x);
        _mm256_storeu_ps(lanes, multiply_by_input ? _mm256_mul_ps(x, f) : f);
        memcpy(output + i, lanes, (count - i) * sizeof(float));
    }
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

void lite_f32_tanh__avx2(float *values, size_t count) {
    size_t i = 0;
    for (; i + 8 <= count; i += 8) _mm256_storeu_ps(values + i, lite_tanh8(_mm256_loadu_ps(values + i)));
    if (i < count) {
        // The same lanes on a zero-padded register: every operation is rounded alone, so lanes match.
        float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        memcpy(lanes, values + i, (count - i) * sizeof(float));
        _mm256_storeu_ps(lanes, lite_tanh8(_mm256_loadu_ps(lanes)));
        memcpy(values + i, lanes, (count - i) * sizeof(float));
    }
}

/// The body of ``lite_f32_vadd_minmax__avx2``, inlined into the row loop of the channel-padded sum.
static inline void lite_vadd_minmax(const float *a, const float *b, float *output, size_t count, float low, float high) {
    const __m256 low8 = _mm256_set1_ps(low), high8 = _mm256_set1_ps(high);
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m256 y = b ? _mm256_loadu_ps(b + i) : _mm256_setzero_ps();
        const __m256 sum = _mm256_add_ps(_mm256_loadu_ps(a + i), y);
        // max(low, v) is `low > v ? low : v`, min(high, x) is `high < x ? high : x`: NaN v is returned by both.
        _mm256_storeu_ps(output + i, _mm256_min_ps(high8, _mm256_max_ps(low8, sum)));
    }
    for (; i < count; i++) {
        const float v = a[i] + (b ? b[i] : 0.0f);
        const float x = v < low ? low : v;
        output[i] = x > high ? high : x;
    }
}

void lite_f32_vadd_minmax__avx2(const float *a, const float *b, float *output, size_t count, float low, float high) {
    lite_vadd_minmax(a, b, output, count, low, high);
}

void lite_f32_vadd_channel_padded__avx2(const float *a, size_t a_stride, const float *b, size_t b_stride,
                                        const float *other, float *output, size_t rows, size_t summed,
                                        size_t channels, float low, float high) {
    for (size_t r = 0; r < rows; r++) {
        float *out = output + r * channels;
        lite_vadd_minmax(a + r * a_stride, b + r * b_stride, out, summed, low, high);
        lite_vadd_minmax(other + r * channels + summed, NULL, out + summed, channels - summed, low, high);
    }
}

LITE_TARGET_END

#endif
