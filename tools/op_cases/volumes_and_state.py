"""CONV_3D and its transpose, int16 SQRT, uint8 L2_NORMALIZATION, resource variables, SVDF."""
from .common import case, const, np, tf
from .builders import GraphBuilder


def built_conv3d(in_shape, kernel, outputs, strides, dilations, padding, activation, transpose=False):
    """CONV_3D (or CONV_3D_TRANSPOSE to `in_shape`'s spatial size times the strides) with dilations and a fused activation,
    which the converter does not emit from Keras (it dilates through SPACE_TO_BATCH and fuses no activation)."""
    def build():
        g = GraphBuilder()
        channels = in_shape[-1]
        o = g.fb.Conv3DOptionsT()
        o.padding = getattr(g.fb.Padding, padding)
        o.strideD, o.strideH, o.strideW = strides
        o.dilationDFactor, o.dilationHFactor, o.dilationWFactor = dilations
        o.fusedActivationFunction = getattr(g.fb.ActivationFunctionType, activation)
        x = g.tensor("x", in_shape)
        b = g.weights("b", outputs)
        if transpose:
            out_shape = [in_shape[0]] + [in_shape[1 + i] * strides[i] for i in range(3)] + [outputs]
            shape = g.tensor("output_shape", [5], data=out_shape, dtype=np.int32)
            w = g.weights("w", *kernel, outputs, channels)
            y = g.tensor("y", out_shape)
            g.operator(g.fb.BuiltinOperator.CONV_3D_TRANSPOSE, [shape, w, x, b], [y], g.fb.BuiltinOptions.Conv3DOptions, o)
        else:
            def size(i):
                effective = (kernel[i] - 1) * dilations[i] + 1
                return -(-in_shape[1 + i] // strides[i]) if padding == "SAME" else -(-(in_shape[1 + i] - effective + 1) // strides[i])
            w = g.weights("w", *kernel, channels, outputs)
            y = g.tensor("y", [in_shape[0], size(0), size(1), size(2), outputs])
            g.operator(g.fb.BuiltinOperator.CONV_3D, [x, w, b], [y], g.fb.BuiltinOptions.Conv3DOptions, o)
        return g.build([x], [y])
    return build


case("conv3d_dilated_relu6", [(1, 6, 7, 8, 2)], built=True)(built_conv3d((1, 6, 7, 8, 2), (2, 3, 2), 3, (1, 2, 1), (2, 1, 3), "SAME", "RELU6"))
case("conv3d_dilated_valid_batch2", [(2, 7, 6, 9, 3)], built=True)(built_conv3d((2, 7, 6, 9, 3), (3, 2, 2), 4, (2, 1, 2), (2, 2, 1), "VALID", "RELU_N1_TO_1"))
case("conv3d_transpose_dilated_relu", [(1, 3, 4, 3, 2)], built=True)(built_conv3d((1, 3, 4, 3, 2), (3, 2, 3), 3, (2, 1, 2), (1, 2, 1), "SAME", "RELU",
                                                                                   transpose=True))


def built_int16_sqrt(shape):
    """int16 SQRT (16x8 models; the converter has no 16x8 form of it): truncated onto the output scale."""
    def build():
        g = GraphBuilder()
        x = g.tensor("x", shape, dtype=np.int16, quantization=(6.0 / 32767, 0))
        y = g.tensor("y", shape, dtype=np.int16, quantization=(2.5 / 32767, 0))
        g.operator(g.fb.BuiltinOperator.SQRT, [x], [y], 0, None)
        return g.build([x], [y])
    return build


case("q16_sqrt_built", [(4, 64)], built=True, inputs=[np.random.default_rng(17).integers(0, 32768, size=(4, 64))])(built_int16_sqrt((4, 64)))


def built_uint8_l2_normalization(shape):
    """uint8 L2_NORMALIZATION (older uint8 models; the converter now quantizes to int8): output scale 1/128, zero point 128."""
    def build():
        g = GraphBuilder()
        x = g.tensor("x", shape, dtype=np.uint8, quantization=(0.02, 131))
        y = g.tensor("y", shape, dtype=np.uint8, quantization=(1 / 128, 128))
        g.operator(g.fb.BuiltinOperator.L2_NORMALIZATION, [x], [y], 0, None)
        return g.build([x], [y])
    return build


case("q_l2_normalization_uint8_built", [(3, 24)], built=True, inputs=[np.random.default_rng(23).integers(0, 256, size=(3, 24))])(
    built_uint8_l2_normalization((3, 24)))


def resource_variable_model():
    """A tf.Variable state updated every run (converted with resource variables: CALL_ONCE, VAR_HANDLE, READ_VARIABLE,
    ASSIGN_VARIABLE); the second invocation's outputs are recorded too."""
    def build():
        class Accumulator(tf.Module):
            def __init__(self):
                self.state = tf.Variable(tf.constant([[0.5, -1.0, 2.0, 0.0]]))
                self.steps = tf.Variable(tf.constant(3, tf.int32))

            @tf.function(input_signature=[tf.TensorSpec([1, 4])])
            def __call__(self, x):
                new = self.state * 0.5 + x
                self.state.assign(new)
                self.steps.assign(self.steps + 1)
                return new * 2.0, tf.cast(self.steps, tf.float32)
        module = Accumulator()
        converter = tf.lite.TFLiteConverter.from_concrete_functions([module.__call__.get_concrete_function()], module)
        converter.experimental_enable_resource_variables = True
        return converter.convert()
    return build


case("resource_variable_state", [(1, 4)], built=True)(resource_variable_model())


def built_svdf(batch, input_size, filters, memory, rank, activation, bias=True):
    """SVDF (keyword-spotting models; no converter emits it from Keras) with its state in a variable tensor; the second
    invocation's outputs are recorded too."""
    def build():
        g = GraphBuilder()
        x = g.tensor("x", [batch, input_size])
        features = g.weights("features", filters, input_size)
        time = g.weights("time", filters, memory)
        b = g.weights("bias", filters // rank) if bias else -1
        state = g.tensor("state", [batch, memory * filters], variable=True)
        y = g.tensor("y", [batch, filters // rank])
        o = g.fb.SVDFOptionsT()
        o.rank = rank
        o.fusedActivationFunction = getattr(g.fb.ActivationFunctionType, activation)
        g.operator(g.fb.BuiltinOperator.SVDF, [x, features, time, b, state], [y], g.fb.BuiltinOptions.SVDFOptions, o)
        return g.build([x], [y])
    return build


case("svdf_rank1", [(2, 10)], built=True)(built_svdf(2, 10, 8, 5, 1, "NONE"))
case("svdf_rank2_relu_no_bias", [(1, 6)], built=True)(built_svdf(1, 6, 12, 4, 2, "RELU", bias=False))


def keras_layer(shape, make_layer, seed=3):
    """A one-layer Keras 2 model on a batch of one (the converter's form of the layer)."""
    def build():
        import tf_keras
        tf_keras.utils.set_random_seed(seed)
        inputs = tf_keras.Input(shape, batch_size=1)
        return tf.lite.TFLiteConverter.from_keras_model(tf_keras.Model(inputs, make_layer()(inputs))).convert()
    return build


case("conv3d_same_relu", [(1, 6, 7, 8, 3)], built=True)(keras_layer((6, 7, 8, 3), lambda: tf.keras.layers.Conv3D(4, 3, padding="same", activation="relu")))
case("conv3d_valid_strided", [(1, 7, 9, 9, 2)], built=True)(keras_layer((7, 9, 9, 2), lambda: tf.keras.layers.Conv3D(3, (2, 3, 2), strides=(1, 2, 2))))
case("conv3d_no_bias", [(1, 5, 6, 7, 2)], built=True)(keras_layer((5, 6, 7, 2), lambda: tf.keras.layers.Conv3D(3, 3, padding="same", use_bias=False)))
case("conv3d_transpose_same_stride2", [(1, 3, 4, 5, 2)], built=True)(keras_layer((3, 4, 5, 2), lambda: tf.keras.layers.Conv3DTranspose(3, 3, strides=2, padding="same")))
case("conv3d_transpose_valid_relu", [(1, 2, 3, 3, 4)], built=True)(
    keras_layer((2, 3, 3, 4), lambda: tf.keras.layers.Conv3DTranspose(2, (2, 3, 3), strides=(1, 2, 1), padding="valid", activation="relu")))
case("dilated_conv_odd_size", [(1, 9, 11, 3)])(lambda x: tf.nn.conv2d(x, const(3, 3, 3, 4), 1, "SAME", dilations=2))
