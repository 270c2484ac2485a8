#!/usr/bin/env python3
"""Writes Tests/LiteTasksTests/Goldens/ink.json: what the Swift ink tests compare with.

    python3 tools/ink/make_ink_goldens.py

- features: ink_features.py's features of real inks read by the tests from ../shared/ink by file and line (no copy
  of the data is committed), with and without a writing area, timed and untimed. The inks are chosen by label and
  writer (SAMPLES), not by line, so a re-conversion that moves records picks the same inks again; each entry keeps its
  label and writer, and the tests check that the line still holds them;
- models: LiteRT's outputs (`ai_edge_litert`, built-in kernels) of models/ink-en.tflite and models/ink-shapes.tflite
  on the features of some of those inks (every frame of a short ink, every 5th frame of a long one);
- pictures: character_data.py's pictures of some of those inks (and of a dot and a dash), with LiteRT's outputs of
  models/ink-en.characters.tflite on them;
- geometry: shape_geometry.py's features of Quick, Draw! drawings (by file and line: one of each category of its
  validation part, and three sketches of other categories) and of made inks (a dot, a point drawn twice, a dash, a ring
  of 400 dots whose hull is thinned, a 3,000-point zigzag resampled coarsely), with LiteRT's outputs of
  models/ink-shapes.geometry.tflite on them;
- synthetic: Hershey-font inks of a few words (hershey.py, fixed seed), with the word each spells, for the
  recognizer's behaviour tests (pre-context, several lines, words out of order);
- latin: Hershey-font inks of words of the Latin-script languages with their marks (LATIN_WORDS), with the word
  and its language; the models part also has LiteRT's outputs of models/ink-latin.tflite;
- long_line: the lines of twelve words in a row of one held-out (test split) writer (LONG_LINE), which the
  recognizer test places side by side as one long line.
"""
import gzip
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hershey  # noqa: E402
import ink_data  # noqa: E402
import shape_data  # noqa: E402
import shape_geometry  # noqa: E402
from ink_features import features, untimed  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.path.join(ROOT, "Tests", "LiteTasksTests", "Goldens", "ink.json")


def line_of(name, predicate, skip=0):
    with gzip.open(os.path.join(ink_data.SHARED, name), "rt") as f:
        for n, line in enumerate(f):
            d = json.loads(line)
            if predicate(d):
                if skip == 0:
                    return n, d
                skip -= 1
    raise SystemExit(f"no sample in {name}")


def keyed(name, keys):
    """{(label, writer): (line, sample)} of ../shared/ink/<name> for `keys`; each key must name exactly one sample."""
    found = {}
    with gzip.open(os.path.join(ink_data.SHARED, name), "rt") as f:
        for n, line in enumerate(f):
            d = json.loads(line)
            key = (d["label"], d["writer"])
            if key in keys:
                if key in found:
                    raise SystemExit(f"{name}: {key} names more than one sample (lines {found[key][0]} and {n})")
                found[key] = (n, d)
    missing = [k for k in keys if k not in found]
    if missing:
        raise SystemExit(f"{name}: no sample of {missing}")
    return found


def no_zero_points(d):
    return all(p[0] != 0 or p[1] != 0 for s in d["strokes"] for p in s)


# The inks of the feature, model and picture goldens, by file, label and writer. They were first chosen by rules (the
# comments), on the first conversion of the UNIPEN files; keys keep the same inks when a re-conversion moves records
# (on 2026-11-28's, the rules still gave these samples, with the same points).
SAMPLES = [
    ("unipen-words.ndjson.gz", "martyr", "hpb2-an"),  # the 4th hpp word of 5 or more letters without a point at (0, 0)
    ("unipen-words.ndjson.gz", "E", "hpb0-aeb"),  # the first sta word of 3 or more strokes without a point at (0, 0)
    ("omniglot.ndjson.gz", "k", "03"),  # the 3rd k
    # A one-stroke star of Quick, Draw!'s validation part (never trained on); the shapes test expects "star" of it.
    ("quickdraw.ndjson.gz", "star", "5260413706960896"),  # the first star
    ("quickdraw.ndjson.gz", "line", "4819728134569984"),  # the first line
]
# Twelve words in a row by a writer of the test split (never trained on), read as one long line by the recognizer test.
LONG_LINE = ("unipen-words.ndjson.gz", "hpb0-sd",
             ["able", "acid", "act", "across", "addition", "advertisement", "agreement", "air", "amusement", "angle", "angry", "animal"])


def litert(path, f):
    """`path`'s output for the one input `f` (a batch of one). A fresh interpreter per ink: the LSTM state lives in variable tensors that LiteRT keeps across invocations."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    it = Interpreter(path, experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    inp, out = it.get_input_details()[0], it.get_output_details()[0]
    it.resize_tensor_input(inp["index"], [1, *f.shape])
    it.allocate_tensors()
    it.set_tensor(inp["index"], f[None])
    it.invoke()
    return it.get_tensor(out["index"])[0]


# Words of the Latin-script languages, each with letters beyond ASCII, drawn in Hershey's print font with their marks
# (hershey.py, diacritics.py): the recognizer test reads each in its language.
LATIN_WORDS = [("es", "niño"), ("es", "¿Qué?"), ("tr", "ışık"), ("tr", "İstanbul"), ("de", "Straße"), ("de", "schön"),
               ("fr", "élève"), ("fr", "garçon"), ("pt", "não"), ("pt", "coração"), ("it", "città"), ("it", "perché"),
               ("vi", "tiếng"), ("vi", "người")]


def r(values):
    return [float(v) for v in np.asarray(values, dtype=np.float32).reshape(-1)]


def main():
    line_file, line_writer, line_labels = LONG_LINE
    found = {}
    for name in dict.fromkeys(file for file, _, _ in SAMPLES):
        keys = [(label, writer) for file, label, writer in SAMPLES if file == name]
        keys += [(label, line_writer) for label in line_labels] if name == line_file else []
        found[name] = keyed(name, keys)
    assert all(no_zero_points(found[file][label, writer][1]) for file, label, writer in SAMPLES if file.startswith("unipen"))
    samples = []
    for name, label, writer in SAMPLES:
        n, d = found[name][label, writer]
        strokes = [s for s in d["strokes"] if s]
        for area in (None, 50.0 * (1 + len(samples))):
            f = features(strokes, area)
            samples.append(dict(file=name, line=n, label=label, writer=writer, writing_area_height=area, features=r(f), length=len(f)))
        f = features(untimed(strokes))
        samples.append(dict(file=name, line=n, label=label, writer=writer, untimed=True, writing_area_height=None, features=r(f), length=len(f)))

    assert ink_data.split_of(line_writer) == "test", "the long line's writer is held out"
    long_line = dict(file=line_file, writer=line_writer, labels=line_labels, lines=[found[line_file][label, line_writer][0] for label in line_labels])

    models = []
    for model, which in (("ink-en.tflite", [0, 2]), ("ink-shapes.tflite", [6, 9]), ("ink-latin.tflite", [0, 2])):
        path = os.path.join(ROOT, "models", model)
        for k in which:
            s = samples[k]
            f = np.array(s["features"], np.float32).reshape(-1, 5)
            out = litert(path, f)
            stride = 1 if out.ndim == 1 or len(out) <= 40 else 5
            rows = out if out.ndim == 1 else out[::stride]
            models.append(dict(model=model, sample=k, stride=stride, shape=list(out.shape), outputs=r(rows)))

    from character_data import raster
    pictures = []
    characters = os.path.join(ROOT, "models", "ink-en.characters.tflite")
    made = [("dot", [[[5.0, 5.0]]]), ("dash", [[[0.0, 0.0], [3.0, 0.2], [9.0, 0.0]]])]
    for k in (0, 4, 6):
        s = samples[k]
        made.append((None, [st for st in line_of(s["file"], lambda d, n=s["line"]: True, s["line"])[1]["strokes"] if st]))
    for k, (name, strokes) in enumerate(made):
        picture = raster(strokes)
        entry = dict(picture=r(picture))
        if name:
            entry.update(name=name, strokes=strokes)
        else:
            entry.update(sample=[0, 4, 6][k - 2])
        entry["outputs"] = r(litert(characters, picture[:, :, None])) if os.path.exists(characters) else []
        pictures.append(entry)

    geometry = []
    geometry_model = os.path.join(ROOT, "models", "ink-shapes.geometry.tflite")
    categories = ["circle", "square", "triangle", "hexagon", "octagon", "line", "star", "diamond", "zigzag", "squiggle"]
    for category in categories + [None, None, None]:
        skip = 0 if category else sum(e.get("label") not in categories for e in geometry)
        n, d = line_of("quickdraw.ndjson.gz", lambda d, c=category: (d["label"] == c if c else d["label"] not in categories)
                       and shape_data._part(d.get("writer", "") + d["label"]) == "validation", skip)
        geometry.append(dict(file="quickdraw.ndjson.gz", line=n, label=d["label"], writer=d["writer"], strokes=[s for s in d["strokes"] if s]))
    ring = [[[round(1000 * np.cos(2 * np.pi * k / 400)), round(1000 * np.sin(2 * np.pi * k / 400))]] for k in range(400)]
    made = [("dot", [[[5, 5]]]), ("point drawn twice", [[[3, 4], [3, 4]]]), ("dash", [[[0, 0], [40, 1], [90, 0]]]),
            ("ring of dots", ring), ("zigzag", [[[i, (i % 2) * 300] for i in range(3000)]])]
    geometry += [dict(name=name, strokes=strokes) for name, strokes in made]
    for entry in geometry:
        entry["features"] = shape_geometry.features(entry["strokes"])
        entry["outputs"] = r(litert(geometry_model, np.array(entry["features"], np.float32)))
        if "name" not in entry:
            del entry["strokes"]  # read from ../shared/ink by the test

    rng = np.random.default_rng(7)
    synthetic = []
    for text in ["world", "ument", "hello", "the quick", "brown fox"]:
        strokes = hershey.render(text, rng, "rowmans")
        synthetic.append(dict(text=text, strokes=[[[round(p[0], 2), round(p[1], 2)] for p in s] for s in strokes]))
    latin = []
    for language, text in LATIN_WORDS:
        strokes = hershey.render(text, rng, "rowmans")
        latin.append(dict(language=language, text=text, strokes=[[[round(p[0], 2), round(p[1], 2)] for p in s] for s in strokes]))

    with open(OUT, "w") as f:
        json.dump(dict(note="made by tools/ink/make_ink_goldens.py", samples=samples, models=models, pictures=pictures, geometry=geometry,
                       synthetic=synthetic, latin=latin, long_line=long_line), f)
    print(f"wrote {OUT}: {len(samples)} feature samples, {len(models)} model outputs, {len(synthetic)} synthetic inks, {os.path.getsize(OUT)} bytes")


if __name__ == "__main__":
    main()
