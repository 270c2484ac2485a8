#!/usr/bin/env python3
"""Alternating A/B of two vision-cli builds at full precision, for models too fast for tools/ab_bench.sh's three
decimals (a 0.02 ms LSTM): each round runs A and B back to back (the order alternating), `bench --json`, and the
script prints the best median, the best minimum, the median of the rounds' median ratios B/A and the rounds B won.

    tools/ab_json.py /work/base47/.build-native/release/vision-cli .build/release/vision-cli 2000 12 1 MODEL...

usage: ab_json.py CLI_A CLI_B RUNS ROUNDS THREADS MODEL..."""
import json
import os
import statistics
import subprocess
import sys

a, b, runs, rounds, threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
for model in sys.argv[6:]:
    results = {'A': [], 'B': []}
    for i in range(rounds):
        order = [('A', a), ('B', b)] if i % 2 == 0 else [('B', b), ('A', a)]
        for label, binary in order:
            out = subprocess.run([binary, 'bench', model, '--runs', runs, '--threads', threads, '--warmup', '20', '--json'],
                                 capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
            summary = json.loads(out)
            results[label].append((summary['median_ms'], summary['min_ms']))
    a_median, b_median = (min(x[0] for x in results[k]) for k in 'AB')
    a_min, b_min = (min(x[1] for x in results[k]) for k in 'AB')
    ratios = [y[0] / x[0] for x, y in zip(results['A'], results['B'])]
    won = sum(1 for r in ratios if r < 1)
    print(f"{os.path.basename(model)} t{threads}: best median A {a_median:.4f} B {b_median:.4f} (B/A {b_median / a_median:.3f}); "
          f"best min A {a_min:.4f} B {b_min:.4f} (B/A {b_min / a_min:.3f}); paired median ratio {statistics.median(ratios):.3f}, "
          f"B faster {won}/{rounds}", flush=True)
