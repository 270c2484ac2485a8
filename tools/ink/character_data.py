"""Lone characters as pictures, for the "en" model's character network (train_characters.py).

`raster` is the arithmetic the recognizer repeats in Swift (InkCharacterClassifier.raster): the ink's larger side
scaled to SPAN pixels and centred in a SIZE x SIZE picture, the pen a line of points STEP pixels apart splatted
bilinearly (a point alone weighs as much as a pixel of line), then widened by a [1 2 1] blur each way, doubled and
clipped to 1. A picture, not a pen path: stroke order, direction and speed do not change what a character is.
"""
import numpy as np

SIZE = 32
SPAN = 26.0
STEP = 0.25
CHARACTERS = "".join(chr(c) for c in range(33, 127))  # the network's outputs: printable ASCII without the space


def raster(strokes):
    """strokes: [[[x, y, ...], ...], ...] -> float32 [SIZE, SIZE] in [0, 1]."""
    pts = [np.asarray([(p[0], p[1]) for p in s], np.float64) for s in strokes if len(s)]
    allp = np.concatenate(pts)
    lo, hi = allp.min(0), allp.max(0)
    scale = SPAN / max(hi[0] - lo[0], hi[1] - lo[1], 1e-9)
    centre = (lo + hi) / 2
    samples, weights = [], []
    for p in pts:
        q = (p - centre) * scale + SIZE / 2 - 0.5
        if len(q) == 1:
            samples.append(q)
            weights.append(np.full(1, 1.0 / STEP))
            continue
        for a, b in zip(q[:-1], q[1:]):
            n = max(1, int(np.ceil(np.hypot(*(b - a)) / STEP)))
            samples.append(a + (b - a) * (np.arange(n) / n)[:, None])
            weights.append(np.ones(n))
        samples.append(q[-1:])
        weights.append(np.ones(1))
    s, w = np.concatenate(samples), np.concatenate(weights)
    x0, y0 = np.floor(s[:, 0]).astype(int), np.floor(s[:, 1]).astype(int)
    fx, fy = s[:, 0] - x0, s[:, 1] - y0
    acc = np.zeros((SIZE, SIZE), np.float64)
    for dx, dy, share in ((0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)), (0, 1, (1 - fx) * fy), (1, 1, fx * fy)):
        xs, ys = x0 + dx, y0 + dy
        inside = (xs >= 0) & (xs < SIZE) & (ys >= 0) & (ys < SIZE)
        np.add.at(acc, (ys[inside], xs[inside]), (w * share)[inside])
    img = np.minimum(acc * STEP, 1.0)
    padded = np.pad(img, 1)
    rows = padded[:, :-2] * 0.25 + padded[:, 1:-1] * 0.5 + padded[:, 2:] * 0.25
    blurred = rows[:-2] * 0.25 + rows[1:-1] * 0.5 + rows[2:] * 0.25
    return np.minimum(2.0 * blurred, 1.0).astype(np.float32)
