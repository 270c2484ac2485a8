"""Ink features, the same arithmetic as Sources/LiteTasks/Ink/InkFeatures.swift (tests compare the two).

After Carbune et al. 2020 ("Fast multi-language LSTM-based online handwriting recognition", §2.2): the ink is
scaled so its height (or the writing area's height, when one is given) is 1, each stroke is resampled at equal
arc-length steps of RESAMPLE_STEP, and every resampled point becomes five numbers:

    dx, dy    offset from the previous point in steps, clipped to +-DELTA_CLIP (0 for the first point)
    y         height above the ink's top edge, minus 0.5 (what tells "o" from "O", "p" from "P")
    dt        time since the previous point in units of 100 ms, clipped to [0, TIME_CLIP]
    pen_up    1 for the first point of each stroke (the movement into it was in the air), else 0

Inks without timing get a synthetic clock: SYNTHETIC_SPEED heights a second on paper, PEN_UP_MS in the air. A timed
ink written slower than MINIMUM_SPEED heights a second (pen down; slow mouse input such as Omniglot's, median 1.3,
where UNIPEN's words are 3.3) has its clock sped up to that speed, pauses keeping their proportions.
"""
import math

import numpy as np

RESAMPLE_STEP = 0.1
DELTA_CLIP = 10.0
TIME_CLIP = 10.0
SYNTHETIC_SPEED = 4.0      # ink heights per second
PEN_UP_MS = 150.0
MINIMUM_SPEED = 2.5        # ink heights per second
MIN_WIDTH_FRACTION = 0.1   # a flat ink ("-", "...") is scaled as if it were width/10 high
FEATURES = 5


def distance(dx, dy):
    """sqrt(dx^2 + dy^2) with IEEE operations only (not hypot), so that Swift computes the same bits."""
    return math.sqrt(dx * dx + dy * dy)


def scale_and_origin(strokes, writing_area_height=None):
    xs = [p[0] for s in strokes for p in s]
    ys = [p[1] for s in strokes for p in s]
    x0, y0 = min(xs), min(ys)
    if writing_area_height is not None and writing_area_height > 0:
        height = float(writing_area_height)
    else:
        height = max(max(ys) - y0, MIN_WIDTH_FRACTION * (max(xs) - x0))
    if not height > 0:
        height = 1.0
    return x0, y0, height


def normalized(strokes, writing_area_height=None):
    """Strokes as float64 arrays [n, 3] (x, y in heights; t in ms), with a synthetic clock when t is missing."""
    strokes = [s for s in strokes if len(s) > 0]
    x0, y0, height = scale_and_origin(strokes, writing_area_height)
    timed = all(len(p) > 2 and p[2] is not None for s in strokes for p in s)
    out = []
    clock = 0.0
    previous = None
    for s in strokes:
        a = np.array([[(p[0] - x0) / height, (p[1] - y0) / height, float(p[2]) if timed else 0.0] for p in s], dtype=np.float64)
        if not timed:
            if previous is not None:
                clock += PEN_UP_MS + 1000.0 * distance(a[0, 0] - previous[0], a[0, 1] - previous[1]) / SYNTHETIC_SPEED
            steps = np.sqrt(np.diff(a[:, 0]) ** 2 + np.diff(a[:, 1]) ** 2)
            a[:, 2] = clock + 1000.0 * np.concatenate([[0.0], np.cumsum(steps)]) / SYNTHETIC_SPEED
            clock = a[-1, 2]
            previous = a[-1]
        out.append(a)
    if timed:
        # Summed point by point in stroke order, as InkFeatures.swift does, so that both get the same bits.
        path_length = pen_down = 0.0
        for a in out:
            for i in range(1, len(a)):
                path_length += distance(a[i, 0] - a[i - 1, 0], a[i, 1] - a[i - 1, 1])
            if len(a) > 1:
                pen_down += a[-1, 2] - a[0, 2]
        if pen_down > 0 and path_length * 1000 / pen_down < MINIMUM_SPEED:
            scale = path_length * 1000 / pen_down / MINIMUM_SPEED
            for a in out:
                a[:, 2] *= scale
    return out


def untimed(strokes):
    """The strokes without their timing (x, y of every point)."""
    return [[p[:2] for p in s] for s in strokes]


def resample(stroke, step=RESAMPLE_STEP):
    """Points at every `step` of arc length along the polyline, then its last point (linear interpolation)."""
    points = [stroke[0]]
    walked = 0.0  # arc length since the last emitted point; always < step between segments
    for i in range(1, len(stroke)):
        a, b = stroke[i - 1], stroke[i]
        length = distance(b[0] - a[0], b[1] - a[1])
        if length == 0.0:
            continue
        position = 0.0
        while walked + (length - position) >= step:
            position += step - walked
            points.append(a + (position / length) * (b - a))
            walked = 0.0
        walked += length - position
    if walked > 1e-9:
        points.append(stroke[-1])
    return np.array(points)


def features(strokes, writing_area_height=None):
    """[T, 5] float32 features of an ink: strokes are lists of (x, y, t-or-None)."""
    rows = []
    previous = None
    for stroke in normalized(strokes, writing_area_height):
        for j, p in enumerate(resample(stroke)):
            if previous is None:
                dx = dy = dt = 0.0
            else:
                dx = (p[0] - previous[0]) / RESAMPLE_STEP
                dy = (p[1] - previous[1]) / RESAMPLE_STEP
                dt = (p[2] - previous[2]) / 100.0
            rows.append((min(max(dx, -DELTA_CLIP), DELTA_CLIP), min(max(dy, -DELTA_CLIP), DELTA_CLIP), p[1] - 0.5,
                         min(max(dt, 0.0), TIME_CLIP), 1.0 if j == 0 else 0.0))
            previous = p
    return np.array(rows, dtype=np.float32).reshape(-1, FEATURES)
