"""Synthetic handwriting from the Hershey single-stroke fonts (Debian's hershey-fonts-data).

Glyph coordinates are `ord(c) - ord('R')` pairs (y grows downward, the baseline is at 9), " R" lifts the pen,
the first pair is the glyph's left and right edge. A line of text becomes strokes with a writer's variation:
slant, x/y scale, rotation, letter spacing, baseline drift, jitter, and a clock with a per-stroke pen speed.
In the cursive fonts a glyph that starts where the previous one ended continues the same stroke.
"""
import math
import os

import numpy as np

import diacritics

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


X_HEIGHT = 14.0  # the height of an "o" in font units


def _rotated(strokes, width, shift):
    """A glyph turned upside down about its centre (¿ from ?, ¡ from !), moved down by `shift`."""
    return [[(width - x, 2 * -1.5 - y + shift) for x, y in s] for s in strokes]


def _scaled(strokes, factor, cx, cy):
    return [[(cx + (x - cx) * factor, cy + (y - cy) * factor) for x, y in s] for s in strokes]


def latin_glyph(ch, glyphs, rng):
    """(width, strokes, marks) of a character beyond the font's ASCII: its base glyph (a letter without its marks;
    ß from the Greek font's beta; æ, œ as two overlapping letters; ı as i without its dot; ¿ ¡ as ? ! upside down;
    « » as two small chevrons; „ as two commas; “ as the double quote) and the marks to draw over or under it
    (diacritics.py). A character with no drawing is drawn as "?"."""
    if ch in ("ß",):
        width, strokes = font("greekc")["b"]
        return width, strokes, []
    if ch in ("æ", "œ", "Æ", "Œ"):
        (w1, s1), (w2, s2) = glyphs[diacritics.skeleton(ch)[0]], glyphs[diacritics.skeleton(ch)[1]]
        overlap = w1 * 0.3
        return w1 + w2 - overlap, s1 + [[(x + w1 - overlap, y) for x, y in s] for s in s2], []
    if ch == "ı":
        width, strokes = glyphs["i"]
        dot = min(range(len(strokes)), key=lambda k: max(p[1] for p in strokes[k]) - min(p[1] for p in strokes[k]))
        return width, [s for k, s in enumerate(strokes) if k != dot], []
    if ch in ("¿", "¡"):
        width, strokes = glyphs["?" if ch == "¿" else "!"]
        return width, _rotated(strokes, width, 5.0), []
    if ch in ("«", "»"):
        width, strokes = glyphs["<" if ch == "«" else ">"]
        small = _scaled(strokes, 0.45, width / 2, 0.0)
        return width * 0.8, small + [[(x + width * 0.3, y) for x, y in s] for s in small], []
    if ch == "„":
        width, strokes = glyphs[","]
        return width * 1.4, strokes + [[(x + width * 0.5, y) for x, y in s] for s in strokes], []
    if ch == "“":
        return glyphs['"'] + ([],)
    base, marks = diacritics.split(ch)
    if base in ("đ", "Đ"):
        width, strokes = glyphs["d" if base == "đ" else "D"]
        xs = [p[0] for s in strokes for p in s]
        ys = [p[1] for s in strokes for p in s]
        return width, strokes + diacritics.stem_bar((min(xs), max(xs), min(ys), max(ys)), base == "Đ", X_HEIGHT, rng), []
    if base not in glyphs:
        return glyphs["?"] + ([],)
    width, strokes = glyphs[base]
    if base in "ij" and any(m in diacritics.ABOVE for m in marks):  # the mark replaces the dot
        dot = min(range(len(strokes)), key=lambda k: max(p[1] for p in strokes[k]) - min(p[1] for p in strokes[k]))
        strokes = [s for k, s in enumerate(strokes) if k != dot]
    return width, strokes, marks


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
    delayed = []  # marks written after their word is finished
    for ch in text:
        if ch == " ":
            strokes += delayed
            delayed = []
            pen_x += word_gap
            continue
        if ch in glyphs:
            width, glyph_strokes, marks = glyphs[ch] + ([],)
        else:
            width, glyph_strokes, marks = latin_glyph(ch, glyphs, rng)
        drift = rng.normal(0, 0.6)
        placed = []
        for k, s in enumerate(glyph_strokes):
            pts = [(pen_x + x, y + drift) for x, y in s]
            placed.append(pts)
            if cursive and k == 0 and strokes and strokes[-1] and math.hypot(pts[0][0] - strokes[-1][-1][0], pts[0][1] - strokes[-1][-1][1]) < 2.5:
                strokes[-1].extend(pts[1:])
            else:
                strokes.append(pts)
        if marks:
            xs = [p[0] for s in placed for p in s]
            ys = [p[1] for s in placed for p in s]
            drawn = [list(s) for s in diacritics.letter_marks(marks, (min(xs), max(xs), min(ys), max(ys)), X_HEIGHT, rng)]
            if rng.random() < 0.5:
                delayed += drawn
            else:
                strokes += drawn
        pen_x += width + spacing
    strokes += delayed
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
