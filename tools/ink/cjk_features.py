"""The picture the Chinese and Japanese character network reads: eight planes of pen direction and one of pen-up
movement, 32 x 32 each (the online direction features of Bai and Huo, "A study on the use of 8-directional features
for online handwritten Chinese character recognition", ICDAR 2005, drawn as planes for a convolutional network).
Sources/LiteTasks/Ink computes the same values; the tests compare the two.

1. The ink's bounding box (all strokes) is scaled by its larger side to SPAN pixels and centred in the SIZE x SIZE
   grid (pixel centres at integer coordinates 0..SIZE-1, so the centre is (SIZE-1)/2).
2. Every segment of every stroke is cut into pieces of at most STEP pixels. A piece of length l and direction θ adds,
   at its midpoint (bilinearly), l·sin(π/4 − φ)/sin(π/4) to plane k and l·sin(φ)/sin(π/4) to plane k+1 (mod 8),
   where k = ⌊θ / (π/4)⌋ and φ = θ − kπ/4: the two neighbouring unit directions whose non-negative combination is
   the piece (θ is measured from +x toward +y, y down).
3. The straight pen-up movement from each stroke's last point to the next stroke's first point adds its pieces'
   lengths to plane 8, whatever their direction.
4. Each plane is blurred with [1 2 1]/4 along x and then along y (outside the grid counts as zero).
The result is float32 [SIZE, SIZE, 9] (height, width, plane), the network's input layout.
"""
import math

import numpy as np

SIZE = 32
SPAN = 28.0
STEP = 0.5
PLANES = 9


def _pieces(starts, ends):
    """Midpoints, lengths and directions of every segment's pieces of at most STEP."""
    delta = ends - starts
    length = np.sqrt(delta[:, 0] * delta[:, 0] + delta[:, 1] * delta[:, 1])  # not hypot: the Swift twin's arithmetic
    counts = np.maximum(1, np.ceil(length / STEP)).astype(np.int64)
    segment = np.repeat(np.arange(len(starts)), counts)
    # The j-th of n pieces of a segment has its midpoint at fraction (j + 0.5) / n.
    first = np.cumsum(counts) - counts
    j = np.arange(counts.sum()) - np.repeat(first, counts)
    u = (j + 0.5) / counts[segment]
    mid = starts[segment] + delta[segment] * u[:, None]
    return mid, (length / counts)[segment], delta[segment]


def _splat(planes, plane, points, weights):
    """Adds weights at points (x, y) bilinearly into planes[:, :, plane] (or the given per-point plane indices)."""
    x, y = points[:, 0], points[:, 1]
    x0, y0 = np.floor(x).astype(np.int64), np.floor(y).astype(np.int64)
    fx, fy = x - x0, y - y0
    for dx, dy, w in ((0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)), (0, 1, (1 - fx) * fy), (1, 1, fx * fy)):
        xi, yi = x0 + dx, y0 + dy
        inside = (xi >= 0) & (xi < SIZE) & (yi >= 0) & (yi < SIZE)
        p = plane[inside] if isinstance(plane, np.ndarray) else plane
        np.add.at(planes, (yi[inside], xi[inside], p), (weights * w)[inside])


def direction_planes(strokes):
    """float32 [SIZE, SIZE, PLANES] for an ink given as strokes of (x, y[, t]) points (any units, y down)."""
    strokes = [np.asarray([(p[0], p[1]) for p in s], dtype=np.float64) for s in strokes if len(s)]
    planes = np.zeros((SIZE, SIZE, PLANES), dtype=np.float64)
    if not strokes:
        return planes.astype(np.float32)
    points = np.concatenate(strokes)
    low, high = points.min(axis=0), points.max(axis=0)
    scale = SPAN / max(float((high - low).max()), 1e-9)
    centre = (low + high) / 2
    placed = [(s - centre) * scale + (SIZE - 1) / 2 for s in strokes]

    on = [(s[:-1], s[1:]) for s in placed if len(s) > 1]
    if on:
        mid, length, delta = _pieces(np.concatenate([a for a, _ in on]), np.concatenate([b for _, b in on]))
        keep = length > 0
        mid, length, delta = mid[keep], length[keep], delta[keep]
        theta = np.mod(np.arctan2(delta[:, 1], delta[:, 0]), 2 * math.pi)
        k = np.minimum(np.floor(theta / (math.pi / 4)).astype(np.int64), 7)
        phi = theta - k * (math.pi / 4)
        s45 = math.sin(math.pi / 4)
        _splat(planes, k, mid, length * np.sin(math.pi / 4 - phi) / s45)
        _splat(planes, (k + 1) % 8, mid, length * np.sin(phi) / s45)
    if len(placed) > 1:
        starts = np.array([s[-1] for s in placed[:-1]])
        ends = np.array([s[0] for s in placed[1:]])
        mid, length, _ = _pieces(starts, ends)
        keep = length > 0
        _splat(planes, 8, mid[keep], length[keep])

    # [1 2 1] / 4 along x, then along y, zero outside.
    padded = np.pad(planes, ((0, 0), (1, 1), (0, 0)))
    planes = (padded[:, :-2] + 2 * padded[:, 1:-1] + padded[:, 2:]) / 4
    padded = np.pad(planes, ((1, 1), (0, 0), (0, 0)))
    planes = (padded[:-2] + 2 * padded[1:-1] + padded[2:]) / 4
    return planes.astype(np.float32)
