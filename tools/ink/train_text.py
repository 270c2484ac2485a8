#!/usr/bin/env python3
"""Trains the "en" digital ink model and writes models/ink-en.tflite (+ models/ink-en.training.json).

    tools/setup.sh --ink          # tensorflow-cpu 2.21, tf_keras, wordfreq; Debian hershey-fonts-data, wamerican, wamerican-insane
    python3 tools/ink/train_text.py --epochs 6 --seed 1 --copies 2 --single-characters 0.25 --speed-range 3   # the shipped run
    python3 tools/ink/train_text.py --resume FIRST.tflite --learning-rate 5e-4 --epochs 3 ...   # continue a run
    tools/ink/train_all.sh        # everything the shipped models took, in one command

Data: UNIPEN words and characters of the training writers from trusted sources (ink_data.py), each word also
`--copies` more times with a random slant/scale/rotation (every second copy without its timing, as inks from a
mouse or a file without t arrive), plus synthetic ink drawn from Hershey fonts (hershey.py): single words sampled
by English word frequency (wordfreq), capitalised and upper-case variants, numbers, punctuation, lines of two to
four words, and single characters (`--single-characters` of them; 70% letters, 20% digits, 10% anything).
Model: bidirectional LSTM layers (two of 96 units from random weights; --units, --layers; --add-layers grows a trained
one) and a dense layer over 96 classes (CTC blank + printable ASCII),
trained with CTC for a fixed number of epochs; the checkpoint with the best greedy character error rate on the
validation writers is exported. Keras 2 (tf_keras) so the converter fuses each LSTM into
UNIDIRECTIONAL_SEQUENCE_LSTM (Bidirectional -> two of them + REVERSE_V2) with a resizable time dimension.
`--resume` continues from an exported model's weights (read back from the .tflite, checked by its validation CER).
`--unipen-lines K` adds UNIPEN's free-text lines of the training writers (every source, those written as one line:
ink_data.single_line) and K augmented copies of each, and validates on the validation writers' such lines beside their words (the checkpoint is the one with the best
greedy CER over both together); the shipped model is the first run continued so (train_all.sh).
`--word-lines N` adds N lines built from the training writers' words, 2 to 7 words of one writer side by side
(word_lines.py): many more lines than UNIPEN's own, in every training writer's hand.
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
import hershey  # noqa: E402
import ink_data  # noqa: E402
import word_lines  # noqa: E402
from ink_data import greedy, edit_distance  # noqa: E402
from ink_features import features, untimed  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
UNITS = 96
LAYERS = 2
CLASSES = len(ink_data.ALPHABET) + 1
PUNCTUATION = ".,;:!?'\"-()"


def encode(label):
    return [ink_data.ALPHABET.index(c) + 1 for c in label]


def augmented(strokes, rng, speed_range=1.0, pixel_grid=0.0):
    """The same ink with another writer's slant and proportions, and (with `speed_range` r > 1) a pen between r
    times slower and r times faster (log-uniform): slow mouse input must read like a pen. With probability
    `pixel_grid` the points are also snapped to a pixel grid 20 to 60 pixels per ink height (repeated pixels
    dropped), as a mouse or a finger on a small canvas delivers them: stair-stepped lines."""
    shear, sx, angle = rng.normal(0, 0.2), rng.uniform(0.8, 1.2), rng.normal(0, 0.05)
    slowness = math.exp(rng.uniform(-math.log(speed_range), math.log(speed_range)))
    ca, sa = math.cos(angle), math.sin(angle)
    out = []
    for s in strokes:
        out.append([[(p[0] - shear * p[1]) * sx * ca + p[1] * sa, -(p[0] - shear * p[1]) * sx * sa + p[1] * ca,
                     None if len(p) < 3 or p[2] is None else p[2] * slowness] for p in s])
    if pixel_grid > 0 and rng.random() < pixel_grid:
        ys = [p[1] for s in out for p in s]
        pixel = max(max(ys) - min(ys), 1e-6) / rng.uniform(20, 60)
        snapped = []
        for s in out:
            points = []
            for x, y, t in s:
                q = [round(x / pixel) * pixel, round(y / pixel) * pixel, t]
                if not points or q[:2] != points[-1][:2]:
                    points.append(q)
            snapped.append(points)
        out = snapped
    return out


def synthetic_text(rng, words, weights, single_characters=0.1):
    if rng.random() < single_characters:
        r = rng.random()
        pool = string.ascii_letters if r < 0.7 else (string.digits if r < 0.9 else ink_data.ALPHABET[1:])
        return pool[int(rng.integers(len(pool)))]
    def word():
        w = words[rng.choice(len(words), p=weights)]
        r = rng.random()
        if r < 0.2:
            w = w[:1].upper() + w[1:]
        elif r < 0.27:
            w = w.upper()
        elif r < 0.35:
            w = str(int(rng.integers(0, 10 ** rng.integers(1, 5))))
        if rng.random() < 0.12:
            w = w + rng.choice(list(PUNCTUATION[:6]))
        return w
    if rng.random() < 0.3:
        return " ".join(word() for _ in range(int(rng.integers(2, 5))))
    return word()


def feature_job(job):
    kind, payload, seed, copies, speed_range, pixel_grid = job
    rng = np.random.default_rng(seed)
    if kind == "real":
        label, strokes = payload
        items = [(features(strokes), label)]
        for k in range(copies if len(label) > 1 else 1):
            copy = augmented(strokes, rng, speed_range, pixel_grid)
            if k % 2 == 1:  # without timing, as inks from a mouse or a file without t arrive
                copy = untimed(copy)
            items.append((features(copy), label))
        return items
    label = payload
    return [(features(hershey.render(label, rng)), label)]


def lexicon(count=40000):
    import wordfreq
    words = [w for w in wordfreq.top_n_list("en", count) if w.isalpha() and w.isascii()]
    freqs = np.array([wordfreq.word_frequency(w, "en") for w in words]) ** 0.5  # flatten: rarer words get seen too
    return words, freqs / freqs.sum()


def build_model(batch_size=None, classes=CLASSES, units=UNITS, layers=LAYERS, residual=0, masked=False):
    """`layers` bidirectional LSTM layers of `units` each way and a dense layer to `classes` logits per point. The top
    `residual` layers add their input to their output (a layer grown onto a trained network: `--add-layers`).
    `masked`: frames whose five features are all zero are padding, skipped by every LSTM (their state passes over
    them), so that each backward LSTM starts at its sequence's own last frame, as in the recognizer, which runs one
    ink at a time; a real frame is never all zero (a stroke's first point has pen_up 1, the others moved). The
    Masking layer has no weights: a masked model's weights are an unmasked one's."""
    import tensorflow as tf
    inputs = tf.keras.Input((None, 5), batch_size=batch_size, name="ink_features")
    x = tf.keras.layers.Masking(0.0, name="padding")(inputs) if masked else inputs
    for k in range(layers):
        y = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(units, return_sequences=True), name=f"bilstm{k}")(x)
        x = tf.keras.layers.Add(name=f"residual{k}")([x, y]) if k >= layers - residual else y
    logits = tf.keras.layers.Dense(classes, name="character_logits")(x)
    return tf.keras.Model(inputs, logits)


def _is_constant(interpreter, index):
    try:
        interpreter.get_tensor(index)
        return True
    except ValueError:  # an intermediate tensor has no data
        return False


def _float16_sources(ops):
    """{a DEQUANTIZE's output: its float16 input}: where `--float16-weights` keeps each weight."""
    return {op["outputs"][0]: op["inputs"][0] for op in ops if op["op_name"] == "DEQUANTIZE"}


def _weights_reader(interpreter, ops):
    """A function from a tensor index to its constant value as float32: a float16 weight is read where the
    DEQUANTIZE before its op takes it from."""
    halves = _float16_sources(ops)
    return lambda index: interpreter.get_tensor(halves.get(index, index)).astype(np.float32)


def shape_of(path):
    """(units, layers, residual layers) of an exported model of build_model's form: each bidirectional layer is two
    fused LSTM ops, whose recurrent weights are [units, units]; a residual layer's sum is an ADD of two activations."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    it = Interpreter(path, experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)  # the ops as stored
    it.allocate_tensors()
    ops = it._get_ops_details()
    lstms = [op for op in ops if op["op_name"] == "UNIDIRECTIONAL_SEQUENCE_LSTM"]
    activations = ({k for op in ops for k in op["outputs"]} - set(_float16_sources(ops))) | {d["index"] for d in it.get_input_details()}
    residual = sum(1 for op in ops if op["op_name"] == "ADD" and all(k in activations for k in op["inputs"]))
    return int(_weights_reader(it, ops)(lstms[0]["inputs"][5]).shape[0]), len(lstms) // 2, residual


def model_like(path, batch_size=None, classes=CLASSES):
    """A Keras model of `path`'s shape with `path`'s weights (weights_from_tflite)."""
    units, layers, residual = shape_of(path)
    model = build_model(batch_size, classes, units, layers, residual)
    weights_from_tflite(path, model, classes)
    return model


def grown(path, added):
    """`path`'s network with `added` residual bidirectional LSTM layers between its last LSTM layer and its dense
    layer, the same function as before: a new layer's kernels are zero, so its cell input tanh(0) = 0 keeps every
    cell state and output at 0 and the residual sum passes its input through; training then opens the layer (its
    gradient is not zero: d h / d c = o, d c / d W = i x). Each unit's gradient differs (the layers above weigh
    the units differently), so the zeros do not tie units together."""
    units, layers, residual = shape_of(path)
    old = model_like(path)
    model = build_model(units=units, layers=layers + added, residual=residual + added)
    weights = model.get_weights()
    per_layer = 6  # forward and backward: kernel, recurrent kernel, bias
    old_weights = old.get_weights()
    for k in range(layers * per_layer, (layers + added) * per_layer):
        if k % 3 != 2:  # kernels to zero; biases keep Keras' initial values (forget gate 1)
            weights[k] = np.zeros_like(weights[k])
    weights[:layers * per_layer] = old_weights[:layers * per_layer]
    weights[-2:] = old_weights[-2:]
    model.set_weights(weights)
    return model


def weights_from_tflite(path, model, classes=CLASSES):
    """Sets `model`'s weights from an exported ink-en.tflite (to continue training it), or another model of
    bidirectional LSTM layers and a last dense layer of `classes` outputs: each fused LSTM op's gate matrices
    (TFLite's input order i, f, c, o) back into Keras' concatenated kernels; the op reading a REVERSE_V2 output is
    the backward half of its Bidirectional layer. Checked by comparing outputs afterwards."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    it = Interpreter(path, experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)  # the ops as stored
    it.allocate_tensors()
    ops = it._get_ops_details()
    reversed_outputs = {o for op in ops if op["op_name"] == "REVERSE_V2" for o in op["outputs"]}
    lstms = [op for op in ops if op["op_name"] == "UNIDIRECTIONAL_SEQUENCE_LSTM"]
    fc = [op for op in ops if op["op_name"] == "FULLY_CONNECTED"][-1]
    t = _weights_reader(it, ops)
    per_layer = []
    for op in lstms:
        i = op["inputs"]
        kernel = np.concatenate([t(i[k]).T for k in (1, 2, 3, 4)], axis=1)
        recurrent = np.concatenate([t(i[k]).T for k in (5, 6, 7, 8)], axis=1)
        bias = np.concatenate([t(i[k]) for k in (12, 13, 14, 15)])
        per_layer.append((i[0] in reversed_outputs, [kernel, recurrent, bias]))
    weights = []
    for k in range(0, len(per_layer), 2):
        pair = sorted(per_layer[k:k + 2], key=lambda x: x[0])  # forward first
        weights += pair[0][1] + pair[1][1]
    bias_index = fc["inputs"][2] if len(fc["inputs"]) > 2 else -1
    if bias_index < 0:  # the converter may move the bias into an ADD after a reshape
        halves = _float16_sources(ops)
        bias_index = next(k for op in ops if op["op_name"] == "ADD" for k in op["inputs"]
                          if (k in halves or _is_constant(it, k)) and t(k).size == classes)
    weights += [t(fc["inputs"][1]).T, t(bias_index).reshape(-1)]
    model.set_weights(weights)


def cut_characters(model_path, words):
    import character_cuts
    aligner = model_like(model_path)
    return [dict(label=c, strokes=s) for c, s in character_cuts.characters_of(words, aligner, [features(d["strokes"]) for d in words])]


def validation_errors(model, validation, alphabet=ink_data.ALPHABET):
    """The greedy reading's edit distance to the label, per validation sequence (class k is `alphabet[k - 1]`)."""
    errors = [0] * len(validation)
    order = sorted(range(len(validation)), key=lambda i: len(validation[i][0]))
    for start in range(0, len(order), 32):
        group = [validation[i] for i in order[start:start + 32]]
        x = np.zeros((len(group), max(len(f) for f, _ in group), 5), np.float32)
        for r, (f, _) in enumerate(group):
            x[r, :len(f)] = f
        logits = model(x, training=False).numpy()
        for r, (f, label) in enumerate(group):
            errors[order[start + r]] = edit_distance(greedy(logits[r, :len(f)], alphabet), label)
    return errors


def batches(items, batch_size, rng):
    order = sorted(range(len(items)), key=lambda i: len(items[i][0]) + rng.random() * 8)
    groups = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    rng.shuffle(groups)
    for g in groups:
        t = max(len(items[i][0]) for i in g)
        n = max(len(items[i][1]) for i in g)
        x = np.zeros((len(g), t, 5), np.float32)
        y = np.zeros((len(g), n), np.int32)
        xl = np.zeros(len(g), np.int32)
        yl = np.zeros(len(g), np.int32)
        for r, i in enumerate(g):
            f, label = items[i]
            x[r, :len(f)] = f
            y[r, :len(label)] = label
            xl[r], yl[r] = len(f), len(label)
        yield x, y, xl, yl


class Checkpoint:
    """A run's state after an epoch, in a directory: the model and optimizer (tf.train.Checkpoint), and in
    state.pkl the epoch, the history, the best weights so far, the minutes spent and the random generator's state
    (which draws the batches), with the run's arguments, so that only the same command continues it."""

    def __init__(self, directory, args, model, optimizer):
        import tensorflow as tf
        self.directory, self.model = directory, model
        self.arguments = {k: v for k, v in vars(args).items() if k != "checkpoint"}
        self.tracked = tf.train.Checkpoint(model=model, optimizer=optimizer)
        os.makedirs(directory, exist_ok=True)

    def exists(self):
        return os.path.exists(os.path.join(self.directory, "state.pkl"))

    def save(self, epoch, history, best, minutes, rng):
        import pickle
        self.tracked.write(os.path.join(self.directory, "weights"))
        with open(os.path.join(self.directory, "state.tmp"), "wb") as f:
            pickle.dump(dict(arguments=self.arguments, epoch=epoch, history=history, best=best, minutes=minutes,
                             rng=rng.bit_generator.state), f)
        os.replace(os.path.join(self.directory, "state.tmp"), os.path.join(self.directory, "state.pkl"))

    def restore(self, rng):
        import pickle
        with open(os.path.join(self.directory, "state.pkl"), "rb") as f:
            state = pickle.load(f)
        if state["arguments"] != self.arguments:
            changed = sorted(k for k in set(state["arguments"]) | set(self.arguments) if state["arguments"].get(k) != self.arguments.get(k))
            sys.exit(f"{self.directory} holds a run with other arguments ({', '.join(changed)}); start another directory")
        self.tracked.read(os.path.join(self.directory, "weights")).assert_existing_objects_matched()
        rng.bit_generator.state = state["rng"]
        return state["epoch"], state["history"], state["best"], state["minutes"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=6, help="passes over the training sequences; the learning-rate schedule "
                        "is a function of the epoch, so every machine trains the same model")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--synthetic", type=int, default=80000)
    parser.add_argument("--output", default=os.path.join(ROOT, "models", "ink-en.tflite"))
    parser.add_argument("--resume", help="continue training the weights of this exported .tflite")
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--copies", type=int, default=2, help="augmented copies of every real word (every second without timing)")
    parser.add_argument("--single-characters", type=float, default=0.1, help="share of synthetic inks that are one character")
    parser.add_argument("--speed-range", type=float, default=1.0, help="augmented copies are written up to this many times slower or faster")
    parser.add_argument("--cut-characters-with", help="a trained .tflite: cut real isolated characters out of the training words it reads (character_cuts.py)")
    parser.add_argument("--pixel-grid", type=float, default=0.0, help="share of augmented copies snapped to a coarse pixel grid (mouse or finger on a small canvas)")
    parser.add_argument("--cut-characters-at", type=float, help="at this fraction of the epochs, cut real isolated characters out of the training words "
                        "the model being trained reads, and train on them too for the rest of the run (the cutting itself took 9 minutes here)")
    parser.add_argument("--unipen-lines", type=int, default=0, help="also train on UNIPEN's free-text lines of the training writers "
                        "(every source, those written as one line) with this many augmented copies each; validation then reads the validation writers' such lines too")
    parser.add_argument("--units", type=int, default=UNITS, help="LSTM units each way (a run from random weights; --resume keeps the model's)")
    parser.add_argument("--layers", type=int, default=LAYERS, help="bidirectional LSTM layers (a run from random weights)")
    parser.add_argument("--add-layers", type=int, default=0, help="grow the network of --resume by this many residual bidirectional LSTM layers "
                        "under its dense layer, starting as the same function (grown())")
    parser.add_argument("--checkpoint", help="a directory: the run's state (weights, optimizer, the best epoch so far, the random "
                        "generator) is saved there after every epoch, and the same command run again continues after the last saved epoch")
    parser.add_argument("--word-lines", type=int, default=0, help="also train on this many lines built from the training writers' words (word_lines.py)")
    parser.add_argument("--word-sources", choices=("trusted", "all"), default="trusted",
                        help="UNIPEN words of the training writers: the trusted sources' only (ink_data.TRUSTED_SOURCES), or every "
                             "source's but the unusable parts (ink_data.UNUSABLE_WORD_PARTS); validation reads the trusted sources' either way")
    parser.add_argument("--unipen-characters", choices=("trusted", "all"), default="trusted",
                        help="UNIPEN's isolated characters of the training writers: the trusted sources' or every usable source's")
    parser.add_argument("--character-sample", type=int, default=0, help="at most this many of those isolated characters, drawn at random (0: all)")
    parser.add_argument("--label-smoothing", type=float, default=0.0, help="each frame's CTC target mixed with this share of a uniform guess")
    parser.add_argument("--masked", action="store_true", help="mask the zero frames that pad a batch's shorter sequences, in "
                        "training and validation (build_model(masked=True)); without it the backward LSTMs start every "
                        "padded sequence on zeros, which the recognizer never feeds them")
    parser.add_argument("--float16-weights", action="store_true", help="export the weights as float16 (half the file; "
                        "the engine and LiteRT widen them to float32 when the model loads)")
    parser.add_argument("--cut-characters-below", type=float, help="as --cut-characters-at, but after the first epoch whose validation greedy CER is "
                        "below this (0.2, say): a time fraction cuts too early on a slow machine, from a model that reads too little")
    args = parser.parse_args()
    if args.checkpoint and (args.cut_characters_at is not None or args.cut_characters_below is not None):
        parser.error("--checkpoint cannot continue a run that cuts characters while it trains")
    if args.add_layers and not args.resume:
        parser.error("--add-layers grows the network of --resume")
    args.residual = 0
    if args.resume:
        args.units, args.layers, args.residual = shape_of(args.resume)
        args.layers += args.add_layers
        args.residual += args.add_layers
    started = time.time()
    rng = np.random.default_rng(args.seed)

    words = ink_data.read("unipen-words", "train", every_source=args.word_sources == "all")
    chars = ink_data.read("unipen-chars", "train", every_source=args.unipen_characters == "all")
    if args.character_sample and len(chars) > args.character_sample:
        chars = [chars[i] for i in sorted(rng.choice(len(chars), args.character_sample, replace=False))]
    lines = [d for d in ink_data.read("unipen-text", "train", every_source=True) if ink_data.single_line(d)] if args.unipen_lines else []
    built_lines = word_lines.word_lines(words, args.word_lines, np.random.default_rng(args.seed * 31 + 7)) if args.word_lines else []
    cuts = []
    if args.cut_characters_with:
        with Pool(1) as pool:  # TensorFlow stays out of this process until the feature pool below has forked
            cuts = pool.apply(cut_characters, (args.cut_characters_with, words))
        print(f"{len(cuts)} isolated characters cut from the training words in {time.time() - started:.0f} s", flush=True)
    vocabulary, weights = lexicon()
    jobs = [("real", (d["label"], d["strokes"]), args.seed * 1000003 + i, args.copies, args.speed_range, args.pixel_grid)
            for i, d in enumerate(words + chars + cuts)]
    jobs += [("real", (d["label"], d["strokes"]), args.seed * 1000039 + i, args.unipen_lines, args.speed_range, args.pixel_grid)
             for i, d in enumerate(lines)]
    jobs += [("real", (d["label"], d["strokes"]), args.seed * 1000081 + i, 0, 1.0, 0.0) for i, d in enumerate(built_lines)]
    jobs += [("synthetic", synthetic_text(rng, vocabulary, weights, args.single_characters), args.seed * 7919 + i, 0, 1.0, 0.0)
             for i in range(args.synthetic)]
    pool = Pool(os.cpu_count())  # forked before TensorFlow loads; kept for the features of characters cut later
    groups = pool.map(feature_job, jobs, chunksize=256)
    word_features = [group[0][0] for group in groups[:len(words)]]
    items = [(f, encode(label)) for group in groups for f, label in group if len(f) >= 2 * len(label) + 1]
    del groups
    validation = [(features(d["strokes"]), d["label"]) for d in ink_data.read("unipen-words", "validation")]
    validation_lines = ([(features(d["strokes"]), d["label"]) for d in ink_data.read("unipen-text", "validation", every_source=True) if ink_data.single_line(d)]
                        if args.unipen_lines else [])
    print(f"{len(items)} training sequences ({len(words)} UNIPEN words, {len(chars)} characters, {len(lines)} lines, {len(built_lines)} lines of words, "
          f"{args.synthetic} synthetic), {len(validation)} validation words, {len(validation_lines)} validation lines; "
          f"features in {time.time() - started:.0f} s", flush=True)

    import tensorflow as tf
    tf.random.set_seed(args.seed)
    model = build_model(units=args.units, layers=args.layers, residual=args.residual, masked=args.masked)

    def validation_cers():
        """Greedy CER of the validation words and lines together (what picks the checkpoint), of the words, of the lines."""
        errors = validation_errors(model, validation + validation_lines)
        labels = [len(label) for _, label in validation + validation_lines]
        w = len(validation)
        return (sum(errors) / sum(labels), sum(errors[:w]) / sum(labels[:w]),
                sum(errors[w:]) / sum(labels[w:]) if validation_lines else math.nan)

    if args.resume:
        if args.add_layers:
            model.set_weights(grown(args.resume, args.add_layers).get_weights())  # Masking has no weights
        else:
            weights_from_tflite(args.resume, model)
        resumed_cer, resumed_words, resumed_lines = validation_cers()
        print(f"resumed from {args.resume}: validation greedy CER {resumed_cer:.4f} (words {resumed_words:.4f}, lines {resumed_lines:.4f})", flush=True)
    optimizer = tf.keras.optimizers.Adam(args.learning_rate, clipnorm=5.0)
    top = args.learning_rate

    @tf.function(reduce_retracing=True)
    def step(x, y, xl, yl):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = tf.nn.ctc_loss(y, logits, yl, xl, logits_time_major=False, blank_index=0)
            if args.label_smoothing:
                # CTC's gradient at frame t is p_t - g_t (g_t: the frame's posterior over alignments); adding
                # e * sum_t CE(uniform, p_t) makes it p_t - ((1 - e) g_t + e / CLASSES): label smoothing of each
                # frame's soft target, over the frames the sequence really has.
                frames = tf.sequence_mask(xl, tf.shape(logits)[1], dtype=logits.dtype)
                uniform = -tf.reduce_mean(tf.nn.log_softmax(logits), axis=-1)
                loss = (1 - args.label_smoothing) * loss + args.label_smoothing * tf.reduce_sum(uniform * frames, axis=1)
            loss = tf.reduce_mean(loss)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss

    def cut_now():
        import character_cuts
        began = time.time()
        found = [dict(label=c, strokes=st) for c, st in character_cuts.characters_of(words, model, word_features)]
        jobs = [("real", (d["label"], d["strokes"]), args.seed * 1000033 + i, args.copies, args.speed_range, args.pixel_grid) for i, d in enumerate(found)]
        added = [(f, encode(label)) for group in pool.map(feature_job, jobs, chunksize=256) for f, label in group if len(f) >= 2 * len(label) + 1]
        items.extend(added)
        print(f"{len(found)} isolated characters cut from the training words by the model being trained "
              f"({len(added)} sequences with their copies) in {time.time() - began:.0f} s", flush=True)
        return found

    history, best = [], ((resumed_cer, model.get_weights()) if args.resume else (math.inf, None))
    epoch, cut_done = 0, False
    saved = Checkpoint(args.checkpoint, args, model, optimizer) if args.checkpoint else None
    if saved and saved.exists():
        epoch, history, best, minutes_before = saved.restore(rng)
        started -= 60 * minutes_before  # the minutes count the earlier epochs too
        print(f"continuing {args.checkpoint} after epoch {epoch}", flush=True)
    while epoch < args.epochs:
        epoch += 1
        losses = []
        batch_count = math.ceil(len(items) / 64)
        for b, (x, y, xl, yl) in enumerate(batches(items, 64, rng)):
            elapsed = (epoch - 1 + b / batch_count) / args.epochs  # the schedule's position, 0 to 1
            if args.cut_characters_at is not None and elapsed >= args.cut_characters_at and not cut_done:
                cuts, cut_done = cut_now(), True
                break  # a new epoch, with the cut characters in it
            # constant, then cosine decay over the last 40% of the epochs
            optimizer.learning_rate.assign(top if elapsed < 0.6 else 0.1 * top + 0.9 * top * 0.5 * (1 + math.cos(math.pi * (elapsed - 0.6) / 0.4)))
            losses.append(float(step(x, y, xl, yl)))
        cer, words_cer, lines_cer = validation_cers()
        history.append(dict(epoch=epoch, loss=float(np.mean(losses)), validation_greedy_cer=cer, minutes=(time.time() - started) / 60,
                            **(dict(validation_words_greedy_cer=words_cer, validation_lines_greedy_cer=lines_cer) if validation_lines else {})))
        print(json.dumps(history[-1]), flush=True)
        if cer < best[0]:
            best = (cer, model.get_weights())
        if saved:
            saved.save(epoch, history, best, (time.time() - started) / 60, rng)
        if args.cut_characters_below is not None and cer < args.cut_characters_below and not cut_done and epoch < args.epochs:
            cuts, cut_done = cut_now(), True

    pool.close()
    export = build_model(batch_size=1, units=args.units, layers=args.layers, residual=args.residual)
    export.set_weights(best[1])
    converter = tf.lite.TFLiteConverter.from_keras_model(export)
    if args.float16_weights:  # weights stored as float16, widened to float32 by DEQUANTIZE ops when the model loads
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.target_spec.supported_types = [tf.float16]
    with open(args.output, "wb") as f:
        f.write(converter.convert())
    summary = dict(units=args.units, layers=args.layers, residual_layers=args.residual, added_layers=args.add_layers, parameters=int(export.count_params()), training_sequences=len(items),
                   word_sources=args.word_sources, unipen_words=len(words), unipen_character_sources=args.unipen_characters, unipen_characters=len(chars), unipen_lines=len(lines), unipen_line_copies=args.unipen_lines, word_lines=len(built_lines), cut_characters=len(cuts), synthetic=args.synthetic,
                   minutes=(time.time() - started) / 60, best_validation_greedy_cer=best[0], history=history,
                   epochs=args.epochs, data=ink_data.files_read(),
                   seed=args.seed, tensorflow=tf.__version__, resumed_from=args.resume, learning_rate=args.learning_rate,
                   augmented_copies=args.copies, pixel_grid=args.pixel_grid, single_characters=args.single_characters, speed_range=args.speed_range,
                   cut_characters_with=args.cut_characters_with, cut_characters_at=args.cut_characters_at,
                   cut_characters_below=args.cut_characters_below, label_smoothing=args.label_smoothing, masked=args.masked,
                   float16_weights=args.float16_weights)
    previous = os.path.splitext(args.resume)[0] + ".training.json" if args.resume else None
    if previous and os.path.exists(previous):
        summary["resumed_run"] = json.load(open(previous))
        summary["minutes_total"] = summary["minutes"] + summary["resumed_run"].get("minutes_total", summary["resumed_run"]["minutes"])
    with open(os.path.splitext(args.output)[0] + ".training.json", "w") as f:
        json.dump(summary, f, indent=1)
    bundled.touch_if_bundled(args.output)
    print(f"wrote {args.output}: validation greedy CER {best[0]:.4f}", flush=True)


if __name__ == "__main__":
    main()
