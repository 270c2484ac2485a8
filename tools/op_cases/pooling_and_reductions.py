"""Float pooling and reductions over axes."""
from .builders import built_float_pool
from .common import case, tf


# ---- pooling and reductions ------------------------------------------------------------------------------
case("average_pool_2x2_valid", [(1, 8, 9, 5)])(lambda x: tf.nn.avg_pool2d(x, 2, 2, "VALID"))
case("average_pool_3x3_stride2_same", [(1, 7, 7, 20)])(lambda x: tf.nn.avg_pool2d(x, 3, 2, "SAME"))
case("max_pool_2x2_valid", [(2, 8, 8, 3)])(lambda x: tf.nn.max_pool2d(x, 2, 2, "VALID"))
case("max_pool_3x3_stride2_same", [(1, 9, 7, 17)])(lambda x: tf.nn.max_pool2d(x, 3, 2, "SAME"))
case("mean_hw_keepdims", [(1, 7, 7, 16)])(lambda x: tf.reduce_mean(x, axis=[1, 2], keepdims=True))
case("mean_last_axis", [(2, 3, 10)])(lambda x: tf.reduce_mean(x, axis=-1))
case("sum_axis0_keepdims", [(4, 3, 5)])(lambda x: tf.reduce_sum(x, axis=0, keepdims=True))
case("sum_two_axes", [(2, 3, 4, 5)])(lambda x: tf.reduce_sum(x, axis=[1, 3]))


# L2_POOL_2D: the root mean square of each window (TFLite's L2Pool, float only), written with GraphBuilder.
case("l2_pool_3x3_s2_same", [(1, 9, 10, 8)], built=True)(built_float_pool("L2_POOL_2D", (1, 9, 10, 8), (3, 3), (2, 2), "SAME"))
case("l2_pool_2x2_s2_valid_relu_n1_to_1", [(2, 8, 8, 5)], built=True)(
    built_float_pool("L2_POOL_2D", (2, 8, 8, 5), (2, 2), (2, 2), "VALID", "RELU_N1_TO_1"))
case("l2_pool_4x3_windows_over_the_border", [(1, 5, 7, 3)], built=True)(
    built_float_pool("L2_POOL_2D", (1, 5, 7, 3), (4, 3), (3, 2), "SAME"))
