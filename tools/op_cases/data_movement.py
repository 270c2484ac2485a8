"""Shapes and data movement: reshapes, dynamic batches, concatenation, padding, resizing, slicing, gathers."""
from .common import benchmark, case, np, tf


# ---- shape and data movement -----------------------------------------------------------------------------
case("reshape", [(2, 3, 4)])(lambda x: tf.reshape(x, (4, 6)) * 1.0)
case("squeeze", [(1, 3, 1, 4)])(lambda x: tf.squeeze(x, axis=[0, 2]) + 1.0)
case("expand_dims", [(3, 4)])(lambda x: tf.expand_dims(x + 1.0, axis=1))
case("squeeze_dynamic_batch", [(None, None, 1, 4)], run_shapes=[(2, 3, 1, 4)])(lambda x: tf.squeeze(x, axis=[2]) * 2.0)
case("expand_dims_dynamic_batch", [(None, 4)], run_shapes=[(3, 4)])(lambda x: tf.expand_dims(x, axis=-1) * 2.0)
case("conv_dynamic_batch_resized", [(None, 6, 6, 3)], run_shapes=[(3, 6, 6, 3)])(
    lambda x: tf.nn.relu(tf.nn.conv2d(x, tf.constant(np.linspace(-1, 1, 3 * 3 * 3 * 4, dtype=np.float32).reshape(3, 3, 3, 4)), 1, "SAME")))
case("mean_dynamic_batch", [(None, 5, 5, 8)], run_shapes=[(2, 5, 5, 8)])(lambda x: tf.reduce_mean(x, axis=[1, 2]))
case("reduce_prod_axis1", [(3, 4, 5)], low=0.5, high=1.5)(lambda x: tf.reduce_prod(x, axis=1))
case("reduce_max_two_axes_keepdims", [(2, 3, 4, 5)])(lambda x: tf.reduce_max(x, axis=[1, 3], keepdims=True))
case("reduce_min_last_axis", [(4, 6)])(lambda x: tf.reduce_min(x, axis=-1))
case("reduce_prod_max_int32", [(3, 5)], low=-4, high=4)(
    lambda x: (tf.reduce_prod(tf.cast(x, tf.int32), axis=0), tf.reduce_max(tf.cast(x, tf.int32), axis=1)))
case("shape_of_dynamic_input", [(None, 3, None)], run_shapes=[(2, 3, 7)])(lambda x: (tf.shape(x), x * 2.0))
# A Keras Dense layer on a sequence of resizable length: SHAPE, GATHER, REDUCE_PROD, PACK build the RESHAPE's shape.
case("dense_on_dynamic_sequence", [(1, None, 6)], keras=True, run_shapes=[(1, 9, 6)])(
    lambda: (lambda i: tf.keras.Model(i, tf.keras.layers.Dense(4, bias_initializer="glorot_uniform")(i)))(tf.keras.Input((None, 6), batch_size=1)))
case("concatenation_axis3", [(1, 4, 4, 3), (1, 4, 4, 5)])(lambda x, y: tf.concat([x, y], axis=3))
case("concatenation_axis1_three", [(2, 3, 4), (2, 1, 4), (2, 2, 4)])(lambda x, y, z: tf.concat([x, y, z], axis=1))
case("pad", [(1, 3, 4, 2)])(lambda x: tf.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]]))
case("padv2", [(2, 3, 3)])(lambda x: tf.pad(x, [[1, 0], [0, 2], [1, 1]], constant_values=1.5))
# Unpadded trailing dimensions, which the kernel copies as one row: of the rows (dims 2-3), of the whole batch item.
case("padv2_rows_of_planes", [(2, 3, 4, 5)])(lambda x: tf.pad(x, [[0, 0], [2, 1], [0, 0], [0, 0]], constant_values=-2.0))
case("pad_batch_only", [(2, 3, 4, 5)])(lambda x: tf.pad(x, [[1, 2], [0, 0], [0, 0], [0, 0]]))
case("pad_image_three_channels", [(1, 17, 19, 3)])(lambda x: tf.pad(x, [[0, 0], [1, 1], [2, 1], [0, 0]]))
# Channel padding only (residual blocks of BlazeFace-style detectors): rows of 21 floats (two 32-byte blocks and a
# tail), fills on both sides; with a fill value, one side longer than 64 bytes.
case("pad_channels", [(1, 6, 7, 21)])(lambda x: tf.pad(x, [[0, 0], [0, 0], [0, 0], [3, 11]]))
case("padv2_channels", [(2, 3, 5)])(lambda x: tf.pad(x, [[0, 0], [0, 0], [1, 20]], constant_values=-0.5))
# A BlazeFace residual block's shortcut: the block input zero-padded on channels, added to the block's output (the
# engine folds the PAD into the ADD, which reads the unpadded input); the PAD first or second, with and without a
# ReLU, and -0 in the block's output where the padding adds +0. A resizable batch also takes the folded path, and
# bit for bit.
pad_add_rng = np.random.default_rng(99)
pad_add_w = tf.constant(pad_add_rng.normal(0, 0.5, size=(1, 1, 6, 10)).astype(np.float32))
case("pad_channels_into_add", [(1, 5, 7, 6)])(lambda x: (
    tf.nn.relu(tf.pad(x, [[0, 0], [0, 0], [0, 0], [0, 4]]) + tf.nn.conv2d(x, pad_add_w, 1, "SAME")),
    tf.nn.conv2d(x, pad_add_w, 1, "SAME") + tf.pad(x * 2.0, [[0, 0], [0, 0], [0, 0], [0, 4]])))
case("pad_channels_into_add_signed_zeros", [(1, 5, 7, 6)], exact=True)(lambda x: (
    tf.concat([x, x[..., :4]], axis=-1) * -0.0 + tf.pad(x * 2.0, [[0, 0], [0, 0], [0, 0], [0, 4]])))
case("pad_channels_into_add_resized", [(None, 4, 4, 6)], run_shapes=[(3, 4, 4, 6)])(lambda x: (
    tf.nn.conv2d(x, pad_add_w, 1, "SAME") + tf.pad(x, [[0, 0], [0, 0], [0, 0], [0, 4]])))
# A zero PAD of height and width before convolutions (MediaPipe's BlazePose and full-range face detectors, models
# converted from PyTorch): the engine folds it into the convolutions that read it, which then read the unpadded input
# with the padding added to their own. Asymmetric paddings, strides 1 and 2, a 5x5 depthwise filter, a PAD that two
# depthwise layers read, a SAME convolution after a PAD (both paddings at once), a 1x1 convolution (which without
# the PAD reads its input as it is), a resizable batch; and a PAD whose output is also a graph output, not folded.
pad_conv_rng = np.random.default_rng(77)


def _pad_conv_weights(*shape):
    return tf.constant(pad_conv_rng.normal(0, 0.5, size=shape).astype(np.float32))


pad_dw3, pad_dw5 = _pad_conv_weights(3, 3, 8, 1), _pad_conv_weights(5, 5, 8, 1)
pad_conv3, pad_conv1, pad_bias = _pad_conv_weights(3, 3, 8, 6), _pad_conv_weights(1, 1, 8, 5), _pad_conv_weights(6)
case("pad_spatial_into_depthwise", [(1, 9, 10, 8)])(lambda x: (
    tf.nn.relu6(tf.nn.depthwise_conv2d(tf.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]]), pad_dw3, [1, 1, 1, 1], "VALID")),
    tf.nn.depthwise_conv2d(tf.pad(x * 2.0, [[0, 0], [0, 2], [1, 3], [0, 0]]), pad_dw5, [1, 2, 2, 1], "VALID")))
case("pad_spatial_read_by_two_depthwise", [(1, 8, 7, 8)])(lambda x: (lambda padded: (
    tf.nn.depthwise_conv2d(padded, pad_dw3, [1, 1, 1, 1], "VALID"),
    tf.nn.depthwise_conv2d(padded, pad_dw5, [1, 2, 2, 1], "VALID")))(tf.pad(x, [[0, 0], [2, 2], [2, 2], [0, 0]])))
case("pad_spatial_into_conv", [(1, 11, 9, 8)])(lambda x: (
    tf.nn.bias_add(tf.nn.conv2d(tf.pad(x, [[0, 0], [1, 2], [0, 1], [0, 0]]), pad_conv3, 2, "VALID"), pad_bias),
    tf.nn.conv2d(tf.pad(x - 1.0, [[0, 0], [1, 1], [2, 0], [0, 0]]), pad_conv3, 1, "SAME"),
    tf.nn.conv2d(tf.pad(x + 1.0, [[0, 0], [0, 1], [1, 0], [0, 0]]), pad_conv1, 1, "VALID")))
case("pad_spatial_into_conv_resized", [(None, 6, 6, 8)], run_shapes=[(2, 6, 6, 8)])(lambda x: (
    tf.nn.depthwise_conv2d(tf.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]]), pad_dw3, [1, 2, 2, 1], "VALID"),
    tf.nn.conv2d(tf.pad(x * 0.5, [[0, 0], [1, 1], [1, 1], [0, 0]]), pad_conv3, 1, "VALID")))
case("pad_spatial_also_an_output", [(1, 6, 5, 8)])(lambda x: (lambda padded: (
    padded, tf.nn.depthwise_conv2d(padded, pad_dw3, [1, 1, 1, 1], "VALID")))(tf.pad(x, [[0, 0], [1, 0], [0, 1], [0, 0]])))
# Edge cases of the folded padding: only after (a 1x1 convolution that, without the PAD's padding, would read its
# input in place), padding wider than the filter (outputs that see only zeros), asymmetric padding with stride 2,
# a grouped convolution, a dilated one, and a depth multiplier of 2 (paddings the converter cannot turn into SAME,
# which it folds into the convolution itself).
pad_group_w, pad_dilated_w, pad_dw_mult2 = _pad_conv_weights(3, 3, 4, 6), _pad_conv_weights(3, 3, 8, 4), _pad_conv_weights(3, 3, 8, 2)
case("pad_spatial_edge_cases", [(1, 6, 7, 8)])(lambda x: (
    tf.nn.conv2d(tf.pad(x, [[0, 0], [0, 1], [0, 1], [0, 0]]), pad_conv1, 1, "VALID"),
    tf.nn.depthwise_conv2d(tf.pad(x, [[0, 0], [4, 4], [4, 4], [0, 0]]), pad_dw3, [1, 1, 1, 1], "VALID"),
    tf.nn.conv2d(tf.pad(x, [[0, 0], [5, 0], [0, 4], [0, 0]]), pad_conv3, 2, "VALID"),
    tf.nn.conv2d(tf.pad(x - 0.5, [[0, 0], [2, 0], [0, 1], [0, 0]]), pad_group_w, 1, "VALID"),
    tf.nn.conv2d(tf.pad(x + 0.5, [[0, 0], [3, 1], [1, 2], [0, 0]]), pad_dilated_w, 1, "VALID", dilations=2),
    tf.nn.depthwise_conv2d(tf.pad(x * 1.5, [[0, 0], [1, 2], [2, 1], [0, 0]]), pad_dw_mult2, [1, 1, 1, 1], "VALID")))
case("mirror_pad_reflect", [(1, 4, 5, 2)])(lambda x: tf.pad(x, [[0, 0], [2, 1], [1, 3], [0, 0]], mode="REFLECT"))
case("mirror_pad_symmetric", [(3, 4)])(lambda x: tf.pad(x, [[1, 2], [3, 1]], mode="SYMMETRIC"))
for ac, hp in [(False, False), (True, False), (False, True)]:
    tag = "align_corners" if ac else ("half_pixel" if hp else "plain")
    case(f"resize_bilinear_{tag}", [(1, 5, 7, 3)])(lambda x, ac=ac, hp=hp: tf.compat.v1.image.resize_bilinear(x, (9, 4), align_corners=ac, half_pixel_centers=hp))
    case(f"resize_nearest_{tag}", [(1, 5, 7, 3)])(lambda x, ac=ac, hp=hp: tf.compat.v1.image.resize_nearest_neighbor(x, (11, 3), align_corners=ac, half_pixel_centers=hp))
case("strided_slice_basic", [(4, 6, 5)])(lambda x: x[1:3, ::2, 1:4])
case("strided_slice_masks", [(4, 6, 5)])(lambda x: x[:, 1:, ::-2])
case("strided_slice_shrink_newaxis", [(4, 6, 5)])(lambda x: x[2, tf.newaxis, 1:5, 3])
case("strided_slice_ellipsis", [(2, 3, 4, 5)])(lambda x: x[..., 1:3])
case("strided_slice_negative", [(5, 6)])(lambda x: x[-4:-1, -1:0:-2])
case("slice", [(3, 4, 5)])(lambda x: tf.slice(x, [1, 0, 2], [2, -1, 3]))
case("transpose", [(2, 3, 4, 5)])(lambda x: tf.transpose(x, [0, 3, 1, 2]))
case("transpose_2d", [(7, 5)])(lambda x: tf.transpose(x))
case("split", [(2, 6, 4)])(lambda x: tf.split(x, 3, axis=1))
case("split_v", [(2, 7, 4)])(lambda x: tf.split(x, [2, 4, 1], axis=1))
case("pack", [(3, 4), (3, 4)])(lambda x, y: tf.stack([x, y], axis=1))
case("unpack", [(3, 4, 2)])(lambda x: tf.unstack(x, axis=1))
case("gather", [(5, 4)])(lambda x: tf.gather(x, tf.constant([4, 0, 2, 2]), axis=0))
case("gather_axis1", [(3, 6, 2)])(lambda x: tf.gather(x, tf.constant([[5, 1], [0, 3]]), axis=1))
case("arg_max", [(3, 7)])(lambda x: tf.argmax(x, axis=1))
case("arg_min", [(2, 3, 5)])(lambda x: tf.argmin(x, axis=-1, output_type=tf.int32))
case("cast_to_int32", [(3, 4)], low=-50, high=50)(lambda x: tf.cast(x, tf.int32))
case("depth_to_space", [(1, 3, 4, 8)])(lambda x: tf.nn.depth_to_space(x, 2))
case("space_to_depth", [(1, 4, 6, 3)])(lambda x: tf.nn.space_to_depth(x, 2))

# Op benchmark: a VGA frame to a classifier's input.
benchmark("resize bilinear 480x640x3 -> 224x224", "RESIZE_BILINEAR", input=[1, 480, 640, 3], size=[224, 224])
