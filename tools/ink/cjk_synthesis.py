#!/usr/bin/env python3
"""Handwriting-like ink for Chinese and Japanese characters, synthesized from stroke centre lines in standard stroke
order: Make Me a Hanzi's medians (../shared/ink/hanzi-strokes.ndjson.gz, Chinese forms) and KanjiVG's stroke paths
(PyPI kanjivg, Japanese forms: kanji and kana).

    python3 tools/ink/cjk_synthesis.py --sheet Docs/images/cjk-synthesis.png [--seed 1] [--component-gaps]

draws the contact sheet of Docs/digital-ink.md: each real character of ../shared/ink's tegaki files beside
synthetic inks of the same character.

What makes synthetic ink look written (each drawn from a random `Writer`, a person's habits, and then per character):
- proportions and slant: the writer's width-to-height ratio, shear and rotation, and a smooth random displacement
  field over the character (components drawn a little larger, smaller or shifted, as people do);
- strokes: endpoints moved along and across the stroke (strokes written longer or shorter, not meeting exactly),
  curvature changed by a smooth bend normal to the stroke, an occasional hook or flick at the end;
- pen speed: each stroke is split at its sharp corners (a pen slows to turn them) and each piece is traced with the
  minimum-jerk profile of human reaching movements, sampled at the tablet's rate, so points crowd at the ends and
  corners and thin out in fast middles; the pen moves through the air between strokes at the writer's speed;
- running hand: a stroke whose end is near the next stroke's start is joined to it with a short curved ligature,
  as a writer who does not lift the pen does, more often for a hasty writer;
- stroke order: an occasional swap of two consecutive strokes, the variation people commonly make;
- size and place: anywhere from half to nearly all of the writing area, anywhere in it.
The output is the ../shared/ink format: strokes of [x, y, t] with x, y integers on a 1000 x 1000 canvas (y down) and
t in milliseconds from the first point.
"""
import argparse
import glob
import gzip
import json
import math
import os
import re

import numpy as np

SHARED = os.environ.get("INK_DATA", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "ink"))
CANVAS = 1000
SAMPLE_MILLISECONDS = 10  # a 100 Hz tablet


def kanjivg_directory():
    """The folder of KanjiVG's SVG files (PyPI kanjivg installs them as site-packages/kanji/)."""
    import site
    for folder in site.getsitepackages() + [site.getusersitepackages()]:
        path = os.path.join(folder, "kanji")
        if os.path.isdir(path):
            return path
    raise SystemExit("cjk_synthesis: KanjiVG is not installed; run tools/setup.sh --cjk")


# ---- Reading stroke centre lines ----------------------------------------------------------------------------------

def read_hanzi():
    """character -> (strokes as (N, 2) float arrays on a 1024 grid, y down, the set of scripts it belongs to)."""
    table = {}
    with gzip.open(os.path.join(SHARED, "hanzi-strokes.ndjson.gz"), "rt", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            strokes = [np.array([[p[0], p[1]] for p in s], dtype=np.float64) for s in d["strokes"] if s]
            table[d["label"]] = (strokes, set(d.get("scripts", [])))
    return table


_PATH_TOKEN = re.compile(r"[MmCcSsLlZz]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def svg_path_points(d, per_curve=12):
    """The points along an SVG path of the commands KanjiVG uses (M, L, C, S, absolute and relative)."""
    tokens = _PATH_TOKEN.findall(d)
    points, i, command = [], 0, None
    current = np.zeros(2)
    last_control = None

    def numbers(n):
        nonlocal i
        values = [float(t) for t in tokens[i:i + n]]
        i += n
        return values

    def cubic(p0, c1, c2, p3):
        for k in range(1, per_curve + 1):
            u = k / per_curve
            points.append((1 - u) ** 3 * p0 + 3 * (1 - u) ** 2 * u * c1 + 3 * (1 - u) * u ** 2 * c2 + u ** 3 * p3)

    while i < len(tokens):
        if tokens[i].isalpha():
            command = tokens[i]
            i += 1
            if command in "Zz":
                continue
        relative = command.islower()
        base = current if relative else np.zeros(2)
        kind = command.upper()
        if kind == "M":
            current = base + np.array(numbers(2))
            points.append(current.copy())
            last_control = None
            command = "l" if relative else "L"  # further pairs after a moveto are linetos
        elif kind == "L":
            current = base + np.array(numbers(2))
            points.append(current.copy())
            last_control = None
        elif kind == "C":
            v = numbers(6)
            c1, c2, end = base + np.array(v[0:2]), base + np.array(v[2:4]), base + np.array(v[4:6])
            cubic(current, c1, c2, end)
            last_control, current = c2, end
        elif kind == "S":
            v = numbers(4)
            c1 = 2 * current - last_control if last_control is not None else current
            c2, end = base + np.array(v[0:2]), base + np.array(v[2:4])
            cubic(current, c1, c2, end)
            last_control, current = c2, end
        else:
            raise ValueError(f"unsupported SVG path command {command!r} in {d!r}")
    return np.array(points)


class CharacterStrokes(list):
    """A character's strokes, and which of them (indices) make its right-hand part when KanjiVG divides the
    character into a left and a right part (坊: 土 | 方), else None."""
    right_part = None


def _right_part(svg):
    """The stroke indices of the group KanjiVG places on the right directly under the character's own group."""
    depth, inside, right = 0, None, set()
    for tag in re.finditer(r'<(/?)(g|path)\b([^>]*)>', svg):
        closing, name, attributes = tag.groups()
        if name == "g" and closing:
            if inside is not None and depth == inside:
                return right
            depth -= 1
        elif name == "g":
            depth += 1
            if depth == 3 and inside is None and 'kvg:position="right"' in attributes:
                inside = depth
        elif inside is not None:
            number = re.search(r'id="kvg:[0-9a-f]+-s(\d+)"', attributes)
            if number:
                right.add(int(number.group(1)) - 1)
    return None


def read_kanjivg(characters=None):
    """character -> strokes as (N, 2) arrays on KanjiVG's 109 grid (y down), for its standard (unsuffixed) files,
    as CharacterStrokes (with the right-hand part's strokes)."""
    table = {}
    for path in sorted(glob.glob(os.path.join(kanjivg_directory(), "*.svg"))):
        name = os.path.basename(path)[:-4]
        if "-" in name:
            continue  # variant forms (Kaisho and others)
        character = chr(int(name, 16))
        if characters is not None and character not in characters:
            continue
        with open(path, encoding="utf-8") as f:
            svg = f.read()
        # Stroke paths in document order are the stroke order (their ids end in -s1, -s2, ...).
        strokes = [svg_path_points(d) for d in re.findall(r'<path id="kvg:[0-9a-f]+-s\d+"[^>]*\sd="([^"]+)"', svg)]
        if strokes:
            table[character] = CharacterStrokes(strokes)
            right = _right_part(svg)
            if right and len(right) < len(strokes):
                table[character].right_part = frozenset(right)
    return table


# ---- The writer and the character ---------------------------------------------------------------------------------

class Writer:
    """One person's habits, drawn at random: what stays the same over all the characters they write.
    With `component_gaps`, also how far apart they write the left and right parts of a character (many writers, and
    learners most, leave a gap between 土 and 方 in 坊); drawn after the other habits, so that without it the random
    stream, and every ink, is what it was before the habit existed."""

    def __init__(self, rng, component_gaps=False):
        self.aspect = math.exp(rng.normal(0, 0.08))       # width over height
        self.shear = rng.normal(0, 0.08)                   # slant: x moves by shear * (y - centre)
        self.rotation = rng.normal(0, 0.04)                # radians
        self.warp = rng.uniform(0.01, 0.05)                # displacement field amplitude, in character sizes
        self.stroke_jitter = rng.uniform(0.01, 0.04)       # endpoint and bend amplitude, in character sizes
        self.speed = math.exp(rng.normal(math.log(2.5), 0.35))  # character heights per second at full speed
        self.pause = rng.uniform(60, 220)                  # milliseconds with the pen up between strokes
        self.joining = rng.choice([0.0, 0.05, 0.2, 0.5], p=[0.35, 0.3, 0.2, 0.15])  # running hand
        self.reordering = rng.choice([0.0, 0.02, 0.06], p=[0.5, 0.35, 0.15])
        self.hooks = rng.uniform(0, 0.25)
        # The gap between a character's left and right parts, in character sizes: none for half the writers.
        self.component_gap = 0.0
        if component_gaps:
            kind = rng.choice(3, p=[0.5, 0.3, 0.2])
            self.component_gap = (0.0, rng.uniform(0.04, 0.12), rng.uniform(0.12, 0.3))[kind]


def _unit_strokes(strokes):
    """Strokes scaled to fit a unit square by their common bounding box's larger side, centred at (0, 0)."""
    points = np.concatenate(strokes)
    low, high = points.min(axis=0), points.max(axis=0)
    size = max(high - low) or 1.0
    centre = (low + high) / 2
    return [(s - centre) / size for s in strokes], (high - low) / size


def _resample(stroke, spacing):
    """Points every `spacing` of arc length along a polyline (its ends kept)."""
    if len(stroke) < 2:
        return stroke.copy()
    lengths = np.hypot(*np.diff(stroke, axis=0).T)
    total = lengths.sum()
    if total < 1e-9:
        return stroke[:1].copy()
    arc = np.concatenate([[0], np.cumsum(lengths)])
    at = np.linspace(0, total, max(2, int(math.ceil(total / spacing)) + 1))
    return np.stack([np.interp(at, arc, stroke[:, 0]), np.interp(at, arc, stroke[:, 1])], axis=1)


def _vary_stroke(stroke, rng, writer):
    """The stroke as one hand draws it: ends moved, length changed, bent, sometimes a hook at the end."""
    s = _resample(stroke, 0.01)
    n = len(s)
    if n < 2:
        return s + rng.normal(0, writer.stroke_jitter, 2)
    u = np.linspace(0, 1, n)[:, None]
    a = writer.stroke_jitter
    # Endpoint displacement, blended linearly along the stroke.
    s = s + (1 - u) * rng.normal(0, a, 2) + u * rng.normal(0, a, 2)
    # Longer or shorter about the stroke's middle, along its chord.
    chord = s[-1] - s[0]
    if np.hypot(*chord) > 1e-6:
        s = s + (u - 0.5) * chord * rng.normal(0, 0.06)
    # A bend normal to the chord: half a sine wave (a bow) plus a little of a full one (an S).
    length = np.hypot(*chord)
    if length > 1e-6:
        normal = np.array([-chord[1], chord[0]]) / length
        bend = rng.normal(0, a) * np.sin(math.pi * u) + rng.normal(0, a / 2) * np.sin(2 * math.pi * u)
        s = s + bend * normal
    if rng.random() < writer.hooks and n >= 4:
        # A flick: the pen keeps moving a little as it lifts, turned from the stroke's last direction.
        direction = s[-1] - s[-4]
        norm = np.hypot(*direction)
        if norm > 1e-6:
            angle = rng.normal(0, 1.0)
            turn = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
            step = turn @ (direction / norm) * rng.uniform(0.02, 0.06)
            s = np.concatenate([s, [s[-1] + step * k / 3 for k in (1, 2, 3)]])
    return s


def _displacement(points, rng, amplitude):
    """A smooth random displacement of the plane: two low-frequency sine waves in each coordinate."""
    out = points.copy()
    for axis in (0, 1):
        for _ in range(2):
            k = rng.uniform(1.0, 3.0) * math.pi
            phase = rng.uniform(0, 2 * math.pi)
            direction = rng.normal(0, 1, 2)
            direction /= np.hypot(*direction)
            out[:, axis] += amplitude * rng.normal(0, 1) * np.sin(k * points @ direction + phase) / 2
    return out


def _ligature(end, start, rng):
    """A short curved connection from one stroke's end to the next stroke's start, as a pen that stays down draws."""
    middle = (end + start) / 2
    gap = start - end
    normal = np.array([-gap[1], gap[0]])
    control = middle + normal * rng.normal(0, 0.15)
    u = np.linspace(0, 1, 8)[1:-1, None]
    return (1 - u) ** 2 * end + 2 * (1 - u) * u * control + u ** 2 * start


def _corner_pieces(stroke, threshold=math.radians(60)):
    """Split points: indices where the stroke turns by more than `threshold` (a pen slows to a stop there)."""
    if len(stroke) < 3:
        return [0, len(stroke) - 1]
    cuts = [0]
    step = max(1, len(stroke) // 40)
    for i in range(step, len(stroke) - step, step):
        a, b = stroke[i] - stroke[i - step], stroke[i + step] - stroke[i]
        if np.hypot(*a) < 1e-9 or np.hypot(*b) < 1e-9:
            continue
        turn = abs(math.atan2(a[0] * b[1] - a[1] * b[0], a @ b))
        if turn > threshold and i - cuts[-1] > step:
            cuts.append(i)
    cuts.append(len(stroke) - 1)
    return cuts


def _timed(stroke, speed, rng, t0):
    """The stroke sampled at the tablet's rate while the pen follows a minimum-jerk profile on each piece between
    corners: position along a piece s(τ) = L (10τ³ − 15τ⁴ + 6τ⁵), whose peak speed is 1.875 L / T."""
    lengths = np.concatenate([[0], np.cumsum(np.hypot(*np.diff(stroke, axis=0).T))])
    out = []
    t = t0
    cuts = _corner_pieces(stroke)
    for a, b in zip(cuts, cuts[1:]):
        length = lengths[b] - lengths[a]
        duration = max(40.0, 1000 * 1.875 * length / (speed * rng.uniform(0.8, 1.25)))
        steps = max(1, int(round(duration / SAMPLE_MILLISECONDS)))
        for k in range(0 if not out else 1, steps + 1):
            tau = k / steps
            s = lengths[a] + length * (10 * tau ** 3 - 15 * tau ** 4 + 6 * tau ** 5)
            x = np.interp(s, lengths, stroke[:, 0])
            y = np.interp(s, lengths, stroke[:, 1])
            out.append((x, y, t + k * duration / steps))
        t += duration
    return out, t


def synthesize(strokes, rng, writer=None, box=None, timed=True, component_gaps=False):
    """One handwritten-looking ink of a character given by its stroke centre lines (any grid, y down): strokes of
    [x, y, t] integers on the 1000 x 1000 canvas. `box` (x, y, size) places it; by default a random size and place.
    Untimed (`timed=False`, for pictures that ignore time and point spacing): the varied centre lines as float
    (x, y) arrays, placed the same way, without the pen's timing. `component_gaps`: a new writer (none given) may
    write the left and right parts of a character (KanjiVG's, CharacterStrokes.right_part) apart."""
    writer = writer or Writer(rng, component_gaps)
    unit, extent = _unit_strokes(strokes)
    if writer.component_gap > 0:
        right = getattr(strokes, "right_part", None)
        if right:
            gap = writer.component_gap * rng.uniform(0.5, 1.5)
            unit = [s + (gap / 2 if i in right else -gap / 2, 0) for i, s in enumerate(unit)]
    order = list(range(len(unit)))
    for i in range(len(order) - 1):
        if rng.random() < writer.reordering:
            order[i], order[i + 1] = order[i + 1], order[i]
    varied = [_vary_stroke(unit[i], rng, writer) for i in order]
    # The writer's proportions, slant and rotation, and this character's own smooth distortion.
    angle = writer.rotation + rng.normal(0, 0.02)
    rotate = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    shape = np.array([[writer.aspect * math.exp(rng.normal(0, 0.04)), writer.shear + rng.normal(0, 0.03)], [0, 1]])
    transform = rotate @ shape
    varied = [_displacement(s, rng, writer.warp) @ transform.T for s in varied]
    # Running hand: join a stroke to the next when the pen has little way to travel.
    joined = [varied[0]]
    for s in varied[1:]:
        gap = np.hypot(*(s[0] - joined[-1][-1]))
        if gap < 0.35 and rng.random() < writer.joining:
            joined[-1] = np.concatenate([joined[-1], _ligature(joined[-1][-1], s[0], rng), s])
        else:
            joined.append(s)
    # Size and place in the writing area.
    points = np.concatenate(joined)
    low, high = points.min(axis=0), points.max(axis=0)
    span = max(high - low) or 1.0
    if box is None:
        size = CANVAS * rng.uniform(0.5, 0.95)
        x0 = rng.uniform(0, CANVAS - size * (high[0] - low[0]) / span)
        y0 = rng.uniform(0, CANVAS - size * (high[1] - low[1]) / span)
    else:
        x0, y0, size = box
    placed = [(s - low) / span * size + (x0, y0) for s in joined]
    if not timed:
        return placed
    # Time: each stroke at the writer's speed (character heights per second), pauses with the pen up between.
    speed = writer.speed * size
    ink, t = [], 0.0
    for i, s in enumerate(placed):
        if i:
            travel = np.hypot(*(s[0] - placed[i - 1][-1]))
            t += writer.pause * rng.uniform(0.6, 1.5) + 1000 * travel / (2 * speed)
        points, t = _timed(s, speed, rng, t)
        ink.append([[int(round(x)), int(round(y)), int(round(tt))] for x, y, tt in points])
    return ink


# ---- The contact sheet ----------------------------------------------------------------------------------------------

def draw(ink, size, colour="black"):
    from PIL import Image, ImageDraw
    image = Image.new("RGB", (size, size), "white")
    pen = ImageDraw.Draw(image)
    points = [p for s in ink for p in s]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    low_x, low_y = min(xs), min(ys)
    span = max(max(xs) - low_x, max(ys) - low_y, 1)
    scale = (size - 12) / span
    for s in ink:
        line = [((p[0] - low_x) * scale + 6, (p[1] - low_y) * scale + 6) for p in s]
        if len(line) > 1:
            pen.line(line, fill=colour, width=2, joint="curve")
        for x, y in line:
            pen.ellipse((x - 1, y - 1, x + 1, y + 1), fill=colour)
    return image


def contact_sheet(path, seed, per_row=6, cell=96, component_gaps=False):
    """Rows of: a real tegaki character (blue), then synthetic inks of it by different writers (black)."""
    from PIL import Image
    rng = np.random.default_rng(seed)
    hanzi = read_hanzi()
    real = []
    for name, count in (("tegaki-japanese-kanji", 4), ("tegaki-kana", 3), ("tegaki-zh-tw", 3)):
        with gzip.open(os.path.join(SHARED, f"{name}.ndjson.gz"), "rt", encoding="utf-8") as f:
            rows = [json.loads(line) for line in f]
        picked = [rows[i] for i in rng.permutation(len(rows))]
        real += [(name, r) for r in picked if r["label"] in hanzi or name == "tegaki-kana"][:count]
    kanjivg = read_kanjivg({r["label"] for _, r in real})
    sheet = Image.new("RGB", (per_row * cell, len(real) * cell), "white")
    for row, (name, sample) in enumerate(real):
        sheet.paste(draw(sample["strokes"], cell - 4, "#1f4fbf"), (2, row * cell + 2))
        source = kanjivg.get(sample["label"]) if name != "tegaki-zh-tw" else None
        strokes = source if source is not None else hanzi[sample["label"]][0]
        for column in range(1, per_row):
            sheet.paste(draw(synthesize(strokes, rng, component_gaps=component_gaps), cell - 4), (column * cell + 2, row * cell + 2))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    sheet.save(path, optimize=True)
    return [r["label"] for _, r in real]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sheet", required=True, help="where to write the contact sheet (PNG)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--component-gaps", action="store_true", help="writers as train_cjk.py --component-gaps draws them")
    args = parser.parse_args()
    labels = contact_sheet(args.sheet, args.seed, component_gaps=args.component_gaps)
    print(f"{args.sheet}: real and synthetic {' '.join(labels)}")


if __name__ == "__main__":
    main()
