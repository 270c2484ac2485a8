#!/usr/bin/env python3
"""Times digital ink recognition against LiteRT and writes the ink block of Docs/benchmarks.md.

    python3 tools/ink/bench_ink.py [--words 200] [--write Docs/benchmarks.md]

1. The network alone at the median held-out word length: our `vision-cli bench models/ink-en.tflite
   --input-shape 1,T,5` against LiteRT (XNNPACK and built-in kernels) on the same shape, 1 thread, medians; the same
   for the shapes network, for the character network on its one 32x32 picture and for the shapes model's geometry
   network on its 30 features.
2. Whole recognitions (checks, features, network, beam search with the language model, segments) of the first
   N held-out UNIPEN words through `vision-cli ink --batch --jsonl`: mean, median and 90th percentile per word; and
   of the held-out Quick, Draw! drawings with the shapes model (features, LSTM, geometry, geometry network).
"""
import argparse
import datetime
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
import ink_data  # noqa: E402
from evaluate import run_cli  # noqa: E402
from ink_features import features  # noqa: E402
from litert_bench import bench as litert_bench  # noqa: E402

ROOT = os.path.join(HERE, "..", "..")


def ours_network(cli, model, shape, runs):
    out = subprocess.run([cli, "bench", model, "--input-shape", ",".join(map(str, shape)), "--runs", str(runs), "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["median_ms"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--words", type=int, default=200)
    parser.add_argument("--cli", default=os.path.join(ROOT, ".build", "release", "vision-cli"))
    parser.add_argument("--write")
    args = parser.parse_args()
    words = ink_data.read("unipen-words", "test", limit=args.words)
    lengths = sorted(len(features(d["strokes"])) for d in words)
    t = lengths[len(lengths) // 2]
    rows = []
    for name, shape in (("ink-en.tflite", [1, t, 5]), ("ink-shapes.tflite", [1, t, 5]), ("ink-en.characters.tflite", [1, 32, 32, 1]),
                        ("ink-shapes.geometry.tflite", [1, 30])):
        model = os.path.join(ROOT, "models", name)
        o = min(ours_network(args.cli, model, shape, 200) for _ in range(2))
        x = min(litert_bench(model, 1, 200, 10, shape=shape)["median_ms"] for _ in range(2))
        b = min(litert_bench(model, 1, 200, 10, builtin=True, shape=shape)["median_ms"] for _ in range(2))
        rows.append(f"| {name} | {shape} | {o:.3f} | {x:.3f} | {o / x:.2f} | {b:.3f} | {o / b:.2f} |")
        print(rows[-1], flush=True)
    results = run_cli(args.cli, words, "en")
    ms = sorted(r["ms"] for r in results)
    n = len(ms)
    summary = (f"Whole recognitions of {n} held-out UNIPEN words (median {t} resampled points; checks, features, network, "
               f"beam search with the language model, segments), 1 thread: mean {sum(ms) / n:.2f} ms, median {ms[n // 2]:.2f} ms, "
               f"90th percentile {ms[n * 9 // 10]:.2f} ms per word.")
    import shape_data
    shapes = run_cli(args.cli, shape_data.held_out_quickdraw(), "zxx-Zsym-x-shapes")
    shape_ms = sorted(r["ms"] for r in shapes)
    m = len(shape_ms)
    summary += (f" Whole recognitions of the {m} held-out Quick, Draw! drawings with the shapes model: mean {sum(shape_ms) / m:.2f} ms, "
                f"median {shape_ms[m // 2]:.2f} ms, 90th percentile {shape_ms[m * 9 // 10]:.2f} ms.")
    print(summary)
    block = ["<!-- bench_ink:start -->",
             f"{datetime.date.today().isoformat()}, 1 thread, medians of 200 runs (best of 2).", "",
             "| model | input | ours (ms) | LiteRT XNNPACK (ms) | ours / XNNPACK | LiteRT built-in (ms) | ours / built-in |",
             "|---|---|---|---|---|---|---|", *rows, "", summary, "<!-- bench_ink:end -->"]
    if args.write:
        path = os.path.join(ROOT, args.write)
        text = open(path).read()
        start, end = block[0], block[-1]
        if start in text:
            text = text[:text.index(start)] + "\n".join(block) + text[text.index(end) + len(end):]
        else:
            text += "\n## Digital ink\n\nReproduce: `python3 tools/ink/bench_ink.py --write Docs/benchmarks.md` (after `tools/build.sh`).\n\n" + "\n".join(block) + "\n"
        open(path, "w").write(text)
        print(f"wrote {args.write}")


if __name__ == "__main__":
    main()
