#!/usr/bin/env python3
"""End-to-end latency of `vision-cli classify` beside its inference-only time and beside LiteRT doing the same job
(decode + resize + invoke + top 5) in the same run. 1 thread.

    python3 tools/bench_classify.py --cli "$(tools/build.sh)" [--write Docs/benchmarks.md]

Ours, end to end: the `ms` field of `classify --jsonl` (decode + orientation + MediaPipe-exact resample +
inference + post-processing), the same image 21 times in one process, first dropped. Ours, inference only:
`vision-cli bench`. LiteRT: Pillow decode + bilinear resize + set_tensor + invoke + top-5 sort, and invoke
alone, with built-in kernels and with XNNPACK. Medians.
"""
import argparse
import json
import os
import statistics
import subprocess
import time

import numpy as np
from PIL import Image
from ai_edge_litert import interpreter as litert

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
MODEL = os.path.join(SHARED, "models", "classification", "mobilenet_v2_1.0_224_quant.tflite")
IMAGE = os.path.join(SHARED, "images", "bird.png")
BEGIN, END = "<!-- classify-bench:begin -->", "<!-- classify-bench:end -->"


def ours(cli):
    out = subprocess.run([cli, "classify", *([IMAGE] * 21), "--model", MODEL, "--jsonl", "--threads", "1"],
                         check=True, capture_output=True, text=True).stdout
    end_to_end = statistics.median(json.loads(line)["ms"] for line in out.splitlines()[1:])
    bench = subprocess.run([cli, "bench", MODEL, "--runs", "30", "--json"], check=True, capture_output=True, text=True).stdout
    return end_to_end, json.loads(bench.strip().splitlines()[-1])["median_ms"]


def reference(resolver):
    kwargs = {"num_threads": 1}
    if resolver:
        kwargs["experimental_op_resolver_type"] = resolver
    interpreter = litert.Interpreter(model_path=MODEL, **kwargs)
    interpreter.allocate_tensors()
    inp, out = interpreter.get_input_details()[0]["index"], interpreter.get_output_details()[0]["index"]
    full, invoke = [], []
    for run in range(21):
        start = time.perf_counter()
        pixels = np.asarray(Image.open(IMAGE).convert("RGB").resize((224, 224), Image.BILINEAR))
        interpreter.set_tensor(inp, pixels[np.newaxis])
        middle = time.perf_counter()
        interpreter.invoke()
        done = time.perf_counter()
        np.argsort(-interpreter.get_tensor(out).reshape(-1))[:5]
        finish = time.perf_counter()
        if run:
            full.append((finish - start) * 1e3)
            invoke.append((done - middle) * 1e3)
    return statistics.median(full), statistics.median(invoke)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--write")
    args = parser.parse_args()
    our_e2e, our_infer = ours(args.cli)
    builtin = reference(litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    xnnpack = reference(None)
    rows = [("vision-cli classify (ours)", our_e2e, our_infer),
            ("LiteRT built-in kernels (Python)", *builtin),
            ("LiteRT XNNPACK (Python)", *xnnpack)]
    table = ["| runtime | end to end | inference only | other steps |", "|---|---|---|---|"]
    table += [f"| {name} | {e2e:.1f} ms | {infer:.1f} ms | {e2e - infer:.1f} ms |" for name, e2e, infer in rows]
    text = "\n".join(table)
    print(text)
    if args.write:
        path = os.path.join(ROOT, args.write)
        doc = open(path).read()
        block = f"{BEGIN}\n{text}\n\n{time.strftime('%Y-%m-%d')}, `tools/bench_classify.py`, bird.png, mobilenet_v2_1.0_224_quant, 1 thread.\n{END}"
        doc = doc[:doc.index(BEGIN)] + block + doc[doc.index(END) + len(END):]
        open(path, "w").write(doc)


if __name__ == "__main__":
    main()
