#!/usr/bin/env python3
"""Chinese and Japanese handwriting read by zinnia (Debian's recognizer and models) and, side by side in the same run,
by LiteVision's models once they exist (`--cli`): top-1, top-5 and top-10 character accuracy and milliseconds per character
on the real handwriting in ../shared/ink.

    python3 tools/ink/cjk_compare.py [--sets kanji kana zh-tw zh-tw-vocabulary kanji-zh] [--cli .build/release/vision-cli] [--json OUT]

zinnia runs through its command-line tool (`zinnia -m MODEL -n 10`, Debian zinnia-utils; models from
tegaki-zinnia-japanese and tegaki-zinnia-simplified-chinese: `tools/setup.sh --cjk` installs them). Its time per
character is the tool's wall time over the set read five times in one process, less the time of one character (the
model's load), divided by the characters read.

Which zinnia models saw which data: Debian's tegaki-zinnia models were trained by the tegaki project on its
tegaki-models data, and the kana (writer1) and Traditional Chinese files here come from that data's `train` folders,
so zinnia's numbers on them are on its own training ink; the learner's kanji (tegaki-lab) are not in it. The
Traditional set has no zinnia model: the Simplified Chinese model reads the characters the two scripts share.
"""
import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SHARED = os.environ.get("INK_DATA", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "ink"))
ZINNIA_MODELS = "/usr/share/tegaki/models/zinnia"

# name -> (file in ../shared/ink, zinnia model, what it is)
SETS = {
    "kanji": ("tegaki-japanese-kanji.ndjson.gz", "handwriting-ja.model", "50 kanji by a learner, 5 times each"),
    "kana": ("tegaki-kana.ndjson.gz", "handwriting-ja.model", "74 hiragana and 73 katakana by one writer"),
    "zh-tw": ("tegaki-zh-tw.ndjson.gz", "handwriting-zh_CN.model", "72 Traditional characters and components"),
    "zh-tw-vocabulary": ("tegaki-zh-tw.ndjson.gz", "handwriting-zh_CN.model",
                         "those of the 72 in LiteVision's zh-Hant vocabulary"),
    "kanji-zh": ("tegaki-japanese-kanji.ndjson.gz", "handwriting-zh_CN.model",
                 "the learner's kanji written alike in Simplified Chinese (in LiteVision's zh-Hans vocabulary)"),
}
# Sets kept to the characters of a LiteVision language's vocabulary (the characters of models/ink-<language>.lm.arpa).
RESTRICTED_TO = {"zh-tw-vocabulary": "zh-Hant", "kanji-zh": "zh-Hans"}
# The canvas the tegaki collections were written on (their coordinates lie in it).
CANVAS = 1000


def read_set(name):
    with gzip.open(os.path.join(SHARED, SETS[name][0]), "rt", encoding="utf-8") as f:
        samples = [json.loads(line) for line in f if line.strip()]
    if name in RESTRICTED_TO:
        vocabulary = vocabulary_of(RESTRICTED_TO[name])
        samples = [s for s in samples if s["label"] in vocabulary]
    return samples


def vocabulary_of(language):
    """The characters of LiteVision's language (its bigram model's unigrams)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", f"ink-{language}.lm.arpa")
    vocabulary, section = set(), None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("\\"):
                section = line.strip()
            elif section == "\\1-grams:" and "\t" in line:
                vocabulary.add(line.split("\t")[1].strip())
    return vocabulary - {"<s>", "</s>"}


def zinnia_sexpression(sample):
    """One character in zinnia's S-expression format; strokes are lists of [x, y, t] points."""
    strokes = "".join("(" + "".join(f"({int(round(p[0]))} {int(round(p[1]))})" for p in stroke) + ")"
                      for stroke in sample["strokes"] if stroke)
    return f"(character (width {CANVAS}) (height {CANVAS}) (strokes {strokes}))"


def run_zinnia(samples, model, nbest=10, repeats=5):
    """zinnia's n-best candidates for each sample, and its milliseconds per character."""
    if shutil.which("zinnia") is None or not os.path.exists(model):
        sys.exit(f"cjk_compare: zinnia or {model} is missing; run tools/setup.sh --cjk")

    def run(lines):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", encoding="utf-8", delete=False) as f:
            f.write("\n".join(lines) + "\n")
            path = f.name
        try:
            start = time.perf_counter()
            out = subprocess.run(["zinnia", "-m", model, "-n", str(nbest), path], check=True, capture_output=True,
                                 text=True, encoding="utf-8").stdout
            return out, time.perf_counter() - start
        finally:
            os.unlink(path)

    lines = [zinnia_sexpression(s) for s in samples]
    out, _ = run(lines)
    answers = []
    for line in out.splitlines():
        if line.startswith("Answer:"):
            answers.append([])
        elif line.strip():
            answers[-1].append(line.split(" ")[0])
    assert len(answers) == len(samples), f"zinnia answered {len(answers)} of {len(samples)}"
    _, one = run(lines[:1])
    _, many = run(lines * repeats)
    ms = max(many - one, 0) / (len(lines) * repeats - 1) * 1000
    return answers, ms


def run_ours(cli, samples, lang, nbest=10):
    """LiteVision's candidates through `vision-cli ink --batch --jsonl`, and its mean milliseconds per character;
    (None, None) when the binary has no model for `lang`."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "samples.ndjson.gz")
        with gzip.open(path, "wt", encoding="utf-8") as f:
            for s in samples:
                f.write(json.dumps({"label": s["label"], "strokes": s["strokes"]}, ensure_ascii=False) + "\n")
        out = subprocess.run([cli, "ink", "--batch", path, "--lang", lang, "--jsonl", "--max-candidates", str(nbest)],
                             capture_output=True, text=True, encoding="utf-8")
        if out.returncode != 0:
            if "no digital ink model" in out.stderr:
                return None, None
            sys.exit(f"cjk_compare: {cli} failed: {out.stderr.strip()}")
        out = out.stdout
    results = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert len(results) == len(samples), f"{len(results)} results for {len(samples)} samples"
    answers = [[c["text"] for c in r.get("candidates", [])] for r in results]
    return answers, sum(r.get("ms", 0) for r in results) / max(len(results), 1)


def score(samples, answers):
    n = len(samples)
    top1 = sum(bool(a) and a[0] == s["label"] for s, a in zip(samples, answers))
    top5 = sum(s["label"] in a[:5] for s, a in zip(samples, answers))
    top10 = sum(s["label"] in a[:10] for s, a in zip(samples, answers))
    return {"samples": n, "top1": top1 / n, "top5": top5 / n, "top10": top10 / n}


# The LiteVision model identifier that reads each set.
OUR_LANGUAGE = {"kanji": "ja", "kana": "ja", "zh-tw": "zh-Hant", "zh-tw-vocabulary": "zh-Hant", "kanji-zh": "zh-Hans"}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    parser.add_argument("--cli", help="a vision-cli binary: also read every set with LiteVision's models")
    parser.add_argument("--json", help="write the results here as JSON")
    args = parser.parse_args()
    rows = []
    for name in args.sets:
        samples = read_set(name)
        model = os.path.join(ZINNIA_MODELS, SETS[name][1])
        answers, ms = run_zinnia(samples, model)
        rows.append({"set": name, "reader": f"zinnia {SETS[name][1]}", **score(samples, answers), "ms": ms})
        if args.cli:
            answers, ms = run_ours(args.cli, samples, OUR_LANGUAGE[name])
            if answers is None:
                print(f"cjk_compare: no LiteVision model for {OUR_LANGUAGE[name]} yet; {name} is read by zinnia only", file=sys.stderr)
                continue
            rows.append({"set": name, "reader": f"LiteVision {OUR_LANGUAGE[name]}", **score(samples, answers), "ms": ms})
    print("| set | what | reader | samples | top-1 | top-5 | top-10 | ms/char |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['set']} | {SETS[r['set']][2]} | {r['reader']} | {r['samples']} | {100 * r['top1']:.1f}% | "
              f"{100 * r['top5']:.1f}% | {100 * r['top10']:.1f}% | {r['ms']:.2f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
