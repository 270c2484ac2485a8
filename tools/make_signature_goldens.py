#!/usr/bin/env python3
"""Builds models with several signatures (TFLite's SignatureRunner) and records a sequence of signature calls on LiteRT.

Writes Tests/LiteEngineTests/Goldens/signatures/<case>/{model.tflite,steps.json,*.npy}. steps.json lists the calls
in order, each with its signature key and the .npy files of its named inputs and of LiteRT's named outputs. The
signatures of one model share its resource variables, so a call sees what the calls before it assigned.

    pip install ai-edge-litert numpy tensorflow-cpu==2.21.0     (tools/setup.sh --tensorflow)
    python3 tools/make_signature_goldens.py

Reference: LiteRT's built-in kernels (OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES).
"""
import json
import os
import shutil
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import tensorflow as tf
from ai_edge_litert import interpreter as litert

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "LiteEngineTests", "Goldens", "signatures")


class LinearRegression(tf.Module):
    """On-device training as TFLite's guide writes it: `infer` reads the variables, `train` takes one SGD step on
    them (the gradient converts to BATCH_MATMUL, MUL, SUB), both initialized by one CALL_ONCE init subgraph."""

    def __init__(self):
        self.w = tf.Variable(tf.constant([[0.5, -0.25, 1.0], [0.1, 0.2, -0.3]], tf.float32))
        self.b = tf.Variable(tf.zeros([3]))

    @tf.function(input_signature=[tf.TensorSpec([3, 2], tf.float32)])
    def infer(self, x):
        return {"y": tf.matmul(x, self.w) + self.b}

    @tf.function(input_signature=[tf.TensorSpec([3, 2], tf.float32), tf.TensorSpec([3, 3], tf.float32)])
    def train(self, x, target):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(x, self.w) + self.b - target))
        w_gradient, b_gradient = tape.gradient(loss, [self.w, self.b])
        self.w.assign_sub(0.1 * w_gradient)
        self.b.assign_sub(0.1 * b_gradient)
        return {"loss": loss, "b": self.b.read_value()}


def convert(module, signatures):
    folder = tempfile.mkdtemp()
    try:
        tf.saved_model.save(module, folder, signatures={key: getattr(module, key).get_concrete_function() for key in signatures})
        converter = tf.lite.TFLiteConverter.from_saved_model(folder, signature_keys=signatures)
        converter.experimental_enable_resource_variables = True
        return converter.convert()
    finally:
        shutil.rmtree(folder)


def record(name, model, calls):
    folder = os.path.join(ROOT, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    open(os.path.join(folder, "model.tflite"), "wb").write(model)
    interpreter = litert.Interpreter(model_content=model, experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    runners = {key: interpreter.get_signature_runner(key) for key in interpreter.get_signature_list()}
    steps = []
    for i, (key, inputs) in enumerate(calls):
        outputs = runners[key](**inputs)
        step = {"signature": key, "inputs": {}, "outputs": {}}
        for kind, values in (("inputs", inputs), ("outputs", outputs)):
            for tensor, value in values.items():
                file = f"step{i}_{kind[:-1]}_{tensor}.npy"
                np.save(os.path.join(folder, file), np.asarray(value))
                step[kind][tensor] = file
        steps.append(step)
    json.dump({"signatures": interpreter.get_signature_list(), "steps": steps}, open(os.path.join(folder, "steps.json"), "w"), indent=1)
    print(f"{name}: {len(steps)} calls of {', '.join(runners)}")


def main():
    x = np.array([[1, 2], [3, -1], [0.5, 0.5]], np.float32)
    target = np.eye(3, dtype=np.float32)
    other = np.array([[0, 1], [-2, 0.25], [1, 1]], np.float32)
    # train first: the init subgraph runs once for both signatures (infer then sees the trained values, not the
    # initial ones again).
    calls = [("train", {"x": x, "target": target}), ("infer", {"x": other}), ("train", {"x": other, "target": target}),
             ("train", {"x": x, "target": target}), ("infer", {"x": x})]
    record("linear_regression_train_infer", convert(LinearRegression(), ["infer", "train"]), calls)


if __name__ == "__main__":
    main()
