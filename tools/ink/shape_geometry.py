"""Geometric features of a whole ink for the shapes model's second opinion, the same arithmetic as
Sources/LiteTasks/Ink/InkShapeGeometry.swift (tests compare the two).

After the features of Fonseca and Jorge's CALI shape recognizer (ratios between the convex hull, its largest inscribed
triangle and quadrilateral and its smallest enclosing rectangle), plus how the pen turns and a radial profile: the
ink is scaled so its larger side is 1 and resampled every STEP (coarser for very long inks), and

    0  strokes (at most 20)              1  log(1 + strokes)
    2  hull perimeter^2 / hull area      3  hull area / enclosing rectangle area
    4  largest triangle / hull area      5  largest quadrilateral / hull area
    6  largest triangle / quadrilateral  7  hull perimeter / enclosing rectangle perimeter
    8  ink length / hull perimeter       9  first point to last point / ink length (at most 1)
    10 sharp turns / 4 (about a corner each)      11 total turning / 2 pi
    12 area of the points as one polygon / hull area   13 hull area
    14 spread of the points' distance from the hull's centroid (std / mean)
    15 share of the 64 directions around the centroid that have ink
    16, 17 the radial profile's (farthest ink in each of 64 directions) std / mean and min / max
    (8, 10, 11, 12 and 14 are clipped at CAP, so that a scribble or a ring of dots stays in the range trained on)
    18-29 magnitudes of the profile's Fourier coefficients 1-12 over coefficient 0 (3 for a triangle, 4 for a
          rectangle, 5 for a star, 6 for a hexagon, 8 for an octagon; all small for a circle)

Every step is plain float64 arithmetic in a fixed order (no hypot, no library sums) so that Swift gets the same bits,
except the Fourier magnitudes (cos/sin), which agree to about 1e-12.
"""
import math

import numpy as np

from ink_features import distance, resample

STEP = 0.02
MAX_POINTS = 2000           # resampled points at most; a longer ink is resampled more coarsely
MAX_INSCRIBED_HULL = 64     # the inscribed triangle and quadrilateral are searched over at most this many hull points,
MAX_RECTANGLE_HULL = 256    # the enclosing rectangle over at most this many (a cubic and a quadratic search)
BINS = 64
HARMONICS = 12
SHARP_TURN = 0.8            # radians between the directions 2 samples before and 2 after a point
COUNT = 18 + HARMONICS
CAP = 20.0                  # the unbounded features (counts, lengths, turning) are clipped here


def _resample(stroke, step):
    """Points every `step` of arc length along the polyline, then its last point (ink_features.resample)."""
    return [tuple(p) for p in resample(np.array(stroke, np.float64), step).tolist()]


def _cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def hull(points):
    """Convex hull, counter-clockwise from the lowest-x (then lowest-y) point, without collinear points."""
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts
    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and _cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and _cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def _area(polygon):
    if len(polygon) < 3:
        return 0.0
    twice = 0.0
    for i in range(len(polygon)):
        a, b = polygon[i], polygon[(i + 1) % len(polygon)]
        twice += a[0] * b[1] - b[0] * a[1]
    return abs(twice) / 2


def _perimeter(polygon, closed):
    total = 0.0
    for i in range(1, len(polygon)):
        total += distance(polygon[i][0] - polygon[i - 1][0], polygon[i][1] - polygon[i - 1][1])
    if closed and len(polygon) > 2:
        total += distance(polygon[0][0] - polygon[-1][0], polygon[0][1] - polygon[-1][1])
    return total


def _thinned(h, limit):
    """At most `limit` of the hull's points, evenly spaced around it."""
    return h if len(h) <= limit else [h[(i * len(h)) // limit] for i in range(limit)]


def _enclosing_rectangle(h):
    """(area, perimeter) of the smallest-area rectangle around the hull with a side along one of its edges."""
    h = _thinned(h, MAX_RECTANGLE_HULL)
    best_area, best_perimeter = math.inf, 0.0
    for i in range(len(h)):
        a, b = h[i], h[(i + 1) % len(h)]
        length = distance(b[0] - a[0], b[1] - a[1])
        if length == 0.0:
            continue
        ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
        lo_u = lo_v = math.inf
        hi_u = hi_v = -math.inf
        for p in h:
            u = p[0] * ux + p[1] * uy
            v = p[1] * ux - p[0] * uy
            lo_u, hi_u, lo_v, hi_v = min(lo_u, u), max(hi_u, u), min(lo_v, v), max(hi_v, v)
        w, l = hi_u - lo_u, hi_v - lo_v
        if w * l < best_area:
            best_area, best_perimeter = w * l, 2 * (w + l)
    return (best_area, best_perimeter) if best_area < math.inf else (0.0, 0.0)


def _inscribed(h):
    """Areas of the largest triangle and quadrilateral with corners among the hull's points: for every diagonal
    (i, k), the farthest point on each side of it."""
    h = _thinned(h, MAX_INSCRIBED_HULL)
    # For every pair of corners (i, k), the cross products of every hull point p with them, as _cross computes
    # each one (numpy's elementwise IEEE operations give the same bits as the loops in Swift).
    x, y = np.array([p[0] for p in h]), np.array([p[1] for p in h])
    c = ((x[None, :, None] - x[:, None, None]) * (y[None, None, :] - y[:, None, None])
         - (y[None, :, None] - y[:, None, None]) * (x[None, None, :] - x[:, None, None]))
    upper = np.triu(np.ones((len(h), len(h)), bool), 1)
    highest, lowest = np.maximum(c.max(axis=2), 0.0)[upper], np.minimum(c.min(axis=2), 0.0)[upper]
    if highest.size == 0:
        return 0.0, 0.0
    return float(max(highest.max() / 2, -lowest.min() / 2)), float(((highest - lowest) / 2).max())


def features(strokes):
    """COUNT float64 features of an ink: strokes are lists of points whose first two values are x and y."""
    strokes = [[(float(p[0]), float(p[1])) for p in s] for s in strokes if len(s) > 0]
    xs = [p[0] for s in strokes for p in s]
    ys = [p[1] for s in strokes for p in s]
    x0, y0 = min(xs), min(ys)
    size = max(max(xs) - x0, max(ys) - y0)
    if not size > 0:
        size = 1.0
    strokes = [[((x - x0) / size, (y - y0) / size) for x, y in s] for s in strokes]
    ink_length = 0.0
    for s in strokes:
        ink_length += _perimeter(s, closed=False)
    step = max(STEP, ink_length / MAX_POINTS)
    resampled = [_resample(s, step) for s in strokes]
    points = [p for s in resampled for p in s]

    h = hull(points)
    hull_area, hull_perimeter = _area(h), _perimeter(h, closed=True)
    rectangle_area, rectangle_perimeter = _enclosing_rectangle(h) if len(h) >= 3 else (0.0, 0.0)
    triangle, quadrilateral = _inscribed(h) if len(h) >= 3 else (0.0, 0.0)
    flat = hull_area <= 1e-4

    if len(h) >= 3:
        cx = cy = 0.0
        for p in h:
            cx += p[0]
            cy += p[1]
        cx, cy = cx / len(h), cy / len(h)
    else:
        cx = cy = 0.0
        for p in points:
            cx += p[0]
            cy += p[1]
        cx, cy = cx / len(points), cy / len(points)
    profile = [0.0] * BINS
    has_ink = [False] * BINS
    radius_sum = radius_squares = 0.0
    for p in points:
        dx, dy = p[0] - cx, p[1] - cy
        r = distance(dx, dy)
        radius_sum += r
        radius_squares += r * r
        b = int((math.atan2(dy, dx) + math.pi) / (2 * math.pi) * BINS) % BINS
        profile[b] = max(profile[b], r)
        has_ink[b] = True
    coverage = sum(has_ink) / BINS
    filled = [b for b in range(BINS) if has_ink[b]]
    profile = [profile[b] if has_ink[b] else profile[min(filled, key=lambda f: (min(abs(f - b), BINS - abs(f - b)), f))]
               for b in range(BINS)]
    radius_mean = radius_sum / len(points)
    radius_spread = math.sqrt(max(radius_squares / len(points) - radius_mean * radius_mean, 0.0)) / max(radius_mean, 1e-6)
    profile_sum = profile_squares = 0.0  # loops, not sum(): Python's sum of floats is compensated since 3.12
    for r in profile:
        profile_sum += r
        profile_squares += r * r
    profile_mean = profile_sum / BINS
    profile_spread = math.sqrt(max(profile_squares / BINS - profile_mean * profile_mean, 0.0)) / max(profile_mean, 1e-6)
    profile_range = min(profile) / max(max(profile), 1e-6)
    harmonics = []
    for k in range(1, HARMONICS + 1):
        re = im = 0.0
        for b in range(BINS):
            angle = 2 * math.pi * k * b / BINS
            re += profile[b] * math.cos(angle)
            im -= profile[b] * math.sin(angle)
        harmonics.append(distance(re, im) / max(profile_mean * BINS, 1e-6))

    sharp = turning = 0.0
    for s in resampled:
        for i in range(2, len(s) - 2):
            a1 = math.atan2(s[i][1] - s[i - 2][1], s[i][0] - s[i - 2][0])
            a2 = math.atan2(s[i + 2][1] - s[i][1], s[i + 2][0] - s[i][0])
            turn = abs((a2 - a1 + math.pi) % (2 * math.pi) - math.pi)
            turning += turn
            sharp += turn > SHARP_TURN
    first, last = strokes[0][0], strokes[-1][-1]
    closure = distance(last[0] - first[0], last[1] - first[1]) / max(ink_length, 1e-6)
    safe_area = max(hull_area, 1e-6)
    return [
        float(min(len(strokes), 20)), math.log1p(len(strokes)),
        100.0 if flat else min(hull_perimeter * hull_perimeter / safe_area, 100.0),
        hull_area / rectangle_area if rectangle_area > 0 else 0.0,
        0.0 if flat else triangle / safe_area,
        0.0 if flat else quadrilateral / safe_area,
        triangle / quadrilateral if quadrilateral > 0 else 0.0,
        hull_perimeter / rectangle_perimeter if rectangle_perimeter > 0 else 0.0,
        min(ink_length / max(hull_perimeter, 1e-6), CAP), min(closure, 1.0),
        min(sharp / 4, CAP), min(turning / (2 * math.pi), CAP),
        0.0 if flat else min(_area(points) / safe_area, CAP),
        hull_area, min(radius_spread, CAP), coverage, profile_spread, profile_range,
    ] + harmonics
