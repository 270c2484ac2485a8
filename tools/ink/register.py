#!/usr/bin/env python3
"""Updates the ink models' entries of models/registry.json (size and sha256 of the files in models/)."""
import hashlib
import json
import os

import bundled

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
LATIN_LANGUAGES = {"es": ("Spanish", ["es-419", "es-ES", "es-MX"]), "tr": ("Turkish", ["tr-TR"]), "de": ("German", ["de-DE", "de-AT", "de-CH"]),
                   "fr": ("French", ["fr-FR", "fr-CA"]), "pt": ("Portuguese", ["pt-BR", "pt-PT"]), "it": ("Italian", ["it-IT"]), "vi": ("Vietnamese", ["vi-VN"])}
ENTRIES = [
    dict(name="ink-en", task="digital-ink", description="English handwriting: 3x bidirectional LSTM(96), the top one residual, + CTC over printable ASCII, trained by tools/ink/train_text.py",
         file="ink-en.tflite", bundled="models/ink-en.tflite", aliases=["en"], defaultFor="digital-ink",
         license="Apache-2.0 (this project); trained on UNIPEN (CC BY 4.0) and Hershey fonts, see models/README.md"),
    dict(name="ink-ja", task="digital-ink", description="Japanese handwriting (kanji and kana): a convolutional character network over direction planes (tools/ink/train_cjk.py) and a character bigram model (make_cjk_language_model.py)",
         file="ink-ja.tflite", bundled="models/ink-ja.tflite", aliases=["ja"], defaultFor=None,
         license="Apache-2.0 (this project); trained on synthetic ink from KanjiVG (CC BY-SA 3.0) and Make Me a Hanzi (Arphic Public License) stroke data, bigrams from wordfreq (CC BY-SA 4.0 data), see models/README.md"),
    dict(name="ink-zh-Hans", task="digital-ink", description="Simplified Chinese handwriting: the Chinese character network (tools/ink/train_cjk.py --language zh, shared with zh-Hant) and a Simplified character bigram model (make_cjk_language_model.py)",
         file="ink-zh.tflite", bundled="models/ink-zh.tflite", aliases=["zh-Hans", "zh", "zh-CN"], defaultFor=None,
         license="Apache-2.0 (this project); trained on synthetic ink from Make Me a Hanzi (Arphic Public License) and KanjiVG (CC BY-SA 3.0) stroke data, bigrams from wordfreq (CC BY-SA 4.0 data), see models/README.md"),
    dict(name="ink-zh-Hant", task="digital-ink", description="Traditional Chinese handwriting: the Chinese character network (tools/ink/train_cjk.py --language zh, shared with zh-Hans) and a Traditional character bigram model (make_cjk_language_model.py)",
         file="ink-zh.tflite", bundled="models/ink-zh.tflite", aliases=["zh-Hant", "zh-TW", "zh-HK"], defaultFor=None,
         license="Apache-2.0 (this project); trained on synthetic ink from Make Me a Hanzi (Arphic Public License) and KanjiVG (CC BY-SA 3.0) stroke data, bigrams from wordfreq (CC BY-SA 4.0 data), see models/README.md"),
] + [
    dict(name=f"ink-{code}", task="digital-ink", description=f"{name} handwriting: the Latin-script network (tools/ink/train_latin.py, shared by es, tr, de, fr, pt, it, vi) "
         f"and a {name} lexicon (make_lexicon.py --language {code})",
         file="ink-latin.tflite", bundled="models/ink-latin.tflite", aliases=[code] + regions, defaultFor=None,
         license="Apache-2.0 (this project); trained on UNIPEN (CC BY 4.0) with drawn diacritics and Hershey fonts; lexicon from wordfreq (CC BY-SA 4.0 data)"
                 " and Debian word lists, see models/README.md")
    for code, (name, regions) in LATIN_LANGUAGES.items()
] + [
    dict(name="ink-shapes", task="digital-ink", description="Hand-drawn shapes: bidirectional LSTM classifier (tools/ink/train_shapes.py) with a geometry network beside it (train_shape_geometry.py)",
         file="ink-shapes.tflite", bundled="models/ink-shapes.tflite", aliases=["zxx-Zsym-x-shapes", "shapes"], defaultFor=None,
         license="Apache-2.0 (this project); trained on Quick, Draw! (CC BY 4.0) and synthetic shapes, see models/README.md"),
]


def main():
    path = os.path.join(ROOT, "models", "registry.json")
    registry = json.load(open(path))
    models = [m for m in registry["models"] if m["name"] not in {e["name"] for e in ENTRIES}]
    for e in ENTRIES:
        f = os.path.join(ROOT, e["bundled"])
        if not os.path.exists(f):
            continue
        data = open(f, "rb").read()
        entry = dict(name=e["name"], task=e["task"], description=e["description"], file=e["file"], url="",
                     sha256=hashlib.sha256(data).hexdigest(), size=len(data), license=e["license"], aliases=e["aliases"])
        if e["defaultFor"]:
            entry["defaultFor"] = e["defaultFor"]
        entry["bundled"] = e["bundled"]
        models.append(entry)
    registry["models"] = models
    with open(path, "w") as out:
        json.dump(registry, out, indent=1)
        out.write("\n")
    bundled.touch_if_bundled(path)
    print(f"registry: {len(models)} models")


if __name__ == "__main__":
    main()
