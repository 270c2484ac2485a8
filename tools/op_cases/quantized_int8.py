"""Full-integer quantized ops: int8 (or uint8) activations from post-training quantization with a representative dataset."""
from .common import case, const, np, tf


# ---- full-integer quantized ops (post-training int8 with a representative dataset; int8 or uint8 in and out) ----
def qcase(name, shapes, fn, low=-2.0, high=2.0, io="int8"):
    case(name, shapes, low=low, high=high, optimize=f"quantize_{io}")(fn)


q_other = const(1, 1, 3)
qcase("q_add_same_shape", [(1, 4, 5, 3), (1, 4, 5, 3)], lambda x, y: x + y)
qcase("q_add_broadcast_relu", [(1, 4, 5, 3)], lambda x: tf.nn.relu(x + q_other))
qcase("q_sub_same_shape", [(1, 4, 5, 3), (1, 4, 5, 3)], lambda x, y: x - y)
qcase("q_sub_broadcast", [(1, 4, 5, 3)], lambda x: x - q_other)
qcase("q_mul_same_shape", [(1, 4, 5, 3), (1, 4, 5, 3)], lambda x, y: x * y)
qcase("q_mul_broadcast", [(1, 4, 5, 3)], lambda x: x * q_other)
qcase("q_hard_swish", [(1, 6, 6, 8)], lambda x: x * tf.nn.relu6(x + 3.0) / 6.0, low=-5, high=5)
qcase("q_logistic", [(2, 5, 7)], tf.sigmoid, low=-6, high=6)
qcase("q_tanh", [(2, 5, 7)], tf.tanh, low=-3, high=3)
qcase("q_softmax", [(3, 10)], tf.nn.softmax, low=-4, high=4)
# LiteRT's optimized 8-bit LOG_SOFTMAX: the softmax table, logf of the float sum, rint onto scale 16/256.
qcase("q_log_softmax", [(4, 12)], tf.nn.log_softmax, low=-6, high=6)
qcase("q_resize_bilinear", [(1, 5, 7, 3)], lambda x: tf.compat.v1.image.resize_bilinear(x, (9, 4)))
qcase("q_resize_bilinear_half_pixel", [(1, 5, 7, 3)], lambda x: tf.compat.v1.image.resize_bilinear(x, (10, 14), half_pixel_centers=True))
qcase("q_resize_nearest", [(1, 5, 7, 3)], lambda x: tf.compat.v1.image.resize_nearest_neighbor(x, (11, 3)))
qcase("q_pad", [(1, 3, 4, 2)], lambda x: tf.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]]))
qcase("q_pad_channels", [(1, 6, 7, 37)], lambda x: tf.pad(x, [[0, 0], [0, 0], [0, 0], [2, 7]]))
qcase("q_gather", [(5, 4)], lambda x: tf.gather(x, tf.constant([4, 0, 2, 2]), axis=0))
qcase("q_strided_slice", [(4, 6, 5)], lambda x: x[1:3, ::2, 1:4])
qcase("q_transpose", [(2, 3, 4, 5)], lambda x: tf.transpose(x, [0, 3, 1, 2]))
qcase("q_concatenation_scales", [(1, 4, 4, 3), (1, 4, 4, 5)], lambda x, y: tf.concat([x, 3.0 * y], axis=3))
# One long row per input (a detector's anchors): the copy is split by bytes across threads.
qcase("q_concatenation_long_rows", [(1, 6000, 3), (1, 4000, 3)], lambda x, y: tf.concat([x, 3.0 * y], axis=1))
qcase("q_mean_hw", [(1, 7, 7, 16)], lambda x: tf.reduce_mean(x, axis=[1, 2]))
# Kept dimensions over H and W (a classifier's global average pool): TFLite's own quantized-mean path.
qcase("q_mean_hw_keepdims", [(2, 5, 6, 40)], lambda x: tf.reduce_mean(x, axis=[1, 2], keepdims=True))
qcase("q_uint8_mean_hw_keepdims", [(1, 7, 7, 24)], lambda x: tf.reduce_mean(x, axis=[1, 2], keepdims=True), io="uint8")
qcase("q_average_pool", [(1, 8, 9, 5)], lambda x: tf.nn.avg_pool2d(x, 2, 2, "VALID"))
qcase("q_max_pool", [(1, 9, 7, 6)], lambda x: tf.nn.max_pool2d(x, 3, 2, "SAME"))
# Wide enough for the vector path (16 bytes of channels at a time, the last piece overlapping; 8 lanes for int16).
qcase("q_max_pool_wide", [(1, 12, 11, 40)], lambda x: tf.nn.max_pool2d(x, 2, 2, "VALID"))
qcase("q_average_pool_wide", [(1, 9, 9, 33)], lambda x: tf.nn.avg_pool2d(x, 3, 2, "SAME"))
qcase("q_arg_max", [(3, 7)], lambda x: tf.argmax(x, axis=1) + 0)
q_conv_w, q_conv_b = const(3, 3, 4, 8), const(8)
qcase("q_conv_per_channel_relu6", [(1, 9, 9, 4)], lambda x: tf.nn.relu6(tf.nn.bias_add(tf.nn.conv2d(x, q_conv_w, 1, "SAME"), q_conv_b)))
q_dw_w = const(3, 3, 6, 1)
qcase("q_depthwise", [(1, 8, 8, 6)], lambda x: tf.nn.depthwise_conv2d(x, q_dw_w, [1, 2, 2, 1], "SAME"))
q_fc_w, q_fc_b = const(20, 12), const(12)
qcase("q_fully_connected", [(3, 20)], lambda x: tf.matmul(x, q_fc_w) + q_fc_b)
qcase("q_batch_matmul", [(2, 5, 6), (2, 6, 4)], lambda x, y: tf.matmul(x, y))
qcase("q_batch_matmul_adjoint_b_broadcast", [(2, 1, 5, 8), (3, 4, 8)], lambda x, y: tf.matmul(x, y, adjoint_b=True))
qcase("q_gelu", [(2, 5, 7)], lambda x: tf.nn.gelu(x, approximate=False), low=-4, high=4)
qcase("q_gelu_approximate", [(2, 5, 7)], lambda x: tf.nn.gelu(x, approximate=True), low=-4, high=4)
qcase("q_squared_difference", [(2, 5, 7), (2, 5, 7)], lambda x, y: tf.math.squared_difference(x, y))
qcase("q_squared_difference_broadcast", [(1, 6, 16)], lambda x: tf.math.squared_difference(x, tf.reduce_mean(x, axis=-1, keepdims=True)))
qcase("q_rsqrt", [(2, 5, 7)], tf.math.rsqrt, low=0.05, high=4.0)
# Quantized REDUCE_PROD (reduce.cc's EvalQuantizedProd): each step's int64 product rescaled at once, so the order of
# the values is part of the result; the last axis, a middle one, and two axes kept.
qcase("q_reduce_prod_last_axis", [(3, 4, 5)], lambda x: tf.reduce_prod(x, axis=-1), low=-1.6, high=1.6)
qcase("q_reduce_prod_axes_0_2_keep", [(3, 4, 2)], lambda x: tf.reduce_prod(x, axis=[0, 2], keepdims=True), low=0.4, high=1.8)
qcase("q_reduce_prod_middle_axis", [(2, 6, 3)], lambda x: tf.reduce_prod(x, axis=1), low=-1.3, high=1.3)
qcase("q_uint8_io_conv", [(1, 6, 6, 4)], lambda x: tf.nn.conv2d(x, q_conv_w, 1, "VALID"), io="uint8")
q_tconv_rng = np.random.default_rng(4242)
q_tconv_w = tf.constant(q_tconv_rng.normal(0, 0.5, size=(3, 3, 5, 6)).astype(np.float32))   # [kh, kw, cout, cin]
q_tconv_b = tf.constant(q_tconv_rng.normal(0, 0.5, size=(5,)).astype(np.float32))
qcase("q_transpose_conv_stride2_same_bias", [(1, 4, 5, 6)],
      lambda x: tf.nn.bias_add(tf.nn.conv2d_transpose(x, q_tconv_w, output_shape=[1, 8, 10, 5], strides=2, padding="SAME"), q_tconv_b))
qcase("q_transpose_conv_stride2_valid_relu", [(2, 3, 4, 6)],
      lambda x: tf.nn.relu(tf.nn.conv2d_transpose(x, q_tconv_w, output_shape=[2, 7, 9, 5], strides=2, padding="VALID")))
qcase("q_transpose_conv_stride1_same", [(1, 5, 5, 6)],
      lambda x: tf.nn.conv2d_transpose(x, q_tconv_w, output_shape=[1, 5, 5, 5], strides=1, padding="SAME"))
