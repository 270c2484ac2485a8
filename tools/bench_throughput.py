#!/usr/bin/env python3
"""Images per second for `vision-cli classify` over a folder of camera-sized JPEGs (decode, EXIF orientation,
resize, inference, JSON lines), beside a Python loop of Pillow + LiteRT (XNNPACK) doing the same work, in one run.

    python3 tools/bench_throughput.py --cli "$(tools/build.sh)" [--count 1000] [--write Docs/benchmarks.md]

The photos are made once (into --images, default /tmp/litevision-throughput) from ../shared/images: crops of each
photo resized to ordinary camera sizes (4032x3024, 1920x1080, 1600x1200; a quarter stored rotated with an EXIF
orientation tag), JPEG quality 90. Both sides read every file, apply its orientation, resize to the model's input
(bilinear), run the uint8 MobileNetV2 and write the top 5 as one JSON line. Ours at N threads runs N images at once
(one engine thread each); the Python loop at N threads gives LiteRT N threads, as a Python user would.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import time

import numpy as np
from PIL import Image, ImageOps
from ai_edge_litert import interpreter as litert

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
MODEL = os.path.join(SHARED, "models", "classification", "mobilenet_v2_1.0_224_quant.tflite")
BEGIN, END = "<!-- throughput-bench:begin -->", "<!-- throughput-bench:end -->"
SIZES = [(4032, 3024), (1920, 1080), (1920, 1080), (1600, 1200), (1600, 1200)]


def make_images(folder, count, seed=2026):
    os.makedirs(folder, exist_ok=True)
    existing = sorted(f for f in os.listdir(folder) if f.endswith(".jpg"))
    if len(existing) >= count:
        return [os.path.join(folder, f) for f in existing[:count]]
    rng = random.Random(seed)
    sources = [os.path.join(SHARED, "images", f) for f in sorted(os.listdir(os.path.join(SHARED, "images")))
               if f.endswith((".jpg", ".png", ".bmp"))]
    photos = [Image.open(p).convert("RGB") for p in sources]
    paths = []
    for i in range(count):
        photo = photos[i % len(photos)]
        w, h = photo.size
        cw, ch = int(w * rng.uniform(0.7, 1.0)), int(h * rng.uniform(0.7, 1.0))
        x, y = rng.randint(0, w - cw), rng.randint(0, h - ch)
        size = SIZES[rng.randrange(len(SIZES))]
        image = photo.crop((x, y, x + cw, y + ch)).resize(size, Image.BILINEAR)
        path = os.path.join(folder, f"photo_{i:05d}.jpg")
        if i % 4 == 3:
            # Stored turned a quarter, with EXIF orientation 6 (rotate 90 CW to show): readers must turn it back.
            exif = Image.Exif()
            exif[0x0112] = 6
            image.transpose(Image.Transpose.ROTATE_90).save(path, quality=90, exif=exif.tobytes())
        else:
            image.save(path, quality=90)
        paths.append(path)
    return paths


def ours(cli, folder, threads):
    start = time.perf_counter()
    out = subprocess.run([cli, "classify", folder, "--model", MODEL, "--jsonl", "--threads", str(threads)],
                         check=True, capture_output=True, text=True).stdout
    elapsed = time.perf_counter() - start
    return len(out.splitlines()) / elapsed


def python_loop(paths, threads):
    interpreter = litert.Interpreter(model_path=MODEL, num_threads=threads)
    interpreter.allocate_tensors()
    inp, out = interpreter.get_input_details()[0], interpreter.get_output_details()[0]
    height, width = inp["shape"][1:3]
    start = time.perf_counter()
    lines = []
    for path in paths:
        image = ImageOps.exif_transpose(Image.open(path)).convert("RGB").resize((width, height), Image.BILINEAR)
        interpreter.set_tensor(inp["index"], np.asarray(image)[np.newaxis])
        interpreter.invoke()
        scores = interpreter.get_tensor(out["index"]).reshape(-1)
        top = np.argsort(-scores)[:5]
        lines.append(json.dumps({"image": path, "categories": [{"index": int(k), "score": float(scores[k])} for k in top]}))
    return len(lines) / (time.perf_counter() - start)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cli", default=os.path.join(ROOT, ".build", "release", "vision-cli"))
    p.add_argument("--images", default="/tmp/litevision-throughput")
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--write", help="replace the section between the throughput-bench markers of this Markdown file")
    args = p.parse_args()
    paths = make_images(args.images, args.count)
    megapixels = sum(Image.open(q).size[0] * Image.open(q).size[1] for q in paths) / len(paths) / 1e6
    rows = []
    for threads in args.threads:
        theirs = python_loop(paths, threads)
        ours_rate = ours(args.cli, args.images, threads)
        rows.append((threads, ours_rate, theirs))
        print(f"{threads} thread(s): vision-cli {ours_rate:.1f} images/s, Pillow + LiteRT loop {theirs:.1f} images/s, "
              f"ratio {ours_rate / theirs:.2f}", file=sys.stderr)
    table = [f"{len(paths)} JPEGs, mean {megapixels:.1f} MP (4032x3024, 1920x1080, 1600x1200; a quarter with EXIF "
             f"orientation 6), uint8 MobileNetV2, top 5 as JSON lines; {time.strftime('%Y-%m-%d')}", "",
             "| threads | vision-cli classify (images/s) | Pillow + LiteRT XNNPACK loop (images/s) | ours / Python |",
             "|---|---|---|---|"]
    table += [f"| {t} | {o:.1f} | {r:.1f} | {o / r:.2f} |" for t, o, r in rows]
    text = "\n".join(table)
    print(text)
    if args.write:
        with open(args.write) as f:
            doc = f.read()
        if BEGIN in doc:
            doc = doc[:doc.index(BEGIN) + len(BEGIN)] + "\n" + text + "\n" + doc[doc.index(END):]
        else:
            doc += f"\n## Throughput: classify over a folder of photos\n\n`python3 tools/bench_throughput.py --write Docs/benchmarks.md`\n\n{BEGIN}\n{text}\n{END}\n"
        with open(args.write, "w") as f:
            f.write(doc)


if __name__ == "__main__":
    main()
