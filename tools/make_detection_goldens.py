#!/usr/bin/env python3
"""Goldens for object detection, written to Tests/LiteTasksTests/Goldens/detection.json (small, committed).
Needs MediaPipe (for its ImageToTensorCalculator and detection calculators), so it runs in the MediaPipe venv:

    tools/setup.sh --mediapipe
    .venv-mediapipe/bin/python tools/make_detection_goldens.py

For each acceptance photo it records:
  * input: sha256 of the 300x300 tensor MediaPipe's ImageToTensorCalculator makes from Pillow's pixels (the
    detector's preprocessing must give the same bytes);
  * ssd: LiteRT's built-in kernels on that tensor for the quantized COCO SSD with its post-process op (boxes,
    classes, scores, count as float32 bit patterns) and for the float SSD (values);
  * crops: for every detection at or above DETECTOR_THRESHOLD, the classifier crop (the box grown by
    CROP_MARGIN of its size on each side, clipped to the image, as Sources/LiteTasks/Detection/ObjectDetector.swift
    computes it in double precision), the sha256 of MediaPipe's 224x224 resample of that region, and LiteRT's
    labels for that crop tensor from mlkit/object_labeler.tflite (scores >= its metadata threshold 0.35, at
    most 10, ties by index) and mlkit/bird_classifier.tflite (top 3);
MediaPipe's own ObjectDetector on pets.jpg with the quantized SSD (integer pixel boxes; it runs XNNPACK, so only the
boxes are compared: it stretches the image to the input as we do); and for face.jpg the detections of MediaPipe's
own face detection calculators (SsdAnchorsCalculator,
TensorsToDetectionsCalculator, NonMaxSuppressionCalculator with face_detection.pbtxt's options) on a stretched
128x128 tensor, for the MediaPipe-anchor decoding path.
"""
import hashlib
import json
import os
import struct

import numpy as np
from PIL import Image
from ai_edge_litert import interpreter as litert

import mediapipe as mp
from mediapipe.python import packet_creator, packet_getter
from mediapipe.tasks import python as mp_tasks
from mediapipe.tasks.python import vision as mp_vision
from mediapipe_reference import image_to_tensor, image_to_uint8

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
OUT = os.path.join(ROOT, "Tests", "LiteTasksTests", "Goldens", "detection.json")

PHOTOS = ["pets.jpg", "cats_and_dogs.jpg", "multi_objects.jpg", "kite_and_cold.jpg", "beach.jpg"]
SSD_QUANT = "detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite"
SSD_FLOAT = "detection/coco_ssd_mobilenet_v1_1.0_dequant_float.tflite"
DETECTOR_THRESHOLD = 0.5
CROP_MARGIN = 0.1
LABELER_THRESHOLD = 0.35


def sha256(array):
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()


def bits(values):
    return [struct.unpack("<I", struct.pack("<f", float(v)))[0] for v in np.asarray(values, dtype=np.float32).reshape(-1)]


def decode(name):
    with Image.open(os.path.join(SHARED, "images", name)) as image:
        return np.asarray(image.convert("RGB"))


def interpreter(model):
    interp = litert.Interpreter(model_path=os.path.join(SHARED, "models", model),
                                experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    interp.allocate_tensors()
    return interp


def run(interp, tensor):
    detail = interp.get_input_details()[0]
    interp.set_tensor(detail["index"], tensor[np.newaxis].astype(detail["dtype"]))
    interp.invoke()
    return [interp.get_tensor(o["index"]) for o in interp.get_output_details()]


def dequantized_scores(interp, raw):
    output = interp.get_output_details()[0]
    raw = raw.reshape(-1)
    if output["dtype"] == np.float32:
        return [np.float32(v) for v in raw]
    scale, zero_point = output["quantization"]
    return [np.float32(scale) * np.float32(int(q) - zero_point) for q in raw]


def crop_region(box):
    """The classifier crop of a detection, as ObjectDetector.cropRegion: normalized (x, y, w, h) in double."""
    ymin, xmin, ymax, xmax = (float(np.float32(v)) for v in box)
    grow_x, grow_y = (xmax - xmin) * CROP_MARGIN, (ymax - ymin) * CROP_MARGIN
    left, top = max(0.0, xmin - grow_x), max(0.0, ymin - grow_y)
    right, bottom = min(1.0, xmax + grow_x), min(1.0, ymax + grow_y)
    if not (left < right and top < bottom):
        return None
    return (left, top, right - left, bottom - top)


def face_detections(rgb):
    """MediaPipe's face detection calculators (face_detection.pbtxt's options for the short-range model) on a
    stretched 128x128 tensor in [-1, 1]."""
    model = os.path.join(SHARED, "models", "detection", "face_detection_short_range.tflite")
    config = f"""
input_stream: "image"
output_stream: "detections"
node {{ calculator: "ImageToTensorCalculator" input_stream: "IMAGE:image" output_stream: "TENSORS:input_tensors"
  options {{ [mediapipe.ImageToTensorCalculatorOptions.ext] {{ output_tensor_width: 128 output_tensor_height: 128
    output_tensor_float_range {{ min: -1 max: 1 }} }} }} }}
node {{ calculator: "InferenceCalculator" input_stream: "TENSORS:input_tensors" output_stream: "TENSORS:detection_tensors"
  options {{ [mediapipe.InferenceCalculatorOptions.ext] {{ model_path: "{model}" delegate {{ tflite {{}} }} }} }} }}
node {{ calculator: "SsdAnchorsCalculator" output_side_packet: "anchors"
  options {{ [mediapipe.SsdAnchorsCalculatorOptions.ext] {{ num_layers: 4 min_scale: 0.1484375 max_scale: 0.75
    input_size_height: 128 input_size_width: 128 anchor_offset_x: 0.5 anchor_offset_y: 0.5
    strides: 8 strides: 16 strides: 16 strides: 16 aspect_ratios: 1.0 fixed_anchor_size: true
    interpolated_scale_aspect_ratio: 1.0 }} }} }}
node {{ calculator: "TensorsToDetectionsCalculator" input_stream: "TENSORS:detection_tensors"
  input_side_packet: "ANCHORS:anchors" output_stream: "DETECTIONS:unfiltered"
  options {{ [mediapipe.TensorsToDetectionsCalculatorOptions.ext] {{ num_classes: 1 num_boxes: 896 num_coords: 16
    box_coord_offset: 0 keypoint_coord_offset: 4 num_keypoints: 6 num_values_per_keypoint: 2 sigmoid_score: true
    score_clipping_thresh: 100.0 reverse_output_order: true x_scale: 128.0 y_scale: 128.0 h_scale: 128.0
    w_scale: 128.0 min_score_thresh: 0.5 }} }} }}
node {{ calculator: "NonMaxSuppressionCalculator" input_stream: "unfiltered" output_stream: "detections"
  options {{ [mediapipe.NonMaxSuppressionCalculatorOptions.ext] {{ min_suppression_threshold: 0.3
    overlap_type: INTERSECTION_OVER_UNION algorithm: WEIGHTED }} }} }}
"""
    graph = mp.CalculatorGraph(graph_config=config)
    out = []
    graph.observe_output_stream("detections", lambda stream, packet: out.append(packet_getter.get_proto_list(packet)))
    graph.start_run()
    image = mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(rgb))
    graph.add_packet_to_input_stream("image", packet_creator.create_image(image).at(0))
    graph.close()
    result = []
    for detection in (out[0] if out else []):
        box = detection.location_data.relative_bounding_box
        result.append({"score": float(detection.score[0]),
                       "box": [box.ymin, box.xmin, box.ymin + box.height, box.xmin + box.width]})
    return result


def main():
    golden = {"detectorThreshold": DETECTOR_THRESHOLD, "cropMargin": CROP_MARGIN, "photos": {}}
    quant, floating = interpreter(SSD_QUANT), interpreter(SSD_FLOAT)
    labeler, birds = interpreter("mlkit/object_labeler.tflite"), interpreter("mlkit/bird_classifier.tflite")
    for name in PHOTOS:
        rgb = decode(name)
        tensor = image_to_uint8(rgb, 300, 300)
        boxes, classes, scores, count = run(quant, tensor)
        fboxes, fclasses, fscores, fcount = run(floating, (tensor.astype(np.float32) - 128) / 128)
        entry = {
            "input": sha256(tensor),
            "ssd": {"boxes": bits(boxes), "classes": bits(classes), "scores": bits(scores), "count": bits(count)},
            "ssdFloat": {"boxes": boxes_list(fboxes), "classes": fclasses.reshape(-1).tolist(),
                         "scores": fscores.reshape(-1).tolist(), "count": int(fcount.reshape(-1)[0])},
            "crops": [],
        }
        for i in range(int(count.reshape(-1)[0])):
            if scores.reshape(-1)[i] < DETECTOR_THRESHOLD:
                continue
            region = crop_region(boxes.reshape(-1, 4)[i])
            if region is None:
                continue
            crop = image_to_uint8(rgb, 224, 224, region)
            labels = dequantized_scores(labeler, run(labeler, crop)[0])
            kept = sorted((j for j in range(len(labels)) if labels[j] >= LABELER_THRESHOLD), key=lambda j: (-labels[j], j))[:10]
            bird_scores = dequantized_scores(birds, run(birds, crop)[0])
            top_birds = sorted(range(len(bird_scores)), key=lambda j: (-bird_scores[j], j))[:3]
            entry["crops"].append({
                "detection": i, "region": list(region), "tensor": sha256(crop),
                "objectLabeler": [[j, float(labels[j])] for j in kept],
                "birdClassifier": [[j, float(bird_scores[j])] for j in top_birds],
            })
        golden["photos"][name] = entry
        print(name, int(count.reshape(-1)[0]), "detections,", len(entry["crops"]), "crops", flush=True)
    detector = mp_vision.ObjectDetector.create_from_options(mp_vision.ObjectDetectorOptions(
        base_options=mp_tasks.BaseOptions(model_asset_path=os.path.join(SHARED, "models", SSD_QUANT)),
        score_threshold=DETECTOR_THRESHOLD))
    pets = detector.detect(mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(decode("pets.jpg"))))
    golden["mediapipeObjectDetector"] = {"image": "pets.jpg", "boxes": [
        [d.bounding_box.origin_x, d.bounding_box.origin_y, d.bounding_box.width, d.bounding_box.height] for d in pets.detections]}
    face = decode("face.jpg")
    golden["face"] = {"image": "face.jpg", "input": sha256(image_to_tensor(face, 128, 128, value_range=(-1, 1))),
                      "detections": face_detections(face)}
    print("face.jpg", len(golden["face"]["detections"]), "faces")
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(golden, f, indent=1, sort_keys=True)
    print("wrote", OUT)


def boxes_list(boxes):
    return [[float(v) for v in row] for row in boxes.reshape(-1, 4)]


if __name__ == "__main__":
    main()
