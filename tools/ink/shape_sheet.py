#!/usr/bin/env python3
"""Draws Quick, Draw!'s held-out shape drawings as contact sheets, each with its index, label, Quick, Draw! category
and what `vision-cli ink` reads, so a person can check the labels and the misreadings (shapes_review.tsv was made
from these sheets).

    python3 tools/ink/shape_sheet.py [--split test|validation] [--misses | --blind] [--out /tmp/shapes] [--cli PATH]

Writes OUT-0.png, OUT-1.png, ... of 60 drawings each, sorted by label and category; a misreading is in red.
"""
import argparse
import os
import sys

import numpy as np
from PIL import Image, ImageDraw

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evaluate  # noqa: E402
import shape_data  # noqa: E402

COLUMNS, CELL, PER_SHEET = 10, 160, 60


def draw(cell, d, index, read, ox, oy):
    points = np.concatenate([np.asarray([(p[0], p[1]) for p in s]) for s in d["strokes"] if len(s)])
    lo, hi = points.min(0), points.max(0)
    scale = 120 / max((hi - lo).max(), 1e-6)
    for s in d["strokes"]:
        line = [((p[0] - lo[0]) * scale + ox + 20, (p[1] - lo[1]) * scale + oy + 30) for p in s]
        if len(line) > 1:
            cell.line(line, fill="black", width=2)
        elif line:
            cell.ellipse([line[0][0] - 1, line[0][1] - 1, line[0][0] + 1, line[0][1] + 1], fill="black")
    if read is None:
        cell.text((ox + 3, oy + 2), f"{index} {d['label']}", fill="black")
    else:
        cell.text((ox + 3, oy + 2), f"{index} {d['label']} > {read}", fill="red" if read != d["label"] else "green")
    cell.text((ox + 3, oy + 13), d["category"][:22], fill="blue")
    cell.rectangle([ox, oy, ox + CELL - 1, oy + CELL - 1], outline="gray")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", default="test", choices=["test", "validation"], help="Quick, Draw!'s held-out half or its validation part")
    parser.add_argument("--misses", action="store_true", help="only the drawings read as something other than their label")
    parser.add_argument("--blind", action="store_true", help="do not show what the recognizer reads (for a review that does not lean on it)")
    parser.add_argument("--out", default="/tmp/shapes", help="prefix of the PNGs")
    parser.add_argument("--cli", default=os.path.join(evaluate.ROOT, ".build", "release", "vision-cli"))
    args = parser.parse_args()
    samples = shape_data.quickdraw(args.split)
    if args.blind:
        rows = [(i, d, None) for i, d in enumerate(samples)]
    else:
        results = evaluate.run_cli(args.cli, samples, "zxx-Zsym-x-shapes")
        rows = [(i, d, r["candidates"][0]["text"] if r.get("candidates") else "error") for i, (d, r) in enumerate(zip(samples, results))]
    if args.misses:
        rows = [row for row in rows if row[2] != row[1]["label"]]
    rows.sort(key=lambda row: (row[1]["label"], row[1]["category"], row[0]))
    for start in range(0, len(rows), PER_SHEET):
        chunk = rows[start:start + PER_SHEET]
        sheet = Image.new("RGB", (COLUMNS * CELL, -(-len(chunk) // COLUMNS) * CELL), "white")
        cell = ImageDraw.Draw(sheet)
        for k, (index, d, read) in enumerate(chunk):
            draw(cell, d, index, read, (k % COLUMNS) * CELL, (k // COLUMNS) * CELL)
        path = f"{args.out}-{start // PER_SHEET}.png"
        sheet.save(path)
        print(path)


if __name__ == "__main__":
    main()
