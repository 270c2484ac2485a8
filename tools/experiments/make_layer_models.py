#!/usr/bin/env python3
"""Writes MobileNetV2's layers as one-op models (float, and int8 through LiteRT's converter), to time them alone
against LiteRT, which shows where a whole model's ratio comes from better than its profile does.

    python3 tools/experiments/make_layer_models.py --out /tmp/layers
    python3 tools/bench_vs_litert.py --models /tmp/layers/*.tflite --runs 200 --rounds 3

Names: `first` (3x3 stride 2, 224x224x3 -> 32), `pwA_B` (1x1 from A to B channels; `_1` on one pixel), `dwC_s1` / `dwC_s2` (3x3
depthwise over C channels, stride 1 or 2), `face_` the face detector's, float ones with an `f_` prefix. Weights and the int8 calibration inputs
are random; the timing does not depend on them.
"""
import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

L = tf.keras.layers

LAYERS = {
    "first": ((224, 224, 3), lambda: [L.Conv2D(32, 3, strides=2, padding="same"), L.ReLU(6.0)]),
    "pw32_16": ((112, 112, 32), lambda: [L.Conv2D(16, 1)]),
    "pw16_96": ((112, 112, 16), lambda: [L.Conv2D(96, 1), L.ReLU(6.0)]),
    "pw144_24": ((56, 56, 144), lambda: [L.Conv2D(24, 1)]),
    "pw320_1280": ((7, 7, 320), lambda: [L.Conv2D(1280, 1), L.ReLU(6.0)]),
    "dw96_s2": ((112, 112, 96), lambda: [L.DepthwiseConv2D(3, strides=2, padding="same"), L.ReLU(6.0)]),
    "dw144_s1": ((56, 56, 144), lambda: [L.DepthwiseConv2D(3, padding="same"), L.ReLU(6.0)]),
    "dw32_s1": ((112, 112, 32), lambda: [L.DepthwiseConv2D(3, padding="same"), L.ReLU(6.0)]),
    "dw576_s1_14": ((14, 14, 576), lambda: [L.DepthwiseConv2D(3, padding="same"), L.ReLU(6.0)]),
    "pw1280_1001_1": ((1, 1, 1280), lambda: [L.Conv2D(1001, 1)]),
    # The face detector's (BlazeFace short range) heaviest layers.
    "face_first": ((128, 128, 3), lambda: [L.Conv2D(24, 5, strides=2, padding="same"), L.ReLU()]),
    "face_pw24_24": ((64, 64, 24), lambda: [L.Conv2D(24, 1)]),
    "face_pw24_28": ((64, 64, 24), lambda: [L.Conv2D(28, 1)]),
    "face_pw36_42": ((32, 32, 36), lambda: [L.Conv2D(42, 1)]),
    "face_dw24_s1": ((64, 64, 24), lambda: [L.DepthwiseConv2D(3, padding="same")]),
    "face_maxpool": ((64, 64, 28), lambda: [L.MaxPool2D(2)]),
}


def convert(shape, layers, int8):
    inputs = tf.keras.Input(shape=shape, batch_size=1)
    x = inputs
    for layer in layers:
        x = layer(x)
    converter = tf.lite.TFLiteConverter.from_keras_model(tf.keras.Model(inputs, x))
    if int8:
        rng = np.random.default_rng(0)
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = lambda: ([rng.uniform(-1, 1, (1,) + shape).astype(np.float32)] for _ in range(20))
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.inference_input_type = converter.inference_output_type = tf.int8
    return converter.convert()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    tf.keras.utils.set_random_seed(0)
    for name, (shape, layers) in LAYERS.items():
        for int8, prefix in [(True, ""), (False, "f_")]:
            path = os.path.join(args.out, f"{prefix}{name}.tflite")
            with open(path, "wb") as f:
                f.write(convert(shape, layers(), int8))
            print(path)


if __name__ == "__main__":
    main()
