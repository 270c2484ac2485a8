#!/usr/bin/env python3
"""Goldens for the image pipeline and the ImageClassifier, written to Tests/LiteTasksTests/Goldens/classifier.json
(small, committed). Needs MediaPipe, which pins its own dependencies, so it runs in its own virtualenv:

    tools/setup.sh --mediapipe          # creates .venv-mediapipe with mediapipe==0.10.14, ai-edge-litert, pillow
    .venv-mediapipe/bin/python tools/make_classifier_goldens.py

For every photo in ../shared/images it records:
  * decode: sha256 of the RGB pixels Pillow decodes (our PNG/JPEG/BMP decoders must give the same bytes);
  * resample: for each model input size, sha256 of the RGB pixels that MediaPipe's own ImageToTensorCalculator
    makes (run in a MediaPipe CalculatorGraph, read back through TensorsToFloatsCalculator), for the whole image
    and for one region of interest. (Python's cv2.warpPerspective is not a substitute: OpenCV 5 rounds sample
    positions differently and disagrees with MediaPipe on ~4% of the values.)
and for every classifier in ../shared/models/{classification,mlkit} and every photo:
  * litert: the top 5 (index, score) of LiteRT's built-in kernels on MediaPipe's preprocessed tensor, scores
    dequantized as MediaPipe does, ties broken by the lower index;
  * mediapipe: MediaPipe's own ImageClassifier result (max_results=5, default options) on the same file,
    where MediaPipe accepts the model, on the Pillow-decoded pixels. MediaPipe runs quantized models with XNNPACK, whose rounding differs from
    the built-in kernels by an LSB here and there, so for those only names and heads are comparable.
"""
import glob
import hashlib
import json
import os

import numpy as np
from PIL import Image
from ai_edge_litert import interpreter as litert

import mediapipe as mp
from mediapipe.tasks import python as mp_tasks
from mediapipe.tasks.python import vision as mp_vision
from mediapipe_reference import image_to_uint8

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
OUT = os.path.join(ROOT, "Tests", "LiteTasksTests", "Goldens", "classifier.json")

MODELS = sorted(os.path.relpath(p, os.path.join(SHARED, "models"))
                for pattern in ("classification/*.tflite", "mlkit/*.tflite")
                for p in glob.glob(os.path.join(SHARED, "models", pattern)))
IMAGES = sorted(os.path.basename(p) for p in glob.glob(os.path.join(SHARED, "images", "*"))
                if p.rsplit(".", 1)[-1] in ("png", "jpg", "bmp"))
# Float models without NormalizationOptions metadata, which MediaPipe refuses: the (mean, std) their authors
# used, so that the LiteRT goldens still cover them (the Swift test passes the same values).
NORMALIZATION_OVERRIDES = {"classification/mobilenet_v2_1.0_224_dequant_float.tflite": (128.0, 128.0)}


def sha256(array):
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()


def decode(name):
    with Image.open(os.path.join(SHARED, "images", name)) as image:
        return np.asarray(image.convert("RGB"))


ROI = (0.1, 0.2, 0.5, 0.6)  # x, y, width, height, normalized: the region-of-interest golden


def mediapipe_resample(rgb, width, height, roi=None):
    """MediaPipe's CPU ImageToTensorCalculator on `rgb`, as uint8 pixels (float range [0, 255] is exact)."""
    return image_to_uint8(rgb, width, height, roi)


def normalization(model):
    if model in NORMALIZATION_OVERRIDES:
        return NORMALIZATION_OVERRIDES[model]
    # The float model with metadata: (127.5, 127.5) per its NormalizationOptions; read through MediaPipe's
    # metadata by classifying would be circular, so the values are checked by the Swift test against the file.
    return (127.5, 127.5)


def top5(scores):
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:5]
    return [[i, float(scores[i])] for i in order]


def main():
    golden = {"images": {}, "models": {}}
    pixels = {name: decode(name) for name in IMAGES}
    resampled = {}
    sizes = set()
    interpreters = {}
    for model in MODELS:
        interp = litert.Interpreter(model_path=os.path.join(SHARED, "models", model),
                                    experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        interp.allocate_tensors()
        interpreters[model] = interp
        _, height, width, _ = interp.get_input_details()[0]["shape"]
        sizes.add((int(width), int(height)))
    for name, rgb in pixels.items():
        golden["images"][name] = {
            "width": int(rgb.shape[1]), "height": int(rgb.shape[0]), "decode": sha256(rgb),
            "resample": {f"{w}x{h}": sha256(mediapipe_resample(rgb, w, h)) for (w, h) in sorted(sizes)},
            "resampleROI": sha256(mediapipe_resample(rgb, 224, 224, ROI)),
        }
    golden["roi"] = list(ROI)
    for model in MODELS:
        interp = interpreters[model]
        detail = interp.get_input_details()[0]
        _, height, width, _ = detail["shape"]
        output = interp.get_output_details()[0]
        entry = {"input": f"{width}x{height}", "inputType": np.dtype(detail["dtype"]).name, "litert": {}, "mediapipe": {}}
        try:
            classifier = mp_vision.ImageClassifier.create_from_options(mp_vision.ImageClassifierOptions(
                base_options=mp_tasks.BaseOptions(model_asset_path=os.path.join(SHARED, "models", model)), max_results=5))
        except Exception as error:  # MediaPipe refuses float models without NormalizationOptions
            classifier = None
            entry["mediapipeError"] = str(error)
        for name, rgb in pixels.items():
            key = (name, int(width), int(height))
            if key not in resampled:
                resampled[key] = mediapipe_resample(rgb, int(width), int(height))
            if detail["dtype"] == np.float32:
                mean, std = normalization(model)
                low, high = (0.0 - mean) / std, (255.0 - mean) / std
                tensor = resampled[key].astype(np.float32) * np.float32((high - low) / 255.0) + np.float32(low)
                entry["normalization"] = [mean, std]
            else:
                tensor = resampled[key]
            interp.set_tensor(detail["index"], tensor[np.newaxis].astype(detail["dtype"]))
            interp.invoke()
            raw = interp.get_tensor(output["index"]).reshape(-1)
            if output["dtype"] != np.float32:
                scale, zero_point = output["quantization"]
                scores = [np.float32(scale) * np.float32(int(q) - zero_point) for q in raw]
            else:
                scores = [np.float32(v) for v in raw]
            entry["litert"][name] = top5(scores)
            if classifier is not None:
                # Pillow's pixels, not mp.Image.create_from_file: MediaPipe's own JPEG decoder rounds some pixels
                # differently from libjpeg-turbo's defaults, which would hide what this golden is for.
                result = classifier.classify(mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(rgb)))
                entry["mediapipe"][name] = [{
                    "headIndex": head.head_index, "headName": head.head_name,
                    "categories": [[c.index, float(c.score), c.category_name, c.display_name] for c in head.categories],
                } for head in result.classifications]
        golden["models"][model] = entry
        print(model, "done", flush=True)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(golden, f, indent=1, sort_keys=True)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
