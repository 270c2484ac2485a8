"""int64 data through every elementwise, comparison, reduction, indexing and data-movement op LiteRT's built-in
kernels run on int64 (ADD, SUB, MUL, MAXIMUM, MINIMUM, SUM, NEG, CAST and RESHAPE have int64 cases in their own
families). Values reach past int32: each case casts its float inputs to int64 and scales them by a large odd factor,
so a kernel that narrowed to 32 bits anywhere would differ."""
from .builders import GraphBuilder
from .common import case, np, tf

BIG = 3_000_000_019  # beyond int32, odd: products and sums keep their low bits distinct
int64_rng = np.random.default_rng(6464)  # its own generator: the shared one's sequence stays as the other families had it


def wide(x):
    return tf.cast(x, tf.int64) * BIG


case("int64_comparisons", [(3, 4), (4,)], low=-3, high=3, step=1.0)(lambda x, y: (
    tf.equal(wide(x), wide(y)), tf.not_equal(wide(x), wide(y)), tf.less(wide(x), wide(y)),
    tf.less_equal(wide(x), wide(y)), tf.greater(wide(x), wide(y)), tf.greater_equal(wide(x), wide(y))))

# The divisor never 0 (an error in LiteRT) and never -1 against the type's minimum (a crash in LiteRT).
floor_mod_divisors = np.array([3, -2, 5, -7, 11, 1, -13, 2], np.float32)
case("int64_floor_mod", [(3, 8), (8,)], low=-1000, high=1000, inputs=[
    int64_rng.integers(-1000, 1000, size=(3, 8)).astype(np.float32), floor_mod_divisors])(
    lambda x, y: (tf.math.floormod(wide(x) + 7, tf.cast(y, tf.int64)), tf.math.floormod(tf.cast(x, tf.int64), tf.cast(y, tf.int64) * BIG)))

# MEAN truncates toward zero after an int64 sum; int32 MEAN sums in int64 too. PROD wraps.
case("int64_reductions", [(3, 4, 5)], low=-9, high=9, step=1.0)(lambda x: (
    tf.reduce_mean(wide(x), axis=1), tf.reduce_mean(tf.cast(x, tf.int64), axis=[0, 2], keepdims=True),
    tf.reduce_mean(tf.cast(x, tf.int32), axis=2),
    tf.reduce_prod(wide(x), axis=2), tf.reduce_max(wide(x), axis=[0, 2]), tf.reduce_min(wide(x), axis=1, keepdims=True),
    tf.math.cumsum(wide(x), axis=2), tf.math.cumsum(wide(x), axis=1, exclusive=True, reverse=True)))
case("int64_zeros_like_fill_range", [(None, 3)], run_shapes=[(4, 3)], low=-9, high=9, step=1.0)(lambda x: (
    tf.zeros_like(wide(x)) + 5,
    tf.fill(tf.shape(x, out_type=tf.int64), tf.reduce_max(wide(x))),
    tf.range(tf.cast(tf.shape(x)[0], tf.int64) * BIG, delta=BIG)))

case("int64_gather_select_topk", [(4, 6)], low=-50, high=50, step=1.0)(lambda x: (
    tf.gather(wide(x), [3, 0, 5, 5], axis=1), tf.gather_nd(wide(x), [[0, 1], [3, 5], [2, 2]]),
    tf.where(x > 0.0, wide(x), -wide(x) + 1), tf.where(x > 0.0, wide(x), wide(x)[0]), tf.math.top_k(wide(x), k=3)[0],
    tf.scatter_nd([[1], [3]], wide(x)[:2], [5, 6])))
case("int64_one_hot_bucketize_where", [(2, 5)], low=-4, high=4, step=1.0)(lambda x: (
    tf.one_hot(tf.cast(x, tf.int32) + 4, 9, on_value=tf.constant(BIG, tf.int64), off_value=tf.constant(-7, tf.int64)),
    tf.raw_ops.Bucketize(input=tf.cast(x, tf.int64), boundaries=[-2.0, 0.0, 1.5, 3.0]),
    tf.raw_ops.Where(condition=tf.cast(x, tf.int64))))
case("int64_unique_reverse_sequence_diagonals", [(3, 4)], low=-3, high=3, step=1.0)(lambda x: (
    tf.unique(tf.reshape(wide(x), [-1]))[0],
    tf.reverse_sequence(wide(x), tf.constant([2, 4, 0]), seq_axis=1, batch_axis=0),
    tf.linalg.diag(wide(x)), tf.linalg.set_diag(tf.reshape(wide(x), [1, 3, 4]), tf.reshape(wide(x)[0, :3], [1, 3]))))
case("int64_sparse_to_dense", [(4,)], low=-50, high=50, step=1.0)(
    lambda x: tf.sparse.to_dense(tf.sparse.SparseTensor([[0, 1], [1, 2], [2, 3], [3, 0]], wide(x), [4, 5]), default_value=tf.constant(-BIG, tf.int64)))

case("int64_slices_and_moves", [(2, 4, 6)], low=-50, high=50, step=1.0)(lambda x: (
    tf.slice(wide(x), [0, 1, 2], [2, 2, 3]), wide(x)[:, ::2, 5:0:-2],
    tf.concat([wide(x), -wide(x)], axis=1), tf.stack([wide(x)[0], wide(x)[1]], axis=2),
    *tf.split(wide(x), [1, 3], axis=1),
    tf.tile(wide(x), [1, 2, 1]), tf.transpose(wide(x), [2, 0, 1]), tf.reverse(wide(x), [1])))
case("int64_pads_and_shapes", [(2, 4, 6)], low=-50, high=50, step=1.0)(lambda x: (
    tf.pad(wide(x), [[0, 0], [1, 2], [0, 1]]), tf.pad(wide(x), [[1, 0], [0, 0], [2, 1]], constant_values=BIG),
    tf.pad(wide(x), [[0, 0], [1, 2], [2, 1]], mode="REFLECT"), tf.pad(wide(x), [[0, 0], [2, 1], [1, 1]], mode="SYMMETRIC"),
    tf.expand_dims(wide(x), 1), tf.squeeze(wide(x)[:1], 0)))
case("int64_space_and_depth", [(1, 4, 4, 4)], low=-50, high=50, step=1.0)(lambda x: (
    tf.nn.depth_to_space(wide(x), 2), tf.nn.space_to_depth(wide(x), 2),
    tf.space_to_batch_nd(wide(x), [2, 2], [[0, 0], [1, 1]]), tf.batch_to_space(tf.concat([wide(x)] * 4, 0), [2, 2], [[0, 0], [1, 1]])))
case("int64_broadcast_to", [(None, 1)], run_shapes=[(3, 1)], low=-50, high=50, step=1.0)(
    lambda x: tf.broadcast_to(wide(x), tf.stack([tf.constant(2, tf.int64), tf.shape(x, out_type=tf.int64)[0], tf.constant(4, tf.int64)])))


def built_int64_updates_lookup_split():
    """DYNAMIC_UPDATE_SLICE, EMBEDDING_LOOKUP, SPLIT, EXPAND_DIMS and SQUEEZE on int64 (the converter writes the first
    two from no TensorFlow op, SPLIT only for narrower types, and the last two as RESHAPE): int64 inputs, constant int32
    start, ids and axes."""
    def build():
        g = GraphBuilder()
        operand, update = g.tensor("operand", [5, 6], dtype=np.int64), g.tensor("update", [2, 3], dtype=np.int64)
        start = g.tensor("start", [2], data=[4, 2], dtype=np.int32)
        updated = g.tensor("updated", [5, 6], dtype=np.int64)
        g.operator(g.fb.BuiltinOperator.DYNAMIC_UPDATE_SLICE, [operand, update, start], [updated], g.fb.BuiltinOptions.NONE, None)
        ids = g.tensor("ids", [4], data=[4, 0, 2, 4], dtype=np.int32)
        looked_up = g.tensor("looked_up", [4, 6], dtype=np.int64)
        g.operator(g.fb.BuiltinOperator.EMBEDDING_LOOKUP, [ids, operand], [looked_up], g.fb.BuiltinOptions.NONE, None)
        axis = g.tensor("axis", [], data=[1], dtype=np.int32)
        halves = [g.tensor(f"half{i}", [5, 3], dtype=np.int64) for i in range(2)]
        options = g.fb.SplitOptionsT()
        options.numSplits = 2
        g.operator(g.fb.BuiltinOperator.SPLIT, [axis, operand], halves, g.fb.BuiltinOptions.SplitOptions, options)
        expanded, squeezed = g.tensor("expanded", [5, 1, 6], dtype=np.int64), g.tensor("squeezed", [5, 6], dtype=np.int64)
        g.operator(g.fb.BuiltinOperator.EXPAND_DIMS, [operand, axis], [expanded], g.fb.BuiltinOptions.ExpandDimsOptions, g.fb.ExpandDimsOptionsT())
        squeeze = g.fb.SqueezeOptionsT()
        squeeze.squeezeDims = [1]
        g.operator(g.fb.BuiltinOperator.SQUEEZE, [expanded], [squeezed], g.fb.BuiltinOptions.SqueezeOptions, squeeze)
        return g.build([operand, update], [updated, looked_up, *halves, expanded, squeezed])
    return build


case("int64_built_ops", [(5, 6), (2, 3)], built=True, low=-4e12, high=4e12)(built_int64_updates_lookup_split())
