"""Real handwriting with diacritics, for the Latin-script ink model (train_latin.py, evaluate.py --set latin).

UNIPEN's words are English, written on tablets; the other Latin languages' letters are their letters plus marks.
A real word becomes a word of another language by drawing the marks that language's spelling of the same letters
needs: "como" written by a UNIPEN writer becomes Spanish "cómo" with an acute over its o, "ban" Vietnamese "bạn"
with a dot under the a. Where each letter is comes from the "en" model reading the word (CTC forced alignment,
character_cuts.py): a letter's body is the part of the stroke it is emitted in between its neighbours' emissions.
The marks (diacritics.py) are drawn as separate strokes at the writer's x-height, half of the time right after the
letter's stroke and half of the time after the whole word (delayed strokes), with the writer's own pen speed; an i
that takes a mark (or becomes dotless ı) loses its dot.

Which word a real ink becomes: a word of the language whose letters without marks are the ink's letters (the most
frequent such words of wordfreq, by frequency), in the ink's case pattern; for training, when the language has no
such word, random letters of the ink take random marks of the language instead.
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import diacritics  # noqa: E402
import ink_data  # noqa: E402
from character_cuts import forced_alignment  # noqa: E402
from ink_features import normalized, resample  # noqa: E402

LANGUAGES = ("es", "tr", "de", "fr", "pt", "it", "vi")
BODY_LETTERS = set("acemnorsuvwxz")  # lower-case letters without ascender or descender: their height is the x-height


def letter_boxes(strokes, label, log_probs):
    """For every character of `label`: (left, right, top, bottom) of its body in the ink's coordinates and the
    index of the stroke it is emitted in; and the x-height. None when the alignment fails."""
    emitted = forced_alignment(log_probs, [ink_data.ALPHABET.index(c) + 1 for c in label])
    if emitted is None or any(not e for e in emitted):
        return None
    strokes = [s for s in strokes if len(s) > 0]
    xs = [p[0] for s in strokes for p in s]
    ys = [p[1] for s in strokes for p in s]
    x0, y0 = min(xs), min(ys)
    height = max(max(ys) - y0, 0.1 * (max(xs) - x0))
    points, stroke_of = [], []
    for k, stroke in enumerate(normalized(strokes)):
        r = resample(stroke)
        points += [(x0 + p[0] * height, y0 + p[1] * height) for p in r]
        stroke_of += [k] * len(r)
    centers = [int(np.median(e)) for e in emitted]
    boxes = []
    for k, c in enumerate(centers):
        lo = (centers[k - 1] + c) // 2 if k > 0 else max(0, c - 3)
        hi = (c + centers[k + 1]) // 2 if k + 1 < len(centers) else min(len(points) - 1, c + 3)
        frames = [t for t in range(lo, hi + 1) if stroke_of[t] == stroke_of[c]] or list(range(lo, hi + 1))
        bx = [points[t][0] for t in frames]
        by = [points[t][1] for t in frames]
        boxes.append((min(bx), max(bx), min(by), max(by), stroke_of[c]))
    bodies = [b[3] - b[2] for ch, b in zip(label, boxes) if ch in BODY_LETTERS]
    x_height = float(np.median(bodies)) if bodies else 0.5 * height
    return boxes, max(x_height, 0.2 * height)


def _dot_strokes(strokes, box, x_height, own):
    """The strokes that are the dot of an i whose body is `box`: small, above the body, over it."""
    left, right, top, _ = box
    out = []
    for k, s in enumerate(strokes):
        if k == own:
            continue
        sx = [p[0] for p in s]
        sy = [p[1] for p in s]
        small = max(max(sx) - min(sx), max(sy) - min(sy)) < 0.45 * x_height
        over = left - 0.5 * x_height <= (min(sx) + max(sx)) / 2 <= right + 0.5 * x_height
        if small and over and max(sy) < top + 0.15 * x_height:
            out.append(k)
    return out


def _timed(strokes):
    return all(len(p) > 2 and p[2] is not None for s in strokes for p in s)


def diacritized(strokes, label, target, boxes, x_height, rng):
    """The ink of `label` rewritten to spell `target` (same length; each target character is the label's character
    with marks, or đ/ı/İ of d/i/I), or None when it cannot be (an ı whose i has no separate dot)."""
    strokes = [list(map(list, s)) for s in strokes if len(s) > 0]
    timed = _timed(strokes)
    drop = set()
    after = {}  # stroke index -> mark strokes written right after it
    delayed = []
    for k, (a, b) in enumerate(zip(label, target)):
        if a == b:
            continue
        left, right, top, bottom, own = boxes[k]
        base, marks = diacritics.split(b)
        marks_strokes = []
        if b in "đĐ":
            marks_strokes = diacritics.stem_bar((left, right, top, bottom), b == "Đ", x_height, rng)
        elif b == "ı" or (a == "i" and any(m in diacritics.ABOVE for m in marks)):
            dots = _dot_strokes(strokes, boxes[k][:4], x_height, own)
            if b == "ı" and not dots:
                return None
            drop.update(dots)
        if marks:
            marks_strokes = diacritics.letter_marks(marks, (left, right, top, bottom), x_height, rng)
        if rng.random() < 0.5:
            delayed += marks_strokes
        else:
            after.setdefault(own, []).extend(marks_strokes)
    if timed:
        pen = [(s[-1][2] - s[0][2], sum(math.dist(p[:2], q[:2]) for p, q in zip(s, s[1:]))) for s in strokes if len(s) > 1]
        duration = sum(d for d, _ in pen)
        speed = sum(length for _, length in pen) / duration if duration > 0 else x_height / 100.0  # units per ms
        speed = speed if speed > 0 else x_height / 100.0
    out, shift = [], 0.0

    def write(mark, start):
        """A mark's points with a clock from `start` at the writer's speed; returns them and the end time."""
        t, points = start, []
        for i, (x, y) in enumerate(mark):
            if i:
                t += math.dist((x, y), mark[i - 1]) / speed
            points.append([x, y, t])
        return points, t

    for k, s in enumerate(strokes):
        if k in drop:
            continue
        out.append([[p[0], p[1], p[2] + shift] if timed else [p[0], p[1]] for p in s])
        for mark in after.get(k, []):
            if timed:
                begin = out[-1][-1][2] + rng.uniform(80, 300)
                points, end = write(mark, begin)
                out.append(points)
                shift += end - begin + rng.uniform(80, 300)  # the strokes after it start later
            else:
                out.append([[x, y] for x, y in mark])
    for mark in delayed:
        if timed:
            points, _ = write(mark, max(p[2] for s in out for p in s) + rng.uniform(150, 600))
            out.append(points)
        else:
            out.append([[x, y] for x, y in mark])
    return out


def language_words(language, count=60000):
    """{lower-case skeleton: [(word, weight)]} of the language's `count` most frequent letter-only words (wordfreq),
    weights the square root of the frequency."""
    import wordfreq
    table = {}
    for w in wordfreq.top_n_list(language, count):
        if not w.isalpha() or any(c not in diacritics.LATIN_ALPHABET for c in w) or any(c in "ßæœ" for c in w):
            continue
        table.setdefault(diacritics.skeleton(w), []).append((w, math.sqrt(wordfreq.word_frequency(w, language))))
    return table


def in_case_of(word, pattern, language):
    """`word` (lower case) written in the case pattern of `pattern`: capitalized, all capitals, or as it is."""
    if pattern.isupper() and len(pattern) > 1:
        return "".join(diacritics.upper(c, language) for c in word)
    if pattern[:1].isupper():
        return diacritics.upper(word[0], language) + word[1:]
    return word


def matching_word(label, language, table, rng, most_frequent=False, marked_weight=1.0):
    """A word of `language` that an ink of `label` spells once marks are added (None if none): chosen by weight (a
    word with marks weighing `marked_weight` times its frequency's), or the most frequent one (with marks, when
    `marked_weight` > 1 and there is one)."""
    if not label.isalpha() or not label.isascii():
        return None
    choices = [(w, f * (marked_weight if not w.isascii() else 1.0)) for w, f in table.get(label.lower(), []) if len(w) == len(label)]
    if not choices:
        return None
    if most_frequent:
        word = max(choices, key=lambda wf: (marked_weight > 1 and not wf[0].isascii(), wf[1]))[0]
    else:
        weights = np.array([f for _, f in choices])
        word = choices[int(rng.choice(len(choices), p=weights / weights.sum()))][0]
    target = in_case_of(word, label, language)
    if len(target) != len(label) or any(diacritics.skeleton(b).lower() != a.lower() for a, b in zip(label, target)):
        return None
    return target


def random_marks(label, language, rng, rate=0.25):
    """`label` with random letters given random marks of `language` (training only)."""
    variants = {}
    for c in diacritics.language_characters(language):
        if c.isalpha() and len(diacritics.skeleton(c)) == 1:
            variants.setdefault(diacritics.skeleton(c), []).append(c)
    out = [c if c not in variants or rng.random() >= rate else variants[c][int(rng.integers(len(variants[c])))] for c in label]
    return "".join(out)
