#!/usr/bin/env python3
"""Writes the ink model cards' numbers into models/README.md from the training records and an evaluation.

    python3 tools/ink/evaluate.py --json /tmp/ink-eval.json
    python3 tools/ink/evaluate.py --set isolated --json /tmp/ink-isolated.json    (optional: a row for it)
    python3 tools/ink/evaluate.py --set lines --json /tmp/ink-lines.json          (optional: rows for it)
    python3 tools/ink/model_cards.py /tmp/ink-eval.json [/tmp/ink-isolated.json] [/tmp/ink-lines.json]
    python3 tools/ink/evaluate_latin.py --json /tmp/ink-latin.json
    python3 tools/ink/model_cards.py --latin /tmp/ink-latin.json     (the Latin-script network's card)
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import register  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def runs(record):
    out = []
    while record:
        out.append(record)
        record = record.get("resumed_run")
    return out[::-1]


def replace(text, name, body):
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    return text[:text.index(start) + len(start)] + "\n" + body.strip() + "\n" + text[text.index(end):]


def main():
    evaluation = {r["set"].split(" ")[0] + ("-" + r["set"].split(" ")[1] if r["set"].startswith("unipen") else ""): r
                  for path in sys.argv[1:] for r in json.load(open(path))}
    words, omniglot, shapes = evaluation["unipen-words-test"], evaluation["omniglot"], evaluation["quickdraw"]
    en = json.load(open(os.path.join(ROOT, "models", "ink-en.training.json")))
    sh = json.load(open(os.path.join(ROOT, "models", "ink-shapes.training.json")))
    en_size = os.path.getsize(os.path.join(ROOT, "models", "ink-en.tflite"))
    ch = json.load(open(os.path.join(ROOT, "models", "ink-en.characters.training.json")))
    unipen_characters_text = ("every source's training writers but the parts whose ink does not show its label, "
                              f"{ch.get('unipen_character_copies_each', 1)} each" if ch.get("unipen_characters") == "all"
                              else "the trusted sources' training writers, three each")
    isolated = evaluation.get("unipen-isolated-test")
    isolated_row = (f"| UNIPEN's isolated characters of the test writers, every usable source (never trained on), top-1 ignoring case; the letters alone "
                    f"| {isolated['samples']} | {isolated['top1_ignoring_case']:.1%} ({isolated['top1']:.1%} with case); letters {isolated['letters_top1_ignoring_case']:.1%} | |"
                    if isolated else "")
    ch_size = os.path.getsize(os.path.join(ROOT, "models", "ink-en.characters.tflite"))
    sh_size = os.path.getsize(os.path.join(ROOT, "models", "ink-shapes.tflite"))
    geo = json.load(open(os.path.join(ROOT, "models", "ink-shapes.geometry.training.json")))
    geo_size = os.path.getsize(os.path.join(ROOT, "models", "ink-shapes.geometry.tflite"))
    geo_members = geo.get("members") or [dict(best_epoch=geo["best_epoch"])]
    geo_synthetic = geo.get("synthetic_validation_accuracy", geo.get("history", [{}])[geo.get("best_epoch", 1) - 1].get("validation_accuracy"))
    geo_networks = (f"{len(geo_members)} dense networks of 64 and 64 ReLU units trained with successive seeds, their logits averaged"
                    if len(geo_members) > 1 else "a dense network of 64 and 64 ReLU units")
    all_runs = runs(en)
    run_lines = []
    for k, r in enumerate(all_runs, 1):
        run_lines.append(f"| {k} | {r.get('layers', 2)}{f' (+{added})' if (added := r.get('added_layers', 0)) else ''} | {r['minutes']:.0f} | {len(r['history'])} | {r['training_sequences']} | "
                         f"{r['unipen_words']:,} ({r.get('word_sources', 'trusted')}) | "
                         f"{r['unipen_characters']:,} ({r.get('unipen_character_sources', 'trusted')}) | {r['synthetic']:,} | "
                         f"{r.get('augmented_copies', 2)} | {r.get('single_characters', 0.1)} | {r.get('cut_characters', 0)} | "
                         f"{r.get('unipen_lines', 0)} ({r.get('unipen_line_copies', 0)}) | {r.get('word_lines', 0):,} | "
                         f"{r.get('speed_range', 1.0)} | {r.get('learning_rate', 0.001)} | {r['best_validation_greedy_cer']:.4f} |")

    best_shapes = max(sh["history"], key=lambda h: (h["validation_accuracy"] + h.get("quickdraw_validation_accuracy", h["validation_accuracy"])) / 2)
    runs_text = ("One run from random weights." if len(all_runs) == 1 else
                 "Each run continues the previous one's exported weights.")
    speed_text = f", written up to {en['speed_range']:g} times slower or faster" if en.get("speed_range", 1.0) > 1 else ""
    cutter = (f"the run itself reads correctly at {en['cut_characters_at']:.0%} of its budget (trained on from the next epoch)"
              if en.get("cut_characters_at") is not None else "a previous run reads correctly")
    cuts_text = (f", {en['cut_characters']:,} real isolated characters cut out of the training words {cutter} "
                 "(`character_cuts.py`: CTC forced alignment, characters that own their strokes)") if en.get("cut_characters") else ""
    grid_text = (f"; {en['pixel_grid']:.0%} of the copies snapped to a pixel grid of 20 to 60 pixels per ink height, as a mouse or a finger "
                 "on a small canvas draws") if en.get("pixel_grid") else ""

    lines_text = ((f"; in the runs that name them, UNIPEN's free-text lines of the training writers that are written as one line "
                   "(every source; `ink_data.single_line`: at least 0.2 heights wide a character, at most 100 characters) and their copies, "
                   "the checkpoint chosen by the greedy CER over the validation writers' words and such lines together")
                  if any(r.get("unipen_lines") for r in all_runs) else "")
    built_lines_text = ("; in the runs that name them, lines built from 2 to 7 of one training writer's words set side by side "
                        "(`word_lines.py`)") if any(r.get("word_lines") for r in all_runs) else ""
    lines_text += built_lines_text
    numbers = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
    layers_text = f"{numbers.get(en.get('layers', 2), en.get('layers', 2))} bidirectional LSTM layers of {en.get('units', 96)} units"
    residual = en.get("residual_layers", 0)
    residual_text = (f"; the top {numbers.get(residual, residual)} add{'s' if residual == 1 else ''} {'its' if residual == 1 else 'their'} input to "
                     f"{'its' if residual == 1 else 'their'} output, grown onto the trained network by `--add-layers`" if residual else "")
    lexicon_words = sum(1 for _ in open(os.path.join(ROOT, "models", "ink-en.lexicon.tsv")))
    copies_text = ("augmented copies: an affine map, a smooth warp, a third with a stroke's end left off" if sh.get("varied") else "affine copies")
    dropout_text = f"; dropout {sh['dropout']:g} on the pooled features while training" if sh.get("dropout") else ""
    if sh.get("label_smoothing"):
        dropout_text += (f"; labels smoothed by {sh['label_smoothing']:g} (a network less sure of its errors, whose scores the geometry "
                         "network's can outweigh)")
    harder_text = "; hexagons and octagons drawn irregular since the shape_data.py of this run, harder than before" if sh.get("varied") else ""
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "this machine")

    def mark(ok):
        return "met" if ok else "**not met**"
    lines = evaluation.get("unipen-text-test")
    spacing_text = (f"; without the spaces tokenized labels put beside punctuation and between digits (evaluate.py's "
                    f"`without_tokenizing_spaces`, a diagnostic) CER {lines['cer_without_label_spacing']:.1%}"
                    if lines and "cer_without_label_spacing" in lines else "")
    lines_rows = (f"| UNIPEN's free-text lines of the test writers, every source (never trained on); with the line breaks the layout finds "
                  f"(words written one under the other) read as the label's spaces | {lines['samples']} | CER {lines['cer']:.1%} ({lines['cer_line_breaks_as_spaces']:.1%}), "
                  f"{lines['exact']:.1%} of lines exact{spacing_text} | CER at most 6%: {mark(lines['cer'] <= 0.06)}; at least 40% exact: {mark(lines['exact'] >= 0.4)} |\n"
                  f"| recognition time per line of 35 to 45 characters, whole pipeline | {lines['lines_of_35_to_45_characters']} | median {lines['median_ms_of_35_to_45_characters']:.1f} ms "
                  f"(all lines: mean {lines['mean_ms']:.1f} ms) | at most 30 ms: {mark(lines['median_ms_of_35_to_45_characters'] <= 30)} |"
                  if lines else "")
    en_card = f"""
Input `ink_features` float32 [1, T, 5] (T resizable: the resampled points, `Docs/digital-ink.md`), {layers_text}
(`UNIDIRECTIONAL_SEQUENCE_LSTM` + `REVERSE_V2`{residual_text}), a dense layer to 96 logits per point (CTC
blank + printable ASCII 32-126). {en['parameters']:,} parameters, {'weights stored as float16 (widened to float32 when the model loads)' if en.get('float16_weights') else 'float32'}, {en_size / 1e6:.2f} MB (target at most 5 MB: {mark(en_size <= 5e6)}).
TensorFlow {en['tensorflow']}, `tools/ink/train_all.sh` (`train_text.py`), runs of a fixed number of epochs and a seed on this 2-core machine:

| run | LSTM layers (grown by) | minutes | epochs | sequences an epoch | UNIPEN words (sources) | UNIPEN characters (sources) | synthetic Hershey inks | augmented copies of a word | single characters (share of synthetic) | real characters cut from words | UNIPEN text lines (augmented copies of each) | lines built from words | speed range of copies | learning rate | best validation greedy CER |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
{chr(10).join(run_lines)}

{runs_text} Sequences: the UNIPEN words and characters of the training writers, of the trusted sources or of every source
but the parts whose ink does not show its label ("all": `ink_data.UNUSABLE_WORD_PARTS`, `UNUSABLE_CHARACTER_PARTS`; a
random sample of the characters where the run asked for one), and their augmented copies (every second one without its
timing{speed_text}{grid_text}){cuts_text}, synthetic Hershey inks{lines_text}. Validation reads the trusted sources' words either way.

Beside it, **ink-en.characters.tflite**, the character network that also reads an ink that is one character on its own
(`InkCharacterClassifier.swift`): the ink drawn as a 32x32 picture (`character_data.py`), three 3x3 convolutions (32,
64, 128) with max pooling, dense 256, 94 logits (printable ASCII without the space). {ch['parameters']:,} parameters, float32,
{ch_size / 1e6:.2f} MB (with the LSTM {(en_size + ch_size) / 1e6:.2f} MB: {mark(en_size + ch_size <= 5e6)} against 5 MB). `tools/ink/train_characters.py`,
{ch['minutes']:.0f} minutes ({len(ch['history'])} epochs), every class weighing the same: {ch['cut_characters']:,} real characters cut out of the
training writers' words by ink-en.tflite (`character_cuts.py`) and as many affine copies (half stair-stepped on a coarse
pixel grid, as a mouse draws), {ch['unipen_character_copies']:,} copies of UNIPEN's isolated characters ({unipen_characters_text}), {ch['hershey']:,} Hershey glyphs{f"; labels smoothed by {ch['label_smoothing']:g}" if ch.get("label_smoothing") else ""}. Validation
(the checkpoint): {ch['validation_characters']:,} characters cut out of the validation writers' words, cross-entropy {ch['best_validation_cross_entropy']:.3f}.

**Measured** (`python3 tools/ink/evaluate.py`, release build, 1 thread, decoding as shipped: beam 64, a lexicon of {lexicon_words:,} words,
language model weight 0.9, bonus 2.0, names and sentence starts expected capitalized, a lone character scored as one and also read by the
character network (weight 1.5), pens slower than 2.5 heights a second read at that speed):

| set | samples | result | target |
|---|---|---|---|
| held-out UNIPEN words ({words['writers']} test writers, never trained on) | {words['samples']} | CER {words['cer']:.2%}, top-1 {words['top1']:.1%}, top-5 {words['top5']:.1%} | CER at most 8%: {mark(words['cer'] <= 0.08)}; top-1 at least 80%: {mark(words['top1'] >= 0.8)}; top-5 at least 90%: {mark(words['top5'] >= 0.9)} |
| the same, top-1 with the first letter's case forgiven (a diagnostic: test writer hpb0-rv capitalizes words its labels write in lower case) | {words['samples']} | {words.get('top1_first_letter_case_free', float('nan')):.1%} | |
| recognition time per word, whole pipeline ({cpu}) | {words['samples']} | mean {words['mean_ms']:.1f} ms, median {words['median_ms']:.1f} ms | at most 10 ms: {mark(words['mean_ms'] <= 10)} |
| Omniglot Latin letters (never trained on), top-1 letter ignoring case | {omniglot['samples']} | {omniglot['top1_ignoring_case']:.1%} ({omniglot['top1_exact']:.1%} with case) | at least 90%: {mark(omniglot['top1_ignoring_case'] >= 0.90)} |
{isolated_row}
{lines_rows}"""
    sh_card = f"""
The same features, one bidirectional LSTM layer of {sh['units']} units, the maximum over time and a dense layer to 10
logits: arrow, circle (ellipses included), diamond, hexagon, line, octagon, rectangle (squares included), star,
triangle, other. {sh['parameters']:,} parameters, {sh_size / 1e3:.0f} kB. `tools/ink/train_shapes.py`, {sh['minutes']:.0f} minutes,
{len(sh['history'])} epochs over {sh['training_shapes']:,} inks: {sh['synthetic']:,} synthetic hand-drawn shapes (`shape_data.py`), the
training part of Quick, Draw!'s shape drawings ({sh['quickdraw_train']}, each with {sh['quickdraw_copies']} {copies_text}) and
{sh.get('other_sketches', 0):,} more of that part's sketches of other categories as "other" (each with one such copy){dropout_text}. The model reads
no timing (trained on the synthetic clock only; the recognizer drops the ink's timing for it), so a mouse or a slow
pen reads like a finger. Quick, Draw! is split by a hash of drawer and category: half is the held-out test set below,
a third of the other half ({sh.get('quickdraw_validation', 0)} drawings) chooses the checkpoint together with synthetic shapes of another seed.

Beside it, **ink-shapes.geometry.tflite**, a second opinion that does not read the pen path: {geo['features']} geometric features
of the whole ink (`shape_geometry.py`, after the CALI recognizer: ratios between the convex hull, its largest inscribed
triangle and quadrilateral and its enclosing rectangle; how the pen turns; the Fourier magnitudes of a radial profile)
into {geo_networks}, {geo['parameters']:,} parameters, {geo_size / 1e3:.0f} kB. `tools/ink/train_shape_geometry.py`,
{geo['minutes']:.0f} minutes, {geo['epochs']} epochs{" each" if len(geo_members) > 1 else ""} over {geo['training_inks']:,} inks (the LSTM's data: {geo['synthetic']:,} synthetic, {geo['quickdraw_train']}
Quick, Draw! drawings with {geo['quickdraw_copies']} copies each, {geo['other_sketches']:,} other sketches twice), each checkpoint chosen as the LSTM's
(epoch {", ".join(str(m['best_epoch']) for m in geo_members)}). The recognizer adds {geo['weight']} times its log-probabilities to the LSTM's: of the weights
{", ".join(geo['fused_quickdraw_validation_correct'])} (0: the LSTM alone), the one that reads the most of the {geo['quickdraw_validation']} validation
drawings right ({", ".join(str(c) for c in geo['fused_quickdraw_validation_correct'].values())}; the geometry alone {geo['geometry_quickdraw_validation_correct']}), among equals the one under which
their labels are likeliest (cross-entropy {", ".join(f"{c:.2f}" for c in geo['fused_quickdraw_validation_cross_entropy'].values())}).

| held-out set | samples | top-1 | target |
|---|---|---|---|
| synthetic shapes of another seed (half of the checkpoint choice{harder_text}), the LSTM | 1000 | {best_shapes['validation_accuracy']:.1%} | at least 95%: {mark(best_shapes['validation_accuracy'] >= 0.95)} |
| the same kind of shapes (another draw), the geometry network | 1000 | {geo_synthetic:.1%} | |
| Quick, Draw! validation part (the other half of the checkpoint choice), the LSTM; the geometry network; both | {sh.get('quickdraw_validation', 0)} | {best_shapes.get('quickdraw_validation_accuracy', float('nan')):.1%}; {geo['geometry_quickdraw_validation_correct'] / geo['quickdraw_validation']:.1%}; {geo['fused_quickdraw_validation_correct'][str(geo['weight'])] / geo['quickdraw_validation']:.1%} | |
| Quick, Draw! held-out half (shape categories + 150 sketches of other categories as "other"), the recognizer (both) | {shapes['samples']} | {shapes['top1']:.1%} | at least 95%: {mark(shapes['top1'] >= 0.95)} |
| the same drawings against a person's reading (`tools/ink/shapes_review.tsv`: {shapes['not_their_label']} are not their label to a person, so a reader that agrees with a person on every one scores at most {shapes['best_possible_against_labels']:.1%} against the labels) | {shapes['samples']} | {shapes['top1_person_reading']:.1%} | |

Quick, Draw! is hard here: many of its drawings are unfinished (a hexagon of three sides), its "diamond" is often a
gem, and some "other" sketches are shapes (a sun drawn as a star). The most frequent confusions:
{", ".join(f"{k} {v}" for k, v in sorted(shapes['confusions'].items(), key=lambda kv: -kv[1])[:8])}.
"""
    path = os.path.join(ROOT, "models", "README.md")
    text = open(path).read()
    text = replace(text, "ink-en-card", en_card)
    text = replace(text, "ink-shapes-card", sh_card)
    open(path, "w").write(text)
    print("wrote models/README.md")


LATIN_NAMES = {code: name for code, (name, _) in register.LATIN_LANGUAGES.items()}
LEXICON_SOURCES = dict(es="wordfreq; wspanish (public domain) and hunspell-es (MPL-1.1 of its three) for rare words and names",
                       tr="wordfreq; hunspell-tr (MPL-2.0) for names", de="wordfreq; wngerman (GPL-2+) for rare words, ß and names",
                       fr="wordfreq; wfrench (GPL-2+) for rare words, hunspell-fr (MPL-2.0) for names",
                       pt="wordfreq; wportuguese (GPL-2+/LGPL-2.1+/MPL-1.1), wbrazilian (GPL-2) for rare words and names",
                       it="wordfreq; witalian (GPL-3+) for rare words and names", vi="wordfreq only")


def latin_card(path):
    """The ink-latin card of models/README.md from evaluate_latin.py's JSON and the training records."""
    results = json.load(open(path))
    record = json.load(open(os.path.join(ROOT, "models", "ink-latin.training.json")))
    size = os.path.getsize(os.path.join(ROOT, "models", "ink-latin.tflite"))
    latin_files = ["ink-en.tflite", "ink-en.characters.tflite", "ink-en.lexicon.tsv", "ink-latin.tflite", "ink-latin.alphabet.txt"]
    latin_files += [f"ink-{r['language']}.{kind}" for r in results for kind in ("lexicon.tsv", "charset.txt")]
    total = sum(os.path.getsize(os.path.join(ROOT, "models", f)) for f in latin_files)
    rows = []
    for run, r in enumerate(runs(record), 1):
        rows.append(f"| {run} | {r['minutes']:.0f} | {r['epochs']} | {r['training_sequences']} | {r['variants']} | "
                    f"{r.get('marked_weight', 1.0):g} | {r.get('random_mark_rate', 0.25):g} | {r['learning_rate']:g} | "
                    f"{r['validation_with_marks']} | {r['best_validation_greedy_cer']:.4f} |")
    measured = []
    for r in results:
        code = r["language"]
        lexicon = os.path.join(ROOT, "models", f"ink-{code}.lexicon.tsv")
        words = sum(1 for _ in open(lexicon, encoding="utf-8"))
        real, marked, synthetic = r["real"], r["real_with_marks"], r["synthetic"]
        measured.append(f"| {LATIN_NAMES[code]} (`{code}`) | {words:,} | {real['samples']} ({r['real_writers']} writers): CER {100 * real['cer']:.1f}%, "
                        f"top-1 {100 * real['top1']:.1f}%, top-5 {100 * real['top5']:.1f}% | {marked['samples']}: CER {100 * marked['cer']:.1f}%, "
                        f"top-1 {100 * marked['top1']:.1f}%, top-5 {100 * marked['top5']:.1f}% | {synthetic['samples']}: CER {100 * synthetic['cer']:.1f}%, "
                        f"top-1 {100 * synthetic['top1']:.1f}%, top-5 {100 * synthetic['top5']:.1f}% | {real['mean_ms']:.1f} |")
    sources = "\n".join(f"| {LATIN_NAMES[r['language']]} | {LEXICON_SOURCES[r['language']]} |" for r in results)
    return f"""
Input as ink-en.tflite's, {record.get('layers', 2)} bidirectional LSTM layers of {record.get('units', 96)} units, a dense layer to {record['classes']} logits per
point: the CTC blank, printable ASCII and the {record['classes'] - 96} letters and marks the seven languages write beyond it
(`ink-latin.alphabet.txt`; each language's `ink-<code>.charset.txt` says which of them it may write). {record['parameters']:,}
parameters, float32, {size / 1e6:.2f} MB. The files of all Latin-script languages together (English's three, this network and
its class list, the seven lexicons and charsets) are {total / 1e6:.2f} MB (target at most 15 MB: {'met' if total <= 15e6 else '**not met**'}).
TensorFlow {record['tensorflow']}, `tools/ink/train_all.sh` (`train_latin.py`), started from ink-en.tflite's weights:

| run | minutes | epochs | sequences an epoch | real words as words of a language, per word | weight of a marked word | random-mark rate | learning rate | validation inks with marks | best validation greedy CER |
|---|---|---|---|---|---|---|---|---|---|
{chr(10).join(rows)}

Every epoch: the trusted UNIPEN words of the training writers and an augmented copy of each, 711 UNIPEN characters,
697 real "?" and "!" turned upside down as "¿" and "¡", each training word again as words of random languages with their
marks drawn in (Docs/digital-ink.md, "Latin-script languages: the network and its data"), and 60,000 Hershey inks
of the seven languages and English. The checkpoint: greedy CER over the validation writers' words, as they are and with marks.

**Evaluated only on augmented and synthetic ink.** No handwriting of these languages is in the data: every number
below is of held-out writers' real English letters with drawn-in marks, or of font ink. Measured by
`python3 tools/ink/evaluate_latin.py` (release build, 1 thread, decoding as "en"'s: beam 64, language model weight 0.9,
bonus 2.0). Real: the 10 test writers' UNIPEN words (never trained on) that spell a word of the language once its marks
are drawn in (the most frequent such word with marks, else without), marks drawn by a fixed seed where the shipped "en" model's CTC alignment places each letter (so a new "en" model moves them a little: with the "en" run 3 and the punctuation and digit decoding of 2026-11-30, all words moved by at most 0.1 points and the small sets of marked words by up to 1.1, one word in 90; measured again with the "en" run 5, 2026-11-30, on an AVX-512 EPYC: all words by at most 0.1 points, marked words by up to 1.1; the numbers below are from that run); synthetic: Hershey
inks of words drawn by frequency, a seed training never used.

| language | lexicon words | held-out writers, augmented real ink | of those, words with marks | synthetic (Hershey) | ms a word |
|---|---|---|---|---|---|
{chr(10).join(measured)}

Lexicons (`tools/ink/make_lexicon.py --language <code>`): wordfreq 3.1.1's most frequent words of the language (data
CC BY-SA 4.0, so each lexicon is too); Debian's lists only vouch for rare words, restore German ß and mark names
(`N`), none of their words is added (see "Data, licenses and acknowledgements"):

| language | sources |
|---|---|
{sources}
"""


if __name__ == "__main__":
    if sys.argv[1:2] == ["--latin"]:
        readme = os.path.join(ROOT, "models", "README.md")
        with open(readme, encoding="utf-8") as f:
            text = f.read()
        with open(readme, "w", encoding="utf-8") as f:
            f.write(replace(text, "ink-latin-card", latin_card(sys.argv[2])))
    else:
        main()
