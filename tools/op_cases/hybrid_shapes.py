"""Hybrid (dynamic-range) ops at odd channel counts and small inputs, per-tensor and per-channel, with asymmetric
(the converter's default) and symmetric input quantization; a MobileNetV2-0.35 embedder on 96x96 converted here
(Keras' architecture, seeded random weights) and a MobileNetV2-0.5 block at its 128x128 input's sizes. Test group
"hybrid"."""
from .common import case, np, tf
from .recurrent import keras_sequence_model, lstm_layer

odd_rng = np.random.default_rng(3535)  # its own generator: the shared one's sequence stays as the other families had it


def weights(*shape):
    return tf.constant(odd_rng.normal(0, 0.5, size=shape).astype(np.float32))


def hybrid(name, shapes, fn, optimize="dynamic_range", **kwargs):
    case(name, shapes, optimize=optimize, family="hybrid", **kwargs)(fn)


# CONV_2D: 19 -> 37 channels, stride 2; 13 -> 29, dilation 2 (every filter has over 1,024 weights, so it is quantized).
conv_odd_w, conv_odd_b = weights(3, 3, 19, 37), weights(37)
for optimize, suffix in (("dynamic_range", "per_channel"), ("dynamic_range_per_tensor", "per_tensor")):
    hybrid(f"hybrid_conv_odd_stride2_{suffix}", [(1, 13, 11, 19)],
           lambda x: tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, conv_odd_w, 2, "SAME"), conv_odd_b)), optimize, exact=True)
conv_dilated_w = weights(3, 3, 13, 29)
hybrid("hybrid_conv_dilated", [(1, 12, 12, 13)], lambda x: tf.nn.conv2d(x, conv_dilated_w, 1, "SAME", dilations=2), exact=True)

# DEPTHWISE_CONV_2D: depth multiplier 2 with dilation 2 on 67 channels; 115 channels with stride 2. (Per-tensor hybrid
# depthwise is left out: LiteRT's output there is garbage, see hybrid.py.)
depthwise_multiplier_w, depthwise_multiplier_b = weights(3, 3, 67, 2), weights(134)
hybrid("hybrid_depthwise_multiplier2_dilated", [(1, 11, 13, 67)], lambda x: tf.nn.relu6(tf.nn.bias_add(
    tf.nn.depthwise_conv2d(x, depthwise_multiplier_w, [1, 1, 1, 1], "SAME", dilations=[2, 2]), depthwise_multiplier_b)), exact=True)
depthwise_odd_w = weights(3, 3, 115, 1)
hybrid("hybrid_depthwise_odd_stride2", [(1, 9, 9, 115)],
       lambda x: tf.nn.depthwise_conv2d(x, depthwise_odd_w, [1, 2, 2, 1], "VALID"), exact=True)

# FULLY_CONNECTED 203 -> 77 and BATCH_MATMUL 67 -> 31: asymmetric, symmetric and per-tensor input quantization.
fc_odd_w, fc_odd_b = weights(203, 77), weights(77)
for optimize, suffix in (("dynamic_range", "asymmetric"), ("dynamic_range_symmetric", "symmetric"), ("dynamic_range_per_tensor", "per_tensor")):
    hybrid(f"hybrid_fully_connected_odd_{suffix}", [(3, 203)], lambda x: tf.matmul(x, fc_odd_w) + fc_odd_b, optimize, exact=True)
batch_matmul_odd_rhs = weights(2, 67, 31)
for optimize in ("dynamic_range", "dynamic_range_symmetric"):
    suffix = "symmetric" if optimize.endswith("symmetric") else "asymmetric"
    hybrid(f"hybrid_batch_matmul_odd_{suffix}", [(2, 5, 67)], lambda x: tf.matmul(x, batch_matmul_odd_rhs), optimize, exact=True)

# LSTM: 37 cells on 29 features (every gate's weights over 1,024), asymmetric and symmetric.
for optimize in ("dynamic_range", "dynamic_range_symmetric"):
    suffix = "symmetric" if optimize.endswith("symmetric") else "asymmetric"
    hybrid(f"hybrid_lstm_odd_{suffix}", [(1, 6, 29)], keras_sequence_model(6, 29, 1, lambda x: lstm_layer(37, 130, return_sequences=True)(x)),
           optimize, keras=True)


def mobilenet_v2_embedder(alpha, size, seed):
    """Keras' MobileNetV2 without its classifier, global average pooled: a feature embedder, as MediaPipe's image
    embedder uses it; weights seeded (the ImageNet ones are not reachable from here)."""
    def build():
        tf.keras.utils.set_random_seed(seed)
        model = tf.keras.applications.MobileNetV2(input_shape=(size, size, 3), alpha=alpha, include_top=False, pooling="avg", weights=None)
        # Seeded weights shrink the activations block by block (to 1e-10 at the end): every batch normalization takes
        # the statistics of its input over a batch of random images instead, as training would have set them, so
        # each layer sees values of order one.
        for layer in model.layers:
            if isinstance(layer, tf.keras.layers.BatchNormalization):
                layer.momentum = 0.0
        model(np.random.default_rng(seed).uniform(-1, 1, size=(8, size, size, 3)).astype(np.float32), training=True)
        return model
    return build


hybrid("hybrid_mobilenet_v2_035_96_embedder", [(1, 96, 96, 3)], mobilenet_v2_embedder(0.35, 96, 35), keras=True, low=-1.0, high=1.0)
# A MobileNetV2-0.5 block at its 128x128 input's 16x16 stage, every layer hybrid: expand 32 -> 192, depthwise stride
# 2, project 192 -> 48 (a whole 0.5-width 128x128 embedder is not a case: its first, float convolution differs from
# LiteRT's in the last bit at the avx2 level, and a later layer's input quantization turns that into a step of up to
# 0.04 in a few outputs, see Docs/ops.md).
block_expand_w, block_depthwise_w, block_project_w = weights(1, 1, 32, 192), weights(3, 3, 192, 1), weights(1, 1, 192, 48)
hybrid("hybrid_mobilenet_v2_050_128_block", [(1, 16, 16, 32)], lambda x: tf.nn.conv2d(tf.nn.relu6(tf.nn.depthwise_conv2d(
    tf.nn.relu6(tf.nn.conv2d(x, block_expand_w, 1, "SAME")), block_depthwise_w, [1, 2, 2, 1], "SAME")), block_project_w, 1, "SAME"), exact=True)
