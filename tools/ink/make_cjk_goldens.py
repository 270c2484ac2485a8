#!/usr/bin/env python3
"""Writes Tests/LiteTasksTests/Goldens/cjk.json: cjk_features.py's direction planes of real Chinese and Japanese inks,
read by the test from ../shared/ink by file and line (label and writer kept so that the test can check the line still
holds them), and of small hand-made inks for the edge cases (a lone point, a stroke of one point among others,
strokes that double back). Only the planes' non-zero values are stored, as [index, value] with index
(y · 32 + x) · 9 + plane.
Also a small Japanese character bigram model (make_cjk_language_model.py on wordfreq's 300 most frequent usable
words) with natural-log probabilities of character pairs as its ARPA tables give them (CharacterBigramModel), and
each shipped network's (models/ink-ja.tflite, models/ink-zh.tflite) ten likeliest characters and their natural-log
probabilities for real inks of its languages (NETWORKS), as LiteRT's built-in kernels compute them from the planes rounded as the training
pictures were (train_cjk.py's QUANTUM).

    python3 tools/ink/make_cjk_goldens.py
"""
import gzip
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cjk_features  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SHARED = os.environ.get("INK_DATA", os.path.join(ROOT, "..", "shared", "ink"))
REAL = [("tegaki-japanese-kanji.ndjson.gz", 0), ("tegaki-japanese-kanji.ndjson.gz", 137), ("tegaki-kana.ndjson.gz", 5),
        ("tegaki-kana.ndjson.gz", 100), ("tegaki-zh-tw.ndjson.gz", 3), ("tegaki-zh-tw.ndjson.gz", 40),
        ("hanzi-strokes.ndjson.gz", 4000)]
# Which real inks each shipped network is checked on: the Japanese network on the kanji and kana, the Chinese one on
# the Traditional characters and a kanji both scripts write alike.
NETWORKS = {"ink-ja.tflite": ("tegaki-japanese-kanji", "tegaki-kana"),
            "ink-zh.tflite": ("tegaki-zh-tw", "tegaki-japanese-kanji.ndjson.gz:0")}
MADE = {
    "a lone point": [[[10, 10, None]]],
    "a point among strokes": [[[0, 0, 0], [100, 0, 10]], [[50, 50, 20]], [[0, 100, 30], [100, 100, 40]]],
    "doubling back": [[[0, 0, 0], [100, 40, 10], [0, 80, 20], [100, 120, 30]], [[100, 0, 40], [0, 120, 50]]],
    "a vertical line": [[[5, 0, 0], [5, 300, 10]]],
}


def sparse(planes):
    flat = planes.reshape(-1)
    return [[int(i), float(f"{flat[i]:.8g}")] for i in flat.nonzero()[0]]


def language_model():
    """A small ja model's ARPA text and [a, b, ln P(b | a)] for pairs of every kind (a null: the start of the text)."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "make_cjk_language_model.py"),
                        "--languages", "ja", "--limit-words", "300", "--out", tmp], check=True, capture_output=True)
        with open(os.path.join(tmp, "ink-ja.lm.arpa"), encoding="utf-8") as f:
            arpa = f.read()
    unigram, backoff, bigram, section = {}, {}, {}, None
    for line in arpa.splitlines():
        if line.startswith("\\"):
            section = line
            continue
        fields = line.split("\t")
        if section == "\\1-grams:" and len(fields) >= 2:
            unigram[fields[1]] = float(fields[0]) * math.log(10)
            backoff[fields[1]] = float(fields[2]) * math.log(10) if len(fields) == 3 else 0.0
        elif section == "\\2-grams:" and len(fields) == 2:
            a, b = fields[1].split(" ")
            bigram[a, b] = float(fields[0]) * math.log(10)
    characters = [c for c in unigram if c not in ("<s>", "</s>")]
    unknown = min(unigram[c] for c in characters)

    def backed_off(b, a):
        return bigram.get((a, b), backoff[a] + unigram[b])

    def log_p(b, a):
        if b not in characters:
            return unknown
        if a not in characters:
            return backed_off(b, "<s>")
        within, across = backed_off(b, a), backed_off("</s>", a) + backed_off(b, "<s>")
        return max(within, across) + math.log1p(math.exp(min(within, across) - max(within, across)))

    seen = sorted((a, b) for a, b in bigram if a in characters and b in characters)[:40:4]
    pairs = seen + [(None, "日"), (None, "の"), ("日", "本"), ("本", "日"), ("ん", "ぁ"), ("日", "X"), ("X", "本"), ("日", "<s>")]
    return dict(arpa=arpa, queries=[[a, b, log_p(b, a)] for a, b in pairs])


def network_outputs(name, planes_of_inks):
    """(model sha256, [[class index, ln p] * 10] per ink) of models/<name> under LiteRT."""
    import numpy as np
    from ai_edge_litert import interpreter as litert
    path = os.path.join(ROOT, "models", name)
    interpreter = litert.Interpreter(model_path=path,
                                     experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    interpreter.allocate_tensors()
    quantum = 127.5  # train_cjk.py's QUANTUM
    outputs = []
    for planes in planes_of_inks:
        x = (np.clip(np.rint(planes * quantum), 0, 255) / quantum).astype(np.float32)[None]
        interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
        interpreter.invoke()
        logits = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])[0].astype(np.float64)
        log_p = logits - (logits.max() + np.log(np.exp(logits - logits.max()).sum()))
        top = np.argsort(-log_p, kind="stable")[:10]
        outputs.append([[int(i), float(log_p[i])] for i in top])
    return hashlib.sha256(open(path, "rb").read()).hexdigest(), outputs


def main():
    samples, real = [], []
    for file, line in REAL:
        with gzip.open(os.path.join(SHARED, file), "rt", encoding="utf-8") as f:
            for n, text in enumerate(f):
                if n == line:
                    d = json.loads(text)
                    break
        planes = cjk_features.direction_planes(d["strokes"])
        samples.append(dict(file=file, line=line, label=d["label"], writer=d["writer"], values=sparse(planes)))
        real.append((samples[-1], planes))
    for name, strokes in MADE.items():
        samples.append(dict(name=name, strokes=strokes, values=sparse(cjk_features.direction_planes(strokes))))
    networks = {}
    for name, wanted in NETWORKS.items():
        chosen = [(s, planes) for s, planes in real
                  if any(s["file"].startswith(w) or f"{s['file']}:{s['line']}" == w for w in wanted)]
        sha, outputs = network_outputs(name, [planes for _, planes in chosen])
        networks[name] = dict(model_sha256=sha, samples=[dict(file=s["file"], line=s["line"], label=s["label"], top=o)
                                                         for (s, _), o in zip(chosen, outputs)])
    path = os.path.join(ROOT, "Tests", "LiteTasksTests", "Goldens", "cjk.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(dict(size=cjk_features.SIZE, planes=cjk_features.PLANES, samples=samples,
                       language_model=language_model(), networks=networks), f, ensure_ascii=False)
    print(f"wrote {path}: {len(samples)} samples")


if __name__ == "__main__":
    main()
