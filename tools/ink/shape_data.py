"""Shapes for the "zxx-Zsym-x-shapes" model: synthetic hand-drawn shapes and the shape classes of Quick, Draw!.

SHAPES are the classes, in the model's output order. Synthetic shapes are drawn the way people draw them: one to
four strokes, random start and direction, wobble, overshoot or gaps at the joins, any size, aspect and (for most
classes) rotation. "other" is what is none of the shapes: zigzags, squiggles, spirals, scribbles, crosses, hearts,
letters, unfinished arcs, and Quick, Draw! sketches of other categories. Quick, Draw! drawings are split by a hash
of their key: half train, half is the held-out set evaluate.py reports.
"""
import gzip
import hashlib
import json
import math
import os

import numpy as np

import ink_data

SHAPES = ["arrow", "circle", "diamond", "hexagon", "line", "octagon", "rectangle", "star", "triangle", "other"]
QUICKDRAW_CLASSES = {"circle": "circle", "square": "rectangle", "triangle": "triangle", "hexagon": "hexagon",
                     "octagon": "octagon", "line": "line", "star": "star", "diamond": "diamond",
                     "zigzag": "other", "squiggle": "other"}
OTHER_SKETCHES_PER_SPLIT = 150


def _part(key):
    """Which part of Quick, Draw! a drawing is in, by a hash of writer and category: "test" (half, the held-out set
    evaluate.py reports), "validation" (a third of the other half: checkpoint choice) or "train"."""
    h = int(hashlib.sha1(key.encode()).hexdigest(), 16)
    if h % 2 == 0:
        return "test"
    return "validation" if (h // 2) % 3 == 0 else "train"


def _half(split):
    """The Quick, Draw! drawings of one part ("train", "validation" or "test", see _part), in file order, as
    (shape label or None for the other categories, sample)."""
    ink_data.record_file(os.path.join(ink_data.SHARED, "quickdraw.ndjson.gz"))
    with gzip.open(os.path.join(ink_data.SHARED, "quickdraw.ndjson.gz"), "rt") as f:
        for line in f:
            d = json.loads(line)
            if _part(d.get("writer", "") + d["label"]) == split and any(len(s) for s in d["strokes"]):
                shape = QUICKDRAW_CLASSES.get(d["label"])
                yield shape, dict(label=shape or "other", strokes=d["strokes"], category=d["label"])


def _spread(samples, count):
    """Up to `count` of `samples`, evenly spread over the list."""
    step = max(1, len(samples) // max(count, 1))
    return samples[::step][:count]


def quickdraw(split):
    """Quick, Draw! samples of one part ("train", "validation" or "test"), labelled with SHAPES; plus
    OTHER_SKETCHES_PER_SPLIT sketches of other categories as "other" (a third as many for "validation")."""
    out, others = [], []
    for shape, d in _half(split):
        (out if shape else others).append(d)
    return out + _spread(others, OTHER_SKETCHES_PER_SPLIT // (3 if split == "validation" else 1))


def other_sketches(split, count):
    """Up to `count` Quick, Draw! sketches of the non-shape categories of one part, evenly spread over the file (as
    "other"); for training only (the held-out set's 150 come from the test half)."""
    return _spread([d for shape, d in _half(split) if shape is None], count)


def held_out_quickdraw():
    return quickdraw("test")


def _polyline(vertices, rng, wobble):
    """Dense points along the vertices' polyline with hand wobble."""
    vertices = np.asarray(vertices, dtype=float)
    seg = np.hypot(*np.diff(vertices, axis=0).T)
    total = max(seg.sum(), 1e-6)
    n = int(rng.integers(30, 90))
    distances = np.sort(rng.uniform(0, total, n - 2))
    distances = np.concatenate([[0], distances, [total]])
    cumulative = np.concatenate([[0], np.cumsum(seg)])
    pts = np.stack([np.interp(distances, cumulative, vertices[:, 0]), np.interp(distances, cumulative, vertices[:, 1])], 1)
    phase = rng.uniform(0, 2 * math.pi, 2)
    freq = rng.uniform(1, 4, 2)
    pts[:, 0] += wobble * np.sin(freq[0] * 2 * math.pi * distances / total + phase[0])
    pts[:, 1] += wobble * np.sin(freq[1] * 2 * math.pi * distances / total + phase[1])
    return pts + rng.normal(0, wobble * 0.15, pts.shape)


def _closed(vertices, rng, strokes_max=4):
    """A closed polygon drawn in 1..strokes_max strokes the ways people draw one: around from a random corner in
    either direction (overshooting the start or stopping short of it), or as two strokes from the same corner
    going opposite ways (a square as two L's); each stroke may run backwards and the strokes come in any order."""
    k = len(vertices)
    start = int(rng.integers(k))
    order = [vertices[(start + i) % k] for i in range(k + 1)]
    if rng.random() < 0.5:
        order = order[::-1]
    if k > 2 and strokes_max > 1 and rng.random() < 0.25:
        middle = int(rng.integers(1, k))
        pieces = [order[:middle + 1], order[middle:][::-1]]
    else:
        over = rng.uniform(-0.08, 0.12) if rng.random() < 0.75 else rng.uniform(-0.3, -0.08)
        order[-1] = np.asarray(order[-1]) + over * (np.asarray(order[-1]) - np.asarray(order[-2]))
        splits = sorted(rng.choice(range(1, k), size=min(int(rng.integers(0, strokes_max)), k - 1), replace=False)) if k > 1 else []
        pieces, last = [], 0
        for s in list(splits) + [k]:
            pieces.append(order[last:s + 1])
            last = s
    if len(pieces) > 1:
        pieces = [p[::-1] if rng.random() < 0.3 else p for p in pieces]
        if rng.random() < 0.3:
            pieces = [pieces[i] for i in rng.permutation(len(pieces))]
    return pieces


def _regular(n, rng, radius_jitter=0.08, angle_jitter=0.0):
    """n corners around a circle; each corner moved by `radius_jitter` (x and y apart) and turned by up to
    `angle_jitter` of the angle between corners (hand-drawn polygons are rarely regular)."""
    rotation = rng.uniform(0, 2 * math.pi)
    angles = [rotation + 2 * math.pi * (i + rng.uniform(-angle_jitter, angle_jitter)) / n for i in range(n)]
    return [(math.cos(a) * (1 + rng.normal(0, radius_jitter)), math.sin(a) * (1 + rng.normal(0, radius_jitter))) for a in angles]


def _decorations(pieces, rng):
    """One to three marks people add to a shape in Quick, Draw! (the lines inside a tent or a gem, an eye inside a
    pyramid, a line drawn again beside an edge): short strokes inside the shape's box, a small loop, or a copy of
    one edge moved off it by up to a fifth of the shape's size."""
    points = np.concatenate([np.asarray(p, dtype=float) for p in pieces])
    lo, hi = points.min(0), points.max(0)
    size = max(float((hi - lo).max()), 1e-6)
    marks = []
    for _ in range(int(rng.integers(1, 4))):
        kind = rng.random()
        if kind < 0.55:
            a = lo + (hi - lo) * rng.uniform(0.2, 0.8, 2)
            angle, length = rng.uniform(0, 2 * math.pi), size * rng.uniform(0.15, 0.5)
            marks.append([tuple(a), tuple(a + length * np.array([math.cos(angle), math.sin(angle)]))])
        elif kind < 0.75:
            c, r = lo + (hi - lo) * rng.uniform(0.35, 0.65, 2), size * rng.uniform(0.05, 0.12)
            t = np.linspace(0, 2 * math.pi, 12)
            marks.append(list(zip(c[0] + r * np.cos(t), c[1] + 0.6 * r * np.sin(t))))
        else:
            piece = np.asarray(pieces[int(rng.integers(len(pieces)))], dtype=float)
            k = int(rng.integers(len(piece) - 1)) if len(piece) > 1 else 0
            edge = piece[k:k + 2]
            offset = rng.normal(0, 1, 2)
            marks.append([tuple(q) for q in edge + size * rng.uniform(0.05, 0.2) * offset / max(np.hypot(*offset), 1e-6)])
    return pieces + marks


def synthetic(label, rng, decorated=0.0):
    """Strokes of one synthetic `label` shape, as lists of [x, y] in pixel-like units (y down); a closed shape is
    given `_decorations` with probability `decorated` (0 draws nothing for it, so the stream of shapes is that of
    before the option)."""
    wobble = rng.uniform(0.0, 0.03)
    pieces = []
    if label == "circle":
        rx, ry = 1.0, rng.uniform(0.45, 1.0)
        start = rng.uniform(0, 2 * math.pi)
        sweep = 2 * math.pi + rng.uniform(-0.35, 0.5)
        direction = 1 if rng.random() < 0.5 else -1
        t = start + direction * np.linspace(0, sweep, 60)
        pieces = [list(zip(rx * np.cos(t), ry * np.sin(t)))]
        if rng.random() < 0.15:
            half = len(pieces[0]) // 2
            pieces = [pieces[0][:half + 1], pieces[0][half:]]
    elif label == "rectangle":
        a = rng.uniform(0.3, 1.0) if rng.random() < 0.7 else 1.0
        pieces = _closed([(-1, -a), (1, -a), (1, a), (-1, a)], rng)
    elif label == "triangle":
        while True:
            v = rng.uniform(-1, 1, (3, 2))
            sides = [np.hypot(*(v[i] - v[(i + 1) % 3])) for i in range(3)]
            area = abs(np.cross(v[1] - v[0], v[2] - v[0])) / 2
            if min(sides) > 0.6 and area > 0.25 * max(sides) ** 2 * 0.3:
                break
        if rng.random() < 0.5:
            v = np.array([(0, -1), (-rng.uniform(0.5, 1.2), 1), (rng.uniform(0.5, 1.2), 1)])
        pieces = _closed(list(v), rng, 3)
    elif label == "diamond":
        if rng.random() < 0.8:
            w = rng.uniform(0.5, 1.0)
            pieces = _closed([(0, -1), (w, 0), (0, 1), (-w, 0)], rng)
        else:  # a gem: flat top, pointed bottom (Quick, Draw!'s diamonds)
            pieces = _closed([(-0.6, -0.6), (0.6, -0.6), (1, -0.2), (0, 1), (-1, -0.2)], rng, 2)
            if rng.random() < 0.6:
                pieces.append([(-1, -0.2), (1, -0.2)])
            if rng.random() < 0.4:  # facets: lines from the top edge down to the point
                for x in rng.uniform(-0.5, 0.5, int(rng.integers(1, 4))):
                    pieces.append([(x, -0.6), (x * rng.uniform(0, 0.5), rng.uniform(0.3, 1))])
    elif label in ("hexagon", "octagon"):
        pieces = _closed(_regular(6 if label == "hexagon" else 8, rng, rng.uniform(0.03, 0.12), rng.uniform(0.0, 0.25)), rng, 2)
    elif label == "star":
        r = rng.uniform(0.35, 0.55)
        rotation = rng.uniform(-0.4, 0.4) - math.pi / 2
        if rng.random() < 0.5:  # pentagram in one stroke
            v = [(math.cos(rotation + 4 * math.pi * i / 5), math.sin(rotation + 4 * math.pi * i / 5)) for i in range(6)]
            pieces = [v]
        elif rng.random() < 0.85:  # outline
            v = [((1 if i % 2 == 0 else r) * math.cos(rotation + math.pi * i / 5), (1 if i % 2 == 0 else r) * math.sin(rotation + math.pi * i / 5)) for i in range(10)]
            pieces = _closed(v, rng, 2)
        else:  # six points: two triangles
            t1 = [(math.cos(rotation + 2 * math.pi * i / 3), math.sin(rotation + 2 * math.pi * i / 3)) for i in range(4)]
            t2 = [(math.cos(rotation + math.pi / 3 + 2 * math.pi * i / 3), math.sin(rotation + math.pi / 3 + 2 * math.pi * i / 3)) for i in range(4)]
            pieces = [t1, t2]
    elif label == "line":
        bend = rng.normal(0, 0.03)
        pieces = [[(-1, 0), (0, bend), (1, 0)]]
        wobble *= 0.5
    elif label == "arrow":
        head = rng.uniform(0.15, 0.4)
        angle = rng.uniform(0.35, 0.8)
        bend = rng.normal(0, 0.05)
        shaft = [(-1, 0), (0, bend), (1, 0)]
        h1 = (1 - head * math.cos(angle), -head * math.sin(angle))
        h2 = (1 - head * math.cos(angle), head * math.sin(angle))
        style = rng.random()
        if style < 0.4:
            pieces = [shaft, [h1, (1, 0), h2]]
        elif style < 0.7:
            pieces = [shaft, [h1, (1, 0)], [h2, (1, 0)]]
        elif style < 0.85:
            pieces = [shaft + [h1, (1, 0), h2]]
        else:
            pieces = [[h1, (1, 0), h2], shaft]
    else:
        kind = rng.integers(0, 8)
        if kind == 0:  # zigzag
            n = int(rng.integers(3, 9))
            pieces = [[(i / n * 2 - 1, (0.3 if i % 2 else -0.3) * rng.uniform(0.5, 1.5)) for i in range(n + 1)]]
        elif kind == 1:  # squiggle / wave
            t = np.linspace(0, 1, 80)
            pieces = [list(zip(2 * t - 1, 0.3 * np.sin(2 * math.pi * rng.uniform(1.5, 5) * t) * rng.uniform(0.3, 1.5)))]
        elif kind == 2:  # spiral
            t = np.linspace(0, rng.uniform(2, 5) * 2 * math.pi, 120)
            pieces = [list(zip(t * np.cos(t) / t[-1], t * np.sin(t) / t[-1]))]
        elif kind == 3:  # scribble
            pieces = [list(rng.uniform(-1, 1, (int(rng.integers(6, 20)), 2)))]
        elif kind == 4:  # cross or plus
            pieces = [[(-1, -1), (1, 1)], [(1, -1), (-1, 1)]] if rng.random() < 0.5 else [[(-1, 0), (1, 0)], [(0, -1), (0, 1)]]
        elif kind == 5:  # heart
            t = np.linspace(0, 2 * math.pi, 80)
            pieces = [list(zip(16 * np.sin(t) ** 3 / 16, -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t)) / 16))]
        elif kind == 6:  # unfinished arc (less than 3/4 of a circle)
            s = rng.uniform(0, 2 * math.pi)
            t = np.linspace(s, s + rng.uniform(0.8, 4.2), 50)
            pieces = [list(zip(np.cos(t), np.sin(t)))]
        else:  # a pentagon (not a shape class; a seven-cornered one is left out: people drawing octagons miscount)
            pieces = _closed(_regular(5, rng, 0.15), rng, 2)
    if decorated > 0 and label not in ("line", "arrow", "other") and rng.random() < decorated:
        pieces = _decorations(pieces, rng)
    # A random affine map: rotation (not for rectangles mostly, people draw them upright), scale, shear.
    rotate = rng.uniform(-math.pi, math.pi) if label not in ("rectangle", "diamond", "star", "triangle") or rng.random() < 0.2 else rng.normal(0, 0.1)
    sx, sy = rng.uniform(0.8, 1.25, 2)
    shear = rng.normal(0, 0.08)
    c, s = math.cos(rotate), math.sin(rotate)
    size = rng.uniform(50, 400)
    out = []
    for piece in pieces:
        p = _polyline(piece, rng, wobble)
        x = p[:, 0] * sx + shear * p[:, 1] * sy
        y = p[:, 1] * sy
        xr, yr = c * x - s * y, s * x + c * y
        out.append([[float(a * size), float(b * size)] for a, b in zip(xr, yr)])
    return out
