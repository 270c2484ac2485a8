#ifndef LITE_AVX2_BYTE_PACKING_H
#define LITE_AVX2_BYTE_PACKING_H

// Lane shuffles shared by the AVX2 quantized microkernels. Include after LITE_TARGET_AVX2_BEGIN so these helpers
// are compiled for AVX2 in each file that uses them.
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

/// Lane 2i is the low half of `even`'s 64-bit lane i, lane 2i+1 the low half of `odd`'s (the results of a
/// computation done in 64-bit lanes on the even and odd int32 lanes, as `vpmuldq` multiplies them).
static inline __m256i lite_join_even_odd_lanes8(__m256i even, __m256i odd) {
    return _mm256_or_si256(_mm256_and_si256(even, _mm256_set1_epi64x(0xFFFFFFFF)), _mm256_slli_epi64(odd, 32));
}

/// Eight int32 lanes already clamped to an 8-bit type's range as eight bytes (the low 64 bits): each 128-bit half
/// packed to int16, then to bytes (`is_unsigned`: uint8's saturation, else int8's; either is exact inside the
/// range), and the halves' first four bytes joined.
static inline __m128i lite_pack_bytes8(__m256i v, int is_unsigned) {
    const __m256i words = _mm256_packs_epi32(v, v);
    const __m256i packed = is_unsigned ? _mm256_packus_epi16(words, words) : _mm256_packs_epi16(words, words);
    return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4)));
}

/// Sixteen int32 lanes (`a` then `b`) already clamped to an 8-bit type's range as sixteen bytes: packed together to
/// int16 and to bytes within each 128-bit half, then `a`'s two groups of four and `b`'s gathered in order.
static inline __m128i lite_pack_bytes16(__m256i a, __m256i b, int is_unsigned) {
    // words: [a0-3 b0-3 | a4-7 b4-7]; bytes' 32-bit groups: [a0-3 b0-3 a0-3 b0-3 | a4-7 b4-7 a4-7 b4-7].
    const __m256i words = _mm256_packs_epi32(a, b);
    const __m256i packed = is_unsigned ? _mm256_packus_epi16(words, words) : _mm256_packs_epi16(words, words);
    return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 0, 4, 1, 5)));
}

/// The first `count` (at most 8) of the low 8 bytes of `bytes`, stored without writing past them.
static inline void lite_store_bytes8(__m128i bytes, int count, void *destination) {
    if (count == 8) {
        _mm_storel_epi64((__m128i *)destination, bytes);
    } else {
        const uint64_t word = (uint64_t)_mm_cvtsi128_si64(bytes);
        memcpy(destination, &word, (size_t)count);  // little-endian: the low `count` bytes
    }
}

/// Sixteen int8 (`is_unsigned` 0) or uint8 values widened to int32, as two vectors of eight.
static inline void lite_widen16(const void *source, int is_unsigned, __m256i *low, __m256i *high) {
    const __m128i a = _mm_loadl_epi64((const __m128i *)source);
    const __m128i b = _mm_loadl_epi64((const __m128i *)((const uint8_t *)source + 8));
    *low = is_unsigned ? _mm256_cvtepu8_epi32(a) : _mm256_cvtepi8_epi32(a);
    *high = is_unsigned ? _mm256_cvtepu8_epi32(b) : _mm256_cvtepi8_epi32(b);
}

#endif
