#!/usr/bin/env python3
"""Writes a small Keras 3 Transformer encoder (pre-norm blocks: LayerNormalization, MultiHeadAttention, a GELU MLP,
residuals) as a float .tflite, or full-integer int8 with --int8, to time BATCH_MATMUL, GELU and the layer-norm
arithmetic against LiteRT. Random weights and calibration inputs; the timing does not depend on them.

    python3 tools/experiments/make_transformer_model.py --out /tmp/transformer.tflite [--sequence 64 --width 128 --heads 4 --blocks 2] [--int8]
    python3 tools/bench_vs_litert.py --models /tmp/transformer.tflite --runs 100 --rounds 3
"""
import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def encoder(sequence, width, heads, blocks):
    inputs = keras.Input((sequence, width), batch_size=1)
    x = inputs
    for _ in range(blocks):
        y = keras.layers.LayerNormalization()(x)
        x = x + keras.layers.MultiHeadAttention(num_heads=heads, key_dim=width // heads)(y, y)
        y = keras.layers.Dense(2 * width, activation="gelu")(keras.layers.LayerNormalization()(x))
        x = x + keras.layers.Dense(width)(y)
    return keras.Model(inputs, keras.layers.LayerNormalization()(x))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--sequence", type=int, default=64)
    p.add_argument("--width", type=int, default=128)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--blocks", type=int, default=2)
    p.add_argument("--int8", action="store_true")
    a = p.parse_args()
    keras.utils.set_random_seed(0)
    model = encoder(a.sequence, a.width, a.heads, a.blocks)
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    if a.int8:
        rng = np.random.default_rng(0)
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = lambda: ([rng.uniform(-2, 2, (1, a.sequence, a.width)).astype(np.float32)] for _ in range(64))
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.inference_input_type = converter.inference_output_type = tf.int8
    open(a.out, "wb").write(converter.convert())
    print(a.out)


if __name__ == "__main__":
    main()
