#!/usr/bin/env python3
"""Writes models/ink-en.lexicon.tsv: the English word list and word frequencies the "en" recognizer decodes with.

    python3 tools/ink/make_lexicon.py

Words: the 150,000 most frequent English words of wordfreq (PyPI; data CC BY-SA 4.0, from Wikipedia, subtitles,
news, books, web text, Twitter and Reddit) that are letters with optional apostrophes, the rarer 90,000 of them
without web spellings (`is_web_spelling`), plus every such word of Debian's wamerican list
(/usr/share/dict/american-english, SCOWL, permissive with notice) without an apostrophe and not among them at the
frequency of wordfreq's rarest kept word. Lower case; the recognizer's case model gives "Word" and "WORD". One line a word: `word<TAB>count`,
count = frequency per 10^9 words (at least 1), most frequent first, and a third field `N` on names: the words that
the dictionary writes only capitalized ("Friday", "Knox"; "Bill" and "bill" is not a name), which the recognizer
expects capitalized; for words wamerican lacks, the first of wbritish-huge, wamerican-huge and wamerican-insane
that has them decides ("Liam", "Umea"). The Swift side builds both the lexicon trie
and the character n-gram model from this file (Sources/LiteTasks/Ink/InkLanguageModel.swift).
"""
import os
import re

import bundled

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
WORD = re.compile(r"^[a-z]+('[a-z]+)?$")


CORE = 60000  # wordfreq's most frequent words, taken as they are; rarer ones must pass is_web_spelling


def is_web_spelling(word, core, dictionary):
    """Whether a rare word of wordfreq's web text is a spelling no writer means: not in Debian's largest American
    word list (wamerican-insane) and either a letter three times in a row ("helloooo") or two frequent words of four
    letters or more run together ("helloworld", which would make "hello" + ink "world" read as one word)."""
    if word in dictionary:
        return False
    return bool(re.search(r"(.)\1\1", word)) or any(word[:i] in core and word[i:] in core for i in range(4, len(word) - 3))


def read_spellings(path):
    """A word list as {lower-case word: the spellings the list has of it}."""
    spellings = {}
    with open(path, encoding="utf-8", errors="ignore") as f:
        for line in f:
            spellings.setdefault(line.strip().lower(), set()).add(line.strip())
    return spellings


def main():
    import argparse
    import wordfreq
    parser = argparse.ArgumentParser()
    parser.add_argument("--words", type=int, default=150000, help="how many of wordfreq's most frequent words")
    parser.add_argument("--output", default=os.path.join(ROOT, "models", "ink-en.lexicon.tsv"))
    args = parser.parse_args()
    insane = read_spellings("/usr/share/dict/american-english-insane")
    dictionary = insane.keys()
    counts, core = {}, set()
    for w in wordfreq.top_n_list("en", args.words * 4 // 3 + 20000):
        if WORD.match(w) and len(counts) < args.words:
            if len(core) < CORE:
                core.add(w)
            elif is_web_spelling(w, core, dictionary):
                continue
            counts[w] = max(1, round(wordfreq.word_frequency(w, "en") * 1e9))
    floor = min(counts.values())
    spellings = read_spellings("/usr/share/dict/american-english")
    for w in spellings:
        if WORD.match(w) and "'" not in w and w not in counts:
            counts[w] = floor
    # A name is a word the first of the dictionaries that has it writes only capitalized: wamerican, then the larger
    # lists for wordfreq's words it lacks ("Liam", "Umea", "Firenze"; British spellings such as "centre" are common
    # nouns in wbritish-huge before wamerican-insane's proper-noun "Centre" is reached).
    larger = [read_spellings(f"/usr/share/dict/{name}") for name in ("british-english-huge", "american-english-huge")] + [insane]
    names = set()
    for w in counts:
        known = next((d[w] for d in [spellings] + larger if w in d), None)
        if known and all(s[:1].isupper() and s[1:] == s[1:].lower() for s in known):
            names.add(w)
    out = args.output
    with open(out, "w") as f:
        for w, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            f.write(f"{w}\t{c}\tN\n" if w in names else f"{w}\t{c}\n")
    bundled.touch_if_bundled(out)
    print(f"wrote {out}: {len(counts)} words, {len(names)} names")


if __name__ == "__main__":
    main()
