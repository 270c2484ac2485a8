"""int8 lookup-table ops, float16 and sparse weights, uint8 pools with fused activations."""
from .common import case, const, np, rng, tf
from .builders import built_uint8_pool
from .quantized_int8 import qcase


# int8 elementwise ops through lookup tables (EXP, LOG, SQRT: TFLite's LUTPopulate of the float function; ABS: its integer
# formula) and REDUCE_MAX/MIN on stored values.
qcase("q_exp", [(4, 16)], lambda x: tf.exp(x), low=-3, high=2)
qcase("q_log", [(4, 16)], lambda x: tf.math.log(x + 2.5), low=-2, high=4)
qcase("q_sqrt", [(4, 16)], lambda x: tf.sqrt(x + 2.0), low=-2, high=6)
qcase("q_abs", [(4, 16)], lambda x: tf.abs(x), low=-3, high=2)
qcase("q_abs_then_add", [(4, 16)], lambda x: tf.abs(x) + 0.5, low=-1, high=3)
qcase("q_l2_normalization", [(3, 24)], lambda x: tf.math.l2_normalize(x, axis=-1))
qcase("q_reduce_max_min", [(3, 5, 7)], lambda x: (tf.reduce_max(x, axis=[0, 2]), tf.reduce_min(x, axis=1, keepdims=True)))

# ---- weight formats --------------------------------------------------------------------------------------
fp16_w, fp16_b = const(3, 3, 4, 6), const(6)
case("dequantize_float16_weights", [(1, 6, 6, 4)], optimize="float16")(
    lambda x: tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, fp16_w, 1, "SAME"), fp16_b)))
sparse = rng.normal(0, 0.5, size=(64, 32)).astype(np.float32)
sparse[rng.random(sparse.shape) < 0.85] = 0.0
sparse_w = tf.constant(sparse)
case("densify_sparse_weights", [(2, 64)], optimize="sparsity")(lambda x: tf.matmul(x, sparse_w))
sparse_pointwise = rng.normal(0, 0.5, size=(1, 1, 24, 40)).astype(np.float32)
sparse_pointwise[rng.random(sparse_pointwise.shape) < 0.8] = 0.0
sparse_pointwise_w, sparse_pointwise_b = tf.constant(sparse_pointwise), const(40)
case("densify_float16_then_dequantize", [(1, 5, 6, 24)], optimize="sparsity_float16")(
    lambda x: tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, sparse_pointwise_w, 1, "VALID"), sparse_pointwise_b)))



case("q_uint8_max_pool_relu6_built", [(1, 9, 10, 24)], built=True, inputs=[np.random.default_rng(31).integers(0, 256, size=(1, 9, 10, 24))])(
    built_uint8_pool("MAX_POOL_2D", (1, 9, 10, 24), 3, 2, "SAME", "RELU6"))
case("q_uint8_average_pool_relu_built", [(1, 8, 8, 20)], built=True, inputs=[np.random.default_rng(32).integers(0, 256, size=(1, 8, 8, 20))])(
    built_uint8_pool("AVERAGE_POOL_2D", (1, 8, 8, 20), 2, 2, "VALID", "RELU"))
