"""ADD_N, sequences, matrix diagonals, segment sums, bucketize, bitwise ops, FFTs, seeded random ops, run-time shapes, resizable Keras models, WHERE and UNIQUE, sparse and space/batch ops."""
from .common import benchmark, case, np, tf


case("matrix_diag", [(2, 4)])(lambda x: tf.linalg.diag(x))
case("matrix_set_diag", [(2, 4, 3), (2, 3)])(lambda x, d: tf.linalg.set_diag(x, d))
case("band_part_lower", [(2, 5, 5)])(lambda x: tf.linalg.band_part(x, -1, 0))
case("segment_sum", [(6, 3)])(lambda x: tf.math.segment_sum(x, tf.constant([0, 0, 1, 2, 2, 2])))
case("segment_sum_int32", [(5, 2)], low=-100, high=100)(lambda x: tf.math.segment_sum(tf.cast(x, tf.int32), tf.constant([0, 1, 1, 1, 2])))
for _kind, _fn in [("sum", tf.math.unsorted_segment_sum), ("prod", tf.math.unsorted_segment_prod), ("max", tf.math.unsorted_segment_max),
                   ("min", tf.math.unsorted_segment_min)]:
    case(f"unsorted_segment_{_kind}", [(6, 3)])(lambda x, _fn=_fn: _fn(x, tf.constant([2, 0, 1, 0, 2, -1]), 4))
case("unsorted_segment_max_int32", [(5, 2)], low=-100, high=100)(
    lambda x: tf.math.unsorted_segment_max(tf.cast(x, tf.int32), tf.constant([1, 1, 0, 1, 0]), 3))
case("bucketize", [(4, 5)], low=-3, high=3, step=0.5)(lambda x: tf.raw_ops.Bucketize(input=x, boundaries=[-1.0, 0.0, 0.5, 0.5, 2.0]))
case("bucketize_int32", [(12,)], low=-5, high=5)(lambda x: tf.raw_ops.Bucketize(input=tf.cast(x, tf.int32), boundaries=[-2.0, 0.0, 1.5, 3.0]))
case("bitwise_xor_int32", [(3, 4), (1, 4)], low=-1e6, high=1e6)(lambda x, y: tf.bitwise.bitwise_xor(tf.cast(x, tf.int32), tf.cast(y, tf.int32)))
case("bitwise_xor_uint8", [(10,), (10,)], low=0, high=255)(lambda x, y: tf.bitwise.bitwise_xor(tf.cast(x, tf.uint8), tf.cast(y, tf.uint8)))
case("right_shift_int32", [(12,), (12,)], low=-40, high=40)(
    lambda x, y: tf.bitwise.right_shift(tf.cast(x * 5e7, tf.int32), tf.cast(y, tf.int32)))
case("right_shift_int8_broadcast", [(2, 6), (6,)], low=-10, high=10)(
    lambda x, y: tf.bitwise.right_shift(tf.cast(x * 12, tf.int8), tf.cast(y, tf.int8)))
case("neg_abs_sign_int32", [(12,)], inputs=[np.array([-2.2e9, 2.2e9, -7, 7, 0, -1, 1, 3e9, -3e9, 5, -5, 0.5], np.float32)])(
    lambda x: (-tf.cast(x, tf.int32), tf.abs(tf.cast(x, tf.int32)), tf.sign(tf.cast(x, tf.int32))))
case("neg_int64", [(6,)], low=-1e12, high=1e12)(lambda x: -tf.cast(x, tf.int64))
# tf.signal: RFFT2D gives complex64; COMPLEX_ABS, REAL and IMAG take it back to float32.
case("rfft", [(3, 16)])(lambda x: tf.signal.rfft(x))
case("rfft_padded_abs", [(2, 10)])(lambda x: tf.abs(tf.signal.rfft(x, fft_length=[16])))
case("rfft2d_cropped_real_imag", [(2, 6, 20)])(lambda x: (tf.math.real(tf.signal.rfft2d(x, fft_length=[4, 16])), tf.math.imag(tf.signal.rfft2d(x, fft_length=[4, 16]))))
case("stft_magnitude", [(1, 400)])(lambda x: tf.abs(tf.signal.stft(x, frame_length=64, frame_step=32, fft_length=64)))
# Random ops (seeded: TFLite's Philox-4x32-10 stream from the seed and seed2 options, continuing from one run to the
# next, so both runs are recorded): counts that leave part of the last block of four values unused, an odd count of
# normal values (the last Box-Muller pair's second value dropped), a shape computed from the input's shape.
case("random_uniform_seeded", [(3, 7)], exact=True)(lambda x: x + tf.random.uniform([3, 7], seed=7))
case("random_uniform_dynamic_shape", [(None, 5)], run_shapes=[(3, 5)], exact=True)(
    lambda x: tf.random.uniform(tf.shape(x), seed=11) * x)
case("random_normal_seeded", [(3, 5)], exact=True)(lambda x: (x + tf.random.normal([3, 5], seed=3), tf.random.normal([2, 6], mean=1.0, stddev=2.0, seed=4)))
case("random_normal_many", [(1,)], exact=True)(lambda x: tf.random.normal([4099], seed=5) + x)
# tf.random.categorical: int64 and int32 indices; non-finite logits have probability 0, a row of only non-finite
# logits draws the class count.
multinomial_logits = np.array([[0.5, 1.0, -1.0, 2.0, 0.0], [np.nan, 3.0, -np.inf, 1.0, np.inf], [-np.inf, np.nan, np.inf, -np.inf, np.nan]], np.float32)
case("multinomial_int64", [(3, 5)], exact=True)(lambda x: tf.random.categorical(x, 7, seed=9))
case("multinomial_non_finite_int32", [(3, 5)], inputs=[multinomial_logits], exact=True)(
    lambda x: tf.random.categorical(x, 6, dtype=tf.int32, seed=13))
# Shapes broadcast while running (BROADCAST_ARGS: tf.broadcast_dynamic_shape), int32 and int64.
case("broadcast_args_dynamic", [(None, 1), (1, None)], run_shapes=[(3, 1), (1, 4)])(
    lambda x, y: tf.broadcast_to(x, tf.broadcast_dynamic_shape(tf.shape(x), tf.shape(y))) + y)
case("broadcast_args_int64", [(None, 1, 2), (None, 1)], run_shapes=[(2, 1, 2), (5, 1)])(
    lambda x, y: tf.cast(tf.broadcast_dynamic_shape(tf.shape(x, out_type=tf.int64), tf.shape(y, out_type=tf.int64)), tf.float32))
# BITCAST: the same bytes as another type; same size, to a smaller type (one more dimension), to a larger one (the
# last dimension dropped).
case("bitcast_types", [(3, 4)], exact=True)(
    lambda x: (tf.bitcast(x, tf.int32), tf.bitcast(x, tf.uint8), tf.bitcast(tf.reshape(tf.cast(x * 50, tf.int8), (3, 2, 2)), tf.int16),
               tf.bitcast(tf.reshape(tf.cast(x * 50, tf.int16), (6, 2)), tf.int32)))
# Resizable dimensions in Keras models, run at other sizes (found by a probe of resized Keras models): MultiHeadAttention
# on a sequence of any length reshapes by an UNSORTED_SEGMENT_PROD of a SHAPE, which must fold while planning; an
# UpSampling2D after a pooling on an image of any size has a 1x1 placeholder shape in the file, which the pooling
# empties, so the model must load and plan only once resized.
def keras_resizable(make):
    def build():
        tf.keras.utils.set_random_seed(4)
        return make()
    return build


case("keras_mha_resizable_length", [(None, None, 16)], keras=True, run_shapes=[(2, 7, 16)])(keras_resizable(
    lambda: (lambda i: tf.keras.Model(i, tf.keras.layers.MultiHeadAttention(2, 8)(i, i)))(tf.keras.Input((None, 16)))))
case("keras_upsample_concat_resizable_hw", [(None, None, None, 4)], keras=True, run_shapes=[(2, 8, 6, 4)])(keras_resizable(
    lambda: (lambda i: tf.keras.Model(i, tf.keras.layers.Concatenate()([tf.keras.layers.UpSampling2D()(tf.keras.layers.MaxPooling2D()(i)), i])))(
        tf.keras.Input((None, None, 4)))))
# Output sizes known only when running (WHERE, UNIQUE): planned for their largest size, shrunk when they run, and the
# nodes after them prepared again.
case("where_coordinates", [(4, 5)])(lambda x: tf.cast(tf.where(x > 0.5), tf.float32) * 2.0)
case("boolean_mask_sum", [(6, 7)])(lambda x: tf.reduce_sum(tf.boolean_mask(x, x > 0.3)) + tf.cast(tf.shape(tf.boolean_mask(x, x > 0.3))[0], tf.float32))
case("where_none_true", [(3, 4)], low=-2, high=-1)(lambda x: tf.cast(tf.where(x > 0.0), tf.float32))
case("unique_values_and_positions", [(12,)], low=0, high=4, step=1.0)(lambda x: (tf.unique(x)[0] * 3.0, tf.cast(tf.unique(x)[1], tf.float32)))
case("unique_int64_positions", [(10,)], low=-3, high=3, step=1.0)(
    lambda x: tf.cast(tf.unique(tf.cast(x, tf.int32), out_idx=tf.int64)[1], tf.float32))
case("sparse_to_dense", [(4,)])(lambda x: tf.sparse.to_dense(tf.sparse.SparseTensor([[0, 1], [2, 3], [3, 0], [1, 2]], x, [4, 5])))
case("sparse_to_dense_scalar_value", [(1,)])(
    lambda x: tf.raw_ops.SparseToDense(sparse_indices=tf.constant([0, 3, 5]), output_shape=[7], sparse_values=x[0], default_value=-1.0))
case("space_to_batch_nd", [(1, 5, 6, 2)])(lambda x: tf.space_to_batch_nd(x, [2, 3], [[1, 0], [2, 1]]))
case("batch_to_space_nd", [(6, 2, 3, 2)])(lambda x: tf.compat.v1.batch_to_space_nd(x, [2, 3], [[1, 0], [2, 1]]))
case("elu", [(2, 5, 7)], low=-4, high=3)(lambda x: tf.nn.elu(x))
case("atan2", [(3, 4), (3, 4)])(lambda x, y: tf.math.atan2(x, y))
case("local_response_normalization", [(1, 4, 5, 9)])(lambda x: tf.nn.local_response_normalization(x, depth_radius=2, bias=1.5, alpha=0.3, beta=0.75))
case("scatter_nd", [(3, 4)])(lambda x: tf.scatter_nd(tf.constant([[1], [3], [1]]), x, [5, 4]))
case("reduce_any_all", [(3, 5)])(lambda x: tf.cast(tf.reduce_any(x > 1.0, axis=1), tf.float32) + 2.0 * tf.cast(tf.reduce_all(x > -1.5, axis=0), tf.float32)[:3])

# Op benchmark: the COCO SSD's post-processing (its options and anchors read from the model in ../shared/models).
benchmark("detection post-process (fast NMS) 1917 anchors x 91 classes", "TFLite_Detection_PostProcess",
          model="detection/coco_ssd_mobilenet_v1_1.0_dequant_float.tflite", boxes=[1, 1917, 4], scores=[1, 1917, 91])
