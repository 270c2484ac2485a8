#!/usr/bin/env bash
# Paired A/B of two vision-cli builds for changes that move typical times rather than best ones (threading):
# each round runs A and B back to back, alternating which goes first, and the script prints the medians of the
# rounds' medians, the best rounds, in how many rounds B was faster, and the median of the per-round ratios B/A.
# On this project's noisy VMs a single process's median moves up to 2x within a minute; count rounds won.
#
#   tools/ab_paired.sh /tmp/base-build/release/vision-cli .build/release/vision-cli 100 20 2 MODEL...
#
# usage: ab_paired.sh CLI_A CLI_B RUNS ROUNDS THREADS MODEL...
set -euo pipefail
a=$1 b=$2 runs=$3 rounds=$4 threads=$5; shift 5
for model in "$@"; do
  for r in $(seq "$rounds"); do
    if [ $((r % 2)) -eq 0 ]; then first=$a; second=$b; fl=A; sl=B; else first=$b; second=$a; fl=B; sl=A; fi
    echo "$fl $("$first" bench "$model" --runs "$runs" --threads "$threads" --warmup 20 | tail -1)"
    echo "$sl $("$second" bench "$model" --runs "$runs" --threads "$threads" --warmup 20 | tail -1)"
  done | python3 -c "
import re, sys, statistics as st
r = {'A': [], 'B': []}
for line in sys.stdin:
    m = re.match(r'(A|B) .*min ([0-9.]+) ms\s+median ([0-9.]+)', line)
    if m: r[m.group(1)].append(float(m.group(3)))
a, b = r['A'], r['B']
wins = sum(1 for x, y in zip(a, b) if y < x)
ratios = sorted(y / x for x, y in zip(a, b))
print(f'{sys.argv[1]}: medians A {st.median(a):.3f} B {st.median(b):.3f} (B/A {st.median(b)/st.median(a):.3f}); best A {min(a):.3f} B {min(b):.3f}; B faster in {wins}/{len(a)} rounds, median paired ratio {st.median(ratios):.3f}')
" "$(basename "$model")"
done
