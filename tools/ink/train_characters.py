#!/usr/bin/env python3
"""Trains the "en" model's character network: writes models/ink-en.characters.tflite (+ .characters.training.json).

    python3 tools/ink/train_characters.py [--epochs 15] [--seed 1] [--cuts-cache DIR] [--unipen-characters trusted|all]
                                          [--unipen-character-copies 3]

What it is for (DigitalInkRecognizer, InkCharacterClassifier.swift): an ink that is one character on its own is
also looked at as a picture, and this network's probabilities join the LSTM's reading. Data: real isolated
characters cut out of the training writers' UNIPEN words by the shipped text model (character_cuts.py; each also
`--copies` times under a random affine map, half of the copies stair-stepped on a coarse pixel grid as a mouse draws), UNIPEN's
isolated characters of the training writers (`--unipen-characters`: the trusted sources' or every usable source's,
ink_data.py; `--unipen-character-copies` augmented copies each; the shipped recipe, train_all.sh: all, one each), and `--hershey-per-class` Hershey
font glyphs of every printable character (print and cursive fonts, each copy under a random affine map, half
stair-stepped). Validation: the characters cut out of the validation writers' words; the test writers and
Omniglot are never read. Every class weighs the same in the loss (inverse frequency, capped at 20 times the mean),
so that the output is a likelihood: the recognizer adds the prior of a lone character itself.
Model: three 3x3 convolutions (32, 64, 128) with max pooling, dense 256, dropout 0.3, 94 outputs; Adam, a fixed
number of epochs (the learning rate drops after 60% of them); exported is the epoch with the best validation cross-entropy.
"""
import argparse
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bundled  # noqa: E402
import character_data  # noqa: E402
import hershey  # noqa: E402
import ink_data  # noqa: E402
from character_data import CHARACTERS, raster  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def cuts_of(split, cache):
    """Characters cut out of `split`'s UNIPEN words by the shipped text model (cached as JSON in `cache`)."""
    path = os.path.join(cache, f"cuts_{split}.json") if cache else None
    if path and os.path.exists(path):
        return json.load(open(path))
    import train_text
    cuts = train_text.cut_characters(os.path.join(ROOT, "models", "ink-en.tflite"), ink_data.read("unipen-words", split=split))
    if path:
        os.makedirs(cache, exist_ok=True)
        json.dump(cuts, open(path, "w"))
    return cuts


def training_data(rng, cache, hershey_per_class, copies, unipen_characters="trusted", unipen_character_copies=3):
    from train_text import augmented
    pictures, labels, counts = [], [], {}
    def add(strokes, label, kind):
        pictures.append(raster(strokes))
        labels.append(CHARACTERS.index(label))
        counts[kind] = counts.get(kind, 0) + 1
    for c in cuts_of("train", cache):
        if c["label"] in CHARACTERS:
            add(c["strokes"], c["label"], "cut_characters")
            for _ in range(copies):
                add(augmented(c["strokes"], rng, pixel_grid=0.5), c["label"], "cut_character_copies")
    for d in ink_data.read("unipen-chars", "train", every_source=unipen_characters == "all"):
        if d["label"] in CHARACTERS:
            for _ in range(unipen_character_copies):
                add(augmented(d["strokes"], rng, pixel_grid=0.3), d["label"], "unipen_character_copies")
    for ch in CHARACTERS:
        for _ in range(hershey_per_class):
            strokes = hershey.render(ch, rng)
            if strokes:
                add(augmented(strokes, rng, pixel_grid=0.5), ch, "hershey")
    return np.array(pictures)[..., None], np.array(labels), counts


def build_model(tf, batch_size=1, dropout=0.3):
    layers = tf.keras.layers
    x = inputs = tf.keras.Input((character_data.SIZE, character_data.SIZE, 1), batch_size=batch_size)
    for filters in (32, 64, 128):
        x = layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
        x = layers.MaxPool2D()(x)
    x = layers.Dropout(dropout)(layers.Flatten()(x))
    x = layers.Dropout(dropout)(layers.Dense(256, activation="relu")(x))
    return tf.keras.Model(inputs, layers.Dense(len(CHARACTERS))(x))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hershey-per-class", type=int, default=400)
    parser.add_argument("--copies", type=int, default=1, help="affine copies of every cut-out character")
    parser.add_argument("--unipen-characters", choices=("trusted", "all"), default="trusted",
                        help="UNIPEN's isolated characters: the trusted sources' only (ink_data.TRUSTED_SOURCES), or every "
                             "source's but the unusable parts (ink_data.UNUSABLE_CHARACTER_PARTS)")
    parser.add_argument("--unipen-character-copies", type=int, default=3, help="affine copies of every UNIPEN isolated character")
    parser.add_argument("--dropout", type=float, default=0.3)
    parser.add_argument("--cuts-cache", help="keep the cut-out characters here (JSON) and reuse them")
    parser.add_argument("--label-smoothing", type=float, default=0.0, help="cross-entropy against labels smoothed by this much")
    parser.add_argument("--output", default=os.path.join(ROOT, "models", "ink-en.characters.tflite"))
    args = parser.parse_args()
    started = time.time()
    rng = np.random.default_rng(args.seed)
    validation = [c for c in cuts_of("validation", args.cuts_cache) if c["label"] in CHARACTERS]
    xv = np.array([raster(c["strokes"]) for c in validation])[..., None]
    yv = np.array([CHARACTERS.index(c["label"]) for c in validation])
    x, y, counts = training_data(rng, args.cuts_cache, args.hershey_per_class, args.copies, args.unipen_characters,
                                 args.unipen_character_copies)
    print(f"{len(y)} training pictures {counts}, {len(yv)} validation, {(time.time() - started) / 60:.1f} min", flush=True)

    import tensorflow as tf
    tf.random.set_seed(args.seed)
    per_class = np.bincount(y, minlength=len(CHARACTERS)).astype(np.float64)
    class_weight = np.minimum((len(y) / len(CHARACTERS)) / np.maximum(per_class, 1), 20.0)
    model = build_model(tf)
    free = build_model(tf, batch_size=None, dropout=args.dropout)  # the same network with any batch size, trained; `model` exports it
    free.compile(tf.keras.optimizers.Adam(1e-3), tf.keras.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=args.label_smoothing))
    targets = np.eye(len(CHARACTERS), dtype=np.float32)[y]
    history, best = [], (np.inf, None)
    for epoch in range(1, args.epochs + 1):
        if epoch > 0.6 * args.epochs:
            free.optimizer.learning_rate.assign(2e-4)
        loss = free.fit(x, targets, sample_weight=class_weight[y].astype(np.float32), batch_size=128, epochs=1, verbose=0, shuffle=True).history["loss"][0]
        z = free.predict(xv, verbose=0).astype(np.float64)
        log_p = z - z.max(1, keepdims=True)
        log_p -= np.log(np.exp(log_p).sum(1, keepdims=True))
        nll = float(-log_p[np.arange(len(yv)), yv].mean())
        history.append(dict(epoch=epoch, loss=float(loss), validation_cross_entropy=nll,
                            validation_accuracy=float(np.mean(z.argmax(1) == yv)), minutes=(time.time() - started) / 60))
        print(json.dumps(history[-1]), flush=True)
        if nll < best[0]:
            best = (nll, free.get_weights())
    model.set_weights(best[1])
    with open(args.output, "wb") as f:
        f.write(tf.lite.TFLiteConverter.from_keras_model(model).convert())
    base = os.path.splitext(args.output)[0]
    with open(base + ".training.json", "w") as f:
        json.dump(dict(parameters=int(model.count_params()), training_pictures=int(len(y)), **counts, validation_characters=int(len(yv)),
                       hershey_per_class=args.hershey_per_class, copies=args.copies, unipen_characters=args.unipen_characters, unipen_character_copies_each=args.unipen_character_copies, dropout=args.dropout, label_smoothing=args.label_smoothing, best_validation_cross_entropy=best[0], history=history, seed=args.seed,
                       epochs=args.epochs, data=ink_data.files_read(),
                       minutes=(time.time() - started) / 60, tensorflow=tf.__version__), f, indent=1)
    bundled.touch_if_bundled(args.output)
    print(f"wrote {args.output}: validation cross-entropy {best[0]:.4f}", flush=True)


if __name__ == "__main__":
    main()
