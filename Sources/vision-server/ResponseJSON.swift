import Foundation
import LiteTasks

// The records of vision-cli's `--json` output (Sources/vision-cli/JSONOutput.swift, Classify.swift, Detect.swift,
// InkCommand.swift), copied rather than shared so that vision-cli stays free of the server and the server of
// ArgumentParser's command types. Snake_case keys, boxes {x, y, width, height} in pixels. A request has no file,
// so the records have no "index" and "image" keys.

func jsonText(_ object: Any, pretty: Bool = false) -> String {
    let options: JSONSerialization.WritingOptions = pretty ? [.prettyPrinted, .sortedKeys] : [.sortedKeys]
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: options.union(.withoutEscapingSlashes)) else { return "{}" }
    return String(decoding: data, as: UTF8.self)
}

func boxJSON(x: Double, y: Double, width: Double, height: Double) -> [String: Any] {
    ["x": x, "y": y, "width": width, "height": height]
}

func snakeCaseEncoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    return encoder
}

func milliseconds(_ ms: Double) -> Double { (ms * 1000).rounded() / 1000 }

/// `vision-cli classify --json`: heads, each with its ranked categories.
func classificationJSON(_ result: ImageClassifierResult, ms: Double) -> [String: Any] {
    [
        "ms": milliseconds(ms),
        "classifications": result.classificationResult.classifications.map { head -> [String: Any] in
            [
                "head_index": head.headIndex,
                "head_name": head.headName ?? NSNull(),
                "categories": head.categories.map { c -> [String: Any] in
                    ["index": c.index, "score": Double(c.score), "category_name": c.categoryName ?? NSNull(), "display_name": c.displayName ?? NSNull()]
                },
            ]
        },
    ]
}

func labelJSON(_ label: ObjectLabel) -> [String: Any] {
    ["text": label.text ?? NSNull(), "index": label.index, "confidence": Double(label.confidence)]
}

/// `vision-cli detect --json`: the objects with their frames in pixels of the image as shown.
func objectsJSON(_ objects: [Object], ms: Double) -> [String: Any] {
    [
        "ms": milliseconds(ms),
        "objects": objects.map { object -> [String: Any] in
            let f = object.frame
            return [
                // CGFloat does not bridge to NSNumber in swift-corelibs-foundation's JSONSerialization.
                "frame": boxJSON(x: Double(f.minX), y: Double(f.minY), width: Double(f.width), height: Double(f.height)),
                "tracking_id": object.trackingID ?? NSNull(),
                "detection_confidence": Double(object.detectionConfidence),
                "labels": object.labels.map(labelJSON),
                "detector_label": object.detectorLabel.map(labelJSON) ?? NSNull(),
            ]
        },
    ]
}

/// `vision-cli ink --json`: candidates with their words' and characters' segments.
func candidatesJSON(_ result: DigitalInkRecognitionResult, ms: Double) -> [String: Any] {
    func segment(_ s: InkSegment) -> [String: Any] {
        ["text": s.text, "range": [s.characterRange.lowerBound, s.characterRange.upperBound],
         "start": ["stroke": s.start.stroke, "point": s.start.point], "end": ["stroke": s.end.stroke, "point": s.end.point],
         "box": boxJSON(x: Double(s.boundingBox.minX), y: Double(s.boundingBox.minY), width: Double(s.boundingBox.maxX - s.boundingBox.minX),
                        height: Double(s.boundingBox.maxY - s.boundingBox.minY))]
    }
    return [
        "ms": milliseconds(ms),
        "candidates": result.candidates.map { candidate -> [String: Any] in
            var item: [String: Any] = ["text": candidate.text, "words": candidate.words.map(segment), "characters": candidate.characters.map(segment)]
            if let score = candidate.score { item["score"] = (Double(score) * 1e4).rounded() / 1e4 }
            return item
        },
    ]
}
