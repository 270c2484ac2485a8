#!/usr/bin/env bash
# Reproduces the shipped ink models in one command: the lexicons (English; Spanish, Turkish, German, French,
# Portuguese, Italian, Vietnamese with their charsets); the "en" text model from random weights (6 epochs,
# about an hour on this 2-core machine); its character network (characters cut out of the training words with that
# model, then 15 epochs, about 35 minutes in all); the "en" model continued on UNIPEN's text lines too (2 epochs, about
# an hour: the character network keeps the first run's cuts); the Latin-script network of es, tr, de, fr, pt, it and vi
# from that "en" one (1 epoch, then 2 more with more marked words: about 30 and 45 minutes); the "en" model continued
# on every usable UNIPEN source's words and characters (2 epochs, about 70 minutes), then 2 more epochs with twice the
# copies of the text lines (about 75 minutes), then 1 more at a lower learning rate with twice the isolated
# characters (about 60 minutes), then 2 epochs with lines built from the training writers' words (about 25 minutes
# each), then 1 more grown by a third, residual LSTM layer (about 30 minutes), 1 more at a lower learning rate (about
# 30 minutes) and 1 grown by a fourth, with the batches' padding masked (about 35 minutes); the shapes model (17 epochs, about 30 minutes); the shapes model's
# geometry network (60 epochs, about 5 minutes); the registry entries and the test goldens. Every run has a fixed
# number of epochs and a seed, so a slower machine trains the same model, only later; each training record
# (models/*.training.json) lists the ../shared/ink files it read with their sha256.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/setup.sh --ink
python3 tools/ink/make_lexicon.py
python3 tools/ink/make_lexicon.py --language es
python3 tools/ink/make_lexicon.py --language tr
python3 tools/ink/make_lexicon.py --language de
python3 tools/ink/make_lexicon.py --language fr
python3 tools/ink/make_lexicon.py --language pt
python3 tools/ink/make_lexicon.py --language it
python3 tools/ink/make_lexicon.py --language vi
python3 tools/ink/train_text.py --epochs 6 --seed 1 --copies 2 --single-characters 0.25 --speed-range 3 --output models/ink-en.tflite
python3 tools/ink/train_characters.py --epochs 15 --seed 1 --label-smoothing 0.1 --unipen-characters all --unipen-character-copies 1
python3 tools/ink/train_text.py --resume models/ink-en.tflite --learning-rate 5e-4 --epochs 2 --seed 2 --copies 2 --single-characters 0.25 --speed-range 3 --unipen-lines 2 --output models/ink-en.tflite
python3 tools/ink/train_latin.py --epochs 1 --seed 4 --copies 1 --synthetic 60000
python3 tools/ink/train_latin.py --initial models/ink-latin.tflite --epochs 2 --seed 5 --variants 3 --copies 1 --synthetic 60000 --marked-weight 4 --random-mark-rate 0.4
python3 tools/ink/train_text.py --resume models/ink-en.tflite --learning-rate 5e-4 --epochs 2 --seed 3 --copies 1 --single-characters 0.25 --speed-range 3 --unipen-lines 2 --word-sources all --unipen-characters all --character-sample 20000 --synthetic 60000 --output models/ink-en.tflite
python3 tools/ink/train_text.py --resume models/ink-en.tflite --learning-rate 5e-4 --epochs 2 --seed 4 --copies 1 --single-characters 0.25 --speed-range 3 --unipen-lines 4 --word-sources all --unipen-characters all --character-sample 20000 --synthetic 60000 --output models/ink-en.tflite
python3 tools/ink/train_text.py --resume models/ink-en.tflite --learning-rate 3e-4 --epochs 1 --seed 5 --copies 1 --single-characters 0.25 --speed-range 3 --unipen-lines 4 --word-sources all --unipen-characters all --character-sample 40000 --synthetic 60000 --output models/ink-en.tflite
python3 tools/ink/train_text.py --resume models/ink-en.tflite --learning-rate 3e-4 --epochs 1 --seed 6 --copies 1 --single-characters 0.25 --speed-range 3 --unipen-lines 4 --word-sources all --unipen-characters all --character-sample 40000 --synthetic 45000 --word-lines 15000 --output models/ink-en.tflite
python3 tools/ink/train_text.py --resume models/ink-en.tflite --learning-rate 2e-4 --epochs 1 --seed 7 --copies 1 --single-characters 0.25 --speed-range 3 --unipen-lines 4 --word-sources all --unipen-characters all --character-sample 40000 --synthetic 45000 --word-lines 20000 --output models/ink-en.tflite
python3 tools/ink/train_text.py --resume models/ink-en.tflite --add-layers 1 --learning-rate 4e-4 --epochs 1 --seed 8 --copies 1 --single-characters 0.25 --speed-range 3 --unipen-lines 4 --word-sources all --unipen-characters all --character-sample 40000 --synthetic 45000 --word-lines 20000 --output models/ink-en.tflite
python3 tools/ink/train_text.py --resume models/ink-en.tflite --learning-rate 3e-4 --epochs 1 --seed 9 --copies 1 --single-characters 0.25 --speed-range 3 --unipen-lines 4 --word-sources all --unipen-characters all --character-sample 40000 --synthetic 45000 --word-lines 20000 --output models/ink-en.tflite
python3 tools/ink/train_text.py --resume models/ink-en.tflite --add-layers 1 --masked --learning-rate 4e-4 --epochs 1 --seed 10 --float16-weights --copies 1 --single-characters 0.25 --speed-range 3 --unipen-lines 4 --word-sources all --unipen-characters all --character-sample 40000 --synthetic 45000 --word-lines 20000 --output models/ink-en.tflite
python3 tools/ink/train_shapes.py --epochs 17 --seed 3 --copies 20 --other-sketches 3000 --dropout 0.3 --varied --label-smoothing 0.1
python3 tools/ink/train_shape_geometry.py --seed 3
python3 tools/ink/register.py
python3 tools/ink/make_ink_goldens.py
