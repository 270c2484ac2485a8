#ifndef LITE_ELEMENTWISE_H
#define LITE_ELEMENTWISE_H

// Quantized elementwise microkernels (ADD, MUL, SQUARED_DIFFERENCE) with TFLite's integer arithmetic, bit-exact.
#include <stddef.h>
#include <stdint.h>

/// Quantized ADD of two inputs of one shape (TFLite's AddElementwise for 8-bit types): each input less its zero
/// point (`input*_offset` is minus the zero point), shifted left by 20, rescaled by
/// `SaturatingRoundingDoublingHighMul(x, input*_multiplier) >> -input*_shift` (a truncating shift, as LiteRT's NEON
/// loop), the sum rescaled by `MultiplyByQuantizedMultiplier(sum, output_multiplier, output_shift)` (ties away from
/// zero), plus `output_offset`, clamped to [output_min, output_max]. All shifts are ≤ 0.
typedef struct {
    int32_t input1_offset, input2_offset, output_offset;
    int32_t input1_multiplier, input2_multiplier, output_multiplier;
    int32_t input1_shift, input2_shift, output_shift;
    int32_t output_min, output_max;
} lite_q8_add_params;

/// Quantized MUL (TFLite's MulElementwise): `clamp(output_offset + MultiplyByQuantizedMultiplier((x + input1_offset)
/// · (y + input2_offset), multiplier, shift), output_min, output_max)`, the product in int32 (wrapping) and the
/// rescale with TFLite's double rounding. Needs multiplier ≥ 0 and -31 ≤ shift ≤ 30.
typedef struct {
    int32_t input1_offset, input2_offset, output_offset;
    int32_t multiplier, shift;
    int32_t output_min, output_max;
} lite_q_mul_params;

/// Quantized int8 SQUARED_DIFFERENCE (TFLite's squared_difference.cc): each input plus its offset, shifted left by
/// 7, rescaled by `MultiplyByQuantizedMultiplier(·, input*_multiplier, input*_shift)`; the difference squared in int32
/// and rescaled by `MultiplyByQuantizedMultiplier(·, output_multiplier, output_shift)`, plus `output_offset`, clamped
/// to [-128, 127]. Needs every multiplier ≥ 0 and every shift in -31...30.
typedef struct {
    int32_t input1_offset, input2_offset, output_offset;
    int32_t input1_multiplier, input1_shift;
    int32_t input2_multiplier, input2_shift;
    int32_t output_multiplier, output_shift;
} lite_qs8_squared_difference_params;

#if defined(__x86_64__)
/// ADD of `count` int8 (qs8) or uint8 (qu8) values of `a` and `b` into `out` (lite_q8_add_params), 8 at a time;
/// the last `count % 8` go through 8-byte buffers so nothing is read or written past the arrays. Needs
/// output_shift ≥ -22 and both input shifts ≥ -31: the input rescale is `⌊(x·m + 2^30) / 2^(31 - shift)⌋` in 64-bit
/// lanes, the output rescale's rounding done in int32 lanes with its zero point folded in before the shift.
void lite_qs8_vadd__avx2(const int8_t *a, const int8_t *b, int8_t *out, size_t count, const lite_q8_add_params *params);
void lite_qu8_vadd__avx2(const uint8_t *a, const uint8_t *b, uint8_t *out, size_t count, const lite_q8_add_params *params);
/// The same ADD 16 values at a time with masked loads and stores for the last ones (AVX-512 F/BW/VL); needs only
/// output_shift ≥ -22 (64-bit lanes shift arithmetically). With both input shifts ≥ -11 the input rescales are done
/// in 32-bit lanes (the same values, see the source).
void lite_qs8_vadd__avx512(const int8_t *a, const int8_t *b, int8_t *out, size_t count, const lite_q8_add_params *params);
void lite_qu8_vadd__avx512(const uint8_t *a, const uint8_t *b, uint8_t *out, size_t count, const lite_q8_add_params *params);

/// MUL of a run of `count` outputs: `out[k]` from `a[k · a_step]` and `b[k · b_step]`, each step 1 (the operand
/// advances) or 0 (it repeats its first value). Writes the whole groups of eight and returns how many values it
/// wrote (`count` rounded down to a multiple of 8); the caller finishes the rest.
size_t lite_qs8_vmul__avx2(const int8_t *a, size_t a_step, const int8_t *b, size_t b_step, int8_t *out, size_t count,
                           const lite_q_mul_params *params);
size_t lite_qu8_vmul__avx2(const uint8_t *a, size_t a_step, const uint8_t *b, size_t b_step, uint8_t *out, size_t count,
                           const lite_q_mul_params *params);
size_t lite_qs16_vmul__avx2(const int16_t *a, size_t a_step, const int16_t *b, size_t b_step, int16_t *out, size_t count,
                            const lite_q_mul_params *params);

/// SQUARED_DIFFERENCE of a run, as lite_qs8_vmul__avx2 runs: whole groups of eight, returns how many it wrote.
size_t lite_qs8_vsquared_difference__avx2(const int8_t *a, size_t a_step, const int8_t *b, size_t b_step, int8_t *out,
                                          size_t count, const lite_qs8_squared_difference_params *params);

/// `output[i] = table[input[i]]` for `count` bytes (an 8-bit op's 256-entry table): 64 bytes at a time, two `vpermi2b`
/// over the table's halves and a blend by each byte's top bit; masked loads and stores for the last ones. AVX-512
/// VBMI.
void lite_u8_lookup__avx512vbmi(const uint8_t *table, const uint8_t *input, uint8_t *output, size_t count);

/// `output[i] = table[input[i]]` for `count` bytes: 32 at a time, sixteen `vpshufb` over the table's 16-byte rows
/// (XNNPACK's x8-lut arrangement, x86/avx2/lookup.c); the last ones through a 32-byte copy. AVX2.
void lite_u8_lookup__avx2(const uint8_t *table, const uint8_t *input, uint8_t *output, size_t count);
#endif

#endif
