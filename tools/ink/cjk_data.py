"""The Chinese and Japanese characters the ink models read, where their stroke centre lines come from, and how often
each is written.

Vocabularies (each language's model identifier reads these; one network is trained on their union):
- ja: the 2,136 jōyō kanji (KANJIDIC grades 1-8, Debian `kanjidic`, JIS X 0208; the four jōyō kanji outside
  JIS X 0208, 𠮟 塡 剝 頰, added by hand), the 863 jinmeiyō kanji KANJIDIC lists (grades 9 and 10), hiragana,
  katakana and the prolonged sound mark, in KanjiVG's Japanese forms;
- zh-Hans: the 3,500 most frequent characters (wordfreq's Chinese list) of those Make Me a Hanzi marks Simplified,
  the size of the PRC's list of frequently used characters (现代汉语常用字表);
- zh-Hant: the 4,800 most frequent (by their Simplified form's frequency) of the characters it marks Traditional
  that are in Big5's level 1 (the frequently used characters, 5,401, derived from Taiwan's standard list of 4,808,
  常用國字標準字體表, which this machine has no copy of).
A character written the same way in several languages is one class; where the shapes differ by language (Japanese
shinjitai against Chinese forms) the code points differ too, so each is its own class.

Stroke sources: a class takes its centre lines from KanjiVG when it is Japanese (kana, and kanji in the ja vocabulary)
and from Make Me a Hanzi when it is Chinese; a character in both draws from each, so the network sees both
countries' forms of it.

Frequencies (the character priors and the n-gram models of the language models) come from wordfreq's word lists:
its Chinese list is in Simplified characters, so Traditional characters take the frequency of their Simplified
form (wordfreq's own Traditional-to-Simplified table); characters that list never shows get a floor.
"""
import gzip
import json
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cjk_synthesis  # noqa: E402

KANJIDIC = "/usr/share/edict/kanjidic"
JOYO_OUTSIDE_JIS_X_0208 = ["\U00020B9F", "\u5861", "\u525D", "\u9830"]  # 𠮟 塡 剝 頰
KANA = ([chr(c) for c in range(0x3041, 0x3097)] + [chr(c) for c in range(0x30A1, 0x30FB)] + ["ー"])
LANGUAGES = ("ja", "zh-Hans", "zh-Hant")
ZH_HANS_CHARACTERS = 3500
ZH_HANT_CHARACTERS = 4800


def in_big5_level_1(c):
    """True for Big5's frequently used characters (lead bytes 0xA4-0xC6, up to 0xC67E)."""
    try:
        code = c.encode("big5")
    except UnicodeEncodeError:
        return False
    return len(code) == 2 and 0xA440 <= int.from_bytes(code, "big") <= 0xC67E


def kanjidic_grades():
    """kanji -> KANJIDIC grade (1-6 kyōiku, 8 the rest of jōyō, 9-10 jinmeiyō)."""
    if not os.path.exists(KANJIDIC):
        raise SystemExit(f"cjk_data: {KANJIDIC} is missing; run tools/setup.sh --cjk")
    grades = {}
    with open(KANJIDIC, encoding="euc_jp") as f:
        for line in f:
            if line.startswith("#"):
                continue
            m = re.search(r" G(\d+)\b", line)
            if m:
                grades[line[0]] = int(m.group(1))
    return grades


def vocabularies(hanzi, kanjivg):
    """language -> the characters it reads, in a fixed order (code point)."""
    grades = kanjidic_grades()
    joyo = {k for k, g in grades.items() if g <= 8} | set(JOYO_OUTSIDE_JIS_X_0208)
    jinmeiyo = {k for k, g in grades.items() if g >= 9}
    ja = {c for c in joyo | jinmeiyo if c in kanjivg} | {c for c in KANA if c in kanjivg}
    frequency = character_frequencies("zh-Hans")
    simplified = simplified_table()
    zh_hans = [c for c, (_, scripts) in hanzi.items() if "Simplified" in scripts]
    zh_hans = sorted(zh_hans, key=lambda c: (-frequency.get(c, 0.0), c))[:ZH_HANS_CHARACTERS]
    zh_hant = [c for c, (_, scripts) in hanzi.items() if "Traditional" in scripts and in_big5_level_1(c)]
    zh_hant = sorted(zh_hant, key=lambda c: (-frequency.get(simplified.get(c, c), 0.0), c))[:ZH_HANT_CHARACTERS]
    return {"ja": sorted(ja), "zh-Hans": sorted(zh_hans), "zh-Hant": sorted(zh_hant)}, sorted(joyo)


def stroke_sources(vocab, hanzi, kanjivg):
    """character -> list of stroke lists to synthesize it from (one per country form that exists)."""
    japanese = set(vocab["ja"])
    chinese = set(vocab["zh-Hans"]) | set(vocab["zh-Hant"])
    sources = {}
    for c in sorted(japanese | chinese):
        forms = []
        if c in japanese:
            forms.append(kanjivg[c])
        if c in chinese:
            forms.append(hanzi[c][0])
        sources[c] = forms
    return sources


def canonical_widths(classes, sources):
    """character -> its width as drawn in the stroke data, in heights of a typical character (the median height of
    the characters of the same data set: KanjiVG's 109 grid and Make Me a Hanzi's 1024 grid differ), averaged over
    its forms. 土 is about 1.0 wide, 日 0.54, 一 1.0; the line decoder compares a reading's width with it."""
    def size(strokes):
        points = np.concatenate(strokes)
        return points.max(axis=0) - points.min(axis=0)

    def kind(form):
        return isinstance(form, cjk_synthesis.CharacterStrokes)  # KanjiVG, else Make Me a Hanzi

    heights = {}
    for forms in sources.values():
        for form in forms:
            heights.setdefault(kind(form), []).append(size(form)[1])
    typical = {k: float(np.median(v)) for k, v in heights.items()}
    return {c: float(np.mean([size(f)[0] / typical[kind(f)] for f in sources[c]])) for c in classes}


def write_classes(path, classes, widths):
    """The classes file of a character network: one character a line in output order, a tab, and its canonical width
    (canonical_widths) to two decimals."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(f"{c}\t{widths[c]:.2f}\n" for c in classes))


def simplified_table():
    """wordfreq's Traditional-to-Simplified table: character -> its Simplified form."""
    import msgpack
    import wordfreq
    path = os.path.join(os.path.dirname(wordfreq.__file__), "data", "_chinese_mapping.msgpack.gz")
    with gzip.open(path) as f:
        raw = msgpack.load(f, raw=False, strict_map_key=False)
    return {chr(k): (v if isinstance(v, str) else chr(v)) for k, v in raw.items()}


def character_frequencies(language):
    """character -> relative frequency in running text, from wordfreq's word list of the language (each word's
    frequency counted once for each of its characters)."""
    import wordfreq
    counts = {}
    for word, frequency in wordfreq.get_frequency_dict("zh" if language.startswith("zh") else "ja").items():
        for c in word:
            counts[c] = counts.get(c, 0.0) + frequency
    total = sum(counts.values())
    return {c: f / total for c, f in counts.items()}


def load():
    """(vocabularies, classes in order, stroke sources per class), from ../shared/ink and KanjiVG."""
    hanzi = cjk_synthesis.read_hanzi()
    kanjivg = cjk_synthesis.read_kanjivg()
    vocab, _ = vocabularies(hanzi, kanjivg)
    sources = stroke_sources(vocab, hanzi, kanjivg)
    return vocab, sorted(sources), sources


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--rewrite-classes":
        # `cjk_data.py --rewrite-classes models/ink-ja.classes.txt`: the widths column again from the stroke data,
        # for a network trained before it existed or after the width's definition changed.
        path = sys.argv[2]
        with open(path, encoding="utf-8") as f:
            listed = [line.split("\t")[0].strip() for line in f if line.strip()]
        _, _, sources = load()
        write_classes(path, listed, canonical_widths(listed, sources))
        sys.exit(0)
    vocab, classes, sources = load()
    for language in LANGUAGES:
        print(f"{language}: {len(vocab[language])} characters")
    both = sum(len(f) == 2 for f in sources.values())
    print(f"{len(classes)} classes; {both} drawn from both KanjiVG and Make Me a Hanzi")
    frequencies = character_frequencies("zh-Hans")
    top = sorted(vocab["zh-Hans"], key=lambda c: -frequencies.get(c, 0))[:3500]
    print(f"zh-Hans: the 3,500 most frequent cover {sum(frequencies.get(c, 0) for c in top):.4f} of running text")
    print(json.dumps({k: len(v) for k, v in vocab.items()}))
