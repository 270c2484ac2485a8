#if defined(__x86_64__)

#include <immintrin.h>
#include <math.h>
#include <stdint.h>

#include "../isa_targets.h"
#include "../../include/lite_f32_dwconv.h"

LITE_TARGET_AVX2_BEGIN

#define LITE_INLINE static inline __attribute__((always_inline))

// 16 channels in two AVX registers (f32_dwconv_rows.h says what the operations compute).

typedef struct { __m256 lo, hi; } lite_v16;
LITE_INLINE lite_v16 lite_v16_load(const float *p) { return (lite_v16){_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)}; }
LITE_INLINE void lite_v16_store(float *p, lite_v16 v) { _mm256_storeu_ps(p, v.lo); _mm256_storeu_ps(p + 8, v.hi); }
LITE_INLINE lite_v16 lite_v16_zero(void) { return (lite_v16){_mm256_setzero_ps(), _mm256_setzero_ps()}; }
LITE_INLINE lite_v16 lite_v16_set1(float x) { return (lite_v16){_mm256_set1_ps(x), _mm256_set1_ps(x)}; }
LITE_INLINE lite_v16 lite_v16_fma(lite_v16 c, lite_v16 a, lite_v16 b) {
    return (lite_v16){_mm256_fmadd_ps(a.lo, b.lo, c.lo), _mm256_fmadd_ps(a.hi, b.hi, c.hi)};
}
LITE_INLINE lite_v16 lite_v16_clamp(lite_v16 v, lite_v16 low, lite_v16 high) {
    return (lite_v16){_mm256_min_ps(high.lo, _mm256_max_ps(low.lo, v.lo)), _mm256_min_ps(high.hi, _mm256_max_ps(low.hi, v.hi))};
}

// The four-pixel and 3x3 rows kernel, for the shapes the shared-column kernel below does not take.
void lite_f32_dwconv_rows_pixels__avx2(const lite_f32_dwconv_geometry *geometry, const float *input, const float *weights,
                                       const float *bias, float *output, size_t row_begin, size_t row_end, float low, float high);
#define LITE_DWCONV_ROWS lite_f32_dwconv_rows_pixels__avx2
#include "../f32_dwconv_rows.h"

// The shared-column kernel's vector (f32_dwconv_shared_columns.h): 8 channels; the last group of a layer whose
// channels are not a multiple of 8 loads and stores through lane masks (vmaskmovps), the others plainly.
#define LITE_DWV_WIDTH 8
typedef struct { __m256i mask; int all; } lite_dwv_lanes;
LITE_INLINE lite_dwv_lanes lite_dwv_lanes_of(ptrdiff_t count) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return (lite_dwv_lanes){_mm256_cmpgt_epi32(_mm256_set1_epi32((int)(count >= 8 ? 8 : count)), lane), count >= 8};
}
LITE_INLINE __m256 lite_dwv_load(lite_dwv_lanes lanes, const float *p) {
    return lanes.all ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, lanes.mask);
}
LITE_INLINE void lite_dwv_store(float *p, lite_dwv_lanes lanes, __m256 v) {
    if (lanes.all) {
        _mm256_storeu_ps(p, v);
    } else {
        _mm256_maskstore_ps(p, lanes.mask, v);
    }
}
#include "../f32_dwconv_shared_columns.h"

void lite_f32_dwconv_rows__avx2(const lite_f32_dwconv_geometry *geometry, const float *input, const float *weights,
                                const float *bias, float *output, size_t row_begin, size_t row_end, float low, float high) {
    const lite_f32_dwconv_geometry *g = geometry;
    // 3x3 filters keep the rows kernel here: with 8 channels a register, sharing columns was slower (MobileNetV2's
    // 112x112x32 layer 0.095 -> 0.108 ms at this level on an AVX-512 EPYC).
    const lite_dw_row_fn shared_columns = g->kh == 3 && g->kw == 3 ? NULL : lite_dw_shared_columns_row(g);
    if (shared_columns != NULL) {
        lite_dw_shared_columns_rows(shared_columns, g, input, weights, bias, output, row_begin, row_end, low, high);
    } else {
        lite_f32_dwconv_rows_pixels__avx2(geometry, input, weights, bias, output, row_begin, row_end, low, high);
    }
}

LITE_TARGET_END

#endif
