#include "lite_s8_dot.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include <string.h>

#include "../isa_targets.h"

LITE_TARGET_AVX2_BEGIN

#include "byte_packing.h"
#include "rescale.h"

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

void lite_s8_matvec_s16__avx2(const int8_t *x, const int8_t *w, const int32_t *bias, ptrdiff_t rows, ptrdiff_t columns,
                              int32_t multiplier, int32_t shift, int16_t *out, int accumulate) {
    const lite_rescale8 rescale = lite_rescale8_make(multiplier, shift);
    for (ptrdiff_t r = 0; r < rows; r += 8) {
        const ptrdiff_t n = rows - r < 8 ? rows - r : 8;
        int32_t sums[8] = {0}, biases[8] = {0};
        int16_t prior[8] = {0};
        lite_s8_dot_rows__avx2(x, w + r * columns, n, columns, sums);
        memcpy(biases, bias + r, (size_t)n * sizeof(int32_t));
        if (accumulate) memcpy(prior, out + r, (size_t)n * sizeof(int16_t));
        const __m256i total = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)sums), _mm256_loadu_si256((const __m256i *)biases));
        const __m256i value = _mm256_add_epi32(lite_rescale8_apply(&rescale, total),
                                               _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)prior)));
        // packs saturates each int32 to int16: [v0-3 v0-3 | v4-7 v4-7], the halves' first four words joined.
        const __m256i words = _mm256_permute4x64_epi64(_mm256_packs_epi32(value, value), _MM_SHUFFLE(3, 1, 2, 0));
        const __m128i result = _mm256_castsi256_si128(words);
        if (n == 8) {
            _mm_storeu_si128((__m128i *)(out + r), result);
        } else {
            int16_t buffer[8];
            _mm_storeu_si128((__m128i *)buffer, result);
            memcpy(out + r, buffer, (size_t)n * sizeof(int16_t));
        }
    }
}

LITE_TARGET_END

#endif
