#!/usr/bin/env python3
"""Trains the "zxx-Zsym-x-shapes" model: writes models/ink-shapes.tflite, .labels.txt and .training.json.

    python3 tools/ink/train_shapes.py [--epochs 17] [--seed 1]

Data (shape_data.py): synthetic hand-drawn shapes of every class, the training part of Quick, Draw!'s shape
categories (each drawing also `--copies` more times under a random affine map) and `--other-sketches` more of its
other categories as "other" (each with one affine copy), all without their timing: the model reads shapes, not
speed (the recognizer drops the timing too). Features are the text model's
(ink_features.py). Model: a bidirectional LSTM of 64 units (`--units`), the maximum over time, and a dense layer over the
classes; Adam, cross-entropy, a fixed number of epochs (a constant learning rate, then cosine decay over the last 40%); exported is the checkpoint with the best mean of two
accuracies: on held-out synthetic shapes (another seed) and on Quick, Draw!'s validation part (real drawings of
writers trained on nowhere; the test half stays untouched).
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bundled  # noqa: E402
import shape_data  # noqa: E402
from ink_features import features, untimed  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
UNITS = 64


def affine(strokes, rng):
    angle, shear = rng.normal(0, 0.15), rng.normal(0, 0.1)
    sx, sy = rng.uniform(0.8, 1.25, 2)
    c, s = math.cos(angle), math.sin(angle)
    out = []
    for st in strokes:
        q = []
        for p in st:
            x, y = p[0] * sx + shear * p[1], p[1] * sy
            q.append([c * x - s * y, s * x + c * y] + list(p[2:]))
        out.append(q)
    return out


def varied(strokes, rng):
    """`affine`, then as a hand varies a drawing: a smooth warp (each point moved by a low-frequency sine field of up
    to 4% of the drawing's size) and, a third of the time, the end of one stroke left off (up to 12% of its points)."""
    strokes = affine(strokes, rng)
    xs = [p[0] for s in strokes for p in s]
    ys = [p[1] for s in strokes for p in s]
    size = max(max(xs) - min(xs), max(ys) - min(ys), 1e-6)
    amplitude = rng.uniform(0, 0.04, 2) * size
    frequency = rng.uniform(0.5, 2.0, 4) * 2 * math.pi / size
    phase = rng.uniform(0, 2 * math.pi, 2)
    out = [[[p[0] + amplitude[0] * math.sin(frequency[0] * p[1] + frequency[1] * p[0] + phase[0]),
             p[1] + amplitude[1] * math.sin(frequency[2] * p[0] + frequency[3] * p[1] + phase[1])] for p in s] for s in strokes]
    if rng.random() < 1 / 3:
        k = int(rng.integers(len(out)))
        keep = len(out[k]) - int(len(out[k]) * rng.uniform(0, 0.12))
        out[k] = out[k][:max(keep, 2)] if rng.random() < 0.5 else out[k][len(out[k]) - max(keep, 2):]
    return out


def synthetic_set(count, seed, decorated=0.0):
    rng = np.random.default_rng(seed)
    weights = np.array([1.5 if k == "other" else 1.0 for k in shape_data.SHAPES])
    labels = rng.choice(len(shape_data.SHAPES), size=count, p=weights / weights.sum())
    return [(features(shape_data.synthetic(shape_data.SHAPES[k], rng, decorated)), int(k)) for k in labels]


def build_model(batch_size=None, dropout=0.0, units=UNITS):
    import tensorflow as tf
    inputs = tf.keras.Input((None, 5), batch_size=batch_size, name="ink_features")
    x = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(units, return_sequences=True), name="bilstm")(inputs)
    x = tf.keras.layers.GlobalMaxPooling1D()(x)
    if dropout > 0:  # training only: the exported model is built without it
        x = tf.keras.layers.Dropout(dropout)(x)
    return tf.keras.Model(inputs, tf.keras.layers.Dense(len(shape_data.SHAPES), name="shape_logits")(x))


def batches(items, batch_size, rng):
    order = sorted(range(len(items)), key=lambda i: len(items[i][0]) + rng.random() * 6)
    groups = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    rng.shuffle(groups)
    for g in groups:
        t = max(len(items[i][0]) for i in g)
        x = np.zeros((len(g), t, 5), np.float32)
        # Padding repeats the last frame so that the maximum over time is not changed by it.
        for r, i in enumerate(g):
            f = items[i][0]
            x[r, :len(f)] = f
            x[r, len(f):] = f[-1]
        yield x, np.array([items[i][1] for i in g], np.int32)


def accuracy(model, items):
    correct = 0
    for f, label in items:
        correct += int(np.argmax(model(f[None], training=False).numpy()[0]) == label)
    return correct / len(items)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=17)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--synthetic", type=int, default=30000)
    parser.add_argument("--copies", type=int, default=10, help="augmented copies of every Quick, Draw! training drawing")
    parser.add_argument("--dropout", type=float, default=0.0, help="dropout on the pooled features while training")
    parser.add_argument("--varied", action="store_true", help="augment Quick, Draw! copies with `varied` (warp, cut stroke ends), not only `affine`")
    parser.add_argument("--other-sketches", type=int, default=0, help="more Quick, Draw! training-half sketches of other categories, as \"other\"")
    parser.add_argument("--train-on-validation", action="store_true",
                        help="also train on Quick, Draw!'s validation part (a third more real drawings) and export the last epoch's "
                             "weights, since nothing is left to choose a checkpoint on (the held-out half stays untouched)")
    parser.add_argument("--label-smoothing", type=float, default=0.0,
                        help="cross-entropy against labels smoothed by this much (a less overconfident network)")
    parser.add_argument("--decorated", type=float, default=0.0,
                        help="share of the synthetic closed shapes drawn with marks inside or beside them (shape_data._decorations)")
    parser.add_argument("--units", type=int, default=UNITS, help="LSTM units each way")
    parser.add_argument("--output", default=os.path.join(ROOT, "models", "ink-shapes.tflite"))
    args = parser.parse_args()
    started = time.time()
    rng = np.random.default_rng(args.seed)
    items = synthetic_set(args.synthetic, args.seed, args.decorated)
    # The shapes model reads no timing (the recognizer gives it the synthetic clock), like the synthetic shapes.
    real = [dict(d, strokes=untimed(d["strokes"])) for d in shape_data.quickdraw("train")]
    if args.train_on_validation:
        real += [dict(d, strokes=untimed(d["strokes"])) for d in shape_data.quickdraw("validation")]
    for d in real:
        k = shape_data.SHAPES.index(d["label"])
        items.append((features(d["strokes"]), k))
        for _ in range(args.copies):
            items.append((features((varied if args.varied else affine)(d["strokes"], rng)), k))
    seen = {json.dumps(d["strokes"]) for d in real}
    others = [dict(d, strokes=untimed(d["strokes"])) for d in shape_data.other_sketches("train", args.other_sketches + len(real))]
    others = [d for d in others if json.dumps(d["strokes"]) not in seen]
    others = others[:args.other_sketches]
    other = shape_data.SHAPES.index("other")
    for d in others:
        items.append((features(d["strokes"]), other))
        items.append((features((varied if args.varied else affine)(d["strokes"], rng)), other))
    items = [it for it in items if len(it[0]) > 0]
    validation = synthetic_set(1000, args.seed + 1000)
    real_validation = [(features(untimed(d["strokes"])), shape_data.SHAPES.index(d["label"])) for d in shape_data.quickdraw("validation")]
    real_validation = [it for it in real_validation if len(it[0]) > 0]
    print(f"{len(items)} training shapes ({len(real)} Quick, Draw! x{args.copies + 1}, {len(others)} more other sketches x2), "
          f"{len(validation)} synthetic and {len(real_validation)} Quick, Draw! validation; {time.time() - started:.0f} s", flush=True)

    import tensorflow as tf
    tf.random.set_seed(args.seed)
    model = build_model(dropout=args.dropout, units=args.units)
    optimizer = tf.keras.optimizers.Adam(2e-3, clipnorm=5.0)
    loss_fn = tf.keras.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=args.label_smoothing)

    @tf.function(reduce_retracing=True)
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(tf.one_hot(y, len(shape_data.SHAPES)), model(x, training=True))
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return loss

    history, best = [], (-1.0, None)
    for epoch in range(1, args.epochs + 1):
        losses = []
        batch_count = math.ceil(len(items) / 64)
        for b, (x, y) in enumerate(batches(items, 64, rng)):
            elapsed = (epoch - 1 + b / batch_count) / args.epochs  # the schedule's position, 0 to 1
            optimizer.learning_rate.assign(2e-3 if elapsed < 0.6 else 2e-4 + 1.8e-3 * 0.5 * (1 + math.cos(math.pi * (elapsed - 0.6) / 0.4)))
            losses.append(float(step(x, y)))
        synthetic_acc, real_acc = accuracy(model, validation), accuracy(model, real_validation)
        acc = (synthetic_acc + real_acc) / 2
        history.append(dict(epoch=epoch, loss=float(np.mean(losses)), validation_accuracy=synthetic_acc, quickdraw_validation_accuracy=real_acc,
                            minutes=(time.time() - started) / 60))
        print(json.dumps(history[-1]), flush=True)
        if acc > best[0] or args.train_on_validation:
            best = (acc, model.get_weights())

    export = build_model(batch_size=1, units=args.units)
    export.set_weights(best[1])
    with open(args.output, "wb") as f:
        f.write(tf.lite.TFLiteConverter.from_keras_model(export).convert())
    base = os.path.splitext(args.output)[0]
    with open(base + ".labels.txt", "w") as f:
        f.write("\n".join(shape_data.SHAPES) + "\n")
    with open(base + ".training.json", "w") as f:
        json.dump(dict(units=args.units, parameters=int(export.count_params()), training_shapes=len(items), quickdraw_train=len(real),
                       synthetic=args.synthetic, quickdraw_copies=args.copies, dropout=args.dropout, label_smoothing=args.label_smoothing, decorated=args.decorated, varied=args.varied, other_sketches=len(others), quickdraw_validation=len(real_validation),
                       best_validation_accuracy=best[0], history=history, seed=args.seed, epochs=args.epochs, data=shape_data.ink_data.files_read(),
                       minutes=(time.time() - started) / 60, tensorflow=tf.__version__), f, indent=1)
    bundled.touch_if_bundled(args.output)
    print(f"wrote {args.output}: mean of synthetic and Quick, Draw! validation accuracy {best[0]:.4f}", flush=True)


if __name__ == "__main__":
    main()
