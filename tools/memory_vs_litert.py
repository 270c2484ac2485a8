#!/usr/bin/env python3
"""Peak memory of our engine and of LiteRT on the same models, each model in a fresh process, as a Markdown table.

    python3 tools/memory_vs_litert.py [--cli PATH] [--threads N ...] [--runs N] [--models M ...] [--write Docs/benchmarks.md]

Both sides are measured the way LiteRT's benchmark_model measures itself: the peak resident set (VmHWM) before the
model is loaded, then how much it grew by the end of the runs. The growth is what the model costs (weights read or
repacked, the arena, kernel buffers, threads); the baseline is the runtime itself (for LiteRT, a Python process with
numpy and the LiteRT wheel; for us, vision-cli with OpenBLAS loaded), so the growths are the numbers to compare.
Ours: `vision-cli bench --json` (`peak_rss_increase_mb`); LiteRT: tools/litert_bench.py --json in a new Python
process, with XNNPACK (the default) and with the built-in kernels.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from bench_vs_litert import DEFAULT_MODELS, cpu_name, write_marked_block  # noqa: E402


def ours(cli, model, threads, runs):
    out = subprocess.run([cli, "bench", model, "--threads", str(threads), "--runs", str(runs), "--warmup", "5", "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def litert(model, threads, runs, builtin):
    command = [sys.executable, os.path.join(HERE, "litert_bench.py"), model, "--threads", str(threads), "--runs", str(runs), "--json"]
    out = subprocess.run(command + (["--builtin"] if builtin else []), check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def ratio(ours_mb, theirs_mb):
    """ours / theirs, or "-" when theirs is under half a MB (a ratio of near-zero growths says nothing)."""
    return f"{ours_mb / theirs_mb:.2f}" if theirs_mb >= 0.5 else "-"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cli", default=os.path.join(ROOT, ".build", "release", "vision-cli"))
    p.add_argument("--models-dir", default=os.path.join(ROOT, "..", "shared", "models"))
    p.add_argument("--models", nargs="*", default=DEFAULT_MODELS)
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--write", help="replace the memory table in this Markdown file")
    a = p.parse_args()

    header = ("| model | threads | ours: growth (MB) | LiteRT XNNPACK: growth (MB) | ours / XNNPACK | LiteRT built-in: growth (MB) "
              "| ours / built-in | ours: peak (MB) | LiteRT XNNPACK: peak (MB) |")
    table = [header, "|" + "---|" * (header.count("|") - 1)]
    baselines = []
    for rel in a.models:
        for threads in a.threads:
            model = rel if os.path.isabs(rel) else os.path.join(a.models_dir, rel)
            o = ours(a.cli, model, threads, a.runs)
            x = litert(model, threads, a.runs, builtin=False)
            b = litert(model, threads, a.runs, builtin=True)
            baselines.append((o["baseline_rss_mb"], x["baseline_rss_mb"]))
            og, xg, bg = o["peak_rss_increase_mb"], x["peak_rss_increase_mb"], b["peak_rss_increase_mb"]
            table.append(f"| {os.path.basename(rel)} | {threads} | {og:.1f} | {xg:.1f} | {ratio(og, xg)} | {bg:.1f} | {ratio(og, bg)} "
                         f"| {o['peak_rss_mb']:.1f} | {x['peak_rss_mb']:.1f} |")
            print(table[-1], flush=True)
    our_base = min(b[0] for b in baselines)
    their_base = min(b[1] for b in baselines)
    machine = (f"{cpu_name()}, {os.cpu_count()} cores; {a.runs} runs after 5 warm-up runs, one "
               f"fresh process per model and side; baselines before the model: vision-cli about {our_base:.0f} MB, "
               f"Python with numpy and LiteRT about {their_base:.0f} MB; MB = 2^20 bytes; {datetime.date.today().isoformat()}")
    print()
    print("\n".join(table))
    print()
    print(machine)
    if a.write:
        write_marked_block(os.path.join(ROOT, a.write), "memory_vs_litert", machine, table)
        print(f"wrote {a.write}")


if __name__ == "__main__":
    main()
