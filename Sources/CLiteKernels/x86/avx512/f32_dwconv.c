// The float depthwise kernel of the avx512 level. Filters 3, 5 or 7 wide at stride 1 across (and 5 or 7 wide at
// stride 2) share each loaded input column between the adjacent pixels whose filters cover it
// (../f32_dwconv_shared_columns.h: hand landmark's 5x5 layers 2-2.8x faster, its 3x3 ones 5-25%, than the four-pixel
// and 3x3 rows kernels on an AVX-512 EPYC). 3x3 filters at stride 2 run the rows kernel (f32_dwconv_rows.h) with 16
// channels in one AVX-512 register and the nine weight vectors held in registers; other shapes run the avx2 kernel.
// Every path adds the same fused multiply-adds in the same order: the same bits as the avx2 level.
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

// The rows kernel in AVX-512 registers; called below for 3x3 filters at stride 2 across.
void lite_f32_dwconv_rows_zmm__avx512(const lite_f32_dwconv_geometry *geometry, const float *input, const float *weights,
                                      const float *bias, float *output, size_t row_begin, size_t row_end, float low, float high);
#define LITE_DWCONV_ROWS lite_f32_dwconv_rows_zmm__avx512
#include "../f32_dwconv_rows.h"

// The shared-column kernel's vector (f32_dwconv_shared_columns.h): 16 channels, lane masks on the loads and stores.
#define LITE_DWV_WIDTH 16
typedef __mmask16 lite_dwv_lanes;
LITE_INLINE lite_dwv_lanes lite_dwv_lanes_of(ptrdiff_t count) { return (__mmask16)(count >= 16 ? 0xFFFF : (1u << count) - 1); }
LITE_INLINE __m512 lite_dwv_load(lite_dwv_lanes lanes, const float *p) { return _mm512_maskz_loadu_ps(lanes, p); }
LITE_INLINE void lite_dwv_store(float *p, lite_dwv_lanes lanes, __m512 v) { _mm512_mask_storeu_ps(p, lanes, v); }
#include "../f32_dwconv_shared_columns.h"

void lite_f32_dwconv_rows__avx512(const lite_f32_dwconv_geometry *geometry, const float *input, const float *weights,
                                  const float *bias, float *output, size_t row_begin, size_t row_end, float low, float high) {
    const lite_f32_dwconv_geometry *g = geometry;
    const lite_dw_row_fn shared_columns = lite_dw_shared_columns_row(g);
    if (shared_columns != NULL) {
        lite_dw_shared_columns_rows(shared_columns, g, input, weights, bias, output, row_begin, row_end, low, high);
    } else if (g->multiplier == 1 && g->kh == 3 && g->kw == 3 && g->out_c >= 4) {
        lite_f32_dwconv_rows_zmm__avx512(geometry, input, weights, bias, output, row_begin, row_end, low, high);
    } else {
        lite_f32_dwconv_rows__avx2(geometry, input, weights, bias, output, row_begin, row_end, low, high);
    }
}

LITE_TARGET_END

#endif
