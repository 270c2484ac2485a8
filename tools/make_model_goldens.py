#!/usr/bin/env python3
"""Runs real models from ../shared/models on real photos from ../shared/images with LiteRT and records inputs
and outputs as .npy under .goldens/models/<model>/<image>/ (not committed: the input tensors are large).

    pip install ai-edge-litert numpy pillow
    python3 tools/make_model_goldens.py

Each input tensor is the photo resized (bilinear, PIL) to the model's input size and scaled the way the model
expects; the test feeds the same tensor to our engine, so preprocessing is not what is compared.
Reference: LiteRT's built-in kernels (BUILTIN_WITHOUT_DEFAULT_DELEGATES). For quantized models LiteRT's default
XNNPACK path is recorded as well (output_<i>.xnnpack.npy): how far LiteRT's own fast path is from its reference is
the yardstick for our `fast` numerics.
"""
import json
import os
import sys

import numpy as np
from PIL import Image
from ai_edge_litert import interpreter as litert

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
OUT = os.path.join(ROOT, ".goldens", "models")

# model path (under ../shared/models) -> how pixels in [0, 255] become the float input
FLOAT_MODELS = {
    "classification/mobilenet_v2_1.0_224_dequant_float.tflite": lambda px: (px - 128.0) / 128.0,
    "classification/mobilenet_v1_0.25_224_1_metadata_1.tflite": lambda px: (px - 127.5) / 127.5,
    "detection/face_detection_short_range.tflite": lambda px: px / 127.5 - 1.0,
    "detection/coco_ssd_mobilenet_v1_1.0_dequant_float.tflite": lambda px: (px - 128.0) / 128.0,
}
# Quantized models take the resized pixels as uint8 (all of these have uint8 image inputs).
QUANTIZED_MODELS = [
    "classification/mobilenet_v2_1.0_224_quant.tflite",
    "classification/mobilenet_v1_0.25_128_quant.tflite",
    "classification/mobilenet_v1_0.25_224_quant.tflite",
    "classification/mobilenet_v2_1.0_224_inat_bird_quant.tflite",
    "classification/automl_labeler_model.tflite",
    "mlkit/bird_classifier.tflite",
    "mlkit/object_labeler.tflite",
    "classification/tf2_mobilenet_v2_1.0_224_ptq.tflite",
    "detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite",
    "detection/coco_ssd_mobilenet_v1_1.0_raw.tflite",
]
IMAGES = ["bird.png", "grace_hopper.bmp", "pets.jpg", "cats_and_dogs.jpg", "multi_objects.jpg", "face.jpg", "kite_and_cold.jpg"]


def mnist_inputs():
    """The ten MNIST digits that come with the tflite-micro LSTM example, scaled to [0, 1], plus two random inputs."""
    folder = os.path.join(SHARED, "models", "lstm", "mnist_samples")
    for i in range(10):
        yield f"sample{i}", (np.asarray(Image.open(os.path.join(folder, f"sample{i}.png")).convert("L"), dtype=np.float32) / 255.0)[np.newaxis]
    rng = np.random.default_rng(28)
    for k in range(2):
        yield f"random{k}", rng.uniform(0, 1, (1, 28, 28)).astype(np.float32)


def quickdraw_inputs():
    """Stroke sequences of the Quick, Draw! BiLSTM's full 3711 steps: (dx, dy, pen-up) from real sketches in
    ../shared/ink, zero-padded, plus one random sequence."""
    import gzip
    rng = np.random.default_rng(3711)
    with gzip.open(os.path.join(SHARED, "ink", "quickdraw.ndjson.gz"), "rt") as f:
        for k, line in enumerate(f):
            if k >= 4:
                break
            sample = json.loads(line)
            points = []
            for stroke in sample["strokes"]:
                for j, p in enumerate(stroke):
                    points.append([p[0], p[1], 1.0 if j == len(stroke) - 1 else 0.0])
            pts = np.array(points, dtype=np.float32)
            seq = np.zeros((3711, 3), dtype=np.float32)
            deltas = np.concatenate([pts[:1, :2] * 0, np.diff(pts[:, :2], axis=0)]) / 255.0
            n = min(len(pts), 3711)
            seq[:n, :2] = deltas[:n]
            seq[:n, 2] = pts[:n, 2]
            yield f"sketch{k}_{sample['label'].replace(' ', '_')}", seq[np.newaxis]
    yield "random", rng.normal(0, 0.05, (1, 3711, 3)).astype(np.float32)


SEQUENCE_MODELS = {
    "lstm/trained_lstm.tflite": mnist_inputs,
    "lstm/trained_lstm_int8.tflite": mnist_inputs,
    "lstm/keras_lstm_mnist_ptq.tflite": mnist_inputs,
    "lstm/quickdraw_rnn_bilstm_345_float_noclip.tflite": quickdraw_inputs,
}


def to_input_type(x, detail):
    """A float input quantized the way the model's input tensor says (round half away from zero, clamped)."""
    if detail["dtype"] == np.float32:
        return x
    scale, zero_point = detail["quantization"]
    info = np.iinfo(detail["dtype"])
    q = np.sign(x / scale) * np.floor(np.abs(x / scale) + 0.5) + zero_point
    return np.clip(q, info.min, info.max).astype(detail["dtype"])


def record(interp, name, label, x, xnnpack=None):
    """Runs LiteRT on x and writes input_0.npy and every output_<i>.npy under .goldens/models/<name>/<label>/
    (and output_<i>.xnnpack.npy from a second interpreter using XNNPACK)."""
    interp.set_tensor(interp.get_input_details()[0]["index"], x)
    interp.invoke()
    folder = os.path.join(OUT, name, label)
    os.makedirs(folder, exist_ok=True)
    np.save(os.path.join(folder, "input_0.npy"), x)
    for i, out in enumerate(interp.get_output_details()):
        np.save(os.path.join(folder, f"output_{i}.npy"), interp.get_tensor(out["index"]))
    if xnnpack is not None:
        xnnpack.set_tensor(xnnpack.get_input_details()[0]["index"], x)
        xnnpack.invoke()
        for i, out in enumerate(xnnpack.get_output_details()):
            np.save(os.path.join(folder, f"output_{i}.xnnpack.npy"), xnnpack.get_tensor(out["index"]))


def main():
    manifest = {}
    image_models = [(model, lambda px, scale=scale: scale(px.astype(np.float32)).astype(np.float32), "") for model, scale in FLOAT_MODELS.items()]
    image_models += [(model, lambda px: px, " (quantized)") for model in QUANTIZED_MODELS]
    for model, prepare, kind in image_models:
        path = os.path.join(SHARED, "models", model)
        interp = litert.Interpreter(model_path=path, experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        interp.allocate_tensors()
        xnnpack = None
        if kind:
            xnnpack = litert.Interpreter(model_path=path, num_threads=1)
            xnnpack.allocate_tensors()
        _, h, w, _ = interp.get_input_details()[0]["shape"]
        name = os.path.splitext(os.path.basename(model))[0]
        cases = []
        for image in IMAGES:
            pixels = np.asarray(Image.open(os.path.join(SHARED, "images", image)).convert("RGB").resize((w, h), Image.BILINEAR), dtype=np.uint8)
            record(interp, name, os.path.splitext(image)[0], prepare(pixels)[np.newaxis], xnnpack)
            cases.append(os.path.splitext(image)[0])
        manifest[name] = {"model": model, "images": cases, "outputs": len(interp.get_output_details()),
                          "detection": "TFLite_Detection_PostProcess" in {op["op_name"] for op in interp._get_ops_details()}}
        print(f"{name}: {len(cases)} images{kind}")
    for model, inputs in SEQUENCE_MODELS.items():
        path = os.path.join(SHARED, "models", model)
        interp = litert.Interpreter(model_path=path, experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        interp.allocate_tensors()
        quantized = interp.get_input_details()[0]["dtype"] != np.float32
        name = os.path.splitext(os.path.basename(model))[0]
        cases = []
        for label, x in inputs():
            # A fresh interpreter per input: the LSTM state carries over between invocations.
            interp = litert.Interpreter(model_path=path, experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
            interp.allocate_tensors()
            xnnpack = None
            if quantized:
                xnnpack = litert.Interpreter(model_path=path, num_threads=1)
                xnnpack.allocate_tensors()
            record(interp, name, label, to_input_type(x, interp.get_input_details()[0]), xnnpack)
            cases.append(label)
        manifest[name] = {"model": model, "images": cases, "outputs": len(interp.get_output_details()), "detection": False}
        print(f"{name}: {len(cases)} inputs")
    json.dump(manifest, open(os.path.join(OUT, "manifest.json"), "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
