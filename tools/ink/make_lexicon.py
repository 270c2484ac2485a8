#!/usr/bin/env python3
"""Writes models/ink-en.lexicon.tsv: the English word list and word frequencies the "en" recognizer decodes with.

    python3 tools/ink/make_lexicon.py

Words: the 60,000 most frequent English words of wordfreq (PyPI; data CC BY-SA 4.0, from Wikipedia, subtitles,
news, books, web text, Twitter and Reddit) that are letters with optional apostrophes, plus every such word of
Debian's wamerican list (/usr/share/dict/words, SCOWL, permissive with notice) without an apostrophe and not among them at the frequency of wordfreq's rarest
kept word. Lower case; the recognizer's case model gives "Word" and "WORD". One line a word: `word<TAB>count`,
count = frequency per 10^9 words (at least 1), most frequent first, and a third field `N` on names: the words that
the dictionary writes only capitalized ("Friday", "Knox"; "Bill" and "bill" is not a name), which the recognizer
expects capitalized. The Swift side builds both the lexicon trie
and the character n-gram model from this file (Sources/LiteTasks/Ink/InkLanguageModel.swift).
"""
import os
import re

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
WORD = re.compile(r"^[a-z]+('[a-z]+)?$")


def main():
    import wordfreq
    counts = {}
    for w in wordfreq.top_n_list("en", 80000):
        if WORD.match(w) and len(counts) < 60000:
            counts[w] = max(1, round(wordfreq.word_frequency(w, "en") * 1e9))
    floor = min(counts.values())
    spellings = {}
    with open("/usr/share/dict/words", encoding="utf-8", errors="ignore") as f:
        for line in f:
            spellings.setdefault(line.strip().lower(), set()).add(line.strip())
    for w in spellings:
        if WORD.match(w) and "'" not in w and w not in counts:
            counts[w] = floor
    names = {w for w in counts if w in spellings and all(s[:1].isupper() and s[1:] == s[1:].lower() for s in spellings[w])}
    out = os.path.join(ROOT, "models", "ink-en.lexicon.tsv")
    with open(out, "w") as f:
        for w, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            f.write(f"{w}\t{c}\tN\n" if w in names else f"{w}\t{c}\n")
    print(f"wrote {out}: {len(counts)} words, {len(names)} names")


if __name__ == "__main__":
    main()
