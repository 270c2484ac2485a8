#!/usr/bin/env bash
# Reproduces the shipped ink models in one command (about 3 hours on 2 cores; the issue asks for about one):
#   the lexicon; the "en" text model in three runs, each continuing the last (60 minutes from scratch; 44 with more
#   single characters and timing-free copies; 55 with real characters cut out of the training words by the second
#   run and copies written up to 3 times slower or faster); the shapes model (25 minutes); the registry entries and
#   the test goldens.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/setup.sh --ink
python3 tools/ink/make_lexicon.py
python3 tools/ink/train_text.py --minutes 60 --seed 1 --copies 2 --single-characters 0.1 --output /tmp/ink-en-run1.tflite
python3 tools/ink/train_text.py --resume /tmp/ink-en-run1.tflite --seed 3 --copies 3 --single-characters 0.25 \
  --learning-rate 5e-4 --minutes 44 --output /tmp/ink-en-run2.tflite
python3 tools/ink/train_text.py --resume /tmp/ink-en-run2.tflite --cut-characters-with /tmp/ink-en-run2.tflite --seed 5 \
  --copies 3 --single-characters 0.25 --speed-range 3 --learning-rate 5e-4 --minutes 55 --output models/ink-en.tflite
python3 tools/ink/train_shapes.py --minutes 25 --seed 3 --copies 20 --other-sketches 3000
python3 tools/ink/register.py
python3 tools/ink/make_ink_goldens.py
