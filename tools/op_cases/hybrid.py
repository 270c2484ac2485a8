"""Hybrid ops: int8 constant weights, float activations (dynamic-range quantization)."""
from .common import case, const, np, tf


# ---- hybrid ops: int8 constant weights, float activations (dynamic-range quantization) ---------------------------
h_fc_w, h_fc_b = const(64, 48), const(48)
case("hybrid_fully_connected", [(3, 64)], optimize="dynamic_range", exact=True)(lambda x: tf.nn.relu(tf.matmul(x, h_fc_w) + h_fc_b))
# Rows of 1,100 values: the product in three slices of under 518, added as integers.
h_fc_long_w, h_fc_long_b = const(1100, 40), const(40)
case("hybrid_fully_connected_long_rows", [(5, 1100)], optimize="dynamic_range", exact=True)(lambda x: tf.matmul(x, h_fc_long_w) + h_fc_long_b)
h_conv_w, h_conv_b = const(3, 3, 8, 16), const(16)
case("hybrid_conv", [(1, 10, 10, 8)], optimize="dynamic_range", exact=True)(
    lambda x: tf.nn.relu6(tf.nn.bias_add(tf.nn.conv2d(x, h_conv_w, 1, "SAME"), h_conv_b)))
def float_width_image(shape, seed):
    """An input whose asymmetric int8 scale depends on taking max − min in single precision (as LiteRT's hybrid kernels
    do) rather than in double: the two scales differ in the last bit."""
    gen = np.random.default_rng(seed)
    while True:
        x = gen.uniform(-2, 2, size=shape).astype(np.float32)
        low, high = min(np.float32(0), x.min()), max(np.float32(0), x.max())
        if np.float32((float(high) - float(low)) / 255.0) != np.float32(float(np.float32(high - low)) / 255.0):
            return x


case("hybrid_conv_float_width", [(1, 10, 10, 8)], optimize="dynamic_range", inputs=[float_width_image((1, 10, 10, 8), 5)], exact=True)(
    lambda x: tf.nn.relu6(tf.nn.bias_add(tf.nn.conv2d(x, h_conv_w, 1, "SAME"), h_conv_b)))
case("hybrid_conv_per_tensor_batch2", [(2, 9, 9, 8)], optimize="dynamic_range_per_tensor", exact=True)(
    lambda x: tf.nn.bias_add(tf.nn.conv2d(x, h_conv_w, 2, "SAME"), h_conv_b))
# Filter rows of 1,152 and 600 values: summed in three and two slices of under 518 (exact float sums), added as integers.
h_long_rng = np.random.default_rng(7171)
h_long_w = tf.constant(h_long_rng.normal(0, 0.5, size=(3, 3, 128, 24)).astype(np.float32))
h_long_b = tf.constant(h_long_rng.normal(0, 0.5, size=(24,)).astype(np.float32))
case("hybrid_conv_long_rows_batch2", [(2, 6, 5, 128)], optimize="dynamic_range", exact=True)(
    lambda x: tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, h_long_w, 1, "SAME"), h_long_b)))
h_long_pointwise_w = tf.constant(h_long_rng.normal(0, 0.5, size=(1, 1, 600, 20)).astype(np.float32))
case("hybrid_conv_pointwise_long_rows", [(1, 4, 4, 600)], optimize="dynamic_range", exact=True)(
    lambda x: tf.nn.conv2d(x, h_long_pointwise_w, 1, "VALID"))
h_dw_rng = np.random.default_rng(6161)
h_dw_w = tf.constant(h_dw_rng.normal(0, 0.5, size=(3, 3, 128, 1)).astype(np.float32))   # 1,152 weights: dynamic range quantizes them
h_dw_b = tf.constant(h_dw_rng.normal(0, 0.5, size=(128,)).astype(np.float32))
case("hybrid_depthwise_relu6", [(1, 7, 6, 128)], optimize="dynamic_range", exact=True)(
    lambda x: tf.nn.relu6(tf.nn.bias_add(tf.nn.depthwise_conv2d(x, h_dw_w, [1, 2, 2, 1], "SAME"), h_dw_b)))
# Not a case: per-tensor hybrid DEPTHWISE_CONV_2D (dynamic_range_per_tensor), where LiteRT 2.3's output is garbage
# (values up to 1e35: its per-channel hybrid kernel reads a scale per channel from a one-scale filter).
case("hybrid_depthwise_batch2_valid", [(2, 5, 5, 128)], optimize="dynamic_range", exact=True)(
    lambda x: tf.nn.depthwise_conv2d(x, h_dw_w, [1, 1, 1, 1], "VALID"))
h_tconv_rng = np.random.default_rng(5151)
h_tconv_w = tf.constant(h_tconv_rng.normal(0, 0.5, size=(3, 3, 16, 12)).astype(np.float32))   # [kh, kw, cout, cin]: 1,728 weights
h_tconv_b = tf.constant(h_tconv_rng.normal(0, 0.5, size=(16,)).astype(np.float32))
case("hybrid_transpose_conv_relu", [(1, 5, 6, 12)], optimize="dynamic_range")(
    lambda x: tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d_transpose(x, h_tconv_w, output_shape=[1, 10, 12, 16], strides=2, padding="SAME"), h_tconv_b)))
case("hybrid_transpose_conv_batch2_valid", [(2, 4, 5, 12)], optimize="dynamic_range")(
    lambda x: tf.nn.conv2d_transpose(x, h_tconv_w, output_shape=[2, 9, 11, 16], strides=2, padding="VALID"))


# ---- the input quantizer's rounding at ties -------------------------------------------------------------------------
# LiteRT's x86 build quantizes hybrid inputs with NeonAsymmetricQuantizeFloats / NeonSymmetricQuantizeFloats (through
# NEON_2_SSE): p = x · (1 / scale) is rounded on its own and the zero point added after, p ± 1/2 truncated in the
# eight-lane loop and std::round in the remainder loop (the last length % 8 values of each row or image). Rows whose
# range makes the scale exactly 1 (asymmetric: [-100, 155], zero point -28; symmetric: max |x| = 127) put ties where
# the orders differ: k + 1/2 with -28 + k + 1/2 < 0 < k + 1/2, and 1/2 − 2^-25 (1 in the lanes, 0 in the remainder).
def rounding_ties(rows, length, symmetric, seed):
    gen = np.random.default_rng(seed)
    x = gen.uniform(-90, 140, size=(rows, length)).astype(np.float32)
    ties = np.array([0.5, 10.5, 27.5, -0.5, 0.49999997, -0.49999997, 3.5, 20.5], dtype=np.float32)
    for r in range(rows):
        x[r, 0], x[r, 1] = (127, -3) if symmetric else (155, -100)
        positions = list(range(2, length, 3))
        for k, p in enumerate(positions):
            x[r, p] = ties[(k + r) % len(ties)]
        x[r, -1], x[r, -2] = ties[4], ties[1]   # in the remainder loop when length % 8 ≥ 2
    if symmetric:
        x = np.clip(x, -127, 127)
    return x


h_tie_w, h_tie_b = const(69, 16), const(16)   # 1,104 weights: dynamic range quantizes 1,024 and more
case("hybrid_fully_connected_rounding_ties", [(3, 69)], optimize="dynamic_range", inputs=[rounding_ties(3, 69, False, 1)], exact=True)(
    lambda x: tf.matmul(x, h_tie_w) + h_tie_b)
case("hybrid_fully_connected_rounding_ties_symmetric", [(3, 69)], optimize="dynamic_range_symmetric",
     inputs=[rounding_ties(3, 69, True, 2)], exact=True)(lambda x: tf.matmul(x, h_tie_w) + h_tie_b)
# An image of 135 values: 128 in the lanes, 7 in the remainder; 2,160 weights (dynamic range quantizes 1,024 and more).
h_tie_conv_w = tf.constant(np.random.default_rng(9191).normal(0, 0.5, size=(3, 3, 15, 16)).astype(np.float32))
h_tie_conv_b = tf.constant(np.random.default_rng(9192).normal(0, 0.5, size=(16,)).astype(np.float32))
case("hybrid_conv_rounding_ties", [(1, 3, 3, 15)], optimize="dynamic_range",
     inputs=[rounding_ties(1, 135, False, 3).reshape(1, 3, 3, 15)], exact=True)(
    lambda x: tf.nn.bias_add(tf.nn.conv2d(x, h_tie_conv_w, 1, "SAME"), h_tie_conv_b))
