#ifndef LITE_AVX512_EVEN_ODD_LANES_H
#define LITE_AVX512_EVEN_ODD_LANES_H

// Lane shuffles shared by the AVX-512 quantized microkernels. Include after LITE_TARGET_AVX512_BEGIN (or
// _AVX512VNNI_) so these helpers are compiled for that level in each file that uses them.
#include <immintrin.h>

/// Sixteen int32 results of a computation done in 64-bit lanes on the even and the odd int32 lanes (as `vpmuldq`
/// multiplies them): lane 2i is the low half of `even`'s 64-bit lane i, lane 2i+1 the low half of `odd`'s. Each
/// result must fit int32.
static inline __m512i lite_join_even_odd_lanes16(__m512i even, __m512i odd) {
    return _mm512_permutex2var_epi32(even, _mm512_set_epi32(30, 14, 28, 12, 26, 10, 24, 8, 22, 6, 20, 4, 18, 2, 16, 0), odd);
}

#endif
