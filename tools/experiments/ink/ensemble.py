#!/usr/bin/env python3
"""Joins trained "en" models into one .tflite that averages their per-point log-probabilities, or shapes models
(`--shapes`) into one that averages their per-ink log-probabilities.

    python3 tools/experiments/ink/ensemble.py A.tflite B.tflite [...] --output models/ink-en.tflite
    python3 tools/experiments/ink/ensemble.py --shapes A.tflite B.tflite [...] --output models/ink-shapes.tflite

Each model is read back into Keras (train_text.weights_from_tflite, checked against LiteRT's outputs here), and the
graph computes mean(log_softmax(model_k(features))): a product-of-experts reading the recognizer decodes like a single
model's logits (it takes the log-softmax again, which renormalizes the geometric mean). The result runs in our engine
with the same ops as one model (UNIDIRECTIONAL_SEQUENCE_LSTM, REVERSE_V2, FULLY_CONNECTED) plus LOG_SOFTMAX, ADD and
MUL, at the sum of the models' cost.
"""
import argparse
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "ink"))  # tools/ink
import bundled  # noqa: E402
import shape_data  # noqa: E402
import train_shapes  # noqa: E402
import train_text  # noqa: E402


def litert_logits(path, x):
    from ai_edge_litert.interpreter import Interpreter
    it = Interpreter(path)
    it.resize_tensor_input(it.get_input_details()[0]["index"], x.shape)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("models", nargs="+")
    parser.add_argument("--output", required=True)
    parser.add_argument("--shapes", action="store_true", help="the models are shapes models (train_shapes.py)")
    args = parser.parse_args()
    import tensorflow as tf
    x = np.random.default_rng(0).normal(0, 1, (1, 40, 5)).astype(np.float32)
    inputs = tf.keras.Input((None, 5), batch_size=1, name="ink_features")
    members = []
    for k, path in enumerate(args.models):
        model = train_shapes.build_model(batch_size=1) if args.shapes else train_text.build_model(batch_size=1)
        model._name = f"member{k}"
        train_text.weights_from_tflite(path, model, classes=len(shape_data.SHAPES) if args.shapes else train_text.CLASSES)
        difference = np.abs(model(x).numpy() - litert_logits(path, x)).max()
        assert difference < 1e-2, f"{path}: weights read back differ from LiteRT by {difference}"
        members.append(tf.keras.layers.Lambda(tf.nn.log_softmax, name=f"log_probabilities{k}")(model(inputs)))
    average = tf.keras.layers.Average(name="shape_log_probabilities" if args.shapes else "character_log_probabilities")(members) if len(members) > 1 else members[0]
    ensemble = tf.keras.Model(inputs, average)
    with open(args.output, "wb") as f:
        f.write(tf.lite.TFLiteConverter.from_keras_model(ensemble).convert())
    summaries = []
    for path in args.models:
        record = os.path.splitext(path)[0] + ".training.json"
        summaries.append(json.load(open(record)) if os.path.exists(record) else dict(file=path))
    with open(os.path.splitext(args.output)[0] + ".training.json", "w") as f:
        json.dump(dict(ensemble_of=summaries, parameters=int(ensemble.count_params()), tensorflow=tf.__version__), f, indent=1)
    bundled.touch_if_bundled(args.output)
    print(f"wrote {args.output} ({os.path.getsize(args.output) / 1e6:.2f} MB, {ensemble.count_params():,} parameters)")


if __name__ == "__main__":
    main()
