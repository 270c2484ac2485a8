#!/usr/bin/env python3
"""Trains the shapes model's second opinion: writes models/ink-shapes.geometry.tflite and .geometry.training.json.

    python3 tools/ink/train_shape_geometry.py [--seed 3]

The LSTM (train_shapes.py) reads the pen path; this network reads shape_geometry.py's 30 geometric features of the
whole ink (hull, inscribed triangle and quadrilateral, enclosing rectangle, turning, radial profile), which say
"five points" or "four corners" however the drawing was stroked. Data as train_shapes.py's: synthetic shapes, Quick,
Draw!'s training drawings with `--copies` warped copies (train_shapes.varied), `--other-sketches` sketches of other
categories as "other". Model: `--ensemble` networks of 30 -> 64 -> 64 -> 10 (ReLU), trained with successive seeds,
their logits averaged in the exported model (runs of one network differ by a few validation drawings), the features'
standardization folded into each first layer at export; Adam, cross-entropy, `--epochs`, each network's checkpoint
the epoch with the best mean of the synthetic and Quick, Draw! validation accuracies (as train_shapes.py chooses).

The recognizer adds `weight` times this network's log-probabilities to the LSTM's; the weight is chosen here on
Quick, Draw!'s validation part (the LSTM read by LiteRT; the most drawings right, then the least cross-entropy of the
fused scores) and written to the .training.json, and
DigitalInkRecognizerOptions.shapeGeometryWeight's default is that number (a test checks). The held-out half is not
read.
"""
import argparse
import json
import multiprocessing
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bundled  # noqa: E402
import shape_data  # noqa: E402
import shape_geometry  # noqa: E402
from ink_features import features as ink_features, untimed  # noqa: E402
from make_ink_goldens import litert  # noqa: E402
from train_shapes import affine, varied  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
WEIGHTS = [0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0]


def _features(strokes):
    return shape_geometry.features(strokes)


def feature_matrix(inks, pool):
    return np.array(pool.map(_features, inks, chunksize=64), np.float64)


def training_inks(args, rng):
    weights = np.array([1.5 if k == "other" else 1.0 for k in shape_data.SHAPES])
    inks, labels = [], []
    for k in rng.choice(len(shape_data.SHAPES), size=args.synthetic, p=weights / weights.sum()):
        inks.append(shape_data.synthetic(shape_data.SHAPES[k], rng))
        labels.append(int(k))
    real = [dict(d, strokes=untimed(d["strokes"])) for d in shape_data.quickdraw("train")]
    for d in real:
        k = shape_data.SHAPES.index(d["label"])
        inks.append(d["strokes"])
        labels.append(k)
        for _ in range(args.copies):
            inks.append(varied(d["strokes"], rng))
            labels.append(k)
    seen = {json.dumps(d["strokes"]) for d in real}
    others = [dict(d, strokes=untimed(d["strokes"])) for d in shape_data.other_sketches("train", args.other_sketches + len(real))]
    others = [d for d in others if json.dumps(d["strokes"]) not in seen][:args.other_sketches]
    other = shape_data.SHAPES.index("other")
    for d in others:
        inks += [d["strokes"], affine(d["strokes"], rng)]
        labels += [other, other]
    return inks, np.array(labels, np.int32), len(real), len(others)


def lstm_log_probabilities(path, inks):
    """The shapes LSTM's log-probabilities under LiteRT (a fresh interpreter per ink: its state is in variable tensors)."""
    return log_softmax(np.array([litert(path, ink_features(untimed(strokes))) for strokes in inks], np.float64))


def log_softmax(x):
    x = x - x.max(axis=1, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=1, keepdims=True))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--synthetic", type=int, default=30000)
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--other-sketches", type=int, default=3000)
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--ensemble", type=int, default=3, help="networks trained with seeds seed, seed+1, ...; the model averages their logits")
    parser.add_argument("--shapes-model", default=os.path.join(ROOT, "models", "ink-shapes.tflite"))
    parser.add_argument("--output", default=os.path.join(ROOT, "models", "ink-shapes.geometry.tflite"))
    args = parser.parse_args()
    started = time.time()
    rng = np.random.default_rng(args.seed)
    inks, y, real_count, other_count = training_inks(args, rng)
    validation_rng = np.random.default_rng(args.seed + 1000)
    synthetic_labels = validation_rng.choice(len(shape_data.SHAPES), size=1000)
    synthetic_validation = [shape_data.synthetic(shape_data.SHAPES[k], validation_rng) for k in synthetic_labels]
    real_validation = [untimed(d["strokes"]) for d in shape_data.quickdraw("validation")]
    real_labels = np.array([shape_data.SHAPES.index(d["label"]) for d in shape_data.quickdraw("validation")])
    with multiprocessing.Pool(os.cpu_count()) as pool:
        x = feature_matrix(inks, pool)
        xs, xr = feature_matrix(synthetic_validation, pool), feature_matrix(real_validation, pool)
    print(f"{len(x)} training inks ({real_count} Quick, Draw! x{args.copies + 1}, {other_count} other sketches x2); features in "
          f"{time.time() - started:.0f} s", flush=True)

    import tensorflow as tf
    mean, std = x.mean(axis=0), np.maximum(x.std(axis=0), 1e-6)
    normalize = lambda m: ((m - mean) / std).astype(np.float32)  # noqa: E731
    members = []
    for member in range(args.ensemble):
        tf.random.set_seed(args.seed + member)
        regularizer = tf.keras.regularizers.l2(1e-4)
        model = tf.keras.Sequential([tf.keras.Input((shape_geometry.COUNT,)),
                                     tf.keras.layers.Dense(64, activation="relu", kernel_regularizer=regularizer),
                                     tf.keras.layers.Dropout(0.1),
                                     tf.keras.layers.Dense(64, activation="relu", kernel_regularizer=regularizer),
                                     tf.keras.layers.Dense(len(shape_data.SHAPES))])
        model.compile(tf.keras.optimizers.Adam(1e-3), tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        history, best = [], (-1.0, None, 0)
        for epoch in range(1, args.epochs + 1):
            if epoch == int(args.epochs * 0.7):
                model.optimizer.learning_rate.assign(2e-4)
            fit = model.fit(normalize(x), y, batch_size=128, epochs=1, shuffle=True, verbose=0)
            synthetic_accuracy = float((model.predict(normalize(xs), verbose=0).argmax(1) == synthetic_labels).mean())
            real_accuracy = float((model.predict(normalize(xr), verbose=0).argmax(1) == real_labels).mean())
            history.append(dict(epoch=epoch, loss=float(fit.history["loss"][0]), validation_accuracy=synthetic_accuracy,
                                quickdraw_validation_accuracy=real_accuracy))
            print(json.dumps(dict(member=member, **history[-1])), flush=True)
            if (synthetic_accuracy + real_accuracy) / 2 > best[0]:
                best = ((synthetic_accuracy + real_accuracy) / 2, model.get_weights(), epoch)
        # Standardization folded into the first layer: W' = W / std (per input row), b' = b - (mean / std) W.
        weights = [w.astype(np.float64) for w in best[1]]
        weights[0], weights[1] = weights[0] / std[:, None], weights[1] - (mean / std) @ weights[0]
        members.append(dict(weights=[w.astype(np.float32) for w in weights], best_epoch=best[2], best_validation_accuracy=best[0],
                            history=history))

    # One model: the members side by side on the same input, their logits averaged.
    features_in = tf.keras.Input((shape_geometry.COUNT,), batch_size=1, name="shape_geometry")
    logits = []
    for m, member in enumerate(members):
        layers = [tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(64, activation="relu"),
                  tf.keras.layers.Dense(len(shape_data.SHAPES))]
        h = features_in
        for layer in layers:
            h = layer(h)
        for layer, (kernel, bias) in zip(layers, zip(member["weights"][::2], member["weights"][1::2])):
            layer.set_weights([kernel, bias])
        logits.append(h)
    output = tf.keras.layers.Average(name="shape_logits")(logits) if len(logits) > 1 else logits[0]
    export = tf.keras.Model(features_in, output)
    with open(args.output, "wb") as f:
        f.write(tf.lite.TFLiteConverter.from_keras_model(export).convert())

    geometry = log_softmax(export.predict(xr.astype(np.float32), verbose=0).astype(np.float64))
    lstm = lstm_log_probabilities(args.shapes_model, real_validation)
    fused = {w: int(((lstm + w * geometry).argmax(1) == real_labels).sum()) for w in WEIGHTS}
    # The weight (0: the LSTM alone) that reads the most validation drawings right; among equals, the one under which
    # their labels are likeliest (the fused scores renormalized). Not the likelihood alone: with an LSTM trained
    # without label smoothing, confident errors made it best for the LSTM alone, which reads fewer drawings right.
    cross_entropy = {w: float(-log_softmax(lstm + w * geometry)[np.arange(len(real_labels)), real_labels].mean()) for w in WEIGHTS}
    weight = max(WEIGHTS, key=lambda w: (fused[w], -cross_entropy[w]))
    synthetic_accuracy = float((export.predict(xs.astype(np.float32), verbose=0).argmax(1) == synthetic_labels).mean())
    summary = dict(features=shape_geometry.COUNT, parameters=int(export.count_params()), training_inks=len(x), quickdraw_train=real_count,
                   quickdraw_copies=args.copies, other_sketches=other_count, synthetic=args.synthetic, epochs=args.epochs,
                   ensemble=args.ensemble, members=[{k: v for k, v in m.items() if k != "weights"} for m in members],
                   synthetic_validation_accuracy=synthetic_accuracy, seed=args.seed,
                   quickdraw_validation=len(real_labels), lstm_quickdraw_validation_correct=int((lstm.argmax(1) == real_labels).sum()),
                   geometry_quickdraw_validation_correct=int((geometry.argmax(1) == real_labels).sum()),
                   fused_quickdraw_validation_correct={str(w): c for w, c in fused.items()},
                   fused_quickdraw_validation_cross_entropy={str(w): round(c, 4) for w, c in cross_entropy.items()}, weight=weight,
                   minutes=(time.time() - started) / 60, tensorflow=tf.__version__)
    with open(os.path.splitext(args.output)[0] + ".training.json", "w") as f:
        json.dump(summary, f, indent=1)
    bundled.touch_if_bundled(args.output)
    print(f"wrote {args.output}: Quick, Draw! validation {summary['lstm_quickdraw_validation_correct']} (LSTM), "
          f"{summary['geometry_quickdraw_validation_correct']} (geometry), {fused} (both, by weight), cross-entropy {cross_entropy}; weight {weight}",
          flush=True)


if __name__ == "__main__":
    main()
