#!/usr/bin/env python3
"""Measures the digital ink recognizer on held-out data through `vision-cli ink --batch --jsonl`.

    python3 tools/ink/evaluate.py [--set words|omniglot|characters|isolated|lines|network|shapes|all] [--limit N] [--cli PATH] [--json OUT]

words: the test writers' UNIPEN words (ink_data.py: trusted sources, cleaned, y downward), model "en" with its
language model: character error rate of the top candidate (edit distance / label length, summed over all words),
top-1 and top-5 exact word accuracy, and mean milliseconds per word; as a diagnostic (not a target), top-1 with the
first letter's case forgiven: test writer hpb0-rv capitalizes words whose labels are lower case (the labels are the
prompts, not what was written). omniglot: the 520 Latin letters of
Omniglot (never trained on), model "en", top-1 letter accuracy ignoring case (the labels name letters; a lone
"o" has no case). characters (only when asked for): the characters cut out of the validation writers' words, each
read on its own, top-1 exact and ignoring case: a development set for how lone characters are read. isolated (only when
asked for): UNIPEN's isolated characters of the --split writers from every usable source (ink_data.py), top-1 exact,
ignoring case, and of the letters alone. lines (only when asked for): UNIPEN's free-text lines of the --split writers,
every source: CER and exact lines. network (only when asked for): the character network alone (`--model`, default the
shipped one) under LiteRT, argmax, case ignored, on Omniglot and on the test writers' isolated characters. shapes: the held-out Quick, Draw! shape drawings (shape_data.py), model zxx-Zsym-x-shapes, top-1 against the
labels and against a person's reading (shapes_review.tsv: 23 drawings are not their label to a person, so a reader
that agrees with a person on every drawing scores 94.6% against the labels).
The inputs are written to a temporary .ndjson.gz in the ../shared/ink format, so the CLI sees exactly that format.
"""
import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ink_data  # noqa: E402
from ink_data import edit_distance  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def run_cli(cli, samples, lang, extra=()):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "samples.ndjson.gz")
        with gzip.open(path, "wt") as f:
            for d in samples:
                f.write(json.dumps({"label": d["label"], "strokes": d["strokes"]}) + "\n")
        out = subprocess.run([cli, "ink", "--batch", path, "--lang", lang, "--jsonl", *extra],
                             check=True, capture_output=True, text=True).stdout
    results = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert len(results) == len(samples), f"{len(results)} results for {len(samples)} samples"
    return results


def omniglot_latin():
    """Omniglot's Latin letters (evaluation only), in file order."""
    with gzip.open(os.path.join(ink_data.SHARED, "omniglot.ndjson.gz"), "rt") as f:
        return [d for d in map(json.loads, f) if d.get("class", "").startswith("Latin/")]


def isolated_samples(split):
    """UNIPEN's lone characters of `split`'s writers, every usable source (ink_data.UNUSABLE_CHARACTER_PARTS left out)."""
    return [d for d in ink_data.read("unipen-chars", split, every_source=True) if len(d["label"]) == 1]


def words(cli, limit, split="test", extra=()):
    samples = ink_data.read("unipen-words", split, limit=limit)
    results = run_cli(cli, samples, "en", extra)
    errors = chars = top1 = top5 = failed = top1_first_case_free = 0
    ms = []
    for d, r in zip(samples, results):
        texts = [c["text"] for c in r.get("candidates", [])]
        if "error" in r:
            failed += 1
        errors += edit_distance(texts[0] if texts else "", d["label"])
        chars += len(d["label"])
        top1 += bool(texts) and texts[0] == d["label"]
        top5 += d["label"] in texts[:5]
        top1_first_case_free += bool(texts) and texts[0][:1].lower() + texts[0][1:] == d["label"][:1].lower() + d["label"][1:]
        ms.append(r.get("ms", 0))
    ms.sort()
    n = len(samples)
    return dict(set=f"unipen-words {split} writers", samples=n, writers=len({d["writer"] for d in samples}), cer=errors / chars,
                top1=top1 / n, top5=top5 / n, top1_first_letter_case_free=top1_first_case_free / n, errors=failed, mean_ms=sum(ms) / n, median_ms=ms[n // 2])


def confusions(misses):
    """{"label->read": count}, most frequent first, of (label, read) pairs."""
    counts = {}
    for label, read in misses:
        counts[f"{label}->{read}"] = counts.get(f"{label}->{read}", 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def omniglot(cli, limit, extra=()):
    samples = omniglot_latin()
    samples = samples[:limit] if limit else samples
    results = run_cli(cli, samples, "en", extra)
    read = [r["candidates"][0]["text"] if r.get("candidates") else "error" for r in results]
    top1 = sum(t.strip().lower() == d["label"].lower() for d, t in zip(samples, read))
    exact = sum(t == d["label"] for d, t in zip(samples, read))
    misses = [(d["label"], t.strip()) for d, t in zip(samples, read) if t.strip().lower() != d["label"].lower()]
    return dict(set="omniglot Latin letters", samples=len(samples), top1_ignoring_case=top1 / len(samples), top1_exact=exact / len(samples),
                confusions=confusions(misses))


def characters(cli, limit, cache=None, extra=()):
    """The characters cut out of the validation writers' words (train_characters.py's validation set), each read as
    an ink on its own: how lone characters are read, on writers the networks were not trained on (Omniglot is
    only reported, never chosen by)."""
    from train_characters import cuts_of
    samples = cuts_of("validation", cache)
    samples = samples[:limit] if limit else samples
    results = run_cli(cli, samples, "en", extra)
    read = [r["candidates"][0]["text"] if r.get("candidates") else "error" for r in results]
    top1 = sum(t.strip() == d["label"] for d, t in zip(samples, read))
    case_free = sum(t.strip().lower() == d["label"].lower() for d, t in zip(samples, read))
    misses = [(d["label"], t.strip()) for d, t in zip(samples, read) if t.strip() != d["label"]]
    return dict(set="characters cut out of the validation writers' words", samples=len(samples), top1=top1 / len(samples),
                top1_ignoring_case=case_free / len(samples), confusions=dict(list(confusions(misses).items())[:20]))


def isolated_characters(cli, limit, split, extra=()):
    """UNIPEN's isolated characters of `split`'s writers, every source but the unusable parts
    (ink_data.UNUSABLE_CHARACTER_PARTS), read one at a time: top-1 exact and ignoring case, and the letters alone."""
    samples = isolated_samples(split)
    samples = samples[:limit] if limit else samples
    results = run_cli(cli, samples, "en", extra)
    read = [r["candidates"][0]["text"].strip() if r.get("candidates") else "error" for r in results]
    letters = [(d, t) for d, t in zip(samples, read) if d["label"].isalpha()]
    misses = [(d["label"], t) for d, t in zip(samples, read) if t != d["label"]]
    return dict(set=f"unipen-isolated {split} writers' characters, every usable source", samples=len(samples),
                top1=sum(t == d["label"] for d, t in zip(samples, read)) / len(samples),
                top1_ignoring_case=sum(t.lower() == d["label"].lower() for d, t in zip(samples, read)) / len(samples),
                letters=len(letters), letters_top1_ignoring_case=sum(t.lower() == d["label"].lower() for d, t in letters) / max(len(letters), 1),
                confusions=dict(list(confusions(misses).items())[:20]))


def lines(cli, limit, split, extra=()):
    """UNIPEN's free-text lines (category 8) of `split`'s writers, every source: character error rate of the top
    candidate (spaces included), exact lines, and milliseconds per line."""
    samples = ink_data.read("unipen-text", split, limit=limit, every_source=True)
    results = run_cli(cli, samples, "en", extra)
    read = [r["candidates"][0]["text"] if r.get("candidates") else "" for r in results]
    errors = sum(edit_distance(t, d["label"]) for d, t in zip(samples, read))
    characters = sum(len(d["label"]) for d in samples)
    ms = sorted(r.get("ms", 0) for r in results)
    forty = sorted(r.get("ms", 0) for d, r in zip(samples, results) if 35 <= len(d["label"]) <= 45)  # issue 49's "40-character line"
    return dict(set=f"unipen-text {split} writers' lines, every source", samples=len(samples),
                writers=len({d["writer"] for d in samples}), characters=characters, cer=errors / characters,
                exact=sum(t == d["label"] for d, t in zip(samples, read)) / len(samples),
                # A line's label has no line breaks: where the layout finds several lines (words written one under the
                # other), this reads each break as the space the label has there.
                cer_line_breaks_as_spaces=sum(edit_distance(t.replace("\n", " "), d["label"]) for d, t in zip(samples, read)) / characters,
                # Some contributors' labels are tokenized ("wasn ' t", "Bergmann .") or space out digits written in
                # boxes ("1 8 0 0"); no reading of the ink has those spaces. A diagnostic, not the target's measure:
                # the CER with every space beside a non-alphanumeric character or between two digits taken out of
                # both the label and the reading (line breaks read as spaces).
                cer_without_label_spacing=sum(edit_distance(without_tokenizing_spaces(t.replace("\n", " ")), without_tokenizing_spaces(d["label"]))
                                              for d, t in zip(samples, read)) / sum(len(without_tokenizing_spaces(d["label"])) for d in samples),
                read_as_several_lines=sum("\n" in t for t in read) / len(samples),
                mean_ms=sum(ms) / len(ms), median_ms=ms[len(ms) // 2], median_ms_of_35_to_45_characters=forty[len(forty) // 2] if forty else None,
                lines_of_35_to_45_characters=len(forty),
                by_source=by_source(samples, read),
                examples=[(d["label"], t) for d, t in zip(samples, read) if t != d["label"]][:10])


def without_tokenizing_spaces(text):
    """`text` without the spaces that a tokenized label puts where handwriting has none: beside a character that is
    neither a letter nor a digit, and between two digits ("Bergmann ." -> "Bergmann.", "1 8 0 0" -> "1800"); any
    other run of spaces becomes one space."""
    words = text.split()
    kept = words[:1]
    for word in words[1:]:
        left, right = kept[-1][-1], word[0]
        if left.isalnum() and right.isalnum() and not (left.isdigit() and right.isdigit()):
            kept.append(" ")
        kept.append(word)
    return "".join(kept)


def by_source(samples, read):
    """Per UNIPEN contributor, worst first: lines, CER with line breaks read as spaces, exact lines. A diagnostic:
    some contributors' lines are another language (atu's are German), code, or lists whose labels space out what
    was written together ("A B C" for "ABC")."""
    groups = {}
    for d, t in zip(samples, read):
        g = groups.setdefault(ink_data.institution(d), [0, 0, 0, 0])
        g[0] += 1
        g[1] += len(d["label"])
        g[2] += edit_distance(t.replace("\n", " "), d["label"])
        g[3] += t == d["label"]
    rows = sorted(groups.items(), key=lambda kv: -kv[1][2])
    return {k: dict(lines=n, cer_line_breaks_as_spaces=round(e / c, 4), exact=round(x / n, 4)) for k, (n, c, e, x) in rows}


def character_network(model, limit):
    """The character network alone (`model`, a .tflite of train_characters.py), under LiteRT's built-in kernels: the
    argmax of its outputs on each picture, case ignored, on Omniglot's Latin letters and on UNIPEN's isolated
    characters of the test writers (every usable source). No decoder, no prior: how well the picture is read."""
    import numpy as np
    from ai_edge_litert.interpreter import Interpreter
    import character_data
    interpreter = Interpreter(model_path=model)
    interpreter.allocate_tensors()
    source, target = interpreter.get_input_details()[0]["index"], interpreter.get_output_details()[0]["index"]

    def accuracy(samples):
        right = 0
        for d in samples:
            interpreter.set_tensor(source, np.array(character_data.raster(d["strokes"]), np.float32)[None, ..., None])
            interpreter.invoke()
            read = character_data.CHARACTERS[int(interpreter.get_tensor(target)[0].argmax())]
            right += read.lower() == d["label"].lower()
        return right / len(samples)

    omniglot, isolated = omniglot_latin(), isolated_samples("test")
    omniglot, isolated = (omniglot[:limit], isolated[:limit]) if limit else (omniglot, isolated)
    return dict(set=f"character network alone ({os.path.basename(model)})", omniglot=accuracy(omniglot),
                isolated_test_characters=accuracy(isolated), samples=[len(omniglot), len(isolated)])


def shapes(cli, limit):
    import shape_data
    samples = shape_data.held_out_quickdraw()
    samples = samples[:limit] if limit else samples
    results = run_cli(cli, samples, "zxx-Zsym-x-shapes")
    read = [r["candidates"][0]["text"] if r.get("candidates") else "error" for r in results]
    misses = [(d["label"], t) for d, t in zip(samples, read) if t != d["label"]]
    result = dict(set="quickdraw shapes, held-out half", samples=len(samples), top1=1 - len(misses) / len(samples), confusions=confusions(misses))
    if not limit:
        person = person_readings(samples)
        not_their_label = sum(p != d["label"] for p, d in zip(person, samples))
        result.update(top1_person_reading=sum(t == p for t, p in zip(read, person)) / len(samples), not_their_label=not_their_label,
                      best_possible_against_labels=1 - not_their_label / len(samples))
    return result


def person_readings(samples, split="test"):
    """What a person calls each drawing of one part of Quick, Draw! (`samples`, in shape_data.quickdraw(split)'s
    order), from shapes_review.tsv: its label unless the review names something else (a drawing that could be read
    either way keeps its label); checks that the list is the one that was reviewed."""
    person = [d["label"] for d in samples]
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "shapes_review.tsv")) as f:
        for line in f:
            if line.startswith("#") or line.startswith("split\t") or not line.strip():
                continue
            part, index, category, label, reading, _ = line.rstrip("\n").split("\t")
            if part != split:
                continue
            d = samples[int(index)]
            assert (d["category"], d["label"]) == (category, label), f"{split} drawing {index} is {d['category']}, reviewed as {category}"
            if reading != "either":
                person[int(index)] = reading
    return person


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--set", default="all", choices=["words", "omniglot", "characters", "isolated", "lines", "network", "shapes", "all"])
    parser.add_argument("--model", default=os.path.join(ROOT, "models", "ink-en.characters.tflite"),
                        help="for --set network: the character network to read alone")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--cli", default=os.path.join(ROOT, ".build", "release", "vision-cli"), help="default: what tools/build.sh builds")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--split", default="test", choices=["test", "validation"], help="the UNIPEN writers the words come from")
    parser.add_argument("--character-weight", help="vision-cli ink --character-weight, for words and omniglot")
    parser.add_argument("--cuts-cache", help="for --set characters: where train_characters.py keeps the cut-out characters")
    parser.add_argument("--tune", action="store_true", help="grid-search decoding on the validation writers instead")
    args = parser.parse_args()
    if args.tune:
        for weight in (0.3, 0.5, 0.7, 0.9, 1.2):
            for bonus in (0.0, 1.0, 2.0, 3.0):
                r = words(args.cli, args.limit, "validation", ["--lm-weight", str(weight), "--character-bonus", str(bonus)])
                print(json.dumps(dict(lm_weight=weight, character_bonus=bonus, cer=round(r["cer"], 4), top1=round(r["top1"], 4),
                                      top5=round(r["top5"], 4), mean_ms=round(r["mean_ms"], 2))), flush=True)
        return
    results = []
    extra = ["--character-weight", args.character_weight] if args.character_weight else []
    for name, run in [("words", lambda: words(args.cli, args.limit, args.split, extra)), ("omniglot", lambda: omniglot(args.cli, args.limit, extra)),
                      ("characters", lambda: characters(args.cli, args.limit, args.cuts_cache, extra)),
                      ("isolated", lambda: isolated_characters(args.cli, args.limit, args.split, extra)),
                      ("lines", lambda: lines(args.cli, args.limit, args.split, extra)),
                      ("network", lambda: character_network(args.model, args.limit)),
                      ("shapes", lambda: shapes(args.cli, args.limit))]:
        if args.set == name or (args.set == "all" and name not in ("characters", "isolated", "lines", "network")):
            results.append(run())
            print(json.dumps(results[-1]), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
