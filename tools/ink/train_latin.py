#!/usr/bin/env python3
"""Trains the Latin-script ink network shared by es, tr, de, fr, pt, it and vi: models/ink-latin.tflite, its class
list models/ink-latin.alphabet.txt and its training record models/ink-latin.training.json.

    tools/setup.sh --ink
    python3 tools/ink/train_latin.py --epochs 1 --seed 4 --copies 1 --synthetic 60000     # the shipped model's first run
    python3 tools/ink/train_latin.py --initial models/ink-latin.tflite --epochs 2 --seed 5 --variants 3 --copies 1 \
        --synthetic 60000 --marked-weight 4 --random-mark-rate 0.4                         # continued (tools/ink/train_all.sh)

The network is the "en" network's (that of train_all.sh's second run: two bidirectional LSTM layers of 96 units, train_text.py) with a dense layer over
the CTC blank and diacritics.LATIN_ALPHABET: printable ASCII and the 171 letters and punctuation marks the seven
languages write beyond it. It starts from the "en" weights of `--initial` (models/ink-en.tflite as train_all.sh has it then); each new class starts as a copy of its base
letter's output, less likely, so that the first steps already read the base letters (`--initial` a Latin network:
continues it).

Data, every epoch the same (fixed seed): the training writers' UNIPEN words (with `--copies` augmented copies each,
as train_text.py) and lone characters; each word again `--variants` times as a word of a random one of the seven
languages with its marks drawn in (latin_data.py: a word of that language spelled with the same letters, or random
marks when there is none), each such ink augmented; the lone "?" and "!" of every usable source turned upside down
as "¿" and "¡"; and `--synthetic` Hershey-font inks (hershey.py) of words, capitalised and upper-case words, numbers and
short lines sampled by word frequency (wordfreq) from the seven languages and English, with the languages'
punctuation. Validation: the validation writers' words, as they are and as words of each language (most frequent
match), read greedily; the checkpoint with the lowest CER over both is exported.
"""
import argparse
import json
import math
import os
import string
import sys
import time
from multiprocessing import Pool

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bundled  # noqa: E402
import diacritics  # noqa: E402
import hershey  # noqa: E402
import ink_data  # noqa: E402
import latin_data  # noqa: E402
import train_text  # noqa: E402
from ink_features import features, untimed  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
ALPHABET = diacritics.LATIN_ALPHABET
CLASSES = len(ALPHABET) + 1


def encode(label):
    return [ALPHABET.index(c) + 1 for c in label]


def log_softmax(z):
    z = z.astype(np.float64)
    m = z.max(-1, keepdims=True)
    return z - m - np.log(np.exp(z - m).sum(-1, keepdims=True))


def aligned(samples, model_path):
    """latin_data.letter_boxes of each sample (None where the "en" model's alignment fails), read by `model_path`."""
    model = train_text.model_like(model_path)
    feats = [features(d["strokes"]) for d in samples]
    out = [None] * len(samples)
    order = sorted(range(len(samples)), key=lambda i: len(feats[i]))
    for start in range(0, len(order), 64):
        group = order[start:start + 64]
        x = np.zeros((len(group), max(len(feats[i]) for i in group), 5), np.float32)
        for r, i in enumerate(group):
            x[r, :len(feats[i])] = feats[i]
        logits = model(x, training=False).numpy()
        for r, i in enumerate(group):
            label = samples[i]["label"]
            if all(c in ink_data.ALPHABET for c in label):
                out[i] = latin_data.letter_boxes(samples[i]["strokes"], label, log_softmax(logits[r, :len(feats[i])]))
    return out


def synthetic_text(rng, vocabularies):
    """A word, number or short line of a random language (or English), in its case and punctuation."""
    language = list(vocabularies)[int(rng.integers(len(vocabularies)))]
    words, weights = vocabularies[language]
    if rng.random() < 0.08:
        pool = "".join(diacritics.language_characters(language)) if language != "en" else string.ascii_letters
        pool = pool or string.ascii_letters
        return pool[int(rng.integers(len(pool)))]

    def word():
        w = words[rng.choice(len(words), p=weights)]
        r = rng.random()
        if r < 0.2:
            w = latin_data.in_case_of(w, "Xx", language)
        elif r < 0.27:
            w = latin_data.in_case_of(w, "XX", language)
        elif r < 0.33:
            w = str(int(rng.integers(0, 10 ** rng.integers(1, 5))))
        if rng.random() < 0.12:
            w += rng.choice(list(".,;:!?"))
        return w
    text = " ".join(word() for _ in range(int(rng.integers(2, 5)))) if rng.random() < 0.3 else word()
    r = rng.random()
    if language == "es" and r < 0.1:
        text = ("¿" + text + "?") if rng.random() < 0.6 else ("¡" + text + "!")
    elif language in ("fr", "pt", "it") and r < 0.06:
        text = "« " + text + " »" if language == "fr" and rng.random() < 0.5 else "«" + text + "»"
    elif language == "de" and r < 0.06:
        text = "„" + text + "“"
    return text


def vocabulary(language, count=30000):
    import wordfreq
    words = [w for w in wordfreq.top_n_list(language, count) if w.isalpha() and all(c in ALPHABET for c in w)]
    freqs = np.array([wordfreq.word_frequency(w, language) for w in words]) ** 0.5
    return words, freqs / freqs.sum()


def feature_job(job):
    kind, payload, seed, copies, speed_range = job
    rng = np.random.default_rng(seed)
    if kind == "synthetic":
        return [(features(hershey.render(payload, rng)), payload)]
    if kind == "diacritized":
        strokes, label, target, boxes, x_height = payload
        ink = latin_data.diacritized(strokes, label, target, boxes, x_height, rng)
        if ink is None:
            return []
        ink = train_text.augmented(ink, rng, speed_range)
        return [(features(untimed(ink) if rng.random() < 0.5 else ink), target)]
    label, strokes = payload
    items = [(features(strokes), label)]
    for k in range(copies if len(label) > 1 else 1):
        copy = train_text.augmented(strokes, rng, speed_range)
        items.append((features(untimed(copy) if k % 2 == 1 else copy), label))
    return items


def upside_down(strokes):
    xs = [p[0] for s in strokes for p in s]
    ys = [p[1] for s in strokes for p in s]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    return [[[2 * cx - p[0], 2 * cy - p[1]] + list(p[2:]) for p in s] for s in strokes]


def initial_weights(model, en_path):
    """The "en" network's weights, its dense layer widened to the Latin classes (see the module text); or a Latin
    network's as they are."""
    from ai_edge_litert.interpreter import Interpreter
    if Interpreter(en_path).get_output_details()[0]["shape"][-1] == CLASSES:
        train_text.weights_from_tflite(en_path, model, classes=CLASSES)
        return
    en = train_text.model_like(en_path)
    weights = en.get_weights()
    kernel, bias = weights[-2], weights[-1]
    wide_kernel = np.zeros((kernel.shape[0], CLASSES), np.float32)
    wide_bias = np.zeros(CLASSES, np.float32)
    wide_kernel[:, :kernel.shape[1]], wide_bias[:kernel.shape[1]] = kernel, bias
    for k, c in enumerate(ALPHABET[95:], start=96):
        base = diacritics.skeleton(c)[:1]
        source = ink_data.ALPHABET.index(base) + 1 if base in ink_data.ALPHABET else ink_data.ALPHABET.index("?") + 1
        wide_kernel[:, k], wide_bias[k] = kernel[:, source], bias[source] - 3.0
    model.set_weights(weights[:-2] + [wide_kernel, wide_bias])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--synthetic", type=int, default=100000)
    parser.add_argument("--copies", type=int, default=2, help="augmented copies of every real word as it is")
    parser.add_argument("--variants", type=int, default=2, help="copies of every real word as a word of a random language, with its marks")
    parser.add_argument("--speed-range", type=float, default=3.0)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--initial", default=os.path.join(ROOT, "models", "ink-en.tflite"),
                        help="the network to start from: the \"en\" network (widened to the Latin classes) or a Latin one (continued)")
    parser.add_argument("--marked-weight", type=float, default=1.0, help="a language word with marks is chosen for a real ink this many times as "
                        "often as its frequency says; above 1, each validation ink is the most frequent such word")
    parser.add_argument("--random-mark-rate", type=float, default=0.25, help="where no word matches, the share of letters given random marks")
    parser.add_argument("--alignment-model", default=os.path.join(ROOT, "models", "ink-en.tflite"), help="the \"en\" network that places the letters")
    parser.add_argument("--output", default=os.path.join(ROOT, "models", "ink-latin.tflite"))
    args = parser.parse_args()
    started = time.time()
    rng = np.random.default_rng(args.seed)

    words = ink_data.read("unipen-words", "train")
    chars = ink_data.read("unipen-chars", "train")
    flipped = [dict(label="¿" if d["label"] == "?" else "¡", strokes=upside_down(d["strokes"]))
               for d in ink_data.read("unipen-chars", "train", every_source=True) if d["label"] in ("?", "!")]
    validation_words = ink_data.read("unipen-words", "validation")
    with Pool(1) as pool:  # TensorFlow stays out of this process until the feature pool below has forked
        boxes = pool.apply(aligned, (words + validation_words, args.alignment_model))
    train_boxes, validation_boxes = boxes[:len(words)], boxes[len(words):]
    tables = {language: latin_data.language_words(language) for language in latin_data.LANGUAGES}
    print(f"aligned {sum(b is not None for b in boxes)} of {len(boxes)} words in {time.time() - started:.0f} s", flush=True)

    jobs = [("real", (d["label"], d["strokes"]), args.seed * 1000003 + i, args.copies, args.speed_range)
            for i, d in enumerate(words + chars + flipped)]
    matched = 0
    for i, (d, b) in enumerate(zip(words, train_boxes)):
        if b is None:
            continue
        for v in range(args.variants):
            language = latin_data.LANGUAGES[int(rng.integers(len(latin_data.LANGUAGES)))]
            target = latin_data.matching_word(d["label"], language, tables[language], rng, marked_weight=args.marked_weight)
            matched += target is not None
            target = target or latin_data.random_marks(d["label"], language, rng, args.random_mark_rate)
            jobs.append(("diacritized", (d["strokes"], d["label"], target, b[0], b[1]), args.seed * 1000037 + i * 16 + v, 0, args.speed_range))
    vocabularies = {language: vocabulary(language) for language in latin_data.LANGUAGES}
    vocabularies["en"] = vocabulary("en")
    jobs += [("synthetic", synthetic_text(rng, vocabularies), args.seed * 7919 + i, 0, 1.0) for i in range(args.synthetic)]
    validation = [(features(d["strokes"]), d["label"]) for d in validation_words]
    check = np.random.default_rng(12345)
    for d, b in zip(validation_words, validation_boxes):
        language = latin_data.LANGUAGES[int(check.integers(len(latin_data.LANGUAGES)))]
        target = latin_data.matching_word(d["label"], language, tables[language], check, most_frequent=True, marked_weight=args.marked_weight)
        if b is not None and target is not None and target != d["label"]:
            ink = latin_data.diacritized(d["strokes"], d["label"], target, b[0], b[1], check)
            if ink is not None:
                validation.append((features(ink), target))
    plain = len(validation_words)
    with Pool(os.cpu_count()) as pool:
        groups = pool.map(feature_job, jobs, chunksize=256)
    items = [(f, encode(label)) for group in groups for f, label in group if len(f) >= 2 * len(label) + 1]
    del groups
    print(f"{len(items)} training sequences ({len(words)} words, {matched} of {args.variants * len(words)} variants spelling a "
          f"word of their language, {len(chars)} characters, {len(flipped)} ¿ ¡, {args.synthetic} synthetic); validation "
          f"{plain} words + {len(validation) - plain} with marks; features in {time.time() - started:.0f} s", flush=True)

    import tensorflow as tf
    tf.random.set_seed(args.seed)
    units, layers = train_text.shape_of(args.initial)
    model = train_text.build_model(classes=CLASSES, units=units, layers=layers)
    initial_weights(model, args.initial)

    def validation_cers():
        errors = train_text.validation_errors(model, validation, ALPHABET)
        lengths = [len(label) for _, label in validation]
        return (sum(errors) / sum(lengths), sum(errors[:plain]) / sum(lengths[:plain]), sum(errors[plain:]) / max(1, sum(lengths[plain:])))

    initial = validation_cers()
    print(f"initial validation greedy CER {initial[0]:.4f} (words {initial[1]:.4f}, with marks {initial[2]:.4f})", flush=True)
    optimizer = tf.keras.optimizers.Adam(args.learning_rate, clipnorm=5.0)

    @tf.function(reduce_retracing=True)
    def step(x, y, xl, yl):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = tf.reduce_mean(tf.nn.ctc_loss(y, logits, yl, xl, logits_time_major=False, blank_index=0))
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss

    history, best = [], (math.inf, None)
    for epoch in range(1, args.epochs + 1):
        losses = []
        batch_count = math.ceil(len(items) / 64)
        for b, (x, y, xl, yl) in enumerate(train_text.batches(items, 64, rng)):
            elapsed = (epoch - 1 + b / batch_count) / args.epochs
            top = args.learning_rate  # constant, then cosine decay over the last 40% of the epochs (as train_text.py)
            optimizer.learning_rate.assign(top if elapsed < 0.6 else 0.1 * top + 0.9 * top * 0.5 * (1 + math.cos(math.pi * (elapsed - 0.6) / 0.4)))
            losses.append(float(step(x, y, xl, yl)))
        cer, words_cer, marks_cer = validation_cers()
        history.append(dict(epoch=epoch, loss=float(np.mean(losses)), validation_greedy_cer=cer, validation_words_greedy_cer=words_cer,
                            validation_marks_greedy_cer=marks_cer, minutes=(time.time() - started) / 60))
        print(json.dumps(history[-1]), flush=True)
        if cer < best[0]:
            best = (cer, model.get_weights())

    export = train_text.build_model(batch_size=1, classes=CLASSES, units=units, layers=layers)
    export.set_weights(best[1])
    converter = tf.lite.TFLiteConverter.from_keras_model(export)
    with open(args.output, "wb") as f:
        f.write(converter.convert())
    base = os.path.splitext(args.output)[0]
    with open(base + ".alphabet.txt", "w", encoding="utf-8") as f:
        f.write("\n".join(ALPHABET) + "\n")
    previous = os.path.splitext(args.initial)[0] + ".training.json"
    summary = dict(units=units, layers=layers, classes=CLASSES, parameters=int(export.count_params()), training_sequences=len(items),
                   unipen_words=len(words), unipen_characters=len(chars), upside_down_marks=len(flipped), variants=args.variants,
                   variants_spelling_words=matched, synthetic=args.synthetic, initial=os.path.basename(args.initial),
                   initial_validation=dict(zip(("all", "words", "with_marks"), initial)), validation_words=plain,
                   validation_with_marks=len(validation) - plain, minutes=(time.time() - started) / 60,
                   best_validation_greedy_cer=best[0], history=history, epochs=args.epochs, seed=args.seed, copies=args.copies,
                   speed_range=args.speed_range, learning_rate=args.learning_rate, marked_weight=args.marked_weight,
                   random_mark_rate=args.random_mark_rate, data=ink_data.files_read(), tensorflow=tf.__version__)
    if os.path.exists(previous) and json.load(open(previous)).get("classes") == CLASSES:  # a Latin run continued
        summary["resumed_run"] = json.load(open(previous))
        summary["minutes_total"] = summary["minutes"] + summary["resumed_run"].get("minutes_total", summary["resumed_run"]["minutes"])
    with open(base + ".training.json", "w") as f:
        json.dump(summary, f, indent=1)
    bundled.touch_if_bundled(args.output)
    print(f"wrote {args.output}: validation greedy CER {best[0]:.4f}", flush=True)


if __name__ == "__main__":
    main()
