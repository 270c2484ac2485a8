"""Quantized models written directly with the schema: scales chosen to hit rounding ties, rescaled comparisons, division, dequantization, reductions, unary ops, the int8 LSTM with a projection."""
from .common import case, np, tf
from .builders import built_add, built_batch_matmul, built_binary, built_comparisons, built_concatenation, built_depthwise, built_dequantize, built_div, built_int16_activation, built_int8_lstm_projection, built_mul, built_power_of_two_layer, built_prelu, built_quantize_float, built_reduce, built_requantize, built_transpose_conv_ties, built_uint8_resize_bilinear, built_unary, divisors


case("q_lstm_int8_projection", [(2, 6, 5)], built=True)(built_int8_lstm_projection(6, 2, 5, 8, 4))
case("q_lstm_int8_projection_clips", [(1, 9, 3)], built=True)(built_int8_lstm_projection(9, 1, 3, 6, 5, cell_clip=0.5, proj_clip=0.3))

case("q_add_int8_ties", [(1, 8, 9, 7), (1, 8, 9, 7)], built=True)(
    built_add(np.int8, (1, 8, 9, 7), [(0.05, -3), (0.05, 11)], (0.1, 2)))
case("q_add_uint8_ties", [(1, 8, 9, 7), (1, 8, 9, 7)], built=True)(
    built_add(np.uint8, (1, 8, 9, 7), [(0.025, 120), (0.05, 131)], (0.1, 127)))
case("q_sub_int8_ties", [(2, 5, 13), (2, 5, 13)], built=True)(
    built_add(np.int8, (2, 5, 13), [(0.05, 0), (0.025, -7)], (0.2, -1), op="SUB"))
case("q_batch_matmul_int8_ties", [(2, 16, 1), (2, 1, 16)], built=True)(
    built_batch_matmul((2, 16, 1), (2, 1, 16), (0.0625, 3), (0.0625, -5), (0.5, 1)))
case("q_batch_matmul_int8_ties_adjoints", [(3, 2, 9), (1, 12, 2)], built=True)(
    built_batch_matmul((3, 2, 9), (1, 12, 2), (0.125, -2), (0.0625, 0), (1.0, -3), adj_x=True, adj_y=True))
# DenseNet121 16x8's first batch-norm MUL scales: LiteRT's multiplier s_a·s_b/s_out in single precision (1224752896)
# and in double (1224752921) put about 4 of these 16,384 products on other sides of a rounding tie.
case("q16_mul_float_multiplier", [(1, 128, 128), (1, 128, 128)], built=True)(
    built_mul(np.int16, (1, 128, 128), (3.18578677251935e-05, 3.051835665246472e-05, 2.7930529540753923e-05)))
case("q16_logistic_power_of_two_scale", [(64, 64)], built=True)(built_int16_activation("LOGISTIC", 2.0 ** -12))
case("q16_tanh_power_of_two_scale", [(64, 64)], built=True)(built_int16_activation("TANH", 2.0 ** -12))
case("q16_tanh_power_of_two_scale_shifted", [(64, 64)], built=True)(built_int16_activation("TANH", 2.0 ** -11))
case("q_transpose_conv_int8_ties", [(1, 5, 6, 7)], built=True)(built_transpose_conv_ties((1, 5, 6, 7), 10, 3, 2))
case("q_conv_int8_1x1_ties", [(1, 6, 7, 5)], built=True)(built_power_of_two_layer("CONV_2D", np.int8, (1, 6, 7, 5), 19))
case("q_conv_int8_3x3_ties", [(1, 7, 6, 3)], built=True)(built_power_of_two_layer("CONV_2D", np.int8, (1, 7, 6, 3), 10, kernel=3, stride=2))
case("q_conv_uint8_1x1_ties", [(1, 6, 7, 5)], built=True)(built_power_of_two_layer("CONV_2D", np.uint8, (1, 6, 7, 5), 12))
case("q_depthwise_int8_ties", [(1, 8, 7, 28)], built=True)(built_power_of_two_layer("DEPTHWISE_CONV_2D", np.int8, (1, 8, 7, 28), 28, kernel=3))
case("q_depthwise_uint8_ties", [(1, 8, 7, 16)], built=True)(built_power_of_two_layer("DEPTHWISE_CONV_2D", np.uint8, (1, 8, 7, 16), 16, kernel=3))
# Depthwise layers as real int8 models have them: the "dead" channels converters leave (all-zero weights, a scale near
# 1e-8, bias ±2^30: multipliers near 2^-26, whose zero point cannot ride in the requantization's 32-bit lanes), a
# channel with a multiplier above 1, 5x5 and 7x7 filters (more than four filter rows), dilation, channel counts that
# are not a multiple of 16.
case("q_depthwise_int8_dead_channels", [(1, 13, 12, 37)], built=True)(
    built_depthwise(np.int8, (1, 13, 12, 37), 3, dead_channels=(3, 16, 33), amplified_channels=(20,)))
case("q_depthwise_int8_5x5_stride2_dead_channels", [(1, 15, 14, 40)], built=True)(
    built_depthwise(np.int8, (1, 15, 14, 40), 5, stride=2, dead_channels=(0, 39), amplified_channels=(17,)))
case("q_depthwise_int8_7x7_dilation2_valid", [(2, 17, 16, 21)], built=True)(
    built_depthwise(np.int8, (2, 17, 16, 21), 7, dilation=2, padding="VALID", dead_channels=(5,)))
# Two images of 7 output rows each (VALID): the VNNI kernel's pairs of output rows that share an interleave must not
# cross from one image to the next, and the odd last row runs alone; 5x5 and 7x7 filters at stride 1 share theirs
# across two row groups.
case("q_depthwise_int8_3x3_valid_batch2_relu6", [(2, 9, 10, 33)], built=True)(
    built_depthwise(np.int8, (2, 9, 10, 33), 3, padding="VALID", relu6=True))
case("q_depthwise_int8_5x5_stride1", [(1, 11, 12, 40)], built=True)(built_depthwise(np.int8, (1, 11, 12, 40), 5))
case("q_depthwise_int8_7x7_valid_batch2", [(2, 14, 11, 18)], built=True)(
    built_depthwise(np.int8, (2, 14, 11, 18), 7, padding="VALID", relu6=True))
case("q_depthwise_uint8_5x5", [(1, 12, 11, 24)], built=True)(built_depthwise(np.uint8, (1, 12, 11, 24), 5))
case("q_depthwise_uint8_7x7_stride2_relu6", [(1, 16, 15, 19)], built=True)(built_depthwise(np.uint8, (1, 16, 15, 19), 7, stride=2, relu6=True))
case("q_fully_connected_int8_ties", [(3, 9)], built=True)(built_power_of_two_layer("FULLY_CONNECTED", np.int8, (3, 9), 13))
case("q_fully_connected_uint8_ties", [(1, 9)], built=True)(built_power_of_two_layer("FULLY_CONNECTED", np.uint8, (1, 9), 21))
# MEAN over H and W with keep_dims (TFLite's optimized integer Mean) on scales a power of two apart and 16 pixels:
# the rescale is exact, so one mean in 32 is a rounding tie.
case("q_mean_int8_ties", [(48, 4, 4, 40)], built=True)(
    built_reduce("MEAN", np.int8, (48, 4, 4, 40), [1, 2], True, (2.0 ** -4, 3), (2.0 ** -3, -1)))
case("q_mean_uint8_ties", [(48, 4, 4, 40)], built=True)(
    built_reduce("MEAN", np.uint8, (48, 4, 4, 40), [1, 2], True, (2.0 ** -4, 128), (2.0 ** -3, 125)))
# SUM that rescales (LiteRT does it in single precision: with scales 0.05 -> 0.3 its float errors decide the near-ties
# of sum / 6), and a generic MEAN (integer).
case("q_comparisons_int8_rescaled", [(6, 40), (6, 40)], built=True)(built_comparisons(np.int8, (6, 40), (6, 40), (0.05, 3), (0.0731, -7)))
# Scales 0.05 and 0.1 with x - 3 = 2 (y + 7) + {-1, 0, 1}: a third of the pairs are equal in real value, the rest one
# step of x apart, so EQUAL and the order of near neighbours depend on the fixed-point rescale's rounding.
comparison_y = np.random.default_rng(31).integers(-60, 55, size=(6, 40))
comparison_x = np.clip(2 * (comparison_y + 7) + 3 + np.random.default_rng(32).integers(-1, 2, size=(6, 40)), -128, 127)
case("q_comparisons_int8_near_ties", [(6, 40), (6, 40)], built=True, inputs=[comparison_x, comparison_y])(
    built_comparisons(np.int8, (6, 40), (6, 40), (0.05, 3), (0.1, -7)))
case("q_comparisons_uint8_rescaled_broadcast", [(5, 1, 30), (4, 30)], built=True)(
    built_comparisons(np.uint8, (5, 1, 30), (4, 30), (0.02, 128), (0.5 / 128, 140)))
# Quotients of every size: small numerators over large divisors ask the rescale for right shifts past 31, which
# LiteRT's x86 build takes modulo 32 (Div.roundingDivideByPOT).
case("q_div_int8", [(8, 50), (8, 50)], built=True,
     inputs=[np.random.default_rng(41).integers(-128, 128, size=(8, 50)), divisors(np.int8, (8, 50), -3, 42)])(
    built_div(np.int8, (8, 50), (8, 50), (0.04, 5), (0.05, -3), (1 / 128, 0)))
# Scales whose multiplier is 25 in single precision (25.0000006 in double): real quotients such as 62.5 are ties.
case("q_div_int8_ties", [(12, 30), (12, 30)], built=True,
     inputs=[np.random.default_rng(7).integers(-128, 128, size=(12, 30)), divisors(np.int8, (12, 30), -8, 8)])(
    built_div(np.int8, (12, 30), (12, 30), (0.1, 0), (0.02, -8), (0.2, -28)))
case("q_div_uint8_broadcast", [(4, 1, 30), (3, 30)], built=True,
     inputs=[np.random.default_rng(43).integers(0, 256, size=(4, 1, 30)), divisors(np.uint8, (3, 30), 120, 44)])(
    built_div(np.uint8, (4, 1, 30), (3, 30), (0.1, 128), (0.02, 120), (0.2, 100)))
case("q_div_int16", [(6, 40), (6, 40)], built=True,
     inputs=[np.random.default_rng(45).integers(-32768, 32768, size=(6, 40)), divisors(np.int16, (6, 40), 0, 46)])(
    built_div(np.int16, (6, 40), (6, 40), (1 / 4096, 0), (1 / 2048, 0), (1 / 16384, 0)))
# Keras' softsign, x / (1 + |x|), in a full-integer model: the converter's int8 DIV.
case("q_div_softsign_int8", [(4, 24)], optimize="quantize_int8", low=-6.0, high=6.0)(lambda x: tf.nn.softsign(x * 1.5))
case("q_log_softmax_uint8_built", [(3, 1, 40)], built=True)(built_unary("LOG_SOFTMAX", np.uint8, (3, 1, 40), (0.07, 140), (16 / 256, 255)))
# LiteRT's x86 DEQUANTIZE takes whole blocks of 8 values through a two-rounding vector path and the rest through a
# one-rounding scalar one: lengths that leave a tail, compared bit for bit.
case("q_dequantize_int8_blocks_and_tail", [(37,)], built=True, exact=True)(built_dequantize(np.int8, (37,), (0.0011001141, -14)))
case("q_dequantize_uint8_blocks_and_tail", [(5, 14)], built=True, exact=True)(built_dequantize(np.uint8, (5, 14), (0.0011001141, 114)))
# int16 SUM (16x8 models), rescaled from the input's scale to the output's as the 8-bit SUM is.
case("q16_sum_built", [(3, 40, 5)], built=True)(built_reduce("SUM", np.int16, (3, 40, 5), [1], False, (0.001, 0), (0.004, 0)))
case("q16_sum_ties", [(6, 40, 5)], built=True, inputs=[np.random.default_rng(61).integers(-60, 61, size=(6, 40, 5))])(
    built_reduce("SUM", np.int16, (6, 40, 5), [1], True, (0.001, 0), (0.004, 0)))
case("q_sum_int8_rescaled", [(8, 5, 3, 32)], built=True)(built_reduce("SUM", np.int8, (8, 5, 3, 32), [2], True, (0.05, 3), (0.3, -2)))
case("q_sum_uint8_axis2_keepdims", [(8, 5, 6, 32)], built=True)(
    built_reduce("SUM", np.uint8, (8, 5, 6, 32), [2], True, (0.03, 120), (0.21, 117)))
case("q_sum_uint8_rescaled", [(8, 5, 3, 32)], built=True)(
    built_reduce("SUM", np.uint8, (8, 5, 3, 32), [1, 3], False, (0.02, 131), (0.5, 120)))
case("q_mean_int8_axis2", [(8, 5, 6, 16)], built=True)(built_reduce("MEAN", np.int8, (8, 5, 6, 16), [2], False, (0.05, 3), (0.03, -2)))
# QUANTIZE from float: inputs on a grid of half the scale, so half are ties (39 values: groups of 8 and a tail), and
# a uint8 one on a scale whose reciprocal rounds.
case("q_quantize_float_ties", [(3, 13)], built=True, low=-12.0, high=12.0, step=0.0625)(built_quantize_float(np.int8, (3, 13), (0.125, 3)))
case("q_quantize_float_uint8", [(4, 251)], built=True, low=-1.0, high=2.0)(built_quantize_float(np.uint8, (4, 251), (0.0123, 131)))
# 8-bit to 8-bit QUANTIZE that rescales: every input value once (a 1x256 ramp), ties of the final shift included
# (scales 2^-4 -> 2^-3 halve the offset), and a ratio that saturates.
case("q_requantize_int8_ties", [(1, 256)], built=True, inputs=[np.arange(-128, 128, dtype=np.int8).reshape(1, 256)])(built_requantize(np.int8, np.int8, (1, 256), (2.0 ** -4, 3), (2.0 ** -3, -2)))
case("q_requantize_uint8_to_int8_rescale", [(2, 256)], built=True, inputs=[np.arange(512).reshape(2, 256).astype(np.uint8)])(built_requantize(np.uint8, np.int8, (2, 256), (0.0371, 119), (0.0157, 5)))
# Standalone 8-bit RELU, RELU6, RELU_N1_TO_1: a rescale (scales a power of two apart, so ties; or not) and a clamp.
case("q_relu_int8_rescaled", [(3, 37)], built=True)(built_unary("RELU", np.int8, (3, 37), (2.0 ** -4, -3), (2.0 ** -3, -128)))
case("q_relu_uint8_same_scale", [(2, 21)], built=True)(built_unary("RELU", np.uint8, (2, 21), (0.05, 130), (0.05, 130)))
case("q_relu6_int8", [(4, 19)], built=True)(built_unary("RELU6", np.int8, (4, 19), (0.07, 5), (0.03, -120)))
case("q_relu6_uint8_ties", [(3, 33)], built=True)(built_unary("RELU6", np.uint8, (3, 33), (2.0 ** -4, 128), (2.0 ** -5, 0)))
case("q_leaky_relu_int8", [(3, 29)], built=True)(built_unary("LEAKY_RELU", np.int8, (3, 29), (0.05, -3), (0.04, 10), alpha=0.2))
case("q_leaky_relu_uint8_ties", [(2, 40)], built=True)(
    built_unary("LEAKY_RELU", np.uint8, (2, 40), (2.0 ** -4, 128), (2.0 ** -3, 100), alpha=0.25))
case("q_leaky_relu_int8_negative_alpha", [(1, 50)], built=True)(
    built_unary("LEAKY_RELU", np.int8, (1, 50), (0.05, 0), (0.05, 0), alpha=-0.3))
case("q_maximum_int8_broadcast", [(2, 3, 5), (1, 3, 1)], built=True)(built_binary("MAXIMUM", np.int8, [(2, 3, 5), (1, 3, 1)], (0.05, -3)))
case("q_minimum_uint8", [(4, 9), (4, 9)], built=True)(built_binary("MINIMUM", np.uint8, [(4, 9), (4, 9)], (0.05, 128)))
case("q_minimum_int8_scalar", [(3, 7), (1,)], built=True)(built_binary("MINIMUM", np.int8, [(3, 7), (1,)], (0.02, 4)))
case("q_prelu_int8_channels", [(1, 4, 5, 6)], built=True)(
    built_prelu(np.int8, (1, 4, 5, 6), (1, 1, 6), (0.05, -3), (0.004, 2), (0.04, 5)))
case("q_prelu_uint8_ties", [(2, 3, 7)], built=True)(
    built_prelu(np.uint8, (2, 3, 7), (3, 7), (2.0 ** -4, 128), (2.0 ** -8, 120), (2.0 ** -3, 100)))
# Output scale 2^16 times and more the input's 128-times finer one: gemmlowp's 16-bit RoundingDivideByPOT then
# shifts by 16 or more (its mask truncates to all ones), as a converted MobileNetV3Small with random weights has it.
case("q_hard_swish_int8_wide_output_scale", [(2, 64)], built=True)(built_unary("HARD_SWISH", np.int8, (2, 64), (0.002, -5), (40.0, 0)))
case("q_hard_swish_uint8_wide_output_scale", [(2, 64)], built=True)(built_unary("HARD_SWISH", np.uint8, (2, 64), (0.0005, 128), (300.0, 3)))
case("q_relu_n1_to_1_int8", [(2, 45)], built=True)(built_unary("RELU_N1_TO_1", np.int8, (2, 45), (0.02, 0), (2.0 ** -6, 1)))
case("q_relu_0_to_1_int8", [(2, 45)], built=True)(built_unary("RELU_0_TO_1", np.int8, (2, 45), (0.02, -10), (2.0 ** -7, -128)))
case("q_elu_int8", [(2, 45)], built=True)(built_unary("ELU", np.int8, (2, 45), (0.03, 20), (0.025, -90)))
case("q_relu_0_to_1_uint8", [(2, 45)], built=True)(built_unary("RELU_0_TO_1", np.uint8, (2, 45), (0.01, 100), (2.0 ** -8, 0)))
case("q_concatenation_uint8_rescaled", [(1, 6, 4), (1, 6, 3)], built=True)(
    built_concatenation(np.uint8, [(1, 6, 4), (1, 6, 3)], [(0.02, 128), (0.07, 100)], (0.05, 120), axis=2))
# The same rescaling copy on one long row per input (split by bytes across threads, the table looked up 64 bytes at
# a time where the CPU has VBMI).
case("q_concatenation_uint8_long_rows_rescaled", [(1, 5000, 2), (1, 3000, 2)], built=True)(
    built_concatenation(np.uint8, [(1, 5000, 2), (1, 3000, 2)], [(0.02, 128), (0.07, 100)], (0.05, 120), axis=1))
case("q_resize_bilinear_uint8", [(1, 5, 7, 3)], built=True)(built_uint8_resize_bilinear((1, 5, 7, 3), (9, 4)))
case("q_resize_bilinear_uint8_align_corners", [(2, 4, 6, 5)], built=True)(
    built_uint8_resize_bilinear((2, 4, 6, 5), (7, 11), align_corners=True))
case("q_resize_bilinear_uint8_half_pixel", [(1, 5, 7, 3)], built=True)(
    built_uint8_resize_bilinear((1, 5, 7, 3), (10, 14), half_pixel_centers=True))
case("q_resize_bilinear_uint8_half_pixel_down", [(1, 9, 12, 16)], built=True)(
    built_uint8_resize_bilinear((1, 9, 12, 16), (4, 5), half_pixel_centers=True))
case("q_resize_bilinear_uint8_x8_half_pixel", [(1, 2, 3, 8)], built=True)(
    built_uint8_resize_bilinear((1, 2, 3, 8), (16, 24), half_pixel_centers=True))
