#!/usr/bin/env python3
"""Writes models/ink-XX.lexicon.tsv: the word list and word frequencies a Latin-script recognizer decodes with, and for
languages other than English models/ink-XX.charset.txt, the characters beyond printable ASCII the language writes.

    python3 tools/ink/make_lexicon.py                   # en: models/ink-en.lexicon.tsv (150,000 wordfreq words)
    python3 tools/ink/make_lexicon.py --language es     # es, tr, de, fr, pt, it, vi: 85,000 wordfreq words each

English: the 150,000 most frequent English words of wordfreq (PyPI; data CC BY-SA 4.0, from Wikipedia, subtitles,
news, books, web text, Twitter and Reddit) that are letters with optional apostrophes, the rarer 90,000 of them
without web spellings (`is_web_spelling`), plus every such word of Debian's wamerican list
(/usr/share/dict/american-english, SCOWL, permissive with notice) without an apostrophe and not among them at the
frequency of wordfreq's rarest kept word. Lower case; the recognizer's case model gives "Word" and "WORD". One line a word: `word<TAB>count`,
count = frequency per 10^9 words (at least 1), most frequent first, and a third field `N` on names: the words that
the dictionary writes only capitalized ("Friday", "Knox"; "Bill" and "bill" is not a name), which the recognizer
expects capitalized; for words wamerican lacks, the first of wbritish-huge, wamerican-huge and wamerican-insane
that has them decides ("Liam", "Umea"). The Swift side builds both the lexicon trie
and the character n-gram model from this file (Sources/LiteTasks/Ink/InkLanguageModel.swift).

The other languages (`LANGUAGES`) share that logic (`wordfreq_counts`, `is_web_spelling`, `mark_names`,
`write_lexicon`): wordfreq's 85,000 most frequent words of the language (--words; chosen so that the seven lexicons
and charsets together stay under 7.5 MB: 6.98 MB, where 70,000 make 5.96 MB and 90,000 7.32 MB; Turkish and
Vietnamese have fewer, wordfreq has only its small lists of 63,261 and 10,622 words for them, so Vietnamese is its
10,412 most frequent syllables) made of the language's letters (a-z and `extra`; words with other letters, such as
Spanish "são" or Greek, are left out) with optional apostrophes inside ("all'interno", "geht's", "istanbul'da"), the
rarer 60% of them without web spellings (there only a letter three times in a row: run-together words are real words
in these languages); lower case with the language's rules (Turkish I -> ı, İ -> i; ß stays ß), NFC. German: wordfreq
folds ß into ss, so a word with ss is written with ß where Debian's German list spells it so ("strasse" -> "straße";
"masse" gives both "masse" and "maße" with the merged count). Unlike English, the Debian lists' words missing from
wordfreq's list are not added at the floor count: these lists spell out every inflection (86,000 to 419,000 words,
66,000 to 372,000 of them not among wordfreq's 70,000 most frequent), which would not fit the size budget, so here
they vouch for rare words (`is_web_spelling`), restore German ß and mark names. Names (`N`): German, Portuguese and
Italian as in English, the words the first list that has them writes only capitalized (German capitalizes every
noun, and those are marked too: the case model then expects the capital a German noun has); Spanish, French and
Turkish, whose lists have no case (wspanish, wfrench) or no list at all (Turkish), by Debian's hunspell dictionary
(`hunspell_names`: "Madrid" and "İstanbul'da" but not "madrid", "istanbul'da"). Vietnamese has no list: wordfreq
only, no names. The charset file is one line, the language's letters beyond ASCII, lower then upper case, then its
punctuation, separated by spaces (diacritics.py's `language_characters`: complete for the alphabet even where a letter is rare, which the run
prints; Vietnamese: ă â đ ê ô ơ ư and each of the twelve vowels with each of the five tones).

Sources and licenses: wordfreq 3.1.1 data CC BY-SA 4.0 (every language). Debian packages, installed by
`tools/setup.sh --ink` (licenses as /usr/share/doc/<package>/copyright gives them):
  es  wspanish, /usr/share/dict/spanish: public domain. hunspell-es, /usr/share/hunspell/es_ES (names only):
      Santiago Bosio, GPL-3+ or LGPL-3+ or MPL-1.1+
  de  wngerman, /usr/share/dict/ngerman (igerman98): Björn Jacke, GPL-2+ ("version 2 or 3")
  fr  wfrench, /usr/share/dict/french: Paul Leyland, GPL-2+. hunspell-fr-classical, /usr/share/hunspell/fr (names
      only): Dicollecte contributors, MPL-2.0
  pt  wportuguese, /usr/share/dict/portuguese (ispell.pt): José João de Almeida, Alberto Simões, Rui Vilela,
      GPL-2+ or LGPL-2.1+ or MPL-1.1; wbrazilian, /usr/share/dict/brazilian (br.ispell): Ricardo Ueda Karpischek
      and others, GPL-2
  it  witalian, /usr/share/dict/italian: Davide G. M. Salvetti, GPL-3+
  tr  no Debian word list; hunspell-tr, /usr/share/hunspell/tr_TR (names only): Harun Reşit Zafer, MPL-2.0
  vi  wordfreq only
Each language: `python3 tools/ink/make_lexicon.py --language XX` (tools/ink/train_all.sh runs all).
"""
import os
import re
import unicodedata

import bundled
import diacritics

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
WORD = re.compile(r"^[a-z]+('[a-z]+)?$")


# Per language: `extra`, its lower-case letters beyond a-z (diacritics.py, which the network's classes come from
# too); `lists`, Debian word lists
# that vouch for rare words and, where they have case information (`names`), decide names, the first that has a word
# deciding; `hunspell`, a Debian hunspell dictionary that decides names instead (`hunspell_names`); `ss`, the list
# that restores German ß.
DICT, HUNSPELL = "/usr/share/dict/", "/usr/share/hunspell/"
LANGUAGES = {
    "es": dict(extra=diacritics.LANGUAGE_LETTERS["es"], lists=[DICT + "spanish"], hunspell=HUNSPELL + "es_ES"),
    "tr": dict(extra=diacritics.LANGUAGE_LETTERS["tr"], lists=[], hunspell=HUNSPELL + "tr_TR"),
    "de": dict(extra=diacritics.LANGUAGE_LETTERS["de"], lists=[DICT + "ngerman"], names=True, ss=DICT + "ngerman"),
    "fr": dict(extra=diacritics.LANGUAGE_LETTERS["fr"], lists=[DICT + "french"], hunspell=HUNSPELL + "fr"),
    "pt": dict(extra=diacritics.LANGUAGE_LETTERS["pt"], lists=[DICT + "portuguese", DICT + "brazilian"], names=True),
    "it": dict(extra=diacritics.LANGUAGE_LETTERS["it"], lists=[DICT + "italian"], names=True),
    "vi": dict(extra=diacritics.LANGUAGE_LETTERS["vi"], lists=[]),
}
WORDS = {"en": 150000}  # the default --words; 85,000 for the others


def lower(text, language):
    """Lower case by the language's rules: Turkish dotted and dotless i; ß stays ß (str.lower, not casefold)."""
    if language == "tr":
        text = text.replace("I", "ı").replace("İ", "i")
    return text.lower()


def word_pattern(extra):
    """Words of the letters a-z and `extra` with optional apostrophes inside."""
    letters = "a-z" + extra
    return re.compile(f"^[{letters}]+('[{letters}]+)?$") if extra else WORD


CORE_SHARE = 0.4  # wordfreq's most frequent 40% of --words (60,000 of English's 150,000) are taken as they are; rarer ones must pass is_web_spelling


def is_web_spelling(word, core, dictionary, run_together=True):
    """Whether a rare word of wordfreq's web text is a spelling no writer means: not in the language's Debian word
    lists (English: its largest American list, wamerican-insane) and either a letter three times in a row
    ("helloooo") or, for English (`run_together`), two frequent words of four letters or more run together
    ("helloworld", which would make "hello" + ink "world" read as one word). Other languages run words together
    rightly, which their lists do not all have: German compounds ("stadtgrenzen"), Turkish suffixes ("ailedeki"),
    Spanish and Italian inflections ("sobrevolando", "rispondevano")."""
    if word in dictionary:
        return False
    return bool(re.search(r"(.)\1\1", word)) or run_together and any(word[:i] in core and word[i:] in core for i in range(4, len(word) - 3))


def read_spellings(path, language="en"):
    """A word list as {lower-case word: the spellings the list has of it}."""
    spellings = {}
    with open(path, encoding="utf-8", errors="ignore") as f:
        for line in f:
            word = line.strip() if language == "en" else unicodedata.normalize("NFC", line.strip())
            spellings.setdefault(lower(word, language), set()).add(word)
    return spellings


def wordfreq_counts(language, words, word, dictionary):
    """wordfreq's `words` most frequent words of the language that match `word`, the rarer ones without web
    spellings, as {word: frequency per 10^9 words, at least 1}."""
    import wordfreq
    counts, core, candidates = {}, set(), 0
    for w in wordfreq.top_n_list(language, words * 4 // 3 + 20000 if language == "en" else 10**7):
        w = unicodedata.normalize("NFC", w)
        if word.match(w) and len(counts) < words:
            candidates += 1
            if len(core) < words * CORE_SHARE:
                core.add(w)
            elif is_web_spelling(w, core, dictionary, language == "en"):
                continue
            counts[w] = max(1, round(wordfreq.word_frequency(w, language) * 1e9))
    return counts, candidates - len(counts)


def add_floor_words(counts, spellings, word):
    """The word list's words without an apostrophe that `counts` lacks, at the count of its rarest word."""
    floor = min(counts.values())
    for w in spellings:
        if word.match(w) and "'" not in w and w not in counts:
            counts[w] = floor


def restore_sharp_s(counts, spellings, language):
    """wordfreq folds ß into ss: a word with ss becomes the list's spellings of it with ß (and keeps ss when the list
    has that too), each with the word's count."""
    sharp = {}
    for w in spellings:
        if "ß" in w:
            sharp.setdefault(w.replace("ß", "ss"), set()).add(w)
    restored = {}
    for w, c in counts.items():
        forms = sharp.get(w, set()) | ({w} if w in spellings or w not in sharp else set())
        for form in forms:
            restored[form] = max(c, restored.get(form, 0))
    return restored


def mark_names(counts, lists, language):
    """The words the first of `lists` that has them writes only capitalized."""
    names = set()
    for w in counts:
        known = next((d[w] for d in lists if w in d), None)
        if known and all(s[:1].isupper() and s[1:] == lower(s[1:], language) for s in known):
            names.add(w)
    return names


def hunspell_rejects(words, dictionary):
    """The words (one a line) that hunspell with `dictionary` (a path without .dic) does not accept."""
    import subprocess
    run = subprocess.run(["hunspell", "-L", "-i", "utf-8", "-d", dictionary], input="\n".join(words) + "\n",
                         capture_output=True, text=True, check=True)
    return set(run.stdout.splitlines())


def hunspell_names(counts, dictionary, language):
    """The words hunspell accepts only capitalized: "madrid" no but "Madrid" yes, "İstanbul'da" but not
    "istanbul'da" (Turkish sets off the suffixes of a name so), where "todos", "paris" (bets), "olur" are words
    (hunspell knows inflected forms, which its .dic's stems such as "Todos" of "Todos los Santos" do not show)."""
    rejected = sorted(hunspell_rejects(sorted(counts), dictionary))
    capitalized = {diacritics.upper(w[0], language) + w[1:]: w for w in rejected}
    wrong = hunspell_rejects(sorted(capitalized), dictionary)
    return {w for c, w in capitalized.items() if c not in wrong}


def write_lexicon(path, counts, names):
    with open(path, "w") as f:
        for w, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            f.write(f"{w}\t{c}\tN\n" if w in names else f"{w}\t{c}\n")


def english(args):
    insane = read_spellings("/usr/share/dict/american-english-insane")
    counts, _ = wordfreq_counts("en", args.words, WORD, insane.keys())
    spellings = read_spellings("/usr/share/dict/american-english")
    add_floor_words(counts, spellings, WORD)
    # A name is a word the first of the dictionaries that has it writes only capitalized: wamerican, then the larger
    # lists for wordfreq's words it lacks ("Liam", "Umea", "Firenze"; British spellings such as "centre" are common
    # nouns in wbritish-huge before wamerican-insane's proper-noun "Centre" is reached).
    larger = [read_spellings(f"/usr/share/dict/{name}") for name in ("british-english-huge", "american-english-huge")] + [insane]
    names = mark_names(counts, [spellings] + larger, "en")
    # "i" is the pronoun "I" in running text (wordfreq counts it 12.3 million per 10^9 words), not the letter the
    # dictionary also lists; left a common word it cost a capital "I" the odds of a capitalized noun, and written
    # lines read "3 made it" for "I made it".
    names.add("i")
    return counts, names


def other(args):
    spec = LANGUAGES[args.language]
    word = word_pattern(spec["extra"])
    lists = {path: read_spellings(path, args.language) for path in spec["lists"]}
    dictionary = set().union(set(), *lists.values())
    dictionary |= {w.replace("ß", "ss") for w in dictionary if "ß" in w}  # wordfreq's German spelling of them
    counts, dropped = wordfreq_counts(args.language, args.words, word, dictionary)
    print(f"{args.language}: {dropped} rare wordfreq words dropped as web spellings")
    if "ss" in spec:
        before = len(counts)
        counts = restore_sharp_s(counts, lists[spec["ss"]], args.language)
        print(f"{args.language}: ß restored, {len(counts) - before} words more ({sum('ß' in w for w in counts)} with ß)")
    if "hunspell" in spec:
        names = hunspell_names(counts, spec["hunspell"], args.language)
    else:
        names = mark_names(counts, list(lists.values()) if spec.get("names") else [], args.language)
    return counts, names


def write_charset(path, language, counts):
    """The language's letters beyond ASCII (lower, then upper case) and its punctuation; prints how many words have
    each letter."""
    characters = diacritics.language_characters(language)
    lowers = list(diacritics.LANGUAGE_LETTERS[language])
    with open(path, "w", encoding="utf-8") as f:
        f.write(" ".join(characters) + "\n")
    used = {c: sum(c in w for w in counts) for c in lowers}
    print(f"{path}: {len(characters)} characters: " + " ".join(characters))
    print("  words with each letter: " + ", ".join(f"{c} {n}" for c, n in used.items()))
    rare = [c for c, n in used.items() if n < 10]
    if rare:
        print("  in fewer than 10 words (kept: the alphabet has them): " + " ".join(rare))
    return characters


def main():
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("--language", default="en", choices=["en"] + list(LANGUAGES))
    parser.add_argument("--words", type=int, help="how many of wordfreq's most frequent words (en 150,000, others 85,000)")
    parser.add_argument("--output", help="the lexicon (models/ink-XX.lexicon.tsv; the charset file beside it)")
    args = parser.parse_args()
    args.words = args.words or WORDS.get(args.language, 85000)
    out = args.output or os.path.join(ROOT, "models", f"ink-{args.language}.lexicon.tsv")
    counts, names = english(args) if args.language == "en" else other(args)
    write_lexicon(out, counts, names)
    written = [out]
    if args.language != "en":
        charset = re.sub(r"\.lexicon\.tsv$", "", out) + ".charset.txt"
        write_charset(charset, args.language, counts)
        written.append(charset)
        letters = sorted({c for w in counts for c in w if c != "'"})
        print(f"{args.language}: {len(letters)} distinct letters in the lexicon")
    bundled.touch_if_bundled(*written)
    print(f"wrote {out}: {len(counts)} words, {len(names)} names")


if __name__ == "__main__":
    main()
