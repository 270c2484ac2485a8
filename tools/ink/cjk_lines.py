#!/usr/bin/env python3
"""Lines of Chinese or Japanese handwriting for checking and tuning the line decoder: synthetic lines (frequent words
of the language, each character synthesized by cjk_synthesis.py, written left to right by one writer) and lines
composed of real characters (../shared/ink's tegaki kanji, scaled to one height and set side by side), read by
`vision-cli ink --batch --jsonl`: exact lines and character error rate.

    python3 tools/ink/cjk_lines.py --cli .build/release/vision-cli [--lang ja] [--lines 200] [--seed 7]
                                   [--real] [--grid [weights|squeeze]] [-- extra vision-cli ink options, e.g. --cjk-lm-weight 0.5]

The synthetic writers are drawn from a seed that the training script never uses for its pictures (train_cjk.py
draws from --seed 1 and 1001), so the lines are of writers the network has not seen, though of the same synthesis.
"""
import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cjk_data  # noqa: E402
import cjk_synthesis  # noqa: E402

# Words of this many characters make the lines; lines are one to three words.
WORD_LENGTHS = (1, 4)
# Real words made of the 50 kanji of the tegaki learner's set (2-3 characters each).
REAL_WORDS = ["練習", "安全", "感想", "代金", "集金", "温水", "近代", "防水", "女神", "反感", "発想", "全集", "近代化", "安全感"]


def frequent_words(language, vocabulary, count=3000):
    import wordfreq
    code = {"ja": "ja", "zh-Hans": "zh", "zh-Hant": "zh"}[language]
    words = []
    for word in wordfreq.top_n_list(code, count * 4):
        if WORD_LENGTHS[0] <= len(word) <= WORD_LENGTHS[1] and all(c in vocabulary for c in word):
            words.append(word)
        if len(words) == count:
            break
    return words


def place(characters, rng, height=100.0):
    """Characters (lists of strokes of (x, y) points, any scale, y down) side by side, each scaled by its larger side
    to about `height`, with the gaps, baseline wander and drift of handwriting; strokes of [x, y] rounded to 0.1."""
    strokes, x = [], 0.0
    slope = rng.normal(0, 0.04)  # a line that drifts up or down, as on unruled paper
    for chars in characters:
        points = np.concatenate([np.asarray(s, dtype=float)[:, :2] for s in chars])
        low, high = points.min(axis=0), points.max(axis=0)
        size = height * rng.uniform(0.85, 1.05)
        scale = size / (max(high - low) or 1.0)
        top = (height - (high[1] - low[1]) * scale) / 2 + rng.normal(0, 0.04 * height) + slope * x
        for s in chars:
            s = np.asarray(s, dtype=float)[:, :2]
            strokes.append([[round(float(px), 1), round(float(py), 1)] for px, py in (s - low) * scale + (x, top)])
        x += (high[0] - low[0]) * scale + height * rng.uniform(0.05, 0.3)
    return strokes


def synthetic_lines(language, count, seed, component_gaps=False):
    vocab, _, sources = cjk_data.load()
    vocabulary = {c for c in vocab[language] if c in sources}
    words = frequent_words(language, vocabulary)
    rng = np.random.default_rng(seed)
    lines = []
    for _ in range(count):
        # A third of the inks are one character (written one at a time, as into an input method); the rest are one
        # to three words.
        text = "".join(words[rng.integers(len(words))] for _ in range(rng.integers(1, 4)))[:8]
        if rng.random() < 1 / 3:
            text = text[rng.integers(len(text))]
        writer = cjk_synthesis.Writer(rng, component_gaps)
        forms = [sources[c][rng.integers(len(sources[c]))] for c in text]
        chars = [cjk_synthesis.synthesize(f, rng, writer=writer, timed=False) for f in forms]
        lines.append({"label": text, "strokes": place(chars, rng)})
    return lines


def real_lines(seed):
    path = os.path.join(cjk_synthesis.SHARED, "tegaki-japanese-kanji.ndjson.gz")
    by_label = {}
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            by_label.setdefault(record["label"], []).append([s for s in record["strokes"] if s])
    rng = np.random.default_rng(seed)
    return [{"label": w, "strokes": place([by_label[c][(k + n) % len(by_label[c])] for c in w], rng)}
            for n, w in enumerate(REAL_WORDS) for k in range(5)]


def character_errors(a, b):
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        diagonal, row[0] = row[0], i
        for j in range(1, len(b) + 1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1]))
    return row[len(b)]


def read(cli, lines, language, extra):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "lines.ndjson.gz")
        with gzip.open(path, "wt", encoding="utf-8") as f:
            for line in lines:
                f.write(json.dumps(line, ensure_ascii=False) + "\n")
        run = subprocess.run([cli, "ink", "--batch", path, "--lang", language, "--jsonl", "--max-candidates", "1", *extra],
                             capture_output=True, text=True, encoding="utf-8")
    results = {r["index"]: r for r in (json.loads(x) for x in run.stdout.splitlines() if x.strip())}
    if len(results) != len(lines):
        sys.exit(f"cjk_lines: {cli} read {len(results)} of {len(lines)} lines: {run.stderr.strip()[-500:]}")
    failed = [i for i, r in results.items() if "error" in r]
    if failed:
        sys.exit(f"cjk_lines: {len(failed)} lines failed, the first: {results[failed[0]]}")
    results = [results[i] for i in range(len(lines))]
    texts = [(r.get("candidates") or [{"text": ""}])[0]["text"] for r in results]
    errors = sum(character_errors(t, line["label"]) for t, line in zip(texts, lines))
    characters = sum(len(line["label"]) for line in lines)
    exact = sum(t == line["label"] for t, line in zip(texts, lines))
    ms = sum(r.get("ms", 0) for r in results) / max(len(results), 1)
    return dict(lines=len(lines), characters=characters, exact=exact / len(lines), cer=errors / characters,
                ms_per_line=ms, ms_per_character=ms * len(lines) / characters), texts


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", required=True)
    parser.add_argument("--lang", default="ja", choices=("ja", "zh-Hans", "zh-Hant"))
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--real", action="store_true",
                        help="the 70 lines of the tegaki learner's real kanji instead (ja; --lines does not apply)")
    parser.add_argument("--component-gaps", action="store_true",
                        help="synthetic writers may leave a gap between a character's left and right parts")
    parser.add_argument("--show", type=int, default=0, help="print this many misread lines")
    parser.add_argument("--grid", nargs="?", const="weights", choices=("weights", "squeeze"),
                        help="read the lines under each decoding weight of a small grid (the choice in Docs/digital-ink.md): "
                             "the bigram, bonus and narrowness weights, or the squeeze penalty and tolerance with the others "
                             "at their defaults")
    parser.add_argument("extra", nargs="*", help="after --: more vision-cli ink options")
    args = parser.parse_args()
    lines = real_lines(args.seed) if args.real else synthetic_lines(args.lang, args.lines, args.seed, args.component_gaps)
    if args.grid == "squeeze":
        for penalty, tolerance in [(0.0, 0.8)] + [(p, t) for p in (2.0, 4.0, 8.0, 16.0) for t in (0.6, 0.7, 0.8, 0.9)]:
            extra = ["--cjk-squeeze", str(penalty), "--cjk-squeeze-tolerance", str(tolerance)]
            summary, _ = read(args.cli, lines, args.lang, extra + args.extra)
            print(json.dumps(dict(squeeze=penalty, tolerance=tolerance, **summary)), flush=True)
        return
    if args.grid:
        for lm in (0.3, 0.6):
            for bonus in (0.0, 1.0, 2.0, 4.0):
                for narrowness in (3.0, 6.0):
                    for width in (0.45, 0.7):
                        extra = ["--cjk-lm-weight", str(lm), "--cjk-character-bonus", str(bonus), "--cjk-narrowness",
                                 str(narrowness), "--cjk-narrow-width", str(width)]
                        summary, _ = read(args.cli, lines, args.lang, extra + args.extra)
                        print(json.dumps(dict(lm_weight=lm, bonus=bonus, narrowness=narrowness, narrow_width=width, **summary)),
                              flush=True)
        return
    summary, texts = read(args.cli, lines, args.lang, args.extra)
    print(json.dumps(summary))
    shown = 0
    for text, line in zip(texts, lines):
        if text != line["label"] and shown < args.show:
            print(f"  {line['label']} -> {text}")
            shown += 1


if __name__ == "__main__":
    main()
