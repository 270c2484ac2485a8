"""Keras 3 Transformer encoder blocks and grouped convolutions, and IF."""
from .common import case, np, tf


def keras3_encoder_block(sequence, width, heads, int8=False):
    """A pre-norm Transformer encoder block in Keras 3 (LayerNormalization, MultiHeadAttention, a GELU MLP, residuals):
    BATCH_MATMUL for the attention scores and the weighted values, GELU in the MLP. int8: full-integer post-training
    quantization (int8 SQUARED_DIFFERENCE and RSQRT in the layer norms)."""
    def build():
        import keras as keras3
        keras3.utils.set_random_seed(11)
        inputs = keras3.Input((sequence, width), batch_size=1)
        x = keras3.layers.LayerNormalization()(inputs)
        x = inputs + keras3.layers.MultiHeadAttention(num_heads=heads, key_dim=width // heads)(x, x)
        y = keras3.layers.Dense(2 * width, activation="gelu")(keras3.layers.LayerNormalization()(x))
        model = keras3.Model(inputs, x + keras3.layers.Dense(width)(y))
        converter = tf.lite.TFLiteConverter.from_keras_model(model)
        if int8:
            calibration = np.random.default_rng(12)
            converter.optimizations = [tf.lite.Optimize.DEFAULT]
            converter.representative_dataset = lambda: ([calibration.uniform(-2, 2, (1, sequence, width)).astype(np.float32)] for _ in range(64))
            converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
            converter.inference_input_type = converter.inference_output_type = tf.int8
        return converter.convert()
    return build


case("keras3_transformer_encoder_block", [(1, 16, 32)], built=True)(keras3_encoder_block(16, 32, 4))
case("q_keras3_transformer_encoder_block", [(1, 16, 32)], built=True)(keras3_encoder_block(16, 32, 4, int8=True))
def keras3_grouped_conv(shape, filters, kernel, strides=1, activation=None, groups=None, int8=False, calibration_range=(-2, 2), int16=False):
    """Keras 3's Conv2D with groups (by default as many as input channels: ConvNeXt's depthwise 7x7): CONV_2D with a
    filter of input channels / groups."""
    def build():
        import keras as keras3
        keras3.utils.set_random_seed(5)
        inputs = keras3.Input(shape, batch_size=1)
        layer = keras3.layers.Conv2D(filters, kernel, strides=strides, padding="same", groups=groups or shape[-1], activation=activation)
        converter = tf.lite.TFLiteConverter.from_keras_model(keras3.Model(inputs, layer(inputs)))
        if int8 or int16:
            calibration = np.random.default_rng(13)
            converter.optimizations = [tf.lite.Optimize.DEFAULT]
            converter.representative_dataset = lambda: ([calibration.uniform(*calibration_range, (1,) + tuple(shape)).astype(np.float32)] for _ in range(32))
            converter.target_spec.supported_ops = [tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8 if int16
                                                   else tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
            converter.inference_input_type = converter.inference_output_type = tf.int16 if int16 else tf.int8
        return converter.convert()
    return build


case("conv_grouped_one_channel_a_group", [(1, 9, 9, 8)], built=True)(keras3_grouped_conv((1, 9, 9, 8)[1:], 8, 7))
case("conv_grouped_two_outputs_a_group_stride2_relu", [(1, 10, 11, 6)], built=True)(keras3_grouped_conv((10, 11, 6), 12, 3, strides=2, activation="relu"))
case("conv_grouped_four_channels_a_group", [(1, 9, 8, 16)], built=True)(keras3_grouped_conv((9, 8, 16), 12, 3, groups=4))
case("q_conv_grouped_one_channel_a_group", [(1, 9, 9, 8)], built=True)(keras3_grouped_conv((9, 9, 8), 8, 7, int8=True, calibration_range=(-1, 3)))
case("q_conv_grouped_two_groups_stride2_relu", [(1, 11, 10, 6)], built=True)(keras3_grouped_conv((11, 10, 6), 4, 3, strides=2, activation="relu", groups=2, int8=True,
                                                                                                         calibration_range=(-1, 3)))
case("conv_grouped_two_groups_stride2_relu6", [(2, 11, 10, 6)], built=True)(keras3_grouped_conv((11, 10, 6), 4, 3, strides=2, activation="relu6", groups=2))
# 16x8 (int16 activations): TFLite's reference ConvPerChannel for int16 with groups, the only kernel LiteRT has for it.
case("q16_conv_grouped_two_groups_stride2_relu", [(1, 11, 10, 6)], built=True)(keras3_grouped_conv((11, 10, 6), 4, 3, strides=2, activation="relu", groups=2,
                                                                                                          int16=True, calibration_range=(-1, 3)))
case("q16_conv_grouped_one_channel_a_group", [(1, 9, 9, 8)], built=True)(keras3_grouped_conv((9, 9, 8), 8, 7, int16=True))
# tf.cond becomes IF with two branch subgraphs; one case takes each branch.
case("if_then_branch", [(3,)], low=0.1, high=1.0)(lambda x: tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0 + 1.0, lambda: x - 1.0))
case("if_else_branch", [(3,)], low=-1.0, high=-0.1)(lambda x: tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0 + 1.0, lambda: x - 1.0))
