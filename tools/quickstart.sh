#!/usr/bin/env bash
# The main job from a fresh clone: set up, build, classify a real photo with the default model (fetched through
# the model registry; ../shared/models is the offline mirror), detect and label the objects of another (writing
# pets-annotated.png), then benchmark the engine against LiteRT on the
# same inputs in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
export PATH="$PWD/.venv/bin:$PATH"  # python3: the project's virtual environment, with LiteRT
cli=$(tools/build.sh)
if [ -z "${LITEVISION_MODEL_MIRROR:-}" ] && [ -d ../shared/models ]; then
  export LITEVISION_MODEL_MIRROR="$PWD/../shared/models"
fi
"$cli" classify ../shared/images/bird.png
echo
"$cli" classify ../shared/images/bird.png --model birds --max-results 3
echo
"$cli" detect ../shared/images/pets.jpg --multiple --classify --annotate pets-annotated.png
echo
# Four short alternating rounds, each side its best: this shared VM has slow phases of seconds (Docs/benchmarks.md).
python3 tools/bench_vs_litert.py --cli "$cli" --runs 15 --rounds 4
