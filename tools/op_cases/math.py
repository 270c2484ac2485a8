"""More float and int32 math: unary functions, rounding, powers, floor division, select, tile, fill, gathers, cumsum, one-hot, top-k, NMS, integer arithmetic."""
from .common import case, tf


# ---- more math and shape ops (float, and int32 through casts) ----------------------------------------------------
for opname, fn, lo, hi in [("log", tf.math.log, 0.01, 9), ("sin", tf.sin, -7, 7), ("cos", tf.cos, -7, 7), ("square", tf.square, -3, 3),
                           ("floor", tf.floor, -5, 5), ("ceil", tf.math.ceil, -5, 5), ("sign", tf.sign, -2, 2)]:
    case(opname, [(2, 5, 7)], low=lo, high=hi)(lambda x, fn=fn: fn(x))
case("round_half_to_even", [(4, 20)], low=-5, high=5, step=0.5)(lambda x: tf.round(x))
case("pow", [(2, 3, 4), (2, 3, 4)], low=0.1, high=3)(lambda x, y: tf.pow(x, y))
case("pow_int32", [(3, 5)], low=-4, high=4)(lambda x: tf.pow(tf.cast(x, tf.int32), tf.constant([0, 1, 2, 3, 2], tf.int32)))
case("floor_div", [(2, 3, 4), (2, 3, 4)], low=-5, high=5)(lambda x, y: tf.math.floordiv(x, y + tf.sign(y) * 0.5))
case("floor_div_int32", [(3, 5)], low=-20, high=20)(lambda x: tf.math.floordiv(tf.cast(x, tf.int32), tf.constant([3, -3, 7, -2, 5], tf.int32)))
case("floor_mod", [(2, 3, 4)], low=-5, high=5)(lambda x: tf.math.floormod(x, tf.constant([1.5, -2.0, 0.75, 3.0])))
case("floor_mod_int32", [(3, 5)], low=-20, high=20)(lambda x: tf.math.floormod(tf.cast(x, tf.int32), tf.constant([3, -3, 7, -2, 5], tf.int32)))
case("select_v2_broadcast", [(2, 3, 4), (3, 4)])(lambda x, y: tf.where(x > 0.0, x, y * 2.0))
case("select_v2_scalar_branch", [(2, 3, 4)])(lambda x: tf.where(x > 0.5, x, 0.0))
case("tile", [(2, 3, 2)])(lambda x: tf.tile(x, [2, 1, 3]))
case("tile_int32", [(2, 3)], low=-9, high=9)(lambda x: tf.tile(tf.cast(x, tf.int32), [3, 2]))
case("fill_dynamic_shape", [(None, 3)], run_shapes=[(4, 3)])(lambda x: x + tf.fill(tf.shape(x), 2.5))
case("broadcast_to", [(3, 1)])(lambda x: tf.broadcast_to(x, [2, 3, 4]))
case("zeros_and_ones_like", [(None, 3)], run_shapes=[(2, 3)])(lambda x: (tf.zeros_like(x) + 1.0, tf.ones_like(x) * x))
case("range_from_shape", [(None, 3)], run_shapes=[(5, 3)])(lambda x: tf.cast(tf.range(tf.shape(x)[0]), tf.float32)[:, None] * x)
case("l2_normalization", [(3, 8)])(lambda x: tf.math.l2_normalize(x, axis=-1))
case("gather_batch_dims", [(2, 3, 5, 4)])(lambda x: tf.gather(x, tf.constant([[4, 0, 4], [1, 2, 3]]), axis=2, batch_dims=1))
case("gather_batch_dims_negative", [(3, 6, 2)])(lambda x: tf.gather(x, tf.constant([[5, 0], [1, 1], [2, 4]]), axis=1, batch_dims=-1))
case("gather_nd", [(4, 5, 3)])(lambda x: tf.gather_nd(x, tf.constant([[1, 2], [3, 0], [0, 4]])))
case("gather_nd_batch_of_slices", [(4, 5, 3)])(lambda x: tf.gather_nd(x, tf.constant([[[1], [3]], [[0], [2]]])))
case("cumsum", [(3, 6)])(lambda x: tf.cumsum(x, axis=1))
case("cumsum_exclusive_reverse", [(4, 5)])(lambda x: tf.cumsum(x, axis=0, exclusive=True, reverse=True))
case("one_hot", [(2, 3)], low=0, high=5)(lambda x: tf.one_hot(tf.cast(x, tf.int32), 6, on_value=2.0, off_value=-1.0))
case("one_hot_axis0", [(4,)], low=0, high=3)(lambda x: tf.one_hot(tf.cast(x, tf.int32), 4, axis=0))
case("one_hot_axis1_of_3", [(2, 3)], low=-1, high=4)(lambda x: tf.one_hot(tf.cast(x, tf.int32), 4, axis=1))
case("top_k", [(3, 10)])(lambda x: tf.math.top_k(x, k=4))
case("top_k_ties", [(2, 12)], low=-2, high=2, step=1.0)(lambda x: tf.math.top_k(x, k=5))
# Boxes are [y1, x1, y2, x2] corners in [0, 1] in either order; on a grid (step) many scores tie, and which of two
# equal scores is taken first follows TFLite's std::priority_queue, and boxes repeat or have no area (TFLite selects
# such a box again each time it comes back out of the queue: nothing suppresses it, its IoU with itself being 0).
case("nms_v4", [(40, 4), (40,)], low=0, high=1)(lambda b, s: tf.image.non_max_suppression(b, s, 10, 0.5, 0.3))
case("nms_v4_no_score_threshold", [(30, 4), (30,)], low=0, high=1)(lambda b, s: tf.image.non_max_suppression(b, s, 6, 0.4))
case("nms_v4_fewer_than_max", [(25, 4), (25,)], low=0, high=1)(lambda b, s: tf.image.non_max_suppression(b, s, 20, 0.2, 0.5))
case("nms_v4_ties", [(300, 4), (300,)], low=0, high=1, step=0.125)(lambda b, s: tf.image.non_max_suppression(b, s, 60, 0.3, 0.2))
case("nms_v4_ties_boxes_with_area", [(300, 4), (300,)], low=0, high=1, step=0.125)(
    lambda b, s: tf.image.non_max_suppression(tf.concat([b[:, :2], b[:, :2] + 0.125 + 0.5 * b[:, 2:]], axis=1), s, 40, 0.4, 0.1))
case("nms_v5_soft", [(60, 4), (60,)], low=0, high=1)(lambda b, s: tf.image.non_max_suppression_with_scores(b, s, 15, 1.0, 0.1, 0.5))
case("nms_v5_soft_and_hard", [(200, 4), (200,)], low=0, high=1, step=0.0625)(
    lambda b, s: tf.image.non_max_suppression_with_scores(b, s, 40, 0.6, 0.05, 0.3))
case("nms_v5_sigma_zero", [(40, 4), (40,)], low=0, high=1)(lambda b, s: tf.image.non_max_suppression_with_scores(b, s, 8, 0.5, 0.2, 0.0))
# The padded form is TensorFlow code, not an op: a WHILE over tiles of boxes with TOPK_V2, GATHER, IF and SELECT.
case("nms_padded_while_loop", [(50, 4), (50,)], low=0, high=1)(
    lambda b, s: tf.image.non_max_suppression_padded(b, s, 12, 0.5, 0.2, pad_to_max_output_size=True))
# Integer arithmetic as index code uses it; products past 2^31 wrap as TFLite's int32 kernels do.
case("int32_mul_minimum_maximum_sum", [(3, 5), (3, 5)], low=-1e5, high=1e5)(
    lambda x, y: tf.reduce_sum(tf.maximum(tf.minimum(tf.cast(x, tf.int32) * tf.cast(y, tf.int32), 2_000_000_000), -2_100_000_000), axis=1))
