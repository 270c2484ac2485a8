#!/usr/bin/env python3
"""Times vision-cli and LiteRT on the same models in one run and prints the ratios as a Markdown table.

    python3 tools/bench_vs_litert.py [--cli PATH] [--reference-cli PATH] [--runs N] [--rounds N] [--threads 1 2]
                                     [--write Docs/benchmarks.md]

For each model and thread count it alternates our engine, LiteRT with XNNPACK (its default) and LiteRT's
built-in kernels (BUILTIN_WITHOUT_DEFAULT_DELEGATES), `--rounds` times, and keeps each one's best median, so
that a burst of load on this shared machine does not land on one side only. Without --cli it builds with
tools/build.sh (a plain `swift build -c release`). Each row says which instruction-set level our kernels ran at.
`--reference-cli` adds another build of vision-cli (say, an older commit's) to the same rounds, for A/B checks: the
two builds run back to back, the order alternating from round to round, and besides the ratio of the best medians the
table gives the paired ratio, the median over the rounds of each round's ours / reference, which a drift of the
machine's speed between rounds (20-40% within minutes on a shared VM) moves much less.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
MODELS = os.path.normpath(os.path.join(ROOT, "..", "shared", "models"))
sys.path.insert(0, HERE)
from litert_bench import bench as litert_bench  # noqa: E402

DEFAULT_MODELS = [
    "classification/mobilenet_v2_1.0_224_dequant_float.tflite",
    "classification/mobilenet_v1_0.25_224_1_metadata_1.tflite",
    "detection/face_detection_short_range.tflite",
    "detection/coco_ssd_mobilenet_v1_1.0_dequant_float.tflite",
    "classification/mobilenet_v2_1.0_224_quant.tflite",
    "classification/tf2_mobilenet_v2_1.0_224_ptq.tflite",
    "detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite",
    "mlkit/object_labeler.tflite",
    "lstm/trained_lstm.tflite",
    "lstm/trained_lstm_int8.tflite",
    "lstm/keras_lstm_mnist_ptq.tflite",
    "lstm/quickdraw_rnn_bilstm_345_float_noclip.tflite",
]


def ours(cli, model, threads, runs):
    out = subprocess.run([cli, "bench", model, "--threads", str(threads), "--runs", str(runs), "--warmup", "5", "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def write_marked_block(path, marker, machine, table):
    """Replaces the text between `<!-- marker:start -->` and `<!-- marker:end -->` in the Markdown file `path` with
    the machine line and the table (appended at the end when the markers are not there yet)."""
    text = open(path).read() if os.path.exists(path) else ""
    start, end = f"<!-- {marker}:start -->", f"<!-- {marker}:end -->"
    block = f"{start}\n{machine}\n\n" + "\n".join(table) + f"\n{end}"
    if start in text and end in text:
        text = text[:text.index(start)] + block + text[text.index(end) + len(end):]
    else:
        text += "\n" + block + "\n"
    open(path, "w").write(text)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cli")
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--threads", type=int, nargs="+", default=[1])
    p.add_argument("--models", nargs="+", default=DEFAULT_MODELS)
    p.add_argument("--write")
    p.add_argument("--reference-cli", help="another vision-cli build timed in the same rounds (column 'reference')")
    a = p.parse_args()
    cli = a.cli or subprocess.run([os.path.join(HERE, "build.sh")], check=True, capture_output=True, text=True).stdout.strip()

    rows = []
    blas = "?"
    for rel in a.models:
        model = os.path.join(MODELS, rel)
        for threads in a.threads:
            best = {"ours": None, "xnnpack": None, "builtin": None, "reference": None}
            isa = "?"
            load = None
            paired = []
            for round_index in range(a.rounds):
                runs = a.runs if "quickdraw" not in rel else max(5, a.runs // 10)
                reference_first = a.reference_cli and round_index % 2 == 1
                reference_ms = ours(a.reference_cli, model, threads, runs)["median_ms"] if reference_first else None
                r = ours(cli, model, threads, runs)
                blas = r.get("blas_core", blas)
                isa = r.get("isa", isa)
                if a.reference_cli:
                    if reference_ms is None:
                        reference_ms = ours(a.reference_cli, model, threads, runs)["median_ms"]
                    best["reference"] = min(best["reference"] or 1e9, reference_ms)
                    paired.append(r["median_ms"] / reference_ms)
                best["ours"] = min(best["ours"] or 1e9, r["median_ms"])
                load = min(load or 1e9, r["load_ms"])
                best["xnnpack"] = min(best["xnnpack"] or 1e9, litert_bench(model, threads, runs)["median_ms"])
                best["builtin"] = min(best["builtin"] or 1e9, litert_bench(model, threads, max(5, runs // 3), builtin=True)["median_ms"])
            pair = statistics.median(paired) if paired else None
            rows.append((rel, threads, isa, best["ours"], best["xnnpack"], best["builtin"], load, best["reference"], pair))
            reference = (f"  reference {best['reference']:7.2f} ms ({best['ours'] / best['reference']:.2f}x, paired {pair:.2f}x)"
                         if best["reference"] else "")
            print(f"{os.path.basename(rel):50s} {threads}t {isa}  ours {best['ours']:7.2f} ms  XNNPACK {best['xnnpack']:7.2f} ms "
                  f"({best['ours'] / best['xnnpack']:.2f}x)  built-in {best['builtin']:7.2f} ms ({best['ours'] / best['builtin']:.2f}x)  "
                  f"load {load:.2f} ms{reference}", flush=True)

    header = "| model | threads | kernels | ours (ms) | LiteRT XNNPACK (ms) | ours / XNNPACK | LiteRT built-in (ms) | ours / built-in | our load (ms) |"
    if a.reference_cli:
        header += " reference build (ms) | ours / reference | paired |"
    table = [header, "|" + "---|" * (header.count("|") - 1)]
    for rel, threads, isa, o, x, b, load, ref, pair in rows:
        line = f"| {os.path.basename(rel)} | {threads} | {isa} | {o:.2f} | {x:.2f} | {o / x:.2f} | {b:.2f} | {o / b:.2f} | {load:.2f} |"
        if a.reference_cli:
            line += f" {ref:.2f} | {o / ref:.2f} | {pair:.2f} |"
        table.append(line)
    machine = (f"{cpu_name()}, {os.cpu_count()} cores; OpenBLAS kernels: {blas}; our binary: plain `swift build -c release`; "
               f"medians of {a.runs} runs, best of {a.rounds} alternating rounds"
               + ("; paired: the median of the rounds' ours / reference" if a.reference_cli else "")
               + f"; {datetime.date.today().isoformat()}")
    print()
    print("\n".join(table))
    print()
    print(machine)
    if a.write:
        write_marked_block(os.path.join(ROOT, a.write), "bench_vs_litert", machine, table)
        print(f"wrote {a.write}")


if __name__ == "__main__":
    main()
