// Float RESIZE_BILINEAR, one output row at a time, eight channels a step (AVX2).
#if defined(__x86_64__)
#include <immintrin.h>
#include <stdint.h>

#include "../isa_targets.h"
#include "../../include/lite_f32_vmath.h"

LITE_TARGET_AVX2_BEGIN

void lite_f32_resize_bilinear_row__avx2(const float *row0, const float *row1, const int32_t *x0, const int32_t *x1, const float *dx,
                                        size_t out_w, size_t channels, float dy, float *output) {
    const size_t whole = channels / 8 * 8;
    for (size_t x = 0; x < out_w; x++) {
        // The weights and the sum in the reference's order, each product and sum rounded on its own (this file is
        // compiled with -ffp-contract=off): ((a·w00 + b·w10) + c·w01) + d·w11.
        const float w00 = (1 - dy) * (1 - dx[x]), w10 = dy * (1 - dx[x]), w01 = (1 - dy) * dx[x], w11 = dy * dx[x];
        const float *a = row0 + (size_t)x0[x] * channels, *b = row1 + (size_t)x0[x] * channels;
        const float *c = row0 + (size_t)x1[x] * channels, *d = row1 + (size_t)x1[x] * channels;
        float *out = output + x * channels;
        const __m256 v00 = _mm256_set1_ps(w00), v10 = _mm256_set1_ps(w10), v01 = _mm256_set1_ps(w01), v11 = _mm256_set1_ps(w11);
        size_t k = 0;
        for (; k < whole; k += 8) {
            __m256 sum = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(a + k), v00), _mm256_mul_ps(_mm256_loadu_ps(b + k), v10));
            sum = _mm256_add_ps(sum, _mm256_mul_ps(_mm256_loadu_ps(c + k), v01));
            _mm256_storeu_ps(out + k, _mm256_add_ps(sum, _mm256_mul_ps(_mm256_loadu_ps(d + k), v11)));
        }
        for (; k < channels; k++) out[k] = a[k] * w00 + b[k] * w10 + c[k] * w01 + d[k] * w11;
    }
}

LITE_TARGET_END

#endif
