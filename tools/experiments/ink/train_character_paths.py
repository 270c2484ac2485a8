#!/usr/bin/env python3
"""An experiment, not shipped (Docs/digital-ink.md, 2026-11-25): a lone-character network that reads the pen path.

    python3 tools/experiments/ink/train_character_paths.py [--minutes 40] [--seed 1] [--cuts-cache DIR] [--output OUT.tflite]

It was tried as a third opinion on an ink that is one character on its own, beside the text LSTM's reading (which
learnt characters inside words) and the character network's picture (train_characters.py), added to the two as
that network is (weight times its log-probability's excess over a uniform guess). It reads the text model's
features (ink_features.py) and was trained on lone characters only: the same data as the character network (real
characters cut out of the training writers' UNIPEN words by the shipped text model, each also `--copies` times
under a random affine map, half stair-stepped on a coarse pixel grid and every second one without its timing; the
usable UNIPEN isolated characters of the training writers, three copies each; `--hershey-per-class` Hershey glyphs
of every printable character). Every class weighs the same in the loss (inverse frequency, capped at 20 times the
mean), so the output is a likelihood. Validation: the characters cut out of the validation writers' words; the
test writers and Omniglot are never read. Model: two bidirectional LSTM layers of 64 units, the maximum over
time, dropout, a dense layer over the 94 printable characters without the space; Adam, a fixed wall-clock budget;
exported is the epoch with the best validation cross-entropy.
"""
import argparse
import json
import math
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "ink"))  # tools/ink
import bundled  # noqa: E402
import hershey  # noqa: E402
import ink_data  # noqa: E402
from character_data import CHARACTERS  # noqa: E402
from ink_features import FEATURES, features, untimed  # noqa: E402
from train_characters import cuts_of  # noqa: E402
from train_shapes import batches  # noqa: E402  (padding repeats the last frame, so the maximum over time is unchanged)

UNITS = 64


def training_data(rng, cache, hershey_per_class, copies):
    from train_text import augmented
    items, counts = [], {}
    def add(strokes, label, kind):
        f = features(strokes)
        if len(f):
            items.append((f, CHARACTERS.index(label)))
            counts[kind] = counts.get(kind, 0) + 1
    for c in cuts_of("train", cache):
        if c["label"] in CHARACTERS:
            add(c["strokes"], c["label"], "cut_characters")
            for k in range(copies):
                copy = augmented(c["strokes"], rng, speed_range=3.0, pixel_grid=0.5)
                add(untimed(copy) if k % 2 == 0 else copy, c["label"], "cut_character_copies")
    for d in ink_data.read("unipen-chars", "train"):
        if d["label"] in CHARACTERS:
            for k in range(3):
                copy = augmented(d["strokes"], rng, speed_range=3.0, pixel_grid=0.3)
                add(untimed(copy) if k == 1 else copy, d["label"], "unipen_character_copies")
    for ch in CHARACTERS:
        for _ in range(hershey_per_class):
            strokes = hershey.render(ch, rng)
            if strokes:
                add(augmented(strokes, rng, pixel_grid=0.5), ch, "hershey")
    return items, counts


def build_model(batch_size=None, dropout=0.0):
    import tensorflow as tf
    inputs = tf.keras.Input((None, FEATURES), batch_size=batch_size, name="ink_features")
    x = inputs
    for k in range(2):
        x = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(UNITS, return_sequences=True), name=f"bilstm{k}")(x)
    x = tf.keras.layers.GlobalMaxPooling1D()(x)
    if dropout > 0:  # training only: the exported model is built without it
        x = tf.keras.layers.Dropout(dropout)(x)
    return tf.keras.Model(inputs, tf.keras.layers.Dense(len(CHARACTERS), name="character_logits")(x))


def log_probabilities(model, items):
    """Each item's log-probabilities, in item order (batched by length; `batches` carries each item's index)."""
    out = np.zeros((len(items), len(CHARACTERS)))
    indexed = [(f, i) for i, (f, _) in enumerate(items)]
    for x, idx in batches(indexed, 256, np.random.default_rng(0)):
        z = model(x, training=False).numpy().astype(np.float64)
        z -= z.max(1, keepdims=True)
        out[idx] = z - np.log(np.exp(z).sum(1, keepdims=True))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hershey-per-class", type=int, default=400)
    parser.add_argument("--copies", type=int, default=2, help="affine copies of every cut-out character")
    parser.add_argument("--dropout", type=float, default=0.3)
    parser.add_argument("--cuts-cache", help="keep the cut-out characters here (JSON) and reuse them")
    parser.add_argument("--output", default="ink-en.character-paths.tflite")
    args = parser.parse_args()
    started = time.time()
    rng = np.random.default_rng(args.seed)
    validation = [(features(c["strokes"]), CHARACTERS.index(c["label"])) for c in cuts_of("validation", args.cuts_cache) if c["label"] in CHARACTERS]
    validation = [v for v in validation if len(v[0])]
    labels_v = np.array([v[1] for v in validation])
    items, counts = training_data(rng, args.cuts_cache, args.hershey_per_class, args.copies)
    print(f"{len(items)} training characters {counts}, {len(validation)} validation, {(time.time() - started) / 60:.1f} min", flush=True)

    import tensorflow as tf
    tf.random.set_seed(args.seed)
    per_class = np.bincount([i[1] for i in items], minlength=len(CHARACTERS)).astype(np.float64)
    class_weight = tf.constant(np.minimum((len(items) / len(CHARACTERS)) / np.maximum(per_class, 1), 20.0), tf.float32)
    model = build_model(dropout=args.dropout)
    optimizer = tf.keras.optimizers.Adam(2e-3, clipnorm=5.0)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function(reduce_retracing=True)
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True), sample_weight=tf.gather(class_weight, y))
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return loss

    budget = args.minutes * 60 - (time.time() - started)
    schedule_start = time.time()
    history, best, epoch = [], (np.inf, None), 0
    while time.time() - schedule_start < budget:
        epoch += 1
        losses = []
        for x, y in batches(items, 128, rng):
            elapsed = (time.time() - schedule_start) / budget
            if elapsed >= 1:
                break
            optimizer.learning_rate.assign(2e-3 if elapsed < 0.6 else 1e-4 + 1.9e-3 * 0.5 * (1 + math.cos(math.pi * (elapsed - 0.6) / 0.4)))
            losses.append(float(step(x, y)))
        log_p = log_probabilities(model, validation)
        nll = float(-log_p[np.arange(len(labels_v)), labels_v].mean())
        history.append(dict(epoch=epoch, loss=float(np.mean(losses)), validation_cross_entropy=nll,
                            validation_accuracy=float(np.mean(log_p.argmax(1) == labels_v)), minutes=(time.time() - started) / 60))
        print(json.dumps(history[-1]), flush=True)
        if nll < best[0]:
            best = (nll, model.get_weights())

    export = build_model(batch_size=1)
    export.set_weights(best[1])
    with open(args.output, "wb") as f:
        f.write(tf.lite.TFLiteConverter.from_keras_model(export).convert())
    base = os.path.splitext(args.output)[0]
    with open(base + ".training.json", "w") as f:
        json.dump(dict(units=UNITS, parameters=int(export.count_params()), training_characters=len(items), **counts,
                       validation_characters=len(validation), hershey_per_class=args.hershey_per_class, copies=args.copies,
                       dropout=args.dropout, best_validation_cross_entropy=best[0], history=history, seed=args.seed,
                       minutes=(time.time() - started) / 60, tensorflow=tf.__version__), f, indent=1)
    bundled.touch_if_bundled(args.output)
    print(f"wrote {args.output}: validation cross-entropy {best[0]:.4f}", flush=True)


if __name__ == "__main__":
    main()
