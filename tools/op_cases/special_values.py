"""NaN, infinities, FLT_MAX and overflowing casts, compared bit for bit or by position."""
from .common import case, np, tf


case("int64_mul_minimum_maximum_sum", [(4, 3), (4, 3)], low=-1e5, high=1e5)(
    lambda x, y: tf.reduce_sum(tf.maximum(tf.minimum(tf.cast(x, tf.int64) * tf.cast(y, tf.int64), 5_000_000_000), -7_000_000_000), axis=0))
# Special values, compared bit for bit: every pair of NaN, ±inf, ±3e38, 2e38, 1, -2, ±0 and the smallest subnormal.
# ADD, SUB, MUL and DIV clamp every result to ±FLT_MAX in the built-in kernels (XNNPACK, LiteRT's default, keeps
# ±inf); this engine clamps as the built-in kernels do, elementwise and broadcast.
special = np.array([np.nan, np.inf, -np.inf, 3e38, -3e38, 1.0, -2.0, 0.0, -0.0, 1e-45, 2e38], np.float32)
special_x, special_y = np.repeat(special, len(special)), np.tile(special, len(special))
case("special_add_sub_mul_div", [(121,), (121,)], inputs=[special_x, special_y], exact=True)(lambda x, y: (x + y, x - y, x * y, x / y))
case("special_add_mul_broadcast", [(11, 1), (1, 11)], inputs=[special.reshape(11, 1), special.reshape(1, 11)], exact=True)(
    lambda x, y: (x + y, x * y))
# Keras' softplus and mish on pre-activations past 88, where exp overflows: log(exp(x) + 1) is 88.72 in LiteRT's
# built-in kernels (the ADD clamps the infinite sum), not inf (and then NaN in the layers after it).
case("softplus_mish_large_inputs", [(4, 16)], low=-300.0, high=300.0)(lambda x: (tf.nn.softplus(x), x * tf.math.tanh(tf.nn.softplus(x))))
# The convolutions, FULLY_CONNECTED and the pools clamp their float results to ±FLT_MAX in LiteRT's built-in kernels
# (the fused activation none is that range there), as ADD does; BATCH_MATMUL keeps ±inf. Inputs with ±inf and NaN.
special_rng = np.random.default_rng(77)  # its own generator: the shared one's sequence stays as the cases after it had it
special_image = special_rng.normal(size=(1, 6, 6, 4)).astype(np.float32)
special_image[0, 2, 2, 1], special_image[0, 4, 4, 2], special_image[0, 0, 5, 3] = np.inf, -np.inf, np.nan
special_image[0, 3, 0, 0], special_image[0, 1, 4, 3] = np.inf, np.nan
special_conv_filter, special_depthwise_filter, special_dense, special_bias, special_volume_filter = (
    tf.constant(special_rng.normal(0, 0.5, size=shape).astype(np.float32)) for shape in [(3, 3, 4, 5), (3, 3, 4, 1), (144, 7), (5,), (3, 3, 3, 3, 4)])
case("special_convolutions_and_pools", [(1, 6, 6, 4)], inputs=[special_image], special=True)(lambda x: (
    tf.nn.conv2d(x, special_conv_filter, 1, "SAME") + special_bias,
    tf.nn.depthwise_conv2d(x, special_depthwise_filter, [1, 1, 1, 1], "VALID"),
    tf.nn.conv2d_transpose(x, tf.transpose(special_conv_filter, [0, 1, 3, 2]), (1, 6, 6, 5), 1, "SAME"),
    tf.matmul(tf.reshape(x, (1, 144)), special_dense),
    tf.nn.avg_pool2d(x, 2, 2, "VALID"), tf.nn.max_pool2d(x, 3, 1, "SAME"),
    tf.matmul(tf.reshape(x, (2, 2, 36)), tf.reshape(x, (2, 2, 36)) * 1.5, transpose_b=True)))
special_volume = special_rng.normal(size=(1, 4, 5, 5, 3)).astype(np.float32)
special_volume[0, 1, 2, 2, 1], special_volume[0, 2, 4, 4, 2], special_volume[0, 3, 0, 1, 0] = np.inf, -np.inf, np.nan
case("special_conv3d", [(1, 4, 5, 5, 3)], inputs=[special_volume], special=True)(lambda x: (
    tf.nn.conv3d(x, special_volume_filter, [1, 1, 1, 1, 1], "SAME"),
    tf.nn.conv3d_transpose(x, tf.transpose(special_volume_filter, [0, 1, 2, 4, 3]), (1, 4, 5, 5, 4), [1, 1, 1, 1, 1], "SAME")))
case("special_maximum_minimum", [(121,), (121,)], inputs=[special_x, special_y], exact=True)(lambda x, y: (tf.maximum(x, y), tf.minimum(x, y)))
case("special_sign_hard_swish", [(121,)], inputs=[special_x], exact=True)(lambda x: (tf.sign(x), x * tf.nn.relu6(x + 3) / 6))
case("special_floor_mod", [(121,), (121,)], inputs=[special_x, special_y], exact=True)(lambda x, y: tf.math.floormod(x, y))
case("hard_swish_bits", [(1000,)], low=-5, high=5, exact=True)(lambda x: x * tf.nn.relu6(x + 3) / 6)
case("special_cast_float_to_integers", [(21,)], inputs=[np.concatenate([special_x[::11], [3e9, -3e9, 7e4, -7e4, 300, -300, 2.7, -2.7, 255.9, -0.5]])],
     exact=True)(lambda x: (tf.cast(x, tf.int32), tf.cast(x, tf.int64), tf.cast(x, tf.int16), tf.cast(x, tf.int8), tf.cast(x, tf.uint8),
                            tf.cast(tf.cast(x, tf.bool), tf.float32)))
case("cast_integer_narrowing", [(10,)], inputs=[np.array([3e9, -3e9, 7e4, -7e4, 300, -300, 4e4, 129, -129, 256], np.float32)])(
    lambda x: (tf.cast(tf.cast(x, tf.int64), tf.int32), tf.cast(tf.cast(x, tf.int32), tf.int16), tf.cast(tf.cast(x, tf.int64), tf.int16),
               tf.cast(tf.cast(x, tf.int32), tf.uint8), tf.cast(tf.cast(x, tf.int16), tf.int8)))
case("add_n", [(3, 4), (3, 4), (3, 4)])(lambda x, y, z: tf.math.add_n([x, y, z]))
case("add_n_int32", [(2, 5), (2, 5)], low=-3e9, high=3e9)(
    lambda x, y: tf.math.add_n([tf.cast(x, tf.int32), tf.cast(y, tf.int32), tf.cast(x, tf.int32)]))
case("reverse_sequence", [(3, 5, 2)])(lambda x: tf.reverse_sequence(x, tf.constant([2, 5, 0]), seq_axis=1, batch_axis=0))
case("reverse_sequence_batch_after_sequence", [(4, 3, 2)])(lambda x: tf.reverse_sequence(x, tf.constant([4, 1, 3], tf.int64), seq_axis=0, batch_axis=1))
