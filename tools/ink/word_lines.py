"""Lines of real handwriting built from one writer's words: training data for reading whole lines.

UNIPEN's free-text lines are few (4,470 of the training writers written as one line), while its words are many
(65,758 of the training writers). A line here is 2 to 7 words of one writer, in that writer's own units (the same
tablet, so the same size), set side by side as people write them:

- each word's body (the median height of its points, which the x-height zone dominates whatever its ascenders and
  descenders) on a baseline that drifts (a slope of a few degrees) and wanders a little from word to word;
- a gap of 0.25 to 0.6 of the words' median height between one word's right edge and the next one's left edge;
- the clock running on: each word starts 200 to 800 ms after the last one ended (a pen lifted to move on); an
  untimed word keeps the line untimed.

The label is the words joined by single spaces.
"""
import numpy as np


def _center_y(strokes):
    return float(np.median([p[1] for s in strokes for p in s]))


def _x_range(strokes):
    xs = [p[0] for s in strokes for p in s]
    return min(xs), max(xs)


def _height(strokes):
    ys = [p[1] for s in strokes for p in s]
    return max(ys) - min(ys)


def _timed(strokes):
    return all(len(p) > 2 and p[2] is not None for s in strokes for p in s)


def line_of(words, rng):
    """One line (dict label, strokes, writer) from `words` (samples of one writer, y downward), in the given order."""
    height = float(np.median([_height(d["strokes"]) for d in words])) or 1.0
    slope = rng.normal(0.0, 0.03)
    timed = all(_timed(d["strokes"]) for d in words)
    strokes, cursor, clock = [], 0.0, 0.0
    for k, d in enumerate(words):
        left, right = _x_range(d["strokes"])
        if k > 0:
            cursor += rng.uniform(0.25, 0.6) * height
        dx = cursor - left
        dy = slope * cursor + rng.normal(0.0, 0.04) * height - _center_y(d["strokes"])
        t0 = d["strokes"][0][0][2] if timed else 0.0
        dt = (clock + (rng.uniform(200, 800) if k > 0 else 0.0)) - t0
        word = [[[p[0] + dx, p[1] + dy, p[2] + dt] if timed else [p[0] + dx, p[1] + dy] for p in s] for s in d["strokes"]]
        strokes += word
        if timed:  # this word ends last: it starts after everything before it
            clock = max(p[2] for s in word for p in s)
        cursor += right - left
    return dict(label=" ".join(d["label"] for d in words), strokes=strokes, writer=words[0]["writer"])


def word_lines(words, count, rng, fewest=2, most=7, most_characters=100):
    """`count` lines, each of `fewest` to `most` words drawn (without repeats) from one writer of `words`, the writer
    chosen in proportion to its number of words; labels of at most `most_characters`."""
    by_writer = {}
    for d in words:
        by_writer.setdefault(d["writer"], []).append(d)
    writers = sorted(w for w, ds in by_writer.items() if len(ds) >= fewest)
    weights = np.array([len(by_writer[w]) for w in writers], dtype=np.float64)
    weights /= weights.sum()
    out = []
    while len(out) < count:
        pool = by_writer[writers[rng.choice(len(writers), p=weights)]]
        n = int(rng.integers(fewest, min(most, len(pool)) + 1))
        chosen = [pool[i] for i in rng.choice(len(pool), n, replace=False)]
        while len(chosen) > fewest and sum(len(d["label"]) + 1 for d in chosen) - 1 > most_characters:
            chosen.pop()
        out.append(line_of(chosen, rng))
    return out
