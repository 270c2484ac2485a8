#!/usr/bin/env bash
# Reproduces the shipped ink models in one command (about 2 hours on 2 cores):
#   the lexicon, the "en" text model (a 60-minute run, then a 44-minute run continuing it with more single
#   characters and timing-free copies), the shapes model (22 minutes), the registry entries and the test goldens.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/setup.sh --ink
python3 tools/ink/make_lexicon.py
python3 tools/ink/train_text.py --minutes 60 --seed 1 --copies 2 --single-characters 0.1 --output /tmp/ink-en-run1.tflite
python3 tools/ink/train_text.py --resume /tmp/ink-en-run1.tflite --seed 3 --copies 3 --single-characters 0.25 \
  --learning-rate 5e-4 --minutes 44 --output models/ink-en.tflite
python3 tools/ink/train_shapes.py --minutes 22 --seed 1
python3 tools/ink/register.py
python3 tools/ink/make_ink_goldens.py
