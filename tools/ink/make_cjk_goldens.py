#!/usr/bin/env python3
"""Writes Tests/LiteTasksTests/Goldens/cjk.json: cjk_features.py's direction planes of real Chinese and Japanese inks,
read by the test from ../shared/ink by file and line (label and writer kept so that the test can check the line still
holds them), and of small hand-made inks for the edge cases (a lone point, a stroke of one point among others,
strokes that double back). Only the planes' non-zero values are stored, as [index, value] with index
(y · 32 + x) · 9 + plane.

    python3 tools/ink/make_cjk_goldens.py
"""
import gzip
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cjk_features  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SHARED = os.environ.get("INK_DATA", os.path.join(ROOT, "..", "shared", "ink"))
REAL = [("tegaki-japanese-kanji.ndjson.gz", 0), ("tegaki-japanese-kanji.ndjson.gz", 137), ("tegaki-kana.ndjson.gz", 5),
        ("tegaki-kana.ndjson.gz", 100), ("tegaki-zh-tw.ndjson.gz", 3), ("hanzi-strokes.ndjson.gz", 4000)]
MADE = {
    "a lone point": [[[10, 10, None]]],
    "a point among strokes": [[[0, 0, 0], [100, 0, 10]], [[50, 50, 20]], [[0, 100, 30], [100, 100, 40]]],
    "doubling back": [[[0, 0, 0], [100, 40, 10], [0, 80, 20], [100, 120, 30]], [[100, 0, 40], [0, 120, 50]]],
    "a vertical line": [[[5, 0, 0], [5, 300, 10]]],
}


def sparse(planes):
    flat = planes.reshape(-1)
    return [[int(i), float(f"{flat[i]:.8g}")] for i in flat.nonzero()[0]]


def main():
    samples = []
    for file, line in REAL:
        with gzip.open(os.path.join(SHARED, file), "rt", encoding="utf-8") as f:
            for n, text in enumerate(f):
                if n == line:
                    d = json.loads(text)
                    break
        samples.append(dict(file=file, line=line, label=d["label"], writer=d["writer"],
                            values=sparse(cjk_features.direction_planes(d["strokes"]))))
    for name, strokes in MADE.items():
        samples.append(dict(name=name, strokes=strokes, values=sparse(cjk_features.direction_planes(strokes))))
    path = os.path.join(ROOT, "Tests", "LiteTasksTests", "Goldens", "cjk.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(dict(size=cjk_features.SIZE, planes=cjk_features.PLANES, samples=samples), f, ensure_ascii=False)
    print(f"wrote {path}: {len(samples)} samples")


if __name__ == "__main__":
    main()
