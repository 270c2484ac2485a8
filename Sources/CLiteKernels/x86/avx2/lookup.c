// 256-entry byte tables (LOGISTIC, TANH, HARD_SWISH, QUANTIZE and the other 8-bit ops that are a table of their
// input) with AVX2's in-lane byte shuffle, XNNPACK's arrangement (x8-lut avx2): `vpshufb` reads a 16-byte table by
// a byte's low four bits and gives 0 when its top bit is set. The input is shuffled against the table's sixteen
// 16-byte rows one after another, each time 16 less, and the picks are XORed together; the rows are stored as the
// XOR of neighbours (below), so that the picks that are not zeroed XOR down to the row the byte indexes.
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "../isa_targets.h"
#include "lite_elementwise.h"

LITE_TARGET_AVX2_BEGIN

/// Step k shuffles x - 16k against stored row d[k] (wrapping subtraction up to k = 8, signed saturating after, so that
/// a value that went negative stays negative). With r[k] the table's row k, d[0] = r[0], d[k] = r[k-1] ^ r[k] for
/// k = 1...7 and d[k] = r[k-1] ^ r[k] ^ d[k-8] for k = 8...15. For x < 128 (row j = x >> 4 below 8) the steps whose
/// value has a top bit of 0 are k = 0...j, and d[0] ^ ... ^ d[j] = r[j]. For x >= 128 (j = 8 + m) they are
/// k = m+1...7, k = 8 and k = 9...8+m, whose picks XOR to (r[m] ^ r[7]) ^ (r[7] ^ r[8] ^ r[0]) ^ (r[8] ^ r[j] ^ r[0]
/// ^ r[m]) = r[j]. A step that picks reads x's low four bits, which subtracting 16 with wraparound keeps (a value
/// that saturated has its top bit set and picks nothing).
typedef struct { __m256i rows[16]; } lite_lookup_rows;

static inline __attribute__((always_inline)) lite_lookup_rows lite_lookup_prepare(const uint8_t *table) {
    __m256i r[16];
    for (int k = 0; k < 16; k++) r[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(table + 16 * k)));
    lite_lookup_rows d;
    d.rows[0] = r[0];
    for (int k = 1; k < 8; k++) d.rows[k] = _mm256_xor_si256(r[k - 1], r[k]);
    for (int k = 8; k < 16; k++) d.rows[k] = _mm256_xor_si256(_mm256_xor_si256(r[k - 1], r[k]), d.rows[k - 8]);
    return d;
}

static inline __attribute__((always_inline)) __m256i lite_lookup32(__m256i x, const lite_lookup_rows *d) {
    const __m256i sixteen = _mm256_set1_epi8(16);
    __m256i y = _mm256_shuffle_epi8(d->rows[0], x);
    for (int k = 1; k <= 8; k++) {
        x = _mm256_sub_epi8(x, sixteen);
        y = _mm256_xor_si256(y, _mm256_shuffle_epi8(d->rows[k], x));
    }
    for (int k = 9; k < 16; k++) {
        x = _mm256_subs_epi8(x, sixteen);
        y = _mm256_xor_si256(y, _mm256_shuffle_epi8(d->rows[k], x));
    }
    return y;
}

void lite_u8_lookup__avx2(const uint8_t *table, const uint8_t *input, uint8_t *output, size_t count) {
    const lite_lookup_rows d = lite_lookup_prepare(table);
    size_t i = 0;
    for (; i + 32 <= count; i += 32) {
        _mm256_storeu_si256((__m256i *)(output + i), lite_lookup32(_mm256_loadu_si256((const __m256i *)(input + i)), &d));
    }
    if (i < count) {
        uint8_t lanes[32] = {0};
        memcpy(lanes, input + i, count - i);
        _mm256_storeu_si256((__m256i *)lanes, lite_lookup32(_mm256_loadu_si256((const __m256i *)lanes), &d));
        memcpy(output + i, lanes, count - i);
    }
}

LITE_TARGET_END

#endif
