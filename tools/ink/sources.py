#!/usr/bin/env python3
"""Per-source table of ../shared/ink's UNIPEN data: what ink_data.TRUSTED_SOURCES rests on.

    python3 tools/ink/sources.py [--file unipen-words] [--model MODEL.tflite] [--sheet OUT.png]

For every UNIPEN category/institution: samples, writers, median points per label character, where the i and j dots
lie as read (above the word's middle is y-down: how ink_data.py's orientation is checked) and, with --model, the
greedy character error rate of that model on 40 random samples as stored and flipped upside down. --sheet draws six
samples of every source with their labels, to look at. A source whose ink does not show its label has a high error
rate whatever the orientation and looks wrong on the sheet.
"""
import argparse
import collections
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ink_data  # noqa: E402
from ink_data import greedy, edit_distance  # noqa: E402
from ink_features import features  # noqa: E402


def dots(samples):
    """(above, below): small strokes of inks whose label has an i or j, against the median y of the ink, as read."""
    above = below = 0
    for d in samples:
        if len(d["strokes"]) < 2 or not any(c in d["label"] for c in "ij"):
            continue
        ys = sorted(p[1] for s in d["strokes"] for p in s)
        height = ys[-1] - ys[0]
        for s in d["strokes"]:
            xs, sy = [p[0] for p in s], [p[1] for p in s]
            if height > 0 and max(xs) - min(xs) < 0.12 * height and max(sy) - min(sy) < 0.12 * height:
                if sum(sy) / len(sy) < ys[len(ys) // 2]:
                    above += 1
                else:
                    below += 1
    return above, below


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--file", default="unipen-words")
    parser.add_argument("--model")
    parser.add_argument("--sheet")
    args = parser.parse_args()
    by = collections.defaultdict(list)
    for d in ink_data.read(args.file, trusted_only=False):
        parts = d["source"].split("/")
        by[parts[2] + "/" + parts[3]].append(d)
    run = None
    if args.model:
        from ai_edge_litert.interpreter import Interpreter

        def run(f):
            it = Interpreter(args.model)
            i, o = it.get_input_details()[0], it.get_output_details()[0]
            it.resize_tensor_input(i["index"], [1, len(f), 5])
            it.allocate_tensors()
            it.set_tensor(i["index"], f[None])
            it.invoke()
            return it.get_tensor(o["index"])[0]
    rng = np.random.default_rng(0)
    trusted = ink_data.TRUSTED_SOURCES.get(args.file, {})
    print("| source | samples | writers | points/char | used | i/j dots above : below | " + ("CER as stored | CER flipped |" if run else ""))
    print("|---|---|---|---|---|---|" + ("---|---|" if run else ""))
    for key, samples in sorted(by.items()):
        ppc = np.median([sum(len(s) for s in d["strokes"]) / len(d["label"]) for d in samples])
        above, below = dots(samples)
        direction = trusted.get(key.split("/")[1])
        row = (f"| {key} | {len(samples)} | {len({d['writer'] for d in samples})} | {ppc:.1f} | "
               f"{'y ' + direction + ' stored' if direction else 'no'} | {above} : {below} |")
        if run:
            pick = [samples[i] for i in rng.choice(len(samples), min(40, len(samples)), replace=False)]
            for flip in (False, True):
                e = t = 0
                for d in pick:
                    s = [[[p[0], -p[1] if flip else p[1]] + list(p[2:]) for p in st] for st in d["strokes"]]
                    e += edit_distance(greedy(run(features(s))), d["label"])
                    t += len(d["label"])
                row += f" {e / t:.2f} |"
        print(row, flush=True)
    if args.sheet:
        from PIL import Image, ImageDraw
        keys = sorted(by)
        sheet = Image.new("L", (160 * 6, 160 * len(keys)), 255)
        for r, key in enumerate(keys):
            for c, d in enumerate(by[key][::max(1, len(by[key]) // 6)][:6]):
                pts = [p for s in d["strokes"] for p in s]
                x0, y0 = min(p[0] for p in pts), min(p[1] for p in pts)
                scale = 140 / max(max(p[0] for p in pts) - x0, max(p[1] for p in pts) - y0, 1)
                cell = Image.new("L", (160, 160), 255)
                draw = ImageDraw.Draw(cell)
                for s in d["strokes"]:
                    q = [(10 + (p[0] - x0) * scale, 15 + (p[1] - y0) * scale) for p in s]
                    if len(q) > 1:
                        draw.line(q, fill=0, width=2)
                draw.text((2, 2), f"{key} {d['label']}", fill=0)
                draw.rectangle([0, 0, 159, 159], outline=128)
                sheet.paste(cell, (c * 160, r * 160))
        sheet.save(args.sheet)


if __name__ == "__main__":
    main()
