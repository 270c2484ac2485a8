#!/usr/bin/env python3
"""Converts Keras 3 application architectures (random weights: no download; logits, no softmax) to float .tflite,
to check architectures nobody tuned this engine for against LiteRT (tools/compare_with_litert.py) and to time them
(tools/bench_vs_litert.py).

    python3 tools/make_keras_applications.py --out /tmp/apps MobileNetV3Large EfficientNetB0 ConvNeXtTiny ...
"""
import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("names", nargs="+", help="keras.applications constructors, e.g. ResNet50V2 DenseNet121")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for name in a.names:
        keras.utils.set_random_seed(0)
        shape = (299, 299, 3) if name in ("InceptionV3", "Xception", "InceptionResNetV2") else (224, 224, 3)
        network = getattr(keras.applications, name)(input_shape=shape, weights=None, classifier_activation=None)
        inputs = keras.Input(shape, batch_size=1)
        path = os.path.join(a.out, f"{name}.tflite")
        open(path, "wb").write(tf.lite.TFLiteConverter.from_keras_model(keras.Model(inputs, network(inputs))).convert())
        print(path, flush=True)


if __name__ == "__main__":
    main()
