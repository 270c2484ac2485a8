#!/usr/bin/env python3
"""Measures the Latin-script languages (es, tr, de, fr, pt, it, vi) through `vision-cli ink --batch --jsonl`.

    python3 tools/ink/evaluate_latin.py [--languages es,tr,...] [--limit N] [--cli PATH] [--json OUT]
                                        [--split test|validation] [--lm-weight W] [--character-bonus B]

Two held-out sets per language, neither ever trained on:
- real: the test writers' UNIPEN words (ink_data.py's split: writers the networks never saw) that spell a word of
  the language once its marks are drawn in (latin_data.py: of the wordfreq words with the same letters, the most
  frequent one with marks, else the most frequent one; in the ink's case), with the marks drawn by a fixed seed. Augmented real ink: the base letters are real, the marks
  synthetic. Reported over all of them and over those whose word has marks.
- synthetic: `--synthetic` Hershey-font inks (hershey.py, a seed training never used) of single words drawn by
  frequency from the language's 30,000 most frequent words, a fifth of them capitalized.
For each: character error rate of the top candidate, top-1 and top-5 word accuracy, milliseconds per word.
"""
import argparse
import json
import os
import sys
from multiprocessing import Pool

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hershey  # noqa: E402
import ink_data  # noqa: E402
import latin_data  # noqa: E402
from evaluate import run_cli  # noqa: E402
from ink_data import edit_distance  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
MARKED = 4.0  # latin_data.matching_word: the most frequent word with marks, where the language has one


def scores(cli, samples, language, extra=()):
    results = run_cli(cli, samples, language, extra)
    texts = [[c["text"] for c in r.get("candidates", [])] for r in results]
    errors = sum(edit_distance(t[0] if t else "", d["label"]) for d, t in zip(samples, texts))
    n = max(len(samples), 1)
    ms = sorted(r.get("ms", 0) for r in results) or [0]
    return dict(samples=len(samples), cer=errors / max(sum(len(d["label"]) for d in samples), 1),
                top1=sum(bool(t) and t[0] == d["label"] for d, t in zip(samples, texts)) / n,
                top5=sum(d["label"] in t[:5] for d, t in zip(samples, texts)) / n,
                mean_ms=sum(ms) / len(ms), failed=sum("error" in r for r in results),
                examples=[(d["label"], t[0] if t else "") for d, t in zip(samples, texts) if not t or t[0] != d["label"]][:8])


def real_set(language, words, boxes, table):
    rng = np.random.default_rng(2024)
    out = []
    for d, b in zip(words, boxes):
        target = latin_data.matching_word(d["label"], language, table, rng, most_frequent=True, marked_weight=MARKED) if b is not None else None
        if target is None:
            continue
        ink = latin_data.diacritized(d["strokes"], d["label"], target, b[0], b[1], rng) if target != d["label"] else d["strokes"]
        if ink is not None:
            out.append(dict(label=target, strokes=ink, writer=d["writer"]))
    return out


def synthetic_set(language, count, seed=777):
    from train_latin import vocabulary
    words, weights = vocabulary(language)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        w = words[rng.choice(len(words), p=weights)]
        if rng.random() < 0.2:
            w = latin_data.in_case_of(w, "Xx", language)
        out.append(dict(label=w, strokes=hershey.render(w, rng)))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--languages", default=",".join(latin_data.LANGUAGES))
    parser.add_argument("--limit", type=int, help="at most this many real words per language")
    parser.add_argument("--synthetic", type=int, default=500)
    parser.add_argument("--cli", default=os.path.join(ROOT, ".build", "release", "vision-cli"))
    parser.add_argument("--json")
    parser.add_argument("--split", choices=("test", "validation"), default="test",
                        help="the UNIPEN writers of the real set; validation (with its own synthetic seed) to choose settings on")
    parser.add_argument("--lm-weight", type=float, help="vision-cli ink --lm-weight (decoding; default the recognizer's)")
    parser.add_argument("--character-bonus", type=float, help="vision-cli ink --character-bonus (decoding; default the recognizer's)")
    args = parser.parse_args()
    extra = ((["--lm-weight", str(args.lm_weight)] if args.lm_weight is not None else [])
             + (["--character-bonus", str(args.character_bonus)] if args.character_bonus is not None else []))
    words = ink_data.read("unipen-words", args.split)
    from train_latin import aligned
    with Pool(1) as pool:
        boxes = pool.apply(aligned, (words, os.path.join(ROOT, "models", "ink-en.tflite")))
    results = []
    for language in args.languages.split(","):
        table = latin_data.language_words(language)
        real = real_set(language, words, boxes, table)[:args.limit]
        marked = [d for d in real if not d["label"].isascii()]
        synthetic = synthetic_set(language, args.synthetic, seed=777 if args.split == "test" else 778)
        result = dict(language=language, split=args.split, real=scores(args.cli, real, language, extra), real_writers=len({d["writer"] for d in real}),
                      real_with_marks=scores(args.cli, marked, language, extra),
                      synthetic=scores(args.cli, synthetic, language, extra))
        results.append(result)
        print(json.dumps(result, ensure_ascii=False), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
