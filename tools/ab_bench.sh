#!/usr/bin/env bash
# Compares two builds of vision-cli on the same models in the same minutes: each model runs on build A, then B,
# ROUNDS times, and the best median and best minimum of each side are printed (this VM's slow phases make single
# runs unreliable; see Docs/benchmarks.md).
#
#   git worktree add /tmp/base <commit> && (cd /tmp/base && swift build -c release --product vision-cli \
#       --scratch-path /tmp/base-build)
#   tools/ab_bench.sh /tmp/base-build/release/vision-cli .build/release/vision-cli 300 5 1 /tmp/layers/f_*.tflite
#
# usage: ab_bench.sh CLI_A CLI_B RUNS ROUNDS THREADS MODEL...
set -euo pipefail
a=$1 b=$2 runs=$3 rounds=$4 threads=$5
shift 5
for model in "$@"; do
  for _ in $(seq "$rounds"); do
    echo "A $("$a" bench "$model" --runs "$runs" --threads "$threads" --warmup 20 | tail -1)"
    echo "B $("$b" bench "$model" --runs "$runs" --threads "$threads" --warmup 20 | tail -1)"
  done | python3 -c "
import re, sys
best = {'A': [[], []], 'B': [[], []]}
for line in sys.stdin:
    m = re.match(r'(A|B) .*min ([0-9.]+) ms\s+median ([0-9.]+)', line)
    if m:
        best[m.group(1)][0].append(float(m.group(2)))
        best[m.group(1)][1].append(float(m.group(3)))
(amin, amed), (bmin, bmed) = [(min(v[0]), min(v[1])) for v in (best['A'], best['B'])]
print(f'{sys.argv[1]}: median A {amed:.3f} B {bmed:.3f} (B/A {bmed / amed:.3f})  min A {amin:.3f} B {bmin:.3f} (B/A {bmin / amin:.3f})')
" "$(basename "$model")"
done
