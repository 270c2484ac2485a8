#!/usr/bin/env python3
"""Writes the character bigram models of the Chinese and Japanese ink recognizers, in the ARPA format:
models/ink-<language>.lm.arpa for ja, zh-Hans and zh-Hant.

    python3 tools/ink/make_cjk_language_model.py [--languages ja zh-Hans zh-Hant] [--out models]
                                                 [--limit-words N] [--min-frequency F]

Text: wordfreq's word list of the language (its frequencies, not running text). Each word is a sequence
`<s> c1 ... cn </s>`, counted with the word's frequency times COUNT_SCALE (so that the rarest listed words count
about once). Unsegmented text is read as words one after another: the recognizer scores a character b after a as
P(b | a) + P(</s> | a) · P(b | <s>) (the word goes on, or ends and a new one starts), so the word boundaries need
not be known.
Smoothing: interpolated Witten-Bell, P(b | a) = (C(a b) + T(a) · P(b)) / (C(a) + T(a)), where T(a) is the number
of distinct characters seen after a; the unigram P(b) is the relative frequency, mixed with a uniform share over
the language's vocabulary (`UNIFORM_SHARE`) so that every character of the vocabulary has a probability. Written as
ARPA backoff models (log10 probabilities; a bigram's backoff weight log10(T(a) / (C(a) + T(a)))), which the Swift
reader evaluates exactly as the formula above.
Traditional Chinese: wordfreq's Chinese list is in Simplified characters. zh-Hant's model is the zh-Hans model's
statistics, counted over the Simplified forms of its vocabulary, given to every Traditional character through its Simplified form (wordfreq's own table; a Traditional
character the table does not map is its own Simplified form): the Traditional forms of one Simplified character
share its probability equally.
"""
import argparse
import collections
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bundled  # noqa: E402
import cjk_data  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
COUNT_SCALE = 1e8
UNIFORM_SHARE = 0.01
BEGIN, END = "<s>", "</s>"


def counts(language, vocabulary, limit_words=None, min_frequency=0.0):
    """Unigram and bigram counts over the words of wordfreq's list whose characters are all in `vocabulary`."""
    import wordfreq
    unigrams, bigrams = collections.Counter(), collections.Counter()
    words = 0
    for word, frequency in wordfreq.get_frequency_dict("zh" if language.startswith("zh") else "ja").items():
        if frequency < min_frequency or not all(c in vocabulary for c in word):
            continue
        count = frequency * COUNT_SCALE
        sequence = [BEGIN, *word, END]
        for symbol in sequence[1:]:
            unigrams[symbol] += count
        for a, b in zip(sequence, sequence[1:]):
            bigrams[a, b] += count
        words += 1
        if limit_words and words >= limit_words:
            break
    return unigrams, bigrams, words


def witten_bell(unigrams, bigrams, vocabulary):
    """log10 unigram probabilities (with backoff weights) and log10 bigram probabilities."""
    symbols = sorted(set(vocabulary) | {END})
    total = sum(unigrams.values())
    if total == 0:
        raise SystemExit("make_cjk_language_model: no word of the list is written in the vocabulary's characters")
    uniform = 1 / len(symbols)
    unigram = {s: (1 - UNIFORM_SHARE) * unigrams.get(s, 0) / total + UNIFORM_SHARE * uniform for s in symbols}
    history_count, history_types = collections.Counter(), collections.Counter()
    for (a, _), c in bigrams.items():
        history_count[a] += c
        history_types[a] += 1
    bigram, backoff = {}, {}
    for (a, b), c in bigrams.items():
        n, t = history_count[a], history_types[a]
        bigram[a, b] = math.log10((c + t * unigram[b]) / (n + t))
    for a, n in history_count.items():
        backoff[a] = math.log10(history_types[a] / (n + history_types[a]))
    return {s: math.log10(p) for s, p in unigram.items()}, backoff, bigram


def write_arpa(path, unigram, backoff, bigram):
    """An ARPA file: \\1-grams: log10 p, symbol, log10 backoff; \\2-grams: log10 p, a b. <s> has no probability of
    its own (-99, as ARPA writes a start symbol) but a backoff weight."""
    rows = sorted(unigram.items())
    with open(path, "w", encoding="utf-8") as f:
        f.write("\\data\\\n")
        f.write(f"ngram 1={len(rows) + 1}\n")
        f.write(f"ngram 2={len(bigram)}\n\n\\1-grams:\n")
        f.write(f"-99\t{BEGIN}\t{backoff.get(BEGIN, 0.0):.7f}\n")
        for s, p in rows:
            f.write(f"{p:.7f}\t{s}" + (f"\t{backoff[s]:.7f}" if s in backoff else "") + "\n")
        f.write("\n\\2-grams:\n")
        for (a, b), p in sorted(bigram.items()):
            f.write(f"{p:.7f}\t{a} {b}\n")
        f.write("\n\\end\\\n")


def traditional_from_simplified(unigram, backoff, bigram, traditional):
    """zh-Hant's tables: the Traditional forms of a Simplified character share its probabilities equally (發 and 髮
    half of 发's each), so that each distribution still sums to 1; a history keeps its Simplified form's backoff."""
    to_simplified = cjk_data.simplified_table()
    forms = collections.defaultdict(list)
    for c in traditional:
        forms[to_simplified.get(c, c)].append(c)
    forms[END] = [END]
    forms[BEGIN] = [BEGIN]
    share = {s: math.log10(len(ts)) for s, ts in forms.items()}
    t_unigram = {t: unigram[s] - share[s] for s, ts in forms.items() if s in unigram for t in ts}
    for t in traditional:
        t_unigram.setdefault(t, min(unigram.values()))  # no Simplified form in the vocabulary: the floor
    t_backoff = {t: w for s, w in backoff.items() for t in forms.get(s, [])}
    t_bigram = {(ta, tb): p - share[b] for (a, b), p in bigram.items() for ta in forms.get(a, []) for tb in forms.get(b, [])}
    return t_unigram, t_backoff, t_bigram


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--languages", nargs="+", default=list(cjk_data.LANGUAGES), choices=list(cjk_data.LANGUAGES))
    parser.add_argument("--out", default=os.path.join(ROOT, "models"))
    parser.add_argument("--limit-words", type=int, help="only the N most frequent usable words (small test models)")
    parser.add_argument("--min-frequency", type=float, default=0.0)
    args = parser.parse_args()
    vocab, _, _ = cjk_data.load()
    for language in args.languages:
        if language == "zh-Hant":
            # Counted in the Simplified forms of the Traditional vocabulary (wordfreq writes Simplified).
            to_simplified = cjk_data.simplified_table()
            source_vocabulary = sorted({to_simplified.get(c, c) for c in vocab["zh-Hant"]})
        else:
            source_vocabulary = vocab[language]
        unigrams, bigrams, words = counts(language, set(source_vocabulary), args.limit_words, args.min_frequency)
        tables = witten_bell(unigrams, bigrams, source_vocabulary)
        if language == "zh-Hant":
            tables = traditional_from_simplified(*tables, vocab["zh-Hant"])
        path = os.path.join(args.out, f"ink-{language}.lm.arpa")
        write_arpa(path, *tables)
        bundled.touch_if_bundled(path)
        print(f"{path}: {words} words, {len(tables[0])} characters, {len(tables[2])} bigrams, "
              f"{os.path.getsize(path) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
