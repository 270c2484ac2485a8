#!/usr/bin/env python3
"""Converts Keras 3 application architectures (random weights: no download; logits, no softmax) to float .tflite,
to check architectures nobody tuned this engine for against LiteRT (tools/compare_with_litert.py) and to time them
(tools/bench_vs_litert.py).

    python3 tools/experiments/make_keras_applications.py --out /tmp/apps MobileNetV3Large EfficientNetB0 ConvNeXtTiny ...
    python3 tools/experiments/make_keras_applications.py --out /tmp/apps --int8 MobileNetV3Small     # full-integer int8 (int8 in/out)
    python3 tools/experiments/make_keras_applications.py --out /tmp/apps --int16 ResNet50 DenseNet121  # 16x8 (float in/out)
    python3 tools/experiments/make_keras_applications.py --out /tmp/apps --dynamic MobileNetV2        # dynamic range (int8 weights)

The quantized forms are calibrated on 8 random images (uniform in [-1, 1]). With random weights some architectures'
ranges collapse: LiteRT refuses 16x8 MobileNetV2 this way (a RELU6 bound past int32 on a tiny output scale).
"""
import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("names", nargs="+", help="keras.applications constructors, e.g. ResNet50V2 DenseNet121")
    p.add_argument("--int8", action="store_true", help="full-integer int8 form, int8 input and output")
    p.add_argument("--int16", action="store_true", help="16x8 form (int16 activations, int8 weights), float input and output")
    p.add_argument("--dynamic", action="store_true", help="dynamic-range form: int8 weights, float activations (hybrid ops)")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for name in a.names:
        keras.utils.set_random_seed(0)
        shape = (299, 299, 3) if name in ("InceptionV3", "Xception", "InceptionResNetV2") else (224, 224, 3)
        network = getattr(keras.applications, name)(input_shape=shape, weights=None, classifier_activation=None)
        inputs = keras.Input(shape, batch_size=1)
        converter = tf.lite.TFLiteConverter.from_keras_model(keras.Model(inputs, network(inputs)))
        suffix = ""
        if a.dynamic:
            converter.optimizations = [tf.lite.Optimize.DEFAULT]
            suffix = "_dynamic"
        elif a.int8 or a.int16:
            rng = np.random.default_rng(0)
            converter.optimizations = [tf.lite.Optimize.DEFAULT]
            converter.representative_dataset = lambda: ([rng.uniform(-1, 1, (1,) + shape).astype(np.float32)] for _ in range(8))
            if a.int16:
                converter.target_spec.supported_ops = [tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
                suffix = "_16x8"
            else:
                converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
                converter.inference_input_type = converter.inference_output_type = tf.int8
                suffix = "_int8"
        path = os.path.join(a.out, f"{name}{suffix}.tflite")
        open(path, "wb").write(converter.convert())
        print(path, flush=True)


if __name__ == "__main__":
    main()
