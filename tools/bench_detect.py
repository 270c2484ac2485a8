#!/usr/bin/env python3
"""Per-frame latency of object detection and tracking with classification (ML Kit's stream mode) on a 1280x720
frame, beside LiteRT running the same two models in the same run. 1 thread.

    python3 tools/bench_detect.py --cli "$(tools/build.sh)" [--write Docs/benchmarks.md]

The frame is kite_and_cold.jpg resized to 1280x720 (many people and a kite: at least five objects). Ours: the `ms`
field of `vision-cli track --jsonl` (detector preprocessing + COCO SSD quantized + tracking + crops + object_labeler)
over 21 copies of the frame, first dropped, once with the default stream budget (at most two classifications per
frame) and once classifying every object (up to five) in every frame. LiteRT: Pillow resize to 300x300 + SSD invoke
+ for each of the first five detections scoring >= 0.4, Pillow crop + resize to 224x224 + object_labeler invoke,
with built-in kernels and with XNNPACK. Medians.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

import numpy as np
from PIL import Image
from ai_edge_litert import interpreter as litert

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
DETECTOR = os.path.join(SHARED, "models", "detection", "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite")
CLASSIFIER = os.path.join(SHARED, "models", "mlkit", "object_labeler.tflite")
PHOTO = os.path.join(SHARED, "images", "kite_and_cold.jpg")
BEGIN, END = "<!-- detect-bench:begin -->", "<!-- detect-bench:end -->"
FRAMES = 21


def ours(cli, folder, budget):
    args = [cli, "track", "--frames", folder, "--multiple", "--classify", "--detector", DETECTOR, "--classifier", CLASSIFIER,
            "--jsonl", "--threads", "1"]
    if budget:
        args += ["--classifications-per-frame", "5", "--relabel-interval", "1"]
    lines = subprocess.run(args, check=True, capture_output=True, text=True).stdout.splitlines()
    frames = [json.loads(line) for line in lines]
    objects = statistics.median(len(f["objects"]) for f in frames)
    return statistics.median(f["ms"] for f in frames[1:]), objects


def reference(frame, resolver):
    kwargs = {"num_threads": 1}
    if resolver:
        kwargs["experimental_op_resolver_type"] = resolver
    detector = litert.Interpreter(model_path=DETECTOR, **kwargs)
    classifier = litert.Interpreter(model_path=CLASSIFIER, **kwargs)
    detector.allocate_tensors()
    classifier.allocate_tensors()
    d_in = detector.get_input_details()[0]["index"]
    d_out = [o["index"] for o in detector.get_output_details()]
    c_in, c_out = classifier.get_input_details()[0]["index"], classifier.get_output_details()[0]["index"]
    times, counts = [], []
    for run in range(FRAMES):
        start = time.perf_counter()
        detector.set_tensor(d_in, np.asarray(frame.resize((300, 300), Image.BILINEAR))[np.newaxis])
        detector.invoke()
        boxes, _, scores, count = (detector.get_tensor(i) for i in d_out)
        kept = [i for i in range(int(count[0])) if scores[0][i] >= 0.4][:5]
        for i in kept:
            ymin, xmin, ymax, xmax = np.clip(boxes[0][i], 0, 1)
            crop = frame.crop((xmin * 1280, ymin * 720, xmax * 1280, ymax * 720)).resize((224, 224), Image.BILINEAR)
            classifier.set_tensor(c_in, np.asarray(crop)[np.newaxis])
            classifier.invoke()
            classifier.get_tensor(c_out)
        if run:
            times.append((time.perf_counter() - start) * 1e3)
            counts.append(len(kept))
    return statistics.median(times), statistics.median(counts)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--write")
    args = parser.parse_args()
    frame = Image.open(PHOTO).convert("RGB").resize((1280, 720), Image.BILINEAR)
    with tempfile.TemporaryDirectory() as folder:
        for i in range(FRAMES):
            frame.save(os.path.join(folder, f"frame{i:03d}.png"))
        stream, objects = ours(args.cli, folder, budget=False)
        every, _ = ours(args.cli, folder, budget=True)
    builtin, builtin_objects = reference(frame, litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    xnnpack, _ = reference(frame, None)
    rows = [
        "| 1280x720 frame, 1 thread, median ms | objects | ms |",
        "|---|---|---|",
        f"| ours, stream mode (≤ 2 classifications per frame, the default) | {objects:g} | {stream:.1f} |",
        f"| ours, stream mode classifying every object every frame | {objects:g} | {every:.1f} |",
        f"| LiteRT built-in kernels: SSD + object_labeler on each object | {builtin_objects:g} | {builtin:.1f} |",
        f"| LiteRT XNNPACK: SSD + object_labeler on each object | {builtin_objects:g} | {xnnpack:.1f} |",
    ]
    table = "\n".join(rows)
    print(table)
    if args.write:
        with open(args.write) as f:
            text = f.read()
        if BEGIN in text:
            head, rest = text.split(BEGIN, 1)
            text = head + BEGIN + "\n" + table + "\n" + END + rest.split(END, 1)[1]
        else:
            text += "\n" + BEGIN + "\n" + table + "\n" + END + "\n"
        with open(args.write, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
