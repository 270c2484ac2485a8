#!/usr/bin/env bash
# Reproduces the shipped ink models in one command (about 3 hours on 2 cores): the lexicon; the "en" text model in
# one run from random weights (62 minutes, about 3 of them features); its character network (35 minutes: 13 to cut
# characters out of the training words with that model, 3 to draw them, 20 to train); the shapes model (28 minutes: 17 epochs on
# 2026-11-27's AVX-512 AMD EPYC; a slower machine gets fewer in the same budget);
# the shapes model's geometry network (5 minutes, most of it features); the registry entries and the test goldens.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/setup.sh --ink
python3 tools/ink/make_lexicon.py
python3 tools/ink/train_text.py --minutes 62 --seed 1 --copies 2 --single-characters 0.25 --speed-range 3 --output models/ink-en.tflite
python3 tools/ink/train_characters.py --minutes 20 --seed 1 --label-smoothing 0.1
python3 tools/ink/train_shapes.py --minutes 28 --seed 3 --copies 20 --other-sketches 3000 --dropout 0.3 --varied --label-smoothing 0.1
python3 tools/ink/train_shape_geometry.py --seed 3
python3 tools/ink/register.py
python3 tools/ink/make_ink_goldens.py
