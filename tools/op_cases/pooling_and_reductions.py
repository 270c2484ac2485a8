"""Float pooling and reductions over axes."""
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
