#!/usr/bin/env bash
# The main job from a fresh clone: set up, build, then run real models on the engine and compare with
# LiteRT on the same inputs and in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cli=$(tools/build.sh)
model=../shared/models/classification/mobilenet_v2_1.0_224_dequant_float.tflite
"$cli" inspect "$model"
echo
python3 tools/bench_vs_litert.py --cli "$cli" --runs 30
