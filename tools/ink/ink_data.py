"""The ink data the "en" model trains and is evaluated on: ../shared/ink's UNIPEN words and characters, split by writer.

Writers are held out by a hash of their name (never by sample): TEST_PERCENT of them are the test set, reported in
models/README.md; VALIDATION_PERCENT choose the checkpoint; the rest train. Omniglot is evaluation only.
Trusted sources: ../shared/ink's conversion of UNIPEN mis-segments most contributing institutions' files (the ink of
a sample belongs to a neighbouring label, is a fragment, or is a whole line; seen on rendered samples of every source
and confirmed by a first model's per-source error rate of 85-100% even on its own training writers). Only the
sources whose ink shows its label are used, for training and evaluation alike. UNIPEN stores y growing upward
(../shared/ink/README.md says downward: in every source the i and j dots sit at larger y than the letters' middle,
23,000 dots against 700), so every sample is flipped to y growing downward, as ML Kit's ink is. `tools/ink/sources.py`
prints the per-source table the choice of sources rests on.
Cleaning (applied to training and evaluation alike, and the same in `evaluate.py`): points at exactly (0, 0) in an
ink whose other points are elsewhere are tablet artefacts and are dropped; a word whose ink has fewer than two
points per character is truncated in the source and is left out.
"""
import gzip
import hashlib
import json
import os

SHARED = os.environ.get("INK_DATA", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "ink"))
TEST_PERCENT = 12
VALIDATION_PERCENT = 8
ALPHABET = "".join(chr(c) for c in range(32, 127))  # class k + 1 is ALPHABET[k]; class 0 is the CTC blank
# UNIPEN institution directory -> y axis direction as stored; everything else is left out (see above).
TRUSTED_SOURCES = {
    "unipen-words": {"hpp": "up", "sta": "up", "nic": "up", "anj": "up", "pri": "up"},
    "unipen-chars": {"pri": "up"},
}
# The parts of ../shared/ink's re-converted isolated characters (UNIPEN category/institution) whose ink does not show
# its label: the shipped character network reads 0% (1d/kai) and 9% (1d/cea) of them, against 42-95% of every other
# part (63-95% of the digits and letters), upside down or not (tools/ink/sources.py's table, and models/README.md).
UNUSABLE_CHARACTER_PARTS = {"1d/kai", "1d/cea"}
# The parts of the re-converted words (category/institution) that the "en" model trained on the five trusted sources
# reads at a greedy CER over 0.35 the right way up (tools/ink/sources.py --model models/ink-en.tflite, 2026-11-30:
# every other part 0.03-0.30, the trusted ones included): all in category 7, words cut out of running text.
UNUSABLE_WORD_PARTS = {"7/att", "7/cea", "7/ceb", "7/cec", "7/cee", "7/dar", "7/hpb", "7/kai"}
UNUSABLE_PARTS = {"unipen-chars": UNUSABLE_CHARACTER_PARTS, "unipen-words": UNUSABLE_WORD_PARTS}
UNIPEN_ESCAPES = {'\\"': '"', "\\\\": "\\", "\\@": "@"}


def split_of(writer):
    bucket = int(hashlib.sha1(writer.encode()).hexdigest(), 16) % 100
    if bucket < TEST_PERCENT:
        return "test"
    if bucket < TEST_PERCENT + VALIDATION_PERCENT:
        return "validation"
    return "train"


def clean_strokes(strokes):
    points = [p for s in strokes for p in s]
    if any(p[0] != 0 or p[1] != 0 for p in points):
        strokes = [[p for p in s if p[0] != 0 or p[1] != 0] for s in strokes]
    return [s for s in strokes if s]


def usable(sample):
    label = sample["label"]
    points = sum(len(s) for s in sample["strokes"])
    return label and all(c in ALPHABET for c in label) and points >= 2 * len(label) and points >= 2


def institution(sample):
    """"hpp" for source "unipen/data/6/hpp/...": the UNIPEN contributor whose file the sample comes from."""
    parts = sample.get("source", "").split("/")
    return parts[3] if len(parts) > 3 and parts[0] == "unipen" else None


_files_read = {}


def files_read():
    """The ../shared/ink files read so far in this process, each with its sha256 (for the training records)."""
    return dict(sorted(_files_read.items()))


def record_file(path):
    """Remembers a ../shared/ink file this process reads, with its sha256 (see files_read)."""
    if path not in _files_read:
        import hashlib
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        _files_read[os.path.basename(path)] = digest.hexdigest()


def category_part(sample):
    """"1d/kai" for source "unipen/data/1d/kai/...": the UNIPEN category and contributor of a sample."""
    parts = sample.get("source", "").split("/")
    return "/".join(parts[2:4]) if len(parts) > 3 and parts[0] == "unipen" else None


def read(name, split=None, limit=None, trusted_only=True, every_source=False):
    """Cleaned samples of ../shared/ink/<name>.ndjson.gz (optionally only one split), in file order, y downward.
    `every_source`: every UNIPEN contributor's samples, flipped, but for the file's UNUSABLE_PARTS, instead of
    TRUSTED_SOURCES' few."""
    record_file(os.path.join(SHARED, name + ".ndjson.gz"))
    trusted = TRUSTED_SOURCES.get(name)
    unusable = UNUSABLE_PARTS.get(name, set()) if every_source else set()
    out = []
    with gzip.open(os.path.join(SHARED, name + ".ndjson.gz"), "rt") as f:
        for line in f:
            d = json.loads(line)
            if split is not None and split_of(d["writer"]) != split:
                continue
            if category_part(d) in unusable:
                continue
            if every_source:
                direction = "up"
            else:
                direction = trusted.get(institution(d)) if trusted is not None else "down"
            if direction is None and trusted_only:
                continue
            if direction == "up":
                d["strokes"] = [[[p[0], -p[1]] + list(p[2:]) for p in s] for s in d["strokes"]]
            d["label"] = UNIPEN_ESCAPES.get(d["label"], d["label"])
            if name == "unipen-text":  # a line's label also escapes inside it
                for escaped, plain in UNIPEN_ESCAPES.items():
                    d["label"] = d["label"].replace(escaped, plain)
            d["strokes"] = clean_strokes(d["strokes"])
            if usable(d):
                out.append(d)
                if limit and len(out) >= limit:
                    break
    return out


def single_line(sample, width_per_character=0.2, most_characters=100):
    """Whether a text line's ink is written as one line: at least `width_per_character` of its height wide per
    character of its label, and a label of at most `most_characters`. UNIPEN's text "lines" also hold words written
    one under the other and whole paragraphs (labels of up to 1,339 characters); the recognizer's layout reads those
    as several lines, never as one sequence, and their long labels made a training epoch take 70 minutes, not 27."""
    xs = [p[0] for s in sample["strokes"] for p in s]
    ys = [p[1] for s in sample["strokes"] for p in s]
    label = sample["label"]
    return len(label) <= most_characters and max(xs) - min(xs) >= width_per_character * len(label) * max(max(ys) - min(ys), 1e-9)


def greedy(logits, alphabet=ALPHABET):
    """Best-path CTC decoding: the most likely class per step, repeats merged, blanks (0) dropped; class k is
    `alphabet[k - 1]`."""
    out, previous = [], 0
    for k in logits.argmax(-1):
        if k != previous and k != 0:
            out.append(alphabet[k - 1])
        previous = k
    return "".join(out)


def edit_distance(a, b):
    """Levenshtein distance between two strings."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]
