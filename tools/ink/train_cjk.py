#!/usr/bin/env python3
"""Trains a Chinese and Japanese character network: writes models/ink-<language>.tflite (or ink-cjk.tflite for the
union of the languages), its classes (<same name>.classes.txt, one character a line in the network's output order, with its canonical width:
cjk_data.write_classes) and
its training record (<same name>.training.json).

    python3 tools/ink/train_cjk.py [--language ja|zh-Hans|zh-Hant|zh] [--epochs 8] [--seed 1] [--per-class 60]
                                   [--width 64] [--workers 2] [--limit-classes N] [--data-dir .build-ink]
                                   [--output models/ink-<language>.tflite]

With `--language`, the network reads that language's vocabulary (cjk_data.py), or with `zh` the union of zh-Hans and
zh-Hant (6,020 characters, models/ink-zh.tflite: both Chinese identifiers share it); without it, the union of all three
(models/ink-cjk.tflite). A recognizer keeps only its own language's characters' outputs. Its input is the direction planes of
cjk_features.py ([32, 32, 9]); it is trained on synthetic ink only (cjk_synthesis.py: every class `--per-class`
times, each sample by a new random writer, from KanjiVG's or Make Me a Hanzi's centre lines), so the real
handwriting in ../shared/ink stays a test set (tools/ink/cjk_compare.py). The pictures are made once by `--workers`
processes into `--data-dir` (uint8, about 9 KB each; each class's samples come from a generator seeded by the seed and
the class, so the data do not depend on the number of workers) and reused every epoch.
Validation, which picks the exported epoch: 2 further synthetic samples a class by other writers (another seed).
Model: convolutions 3x3 (width, width; pool; 2 width, 2 width; pool; 4 width; pool) with batch normalization and ReLU,
dense 512 with dropout, one output per class; Adam with cosine decay over a fixed number of epochs. Exported with
int8 weights (TFLite's dynamic-range quantization: float activations, int8 filters and dense weights).
"""
import argparse
import hashlib
import importlib.metadata
import json
import math
import os
import sys
import time
from multiprocessing import Pool

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bundled  # noqa: E402
import cjk_data  # noqa: E402
import cjk_features  # noqa: E402
import cjk_synthesis  # noqa: E402
import ink_data  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
# Planes are stored as uint8: value · QUANTUM, clipped to 255 (a plane's values stay under 255 / QUANTUM = 2: the
# largest of 300 synthetic characters' was 1.59).
QUANTUM = 127.5

_sources = None


def _init_worker(sources):
    global _sources
    _sources = sources


def _class_pictures(job):
    """Pictures of one class: `count` samples from a generator seeded by (seed, class index)."""
    seed, index, character, count, component_gaps = job
    rng = np.random.default_rng([seed, index])
    forms = _sources[character]
    out = np.empty((count, cjk_features.SIZE, cjk_features.SIZE, cjk_features.PLANES), dtype=np.uint8)
    for k in range(count):
        ink = cjk_synthesis.synthesize(forms[rng.integers(len(forms))], rng, timed=False, component_gaps=component_gaps)
        out[k] = np.clip(np.rint(cjk_features.direction_planes(ink) * QUANTUM), 0, 255)
    return index, out


def make_pictures(classes, sources, per_class, seed, workers, path, component_gaps=False):
    """uint8 pictures [len(classes) * per_class, 32, 32, 9] in a memory-mapped file, and their labels."""
    shape = (len(classes) * per_class, cjk_features.SIZE, cjk_features.SIZE, cjk_features.PLANES)
    labels = np.repeat(np.arange(len(classes), dtype=np.int32), per_class)
    done = path + ".done"
    if os.path.exists(done):
        return np.memmap(path, dtype=np.uint8, mode="r", shape=shape), labels
    pictures = np.memmap(path, dtype=np.uint8, mode="w+", shape=shape)
    jobs = [(seed, i, c, per_class, component_gaps) for i, c in enumerate(classes)]
    started = time.time()
    with Pool(workers, initializer=_init_worker, initargs=(sources,)) as pool:
        for n, (index, block) in enumerate(pool.imap_unordered(_class_pictures, jobs, chunksize=8), 1):
            pictures[index * per_class:(index + 1) * per_class] = block
            if n % 1000 == 0:
                print(f"  {n}/{len(classes)} classes drawn, {(time.time() - started) / 60:.1f} min", flush=True)
    pictures.flush()
    open(done, "w").close()
    return np.memmap(path, dtype=np.uint8, mode="r", shape=shape), labels


def build_model(tf, classes, width, batch_size=None, dropout=0.3):
    layers = tf.keras.layers
    x = inputs = tf.keras.Input((cjk_features.SIZE, cjk_features.SIZE, cjk_features.PLANES), batch_size=batch_size)

    def conv(x, filters):
        x = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
        return layers.ReLU()(layers.BatchNormalization(momentum=0.9)(x))

    x = layers.MaxPool2D()(conv(conv(x, width), width))
    x = layers.MaxPool2D()(conv(conv(x, 2 * width), 2 * width))
    x = layers.MaxPool2D()(conv(x, 4 * width))
    x = layers.Dropout(dropout)(layers.Dense(512, activation="relu")(layers.Flatten()(x)))
    return tf.keras.Model(inputs, layers.Dense(classes)(x))


def batches(pictures, labels, batch_size, rng):
    """Shuffled batches as float32, read from the memory map in sorted index order within each batch."""
    order = rng.permutation(len(labels))
    for start in range(0, len(order), batch_size):
        index = np.sort(order[start:start + batch_size])
        yield pictures[index].astype(np.float32) / QUANTUM, labels[index]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--language", choices=("ja", "zh-Hans", "zh-Hant", "zh"),
                        help="train on this language's vocabulary only, or for zh on the union of zh-Hans and zh-Hant "
                             "(default: the union of the three)")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-class", type=int, default=60)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--component-gaps", action="store_true",
                        help="writers who leave a gap between a character's left and right parts (cjk_synthesis.Writer)")
    parser.add_argument("--limit-classes", type=int, help="train on the first N classes only (a quick check of the recipe)")
    parser.add_argument("--data-dir", default=os.path.join(ROOT, ".build-ink"))
    parser.add_argument("--output", help="default: models/ink-<language>.tflite, or models/ink-cjk.tflite")
    args = parser.parse_args()
    args.output = args.output or os.path.join(ROOT, "models", f"ink-{args.language or 'cjk'}.tflite")
    started = time.time()

    vocab, classes, sources = cjk_data.load()
    all_sources = sources  # canonical widths are in heights typical of all the stroke data, whichever classes train
    if args.language:
        wanted = set(vocab["zh-Hans"]) | set(vocab["zh-Hant"]) if args.language == "zh" else set(vocab[args.language])
        classes = [c for c in classes if c in wanted]
    if args.limit_classes:
        step = max(1, len(classes) // args.limit_classes)
        classes = classes[::step][:args.limit_classes]
    sources = {c: sources[c] for c in classes}
    os.makedirs(args.data_dir, exist_ok=True)
    # The pictures depend on the classes, the seed, the count and the code that draws them: all in the cache's name.
    code = b"".join(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), name), "rb").read()
                    for name in ("cjk_synthesis.py", "cjk_features.py", "cjk_data.py"))
    gaps = ":gaps" if args.component_gaps else ""
    tag = hashlib.sha1("".join(classes).encode() + f"{args.seed}:{args.per_class}:{QUANTUM}{gaps}".encode() + code).hexdigest()[:12]
    x, y = make_pictures(classes, sources, args.per_class, args.seed, args.workers,
                         os.path.join(args.data_dir, f"cjk-train-{tag}.u8"), args.component_gaps)
    xv, yv = make_pictures(classes, sources, 2, args.seed + 1000, args.workers,
                           os.path.join(args.data_dir, f"cjk-validation-{tag}.u8"), args.component_gaps)
    xv = np.asarray(xv, dtype=np.float32) / QUANTUM
    print(f"{len(classes)} classes, {len(y)} training and {len(yv)} validation pictures, "
          f"{(time.time() - started) / 60:.1f} min", flush=True)

    import tensorflow as tf
    tf.keras.utils.set_random_seed(args.seed)
    model = build_model(tf, len(classes), args.width)
    steps = args.epochs * math.ceil(len(y) / args.batch_size)
    schedule = tf.keras.optimizers.schedules.CosineDecay(1e-3, steps, alpha=0.02)
    optimizer = tf.keras.optimizers.Adam(schedule)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def train_step(images, targets):
        with tf.GradientTape() as tape:
            loss = loss_fn(targets, model(images, training=True))
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return loss

    rng = np.random.default_rng(args.seed)
    history, best = [], (-1.0, None)
    for epoch in range(1, args.epochs + 1):
        losses = [float(train_step(images, targets)) for images, targets in batches(x, y, args.batch_size, rng)]
        z = model.predict(xv, batch_size=512, verbose=0)
        top1 = float(np.mean(z.argmax(1) == yv))
        history.append(dict(epoch=epoch, loss=float(np.mean(losses)), validation_top1=top1,
                            minutes=(time.time() - started) / 60))
        print(json.dumps(history[-1]), flush=True)
        if top1 > best[0]:
            best = (top1, model.get_weights())
    model.set_weights(best[1])

    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]  # int8 weights, float activations
    with open(args.output, "wb") as f:
        f.write(converter.convert())
    base = os.path.splitext(args.output)[0]
    cjk_data.write_classes(base + ".classes.txt", classes, cjk_data.canonical_widths(classes, all_sources))
    for path in (os.path.join(cjk_synthesis.SHARED, "hanzi-strokes.ndjson.gz"), cjk_data.KANJIDIC):
        ink_data.record_file(path)
    with open(base + ".training.json", "w") as f:
        json.dump(dict(language=args.language or "ja+zh-Hans+zh-Hant", classes=len(classes), vocabularies={k: len(v) for k, v in vocab.items()}, per_class=args.per_class, component_gaps=args.component_gaps,
                       width=args.width, parameters=int(model.count_params()), training_pictures=int(len(y)),
                       validation_pictures=int(len(yv)), best_validation_top1=best[0], history=history, seed=args.seed,
                       epochs=args.epochs, batch_size=args.batch_size, data=ink_data.files_read(),
                       versions={name: importlib.metadata.version(name) for name in ("kanjivg", "numpy", "wordfreq")},
                       minutes=(time.time() - started) / 60, tensorflow=tf.__version__), f, indent=1)
    bundled.touch_if_bundled(args.output, base + ".classes.txt")
    print(f"wrote {args.output} ({os.path.getsize(args.output) / 1e6:.1f} MB): validation top-1 {best[0]:.4f}", flush=True)


if __name__ == "__main__":
    main()
