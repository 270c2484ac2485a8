"""FULLY_CONNECTED, BATCH_MATMUL, and GELU."""
from .common import benchmark, case, const, tf


# ---- fully connected ------------------------------------------------------------------------------------
fc_w, fc_b = const(20, 12), const(12)


@case("fully_connected_relu", [(3, 20)])
def fully_connected(x):
    return tf.nn.relu(tf.matmul(x, fc_w) + fc_b)


@case("fully_connected_keep_num_dims", [(2, 5, 20)])
def fully_connected_keep(x):
    return tf.tensordot(x, fc_w, axes=1) + fc_b


# BATCH_MATMUL: both operands computed (a constant right-hand side of rank 2 becomes FULLY_CONNECTED).
case("batch_matmul_3d", [(2, 5, 6), (2, 6, 4)])(lambda x, y: tf.matmul(x, y))
case("batch_matmul_adjoints", [(2, 6, 5), (2, 4, 6)])(lambda x, y: tf.matmul(x, y, adjoint_a=True, adjoint_b=True))
case("batch_matmul_adjoint_b", [(3, 7, 9), (3, 5, 9)])(lambda x, y: tf.matmul(x, y, adjoint_b=True))
case("batch_matmul_broadcast_4d", [(2, 1, 5, 6), (3, 6, 4)])(lambda x, y: tf.matmul(x, y))
case("batch_matmul_rank5", [(2, 1, 2, 3, 4), (1, 3, 1, 4, 5)])(lambda x, y: tf.matmul(x, y))
case("batch_matmul_constant_rhs_batched", [(2, 5, 6)])(lambda x: tf.matmul(x, const(2, 6, 3)))
case("batch_matmul_large", [(4, 33, 40), (4, 40, 37)])(lambda x, y: tf.matmul(x, y))
case("gelu", [(2, 5, 7, 3)], low=-5, high=5)(lambda x: tf.nn.gelu(x, approximate=False))
case("gelu_approximate", [(2, 5, 7, 3)], low=-5, high=5)(lambda x: tf.nn.gelu(x, approximate=True))

# Op benchmark: MobileNetV2's classifier.
benchmark("fully connected 1280 -> 1001", "FULLY_CONNECTED", input=[1, 1280], units=1001)
