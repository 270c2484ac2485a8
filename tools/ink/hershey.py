"""Synthetic handwriting from the Hershey single-stroke fonts (Debian's hershey-fonts-data).

Glyph coordinates are `ord(c) - ord('R')` pairs (y grows downward, the baseline is at 9), " R" lifts the pen,
the first pair is the glyph's left and right edge. A line of text becomes strokes with a writer's variation:
slant, x/y scale, rotation, letter spacing, baseline drift, jitter, and a clock with a per-stroke pen speed.
In the cursive fonts a glyph that starts where the previous one ended continues the same stroke.
"""
import math
import os

import numpy as np

FONT_DIR = "/usr/share/hershey-fonts"
CURSIVE = ("scripts", "scriptc", "cursive")
PRINT = ("rowmans", "futural", "timesi", "rowmand", "timesr")
ASCENT = 21.0  # from cap top (-12) to baseline (9): what "one ink height" is for a capitalised word


def load_font(name):
    text = open(os.path.join(FONT_DIR, name + ".jhf"), encoding="latin-1").read().replace("\r", "")
    lines = text.split("\n")
    glyphs, i = [], 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip():
            continue
        count = int(line[5:8])
        data = line[8:]
        while len(data) < 2 * count and i < len(lines):
            data += lines[i]
            i += 1
        pairs = [(ord(data[k]) - 82, ord(data[k + 1]) - 82) for k in range(0, 2 * count, 2)]
        left, right = pairs[0]
        strokes, current = [], []
        for (x, y), raw in zip(pairs[1:], [data[k:k + 2] for k in range(2, 2 * count, 2)]):
            if raw == " R":
                if current:
                    strokes.append(current)
                current = []
            else:
                current.append((x - left, y))
        if current:
            strokes.append(current)
        glyphs.append((right - left, strokes))
    return {chr(32 + k): g for k, g in enumerate(glyphs[:95])}


FONTS = {}


def font(name):
    if name not in FONTS:
        FONTS[name] = load_font(name)
    return FONTS[name]


def densify(points, step):
    out = [points[0]]
    for a, b in zip(points, points[1:]):
        n = max(1, int(math.hypot(b[0] - a[0], b[1] - a[1]) / step))
        for k in range(1, n + 1):
            out.append((a[0] + (b[0] - a[0]) * k / n, a[1] + (b[1] - a[1]) * k / n))
    return out


def render(text, rng, font_name=None):
    """Strokes [[x, y, t], ...] of `text` written in a Hershey font with random writer variation."""
    if font_name is None:
        font_name = rng.choice(CURSIVE if rng.random() < 0.6 else PRINT)
    glyphs = font(font_name)
    cursive = font_name in CURSIVE
    slant = rng.normal(0.15, 0.15)
    sx, sy = rng.uniform(0.8, 1.25), 1.0
    angle = rng.normal(0, 0.04)
    spacing = rng.uniform(-1.5, 2.5)
    word_gap = rng.uniform(7, 15)
    strokes = []
    pen_x = 0.0
    for ch in text:
        if ch == " ":
            pen_x += word_gap
            continue
        width, glyph_strokes = glyphs.get(ch, glyphs["?"])
        drift = rng.normal(0, 0.6)
        for k, s in enumerate(glyph_strokes):
            pts = [(pen_x + x, y + drift) for x, y in s]
            if cursive and k == 0 and strokes and strokes[-1] and math.hypot(pts[0][0] - strokes[-1][-1][0], pts[0][1] - strokes[-1][-1][1]) < 2.5:
                strokes[-1].extend(pts[1:])
            else:
                strokes.append(pts)
        pen_x += width + spacing
    out = []
    clock = 0.0
    ca, sa = math.cos(angle), math.sin(angle)
    jitter = rng.uniform(0.0, 0.35)
    for s in strokes:
        pts = densify(s, 1.0)
        a = np.array(pts, dtype=np.float64)
        a[:, 0] = (a[:, 0] - slant * (a[:, 1] - 9.0)) * sx
        a[:, 1] = a[:, 1] * sy
        a = a @ np.array([[ca, sa], [-sa, ca]])
        a += rng.normal(0, jitter, a.shape)
        speed = rng.uniform(40, 160) / 1000.0  # font units per ms (the font's cap height is 21 units)
        if out:
            clock += rng.uniform(80, 400)
        steps = np.hypot(np.diff(a[:, 0]), np.diff(a[:, 1]))
        t = clock + np.concatenate([[0.0], np.cumsum(steps)]) / speed
        clock = t[-1]
        out.append([[float(x) * 10, float(y) * 10, float(tt)] for (x, y), tt in zip(a, t)])
    return out
