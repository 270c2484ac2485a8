"""Real isolated characters cut out of real words: the training writers' UNIPEN words, aligned to their labels by a
trained "en" model.

../shared/ink has few usable isolated characters (its UNIPEN characters are mostly mis-segmented; ink_data.py), and
a model that learnt letters only inside words and from font glyphs reads a lone handwritten "s" as "5". Every
trusted training word the model already reads correctly (greedy decoding equals the label) is force-aligned to its
label (CTC Viterbi: the most likely path that spells exactly the label), which gives the frame at which each
character is emitted; a resampled frame maps back to the stroke it came from. A character whose emission falls in
strokes of its own (no other character emitted there; print writing) becomes an isolated ink: those strokes, plus
strokes where nothing is emitted that lie over its horizontal extent (the dot of an i, the bar of a t). Characters
of cursive strokes are left out: cutting a connected stroke would teach ligature fragments.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ink_data  # noqa: E402
from ink_data import greedy  # noqa: E402
from ink_features import normalized, resample  # noqa: E402


def frame_strokes(strokes):
    """For each feature row of `features(strokes)`, the index of the stroke it was resampled from."""
    out = []
    for k, stroke in enumerate(normalized(strokes)):
        out += [k] * len(resample(stroke))
    return out


def forced_alignment(log_probs, label):
    """The frames at which each label character is emitted on the best CTC path spelling `label` (Viterbi over the
    2L+1 blank-interleaved states); None if no path fits (fewer frames than the label needs)."""
    frames, n = len(log_probs), 2 * len(label) + 1
    states = np.zeros(n, np.int64)
    states[1::2] = label
    emit = log_probs[:, states]  # [frames, n]
    score = np.full(n, -np.inf)
    score[0], score[1] = emit[0, 0], emit[0, 1]
    back = np.zeros((frames, n), np.int8)  # 0: stay, 1: from s-1, 2: from s-2
    skippable = np.zeros(n, bool)
    skippable[3::2] = np.array(label[1:]) != np.array(label[:-1])
    for t in range(1, frames):
        one = np.concatenate([[-np.inf], score[:-1]])
        two = np.where(skippable, np.concatenate([[-np.inf, -np.inf], score[:-2]]), -np.inf)
        best = np.argmax(np.stack([score, one, two]), axis=0)
        score = np.choose(best, [score, one, two]) + emit[t]
        back[t] = best
    s = n - 1 if score[n - 1] >= score[n - 2] else n - 2
    if not np.isfinite(score[s]):
        return None
    emitted = [[] for _ in label]
    for t in range(frames - 1, -1, -1):
        if s % 2 == 1:
            emitted[s // 2].append(t)
        s -= int(back[t, s])
    return emitted


def cut(strokes, label, log_probs):
    """(character, strokes) for every character of `label` that owns its strokes (see the module text)."""
    emitted = forced_alignment(log_probs, [ink_data.ALPHABET.index(c) + 1 for c in label])
    if emitted is None or any(not e for e in emitted):
        return []
    stroke_of = frame_strokes(strokes)
    owners = {}  # stroke -> characters emitted in it
    for k, frames in enumerate(emitted):
        for t in frames:
            owners.setdefault(stroke_of[t], set()).add(k)
    extents = [(min(p[0] for p in s), max(p[0] for p in s)) for s in strokes]
    out = []
    for k, character in enumerate(label):
        if character == " ":
            continue
        own = sorted(s for s, who in owners.items() if who == {k})
        if not own or any(k in who and len(who) > 1 for who in owners.values()):
            continue
        left, right = min(extents[s][0] for s in own), max(extents[s][1] for s in own)
        width = max(right - left, 1)
        extra = [s for s in range(len(strokes)) if s not in owners and
                 min(extents[s][1], right) - max(extents[s][0], left) >= 0.5 * max(extents[s][1] - extents[s][0], 1e-9)
                 and extents[s][1] - extents[s][0] <= 2 * width]
        out.append((character, [strokes[s] for s in sorted(own + extra)]))
    return out


def characters_of(words, model, features_of, batch=32):
    """Cuts for the `words` (samples of ink_data.read) that `model` (a Keras ink model) reads correctly."""
    out = []
    order = sorted(range(len(words)), key=lambda i: len(features_of[i]))
    for start in range(0, len(order), batch):
        group = order[start:start + batch]
        x = np.zeros((len(group), max(len(features_of[i]) for i in group), 5), np.float32)
        for r, i in enumerate(group):
            x[r, :len(features_of[i])] = features_of[i]
        logits = model(x, training=False).numpy()
        for r, i in enumerate(group):
            z = logits[r, :len(features_of[i])].astype(np.float64)
            log_probs = z - np.log(np.exp(z - z.max(-1, keepdims=True)).sum(-1, keepdims=True)) - z.max(-1, keepdims=True)
            label = words[i]["label"]
            if greedy(log_probs) != label:
                continue
            out += cut(words[i]["strokes"], label, log_probs)
    return out
