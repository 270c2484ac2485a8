#if defined(__x86_64__)

#include <immintrin.h>
#include <math.h>
#include <stdint.h>

#include "../isa_targets.h"
#include "../../include/lite_f32_dwconv.h"

LITE_TARGET_AVX2_BEGIN

#define LITE_INLINE static inline __attribute__((always_inline))

// Vectors of 16, 8 and 4 channels with the same operations, so each kernel below is written once for the three
// widths. `fma(c, a, b)` is `c + a·b` rounded once in every lane; `clamp(v, low, high)` is `min(high, max(low, v))`,
// whose instructions return their second operand when either is NaN, so NaN passes through as in the scalar
// `v < low ? low : v`, then `x > high ? high : x`.

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

typedef __m256 lite_v8;
LITE_INLINE lite_v8 lite_v8_load(const float *p) { return _mm256_loadu_ps(p); }
LITE_INLINE void lite_v8_store(float *p, lite_v8 v) { _mm256_storeu_ps(p, v); }
LITE_INLINE lite_v8 lite_v8_zero(void) { return _mm256_setzero_ps(); }
LITE_INLINE lite_v8 lite_v8_set1(float x) { return _mm256_set1_ps(x); }
LITE_INLINE lite_v8 lite_v8_fma(lite_v8 c, lite_v8 a, lite_v8 b) { return _mm256_fmadd_ps(a, b, c); }
LITE_INLINE lite_v8 lite_v8_clamp(lite_v8 v, lite_v8 low, lite_v8 high) { return _mm256_min_ps(high, _mm256_max_ps(low, v)); }

typedef __m128 lite_v4;
LITE_INLINE lite_v4 lite_v4_load(const float *p) { return _mm_loadu_ps(p); }
LITE_INLINE void lite_v4_store(float *p, lite_v4 v) { _mm_storeu_ps(p, v); }
LITE_INLINE lite_v4 lite_v4_zero(void) { return _mm_setzero_ps(); }
LITE_INLINE lite_v4 lite_v4_set1(float x) { return _mm_set1_ps(x); }
LITE_INLINE lite_v4 lite_v4_fma(lite_v4 c, lite_v4 a, lite_v4 b) { return _mm_fmadd_ps(a, b, c); }
LITE_INLINE lite_v4 lite_v4_clamp(lite_v4 v, lite_v4 low, lite_v4 high) { return _mm_min_ps(high, _mm_max_ps(low, v)); }

#define LITE_DWCONV_ROWS lite_f32_dwconv_rows__avx2
#include "../f32_dwconv_rows.h"

LITE_TARGET_END

#endif
