#!/usr/bin/env python3
"""Classifies a folder of photos on Apache Spark by piping paths through `vision-cli classify --paths-from -
--jsonl` with RDD.pipe, joins the records back to the paths, and checks them against a single-process run.

    python3 tools/spark_classify.py --cli .build/release/vision-cli [--count 1000] [--images DIR] [--master local[2]]

The photos are variations of ../shared/images made here (crops resized to 320x240 or 240x320, JPEG quality 90),
so the run needs nothing but this machine. Each Spark partition starts one vision-cli process, which loads the model
once and streams its partition's paths through it; records carry their path, so they are joined back by path.
Prints "identical" and exits 0 when every path has exactly one record, equal (but for the timing and the
per-process index) to the single-process run's.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import time

from PIL import Image

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))


def make_photos(folder, count, seed=7):
    os.makedirs(folder, exist_ok=True)
    paths = [os.path.join(folder, f"photo_{i:05d}.jpg") for i in range(count)]
    if all(os.path.exists(p) for p in paths):
        return paths
    rng = random.Random(seed)
    sources = sorted(os.path.join(SHARED, "images", f) for f in os.listdir(os.path.join(SHARED, "images"))
                     if f.endswith((".jpg", ".png", ".bmp")))
    photos = [Image.open(p).convert("RGB") for p in sources]
    for i, path in enumerate(paths):
        photo = photos[i % len(photos)]
        w, h = photo.size
        cw, ch = int(w * rng.uniform(0.6, 1.0)), int(h * rng.uniform(0.6, 1.0))
        x, y = rng.randint(0, w - cw), rng.randint(0, h - ch)
        size = (320, 240) if rng.random() < 0.7 else (240, 320)
        photo.crop((x, y, x + cw, y + ch)).resize(size, Image.BILINEAR).save(path, quality=90)
    return paths


def comparable(record):
    return {k: v for k, v in record.items() if k not in ("ms", "index")}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cli", default=os.path.join(ROOT, ".build", "release", "vision-cli"))
    p.add_argument("--images", default="/tmp/litevision-spark-photos")
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--master", default="local[2]")
    p.add_argument("--partitions", type=int, default=4)
    p.add_argument("--mirror", default=os.path.join(SHARED, "models"))
    args = p.parse_args()
    cli = os.path.abspath(args.cli)
    paths = make_photos(args.images, args.count)
    command = [cli, "classify", "--paths-from", "-", "--jsonl", "--max-results", "3", "--mirror", args.mirror]

    single = subprocess.run(command, input="\n".join(paths) + "\n", check=True, capture_output=True, text=True).stdout
    expected = {}
    for line in single.splitlines():
        record = json.loads(line)
        expected[record["image"]] = comparable(record)

    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master(args.master).appName("litevision-classify")
             .config("spark.ui.enabled", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    started = time.perf_counter()
    try:
        sc = spark.sparkContext
        records = (sc.parallelize(paths, args.partitions)
                   .pipe(" ".join(f"'{part}'" for part in command))
                   .map(json.loads)
                   .map(lambda record: (record["image"], record)))
        joined = sc.parallelize([(path, n) for n, path in enumerate(paths)]).leftOuterJoin(records).collect()
    finally:
        spark.stop()
    elapsed = time.perf_counter() - started

    problems = []
    seen = {}
    for path, (_, record) in joined:
        if record is None:
            problems.append(f"{path}: no record")
            continue
        seen[path] = seen.get(path, 0) + 1
        if comparable(record) != expected.get(path):
            problems.append(f"{path}: {comparable(record)} != {expected.get(path)}")
    problems += [f"{path}: {n} records" for path, n in seen.items() if n != 1]
    print(f"{len(paths)} photos, {len(joined)} joined records in {elapsed:.1f} s on {args.master} "
          f"({len(paths) / elapsed:.1f} photos/s, Spark start-up included)", file=sys.stderr)
    if problems or len(seen) != len(paths):
        print("\n".join(problems[:20]) or f"{len(seen)} of {len(paths)} paths have records")
        sys.exit(1)
    print("identical")


if __name__ == "__main__":
    main()
