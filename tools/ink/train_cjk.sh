#!/usr/bin/env bash
# Reproduces a shipped Chinese or Japanese ink model in one command: its network (synthetic ink only, fixed epochs
# and seed), its bigram models and its registry entries. Measured on this 2-core machine: "ja" (3,071 characters,
# 122,840 pictures, 6 epochs) 33 minutes while a CI run shared it; "zh" (the network both zh-Hans and zh-Hant read,
# 6,020 characters, 240,800 pictures, 6 epochs) 49 minutes. The training record (models/ink-<ja|zh>.training.json)
# lists the data files read with their sha256 and the package versions that drew the ink.
#
#     tools/ink/train_cjk.sh ja
#     tools/ink/train_cjk.sh zh
set -euo pipefail
cd "$(dirname "$0")/../.."
language=${1:?usage: tools/ink/train_cjk.sh ja|zh}
case "$language" in
  ja) settings=(--per-class 40 --epochs 6 --width 32 --seed 1 --component-gaps) ;;
  zh) settings=(--per-class 40 --epochs 6 --width 32 --seed 1) ;;
  *) echo "train_cjk.sh: no recipe for \"$language\" (ja, zh)" >&2; exit 2 ;;
esac
tools/setup.sh --cjk
export PATH="$PWD/.venv/bin:$PATH"
python3 tools/ink/train_cjk.py --language "$language" "${settings[@]}"
case "$language" in
  zh) languages=(zh-Hans zh-Hant) ;;
  *) languages=("$language") ;;
esac
python3 tools/ink/make_cjk_language_model.py --languages "${languages[@]}" --out models
python3 tools/ink/register.py
