#include "lite_s8_dot.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "../isa_targets.h"

LITE_TARGET_AVX2_BEGIN

void lite_s8_dot_rows__avx2(const int8_t *x, const int8_t *w, ptrdiff_t rows, ptrdiff_t columns, int32_t *sums) {
    const ptrdiff_t whole = columns & ~(ptrdiff_t)15;
    for (ptrdiff_t r = 0; r < rows; r++) {
        const int8_t *row = w + r * columns;
        __m256i acc = _mm256_setzero_si256();
        for (ptrdiff_t c = 0; c < whole; c += 16) {
            const __m256i xs = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(x + c)));
            const __m256i ws = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(row + c)));
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(xs, ws));
        }
        __m128i half = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
        half = _mm_add_epi32(half, _mm_shuffle_epi32(half, _MM_SHUFFLE(1, 0, 3, 2)));
        half = _mm_add_epi32(half, _mm_shuffle_epi32(half, _MM_SHUFFLE(2, 3, 0, 1)));
        int32_t sum = _mm_cvtsi128_si32(half);
        for (ptrdiff_t c = whole; c < columns; c++) sum += (int32_t)x[c] * (int32_t)row[c];
        sums[r] = sum;
    }
}

LITE_TARGET_END

#endif
