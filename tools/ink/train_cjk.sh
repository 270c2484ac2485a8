#!/usr/bin/env bash
# Reproduces a shipped Chinese or Japanese ink model in one command: its network (synthetic ink only, fixed epochs
# and seed; about 70 minutes for "ja" on this 2-core machine: 10 minutes drawing 184,260 pictures, then 7 epochs),
# its bigram model and its registry entry. The training record (models/ink-<language>.training.json) lists the
# data files read with their sha256 and the package versions that drew the ink.
#
#     tools/ink/train_cjk.sh ja
set -euo pipefail
cd "$(dirname "$0")/../.."
language=${1:?usage: tools/ink/train_cjk.sh ja}
case "$language" in
  ja) settings=(--per-class 60 --epochs 7 --width 32 --seed 1) ;;
  zh) settings=(--per-class 40 --epochs 6 --width 32 --seed 1) ;;
  *) echo "train_cjk.sh: no recipe for \"$language\" yet (ja)" >&2; exit 2 ;;
esac
tools/setup.sh --cjk
export PATH="$PWD/.venv/bin:$PATH"
python3 tools/ink/train_cjk.py --language "$language" "${settings[@]}"
python3 tools/ink/make_cjk_language_model.py --languages "$language" --out models
python3 tools/ink/register.py
