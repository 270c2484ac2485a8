#if defined(__x86_64__)

#include <immintrin.h>
#include <math.h>
#include <string.h>

#include "../isa_targets.h"
#include "../../include/lite_f32_vmath.h"

LITE_TARGET_AVX2_BEGIN

#include "../ordered_add.h"

#include "f32_vmath8.h"

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
        const __m256 sum = lite_add_ordered8(_mm256_loadu_ps(a + i), y);
        // max(low, v) is `low > v ? low : v`, min(high, x) is `high < x ? high : x`: NaN v is returned by both.
        _mm256_storeu_ps(output + i, _mm256_min_ps(high8, _mm256_max_ps(low8, sum)));
    }
    for (; i < count; i++) {
        const float v = lite_add_ordered1(a[i], b ? b[i] : 0.0f);
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

void lite_f32_prelu_channels__avx2(const float *x, const float *slopes, float *output, size_t rows, size_t channels) {
    const __m256 zero = _mm256_setzero_ps();
    for (size_t r = 0; r < rows; r++) {
        const float *in = x + r * channels;
        float *out = output + r * channels;
        size_t c = 0;
        for (; c + 8 <= channels; c += 8) {
            const __m256 v = _mm256_loadu_ps(in + c);
            const __m256 product = _mm256_mul_ps(v, _mm256_loadu_ps(slopes + c));
            // `v < 0` is false for NaN (ordered compare), which is kept: a NaN is never a factor, so no operand order
            // decides which NaN a product of two carries.
            const __m256 keep = _mm256_cmp_ps(v, zero, _CMP_NLT_UQ);
            _mm256_storeu_ps(out + c, _mm256_blendv_ps(product, v, keep));
        }
        for (; c < channels; c++) out[c] = in[c] < 0.0f ? in[c] * slopes[c] : in[c];
    }
}

void lite_f32_softmax_row__avx2(const float *x, float *y, size_t n, float beta) {
    // The maximum: a lane takes a value only when it is larger, so NaN never enters (Swift's `max` loop's order).
    __m256 maximum8 = _mm256_set1_ps(-INFINITY);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) maximum8 = _mm256_max_ps(_mm256_loadu_ps(x + i), maximum8);
    float lanes[8];
    _mm256_storeu_ps(lanes, maximum8);
    float maximum = -INFINITY;
    for (size_t l = 0; l < 8; l++) maximum = lanes[l] > maximum ? lanes[l] : maximum;
    for (; i < n; i++) maximum = x[i] > maximum ? x[i] : maximum;
    // The exponentials, stored, and summed in eight lanes (each lane in order), then across the lanes.
    const __m256 max8 = _mm256_set1_ps(maximum), beta8 = _mm256_set1_ps(beta);
    __m256 sum8 = _mm256_setzero_ps();
    for (i = 0; i + 8 <= n; i += 8) {
        const __m256 e = lite_exp8(_mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), max8), beta8));
        _mm256_storeu_ps(y + i, e);
        sum8 = _mm256_add_ps(sum8, e);
    }
    _mm256_storeu_ps(lanes, sum8);
    float sum = 0;
    for (size_t l = 0; l < 8; l++) sum += lanes[l];
    if (i < n) {
        // The last values through the same lanes, zero-padded (every operation is rounded alone, so lanes match).
        float tail[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        memcpy(tail, x + i, (n - i) * sizeof(float));
        _mm256_storeu_ps(tail, lite_exp8(_mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(tail), max8), beta8)));
        for (size_t j = 0; j < n - i; j++) {
            y[i + j] = tail[j];
            sum += tail[j];
        }
    }
    const __m256 inverse = _mm256_set1_ps(1.0f / sum);
    for (i = 0; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_loadu_ps(y + i), inverse));
    const float scalarInverse = 1.0f / sum;
    for (; i < n; i++) y[i] *= scalarInverse;
}

LITE_TARGET_END

#endif
