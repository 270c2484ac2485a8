// The float depthwise rows kernel (f32_dwconv_rows.h) with 16 channels in one AVX-512 register, for 3x3 filters:
// half the instructions of the avx2 level's pair of AVX registers, and with 32 vector registers the nine weight
// vectors, the bias and the bounds all stay in registers (face landmark's depthwise layers 0.21 -> 0.18 ms on an
// AVX-512 EPYC). Other filters run the avx2 kernel: four pixels at a time in AVX-512 registers were slower there
// (palm detection's 5x5 layers 2.31 -> 2.73 ms). The same fused multiply-adds in the same order: the same bits.
#if defined(__x86_64__)

#include <immintrin.h>
#include <math.h>
#include <stdint.h>

#include "../isa_targets.h"
#include "../../include/lite_f32_dwconv.h"

LITE_TARGET_AVX512_BEGIN

#define LITE_INLINE static inline __attribute__((always_inline))

typedef __m512 lite_v16;
LITE_INLINE lite_v16 lite_v16_load(const float *p) { return _mm512_loadu_ps(p); }
LITE_INLINE void lite_v16_store(float *p, lite_v16 v) { _mm512_storeu_ps(p, v); }
LITE_INLINE lite_v16 lite_v16_zero(void) { return _mm512_setzero_ps(); }
LITE_INLINE lite_v16 lite_v16_set1(float x) { return _mm512_set1_ps(x); }
LITE_INLINE lite_v16 lite_v16_fma(lite_v16 c, lite_v16 a, lite_v16 b) { return _mm512_fmadd_ps(a, b, c); }
LITE_INLINE lite_v16 lite_v16_clamp(lite_v16 v, lite_v16 low, lite_v16 high) { return _mm512_min_ps(high, _mm512_max_ps(low, v)); }

// Every filter in AVX-512 registers; called below for 3x3 filters only.
void lite_f32_dwconv_rows_zmm__avx512(const lite_f32_dwconv_geometry *geometry, const float *input, const float *weights,
                                      const float *bias, float *output, size_t row_begin, size_t row_end, float low, float high);
#define LITE_DWCONV_ROWS lite_f32_dwconv_rows_zmm__avx512
#include "../f32_dwconv_rows.h"

void lite_f32_dwconv_rows__avx512(const lite_f32_dwconv_geometry *geometry, const float *input, const float *weights,
                                  const float *bias, float *output, size_t row_begin, size_t row_end, float low, float high) {
    const lite_f32_dwconv_geometry *g = geometry;
    if (g->multiplier == 1 && g->kh == 3 && g->kw == 3 && g->out_c >= 4) {
        lite_f32_dwconv_rows_zmm__avx512(geometry, input, weights, bias, output, row_begin, row_end, low, high);
    } else {
        lite_f32_dwconv_rows__avx2(geometry, input, weights, bias, output, row_begin, row_end, low, high);
    }
}

LITE_TARGET_END

#endif
