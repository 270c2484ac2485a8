"""Diacritics drawn as people write them, for the Latin-script ink model (train_latin.py).

Every accented letter is its base letter plus marks (Unicode's canonical decomposition: "ấ" is "a", circumflex,
acute). A mark is a separate stroke or two, in a shape and size a hand makes, placed above (or below) the base
letter's body: acute and grave a short slanted dash, circumflex and caron a small chevron, tilde a wave, diaeresis two
dots, breve a small cup, hook above a small "?" without its dot, dot above/below a dot, cedilla a small hook under the
letter, horn a hook at the letter's upper right, and the bar of đ across its stem. Vietnamese letters stack a tone
mark over the vowel's own mark (written above it or beside it, upper right). Coordinates are y downward; `size` is
the writer's x-height (the height of an "o").

LATIN_ALPHABET is the network's class list (class k + 1 is LATIN_ALPHABET[k]): printable ASCII, then every letter
and mark of punctuation the seven languages (es, tr, de, fr, pt, it, vi) write beyond it.
"""
import math
import unicodedata

ACUTE, GRAVE, CIRCUMFLEX, TILDE, DIAERESIS, BREVE, DOT_ABOVE, HOOK_ABOVE, HORN, DOT_BELOW, CEDILLA = (
    "\u0301", "\u0300", "\u0302", "\u0303", "\u0308", "\u0306", "\u0307", "\u0309", "\u031b", "\u0323", "\u0327")
ABOVE = {ACUTE, GRAVE, CIRCUMFLEX, TILDE, DIAERESIS, BREVE, DOT_ABOVE, HOOK_ABOVE}
BELOW = {DOT_BELOW, CEDILLA}

VIETNAMESE_VOWELS = "aăâeêioôơuưy"
TONES = (GRAVE, ACUTE, HOOK_ABOVE, TILDE, DOT_BELOW)


def _both_cases(letters):
    return [c for c in letters] + [c.upper() for c in letters]


def _vietnamese_letters():
    lower = ["đ"] + [v for v in VIETNAMESE_VOWELS if not v.isascii()]
    lower += [unicodedata.normalize("NFC", v + t) for v in VIETNAMESE_VOWELS for t in TONES]
    return lower


# The letters beyond ASCII each language writes (lower case; capitals follow, except Turkish's dotted İ, listed
# separately), and its punctuation beyond ASCII.
LANGUAGE_LETTERS = {
    "es": "áéíóúñü",
    "tr": "çğıöşüâîû",
    "de": "äöüß",
    "fr": "àâæçéèêëîïôœùûüÿ",
    "pt": "áâãàçéêíóôõú",
    "it": "àèéìíîòóùú",
    "vi": "".join(_vietnamese_letters()),
}
LANGUAGE_PUNCTUATION = {"es": "¿¡", "tr": "", "de": "„“", "fr": "«»", "pt": "«»", "it": "«»", "vi": ""}


def language_characters(language):
    """Every character beyond printable ASCII that `language` writes: its letters in both cases and its punctuation."""
    letters = LANGUAGE_LETTERS[language]
    out = [c for c in letters] + [upper(c, language) for c in letters if upper(c, language) != c and len(upper(c, language)) == 1]
    if language == "tr":
        out.append("İ")
    out += list(LANGUAGE_PUNCTUATION[language])
    return list(dict.fromkeys(c for c in out if not (32 <= ord(c) < 127)))


def upper(c, language):
    """The capital of a letter (Turkish: i -> İ, ı -> I); ß has none a writer uses."""
    if language == "tr" and c in "iı":
        return "İ" if c == "i" else "I"
    return c if c == "ß" else c.upper()


def _latin_alphabet():
    extra = []
    for language in LANGUAGE_LETTERS:
        for c in language_characters(language):
            if c not in extra:
                extra.append(c)
    return "".join(chr(c) for c in range(32, 127)) + "".join(extra)


LATIN_ALPHABET = _latin_alphabet()


def split(c):
    """(base character, marks) of a letter; special letters (đ, ı, ß, æ, œ) keep themselves as their base."""
    if c in "đĐ":
        return c, []
    d = unicodedata.normalize("NFD", c)
    return d[0], list(d[1:])


def skeleton(text):
    """`text` with its marks removed and its special letters written as ASCII: what the same ink spells without
    diacritics ("ấn" -> "an", "ışık" -> "isik", "đi" -> "di")."""
    out = []
    for c in text:
        base = {"đ": "d", "Đ": "D", "ı": "i", "ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE"}.get(c)
        out.append(base if base is not None else unicodedata.normalize("NFD", c)[0])
    return "".join(out)


def _polyline(points, rng, jitter):
    return [(x + rng.normal(0, jitter), y + rng.normal(0, jitter)) for x, y in points]


def _curve(f, n=8):
    return [f(k / (n - 1)) for k in range(n)]


def mark_strokes(mark, cx, y, size, rng):
    """Strokes of one mark above the point (cx, y) (its lowest point there; for marks below the letter, its top), in
    a size a hand writes next to letters of x-height `size`."""
    s = size * rng.uniform(0.7, 1.2)
    j = 0.03 * s
    w = s * rng.uniform(0.35, 0.55)  # half width
    h = s * rng.uniform(0.45, 0.8)   # height
    tilt = rng.normal(0, 0.1)
    if mark == ACUTE:
        return [_polyline(_curve(lambda u: (cx - 0.4 * w + 0.8 * w * u, y - h * u), 5), rng, j)]
    if mark == GRAVE:
        return [_polyline(_curve(lambda u: (cx - 0.4 * w + 0.8 * w * u, y - h * (1 - u)), 5), rng, j)]
    if mark == CIRCUMFLEX:
        return [_polyline([(cx - w, y), (cx + tilt * w, y - h * 0.8), (cx + w, y)], rng, j)]
    if mark == TILDE:
        return [_polyline(_curve(lambda u: (cx - w + 2 * w * u, y - 0.3 * h - 0.25 * h * math.sin(2 * math.pi * u)), 10), rng, j)]
    if mark in (DIAERESIS, DOT_ABOVE):
        dots = [cx - 0.5 * w, cx + 0.5 * w] if mark == DIAERESIS else [cx]
        r = 0.06 * s
        return [_polyline([(x, y - r), (x + r, y - r * 0.5), (x, y)], rng, j * 0.3) for x in dots]
    if mark == BREVE:
        return [_polyline(_curve(lambda u: (cx - w + 2 * w * u, y - 0.7 * h + 0.7 * h * math.sin(math.pi * u)), 9), rng, j)]
    if mark == HOOK_ABOVE:
        return [_polyline([(cx - 0.5 * w, y - 0.8 * h), (cx, y - h), (cx + 0.5 * w, y - 0.8 * h), (cx + 0.4 * w, y - 0.5 * h),
                           (cx, y - 0.35 * h), (cx, y)], rng, j)]
    if mark == DOT_BELOW:
        r = 0.06 * s
        return [_polyline([(cx, y + 0.25 * s), (cx + r, y + 0.25 * s + r * 0.5), (cx, y + 0.25 * s + r)], rng, j * 0.3)]
    if mark == CEDILLA:
        return [_polyline([(cx, y), (cx + 0.1 * s, y + 0.25 * s), (cx + 0.25 * s, y + 0.4 * s), (cx + 0.1 * s, y + 0.6 * s),
                           (cx - 0.15 * s, y + 0.6 * s)], rng, j)]
    raise ValueError(f"no drawing for mark U+{ord(mark):04X}")


def letter_marks(marks, box, size, rng):
    """Strokes of all `marks` of a letter whose body is `box` (left, right, top, bottom; y downward): marks below
    under the body's bottom, marks above stacked over its top (a tone mark over another mark goes above it or, as
    many Vietnamese writers place it, to its upper right), the horn at the body's upper right."""
    left, right, top, bottom = box
    cx = (left + right) / 2 + (right - left) * 0.1 * rng.normal()
    strokes = []
    above_y = top - size * rng.uniform(0.2, 0.45)
    above_count = 0
    for m in marks:
        if m == HORN:
            x0, y0 = right - 0.1 * (right - left), top + 0.15 * (bottom - top)
            strokes.append(_polyline([(x0, y0), (x0 + 0.25 * size, y0 - 0.2 * size), (x0 + 0.3 * size, y0 - 0.45 * size),
                                      (x0 + 0.2 * size, y0 - 0.55 * size)], rng, 0.02 * size))
        elif m in BELOW:
            strokes += mark_strokes(m, cx, bottom + (0.05 * size if m == CEDILLA else 0.0), size, rng)
        elif m in ABOVE:
            if above_count and rng.random() < 0.6:
                strokes += mark_strokes(m, cx + size * rng.uniform(0.45, 0.7), above_y - size * rng.uniform(0.1, 0.3), size, rng)
            else:
                drawn = mark_strokes(m, cx, above_y, size, rng)
                strokes += drawn
                above_y = min(p[1] for st in drawn for p in st) - size * rng.uniform(0.1, 0.25)
            above_count += 1
        else:
            raise ValueError(f"no placement for mark U+{ord(m):04X}")
    return strokes


def stem_bar(box, capital, size, rng):
    """The bar of đ (across the ascender, right of the bowl) or Đ (across the stem, left, at mid-height)."""
    left, right, top, bottom = box
    if capital:
        y = (top + bottom) / 2 + rng.normal(0, 0.05) * size
        return [_polyline([(left - 0.25 * size, y), (left + 0.45 * size, y + rng.normal(0, 0.03) * size)], rng, 0.02 * size)]
    y = top + 0.25 * (bottom - top) + rng.normal(0, 0.05) * size
    return [_polyline([(right - 0.55 * size, y), (right + 0.25 * size, y + rng.normal(0, 0.03) * size)], rng, 0.02 * size)]
