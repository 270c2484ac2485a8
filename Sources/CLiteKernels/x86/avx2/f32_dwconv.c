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

#define LITE_DWCONV_ROWS lite_f32_dwconv_rows__avx2
#include "../f32_dwconv_rows.h"

LITE_TARGET_END

#endif
