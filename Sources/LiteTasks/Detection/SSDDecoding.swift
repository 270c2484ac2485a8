import Foundation
import LiteEngine

/// How the raw outputs of an SSD-style detector without a `TFLite_Detection_PostProcess` op become boxes:
/// the anchors, the box coder and the suppression. Two sources are understood: the JSON sidecar this project
/// writes for a model whose post-process op was cut off (`<model>_anchors.json`), and MediaPipe graph options
/// (`SsdAnchorsCalculatorOptions` + `TensorsToDetectionsCalculatorOptions` + `NonMaxSuppressionCalculatorOptions`,
/// as in `face_detection_short_range.pbtxt`).
public struct SSDDecoding: Sendable, Equatable {
    /// Which implementation's float arithmetic the box decoding reproduces.
    public enum Arithmetic: Sendable, Equatable {
        /// `TFLite_Detection_PostProcess`: centre and half size in double, rounded to float once.
        case tflitePostProcess
        /// MediaPipe's `TensorsToDetectionsCalculator`: every step in float.
        case mediapipe
    }

    /// How a detection's boxes overlapping a better one are handled.
    public enum Suppression: Sendable, Equatable {
        /// Drop every box whose IoU with a kept one exceeds the threshold (the TFLite op; MediaPipe's DEFAULT).
        case greedy
        /// MediaPipe's WEIGHTED: each kept box becomes the score-weighted mean of the boxes it suppresses.
        case weighted
    }

    /// One anchor per box the model predicts, in the order of its outputs.
    public var anchors: [DetectionAnchor]
    /// The divisors of the encodings (the op's `y_scale`, `x_scale`, `h_scale`, `w_scale`; MediaPipe's `x_scale`, ...).
    public var scales: CenterSizeBoxCoding.Scales
    /// Whose float arithmetic the decoding reproduces.
    public var arithmetic: Arithmetic
    /// Encodings are (tx, ty, tw, th) instead of (ty, tx, th, tw) (MediaPipe's `reverse_output_order`).
    public var reverseOutputOrder = false
    /// Values per anchor in the box tensor (4, or more with keypoints) and where the box starts.
    public var coordinatesPerAnchor = 4
    /// Where the box's four values start among ``coordinatesPerAnchor`` (MediaPipe's `box_coord_offset`).
    public var boxCoordinateOffset = 0
    /// Box sizes are `exp(t / scale) * anchor` (true) or `t / scale * anchor`.
    public var applyExponentialOnBoxSize = true
    /// Apply a logistic to raw scores (after clipping to ±`scoreClipping` when set).
    public var sigmoidScore = false
    /// Raw scores are clipped to ±this before the logistic (MediaPipe's `score_clipping_thresh`); nil for none.
    public var scoreClipping: Float?
    /// Number of real classes; a score tensor with one more column has a background class first, which is skipped.
    public var classCount: Int
    /// Scores below it are dropped before suppression.
    public var scoreThreshold: Float
    /// Boxes overlapping a kept one by more than this IoU are suppressed.
    public var iouThreshold: Float
    /// The most detections kept.
    public var maxDetections: Int
    /// Greedy (default) or weighted suppression.
    public var suppression: Suppression = .greedy

    /// A decoding with the given anchors, coder and thresholds; the other fields keep their defaults (box first in
    /// four values, exponential sizes, no logistic, greedy suppression).
    public init(anchors: [DetectionAnchor], scales: CenterSizeBoxCoding.Scales, arithmetic: Arithmetic, classCount: Int,
                scoreThreshold: Float, iouThreshold: Float, maxDetections: Int) {
        self.anchors = anchors
        self.scales = scales
        self.arithmetic = arithmetic
        self.classCount = classCount
        self.scoreThreshold = scoreThreshold
        self.iouThreshold = iouThreshold
        self.maxDetections = maxDetections
    }

    /// Looks beside a model for its decoding: `<name>_anchors.json` or `<name>.pbtxt`; nil when neither exists.
    public static func sidecar(forModelAt path: String) throws -> SSDDecoding? {
        let base = (path as NSString).deletingPathExtension
        if let data = FileManager.default.contents(atPath: base + "_anchors.json") {
            return try SSDDecoding(anchorsJSON: data)
        }
        if let data = FileManager.default.contents(atPath: base + ".pbtxt") {
            return try SSDDecoding(mediapipeGraph: String(decoding: data, as: UTF8.self))
        }
        return nil
    }

    // MARK: Decoding

    /// A candidate box with its best class, before suppression.
    struct Candidate {
        var box: DetectionBox
        var score: Float
        var classIndex: Int
    }

    /// Decodes raw outputs (box encodings [N × coordinatesPerAnchor], scores [N × columns], both already float)
    /// into suppressed detections, best first. Each anchor is treated class-agnostically: its best class (the
    /// op's fast NMS with one class per detection) competes with every other anchor.
    public func detections(boxEncodings: [Float], scores: [Float], scoreColumns: Int) throws -> [ObjectProposal] {
        let count = anchors.count
        guard boxEncodings.count == count * coordinatesPerAnchor else {
            throw TaskError.invalidArgument("box tensor has \(boxEncodings.count) values, expected \(count) anchors x \(coordinatesPerAnchor)")
        }
        guard scoreColumns == classCount || scoreColumns == classCount + 1, scores.count == count * scoreColumns else {
            throw TaskError.invalidArgument("score tensor has \(scores.count) values in \(scoreColumns) columns, expected \(count) anchors x \(classCount) classes (+1 background)")
        }
        let background = scoreColumns - classCount
        var boxes: [DetectionBox] = []
        var best: [Float] = []
        var classes: [Int] = []
        boxes.reserveCapacity(count)
        for i in 0..<count {
            let e = i * coordinatesPerAnchor + boxCoordinateOffset
            var (ty, tx, th, tw) = (boxEncodings[e], boxEncodings[e + 1], boxEncodings[e + 2], boxEncodings[e + 3])
            if reverseOutputOrder { (ty, tx, th, tw) = (tx, ty, tw, th) }
            boxes.append(decode(ty: ty, tx: tx, th: th, tw: tw, anchor: anchors[i]))
            let row = i * scoreColumns + background
            var top = 0
            for c in 1..<max(classCount, 1) where scores[row + c] > scores[row + top] { top = c }
            best.append(score(scores[row + top]))
            classes.append(top)
        }
        let kept: [Int]
        switch suppression {
        case .greedy:
            kept = CenterSizeBoxCoding.nonMaxSuppression(boxes: boxes, scores: best, scoreThreshold: scoreThreshold,
                                                         iouThreshold: iouThreshold, maxDetections: maxDetections)
            return kept.map { ObjectProposal(box: boxes[$0], score: best[$0], classIndex: classes[$0]) }
        case .weighted:
            return weightedSuppression(boxes: boxes, scores: best, classes: classes)
        }
    }

    private func score(_ raw: Float) -> Float {
        guard sigmoidScore else { return raw }
        var x = raw
        if let clip = scoreClipping { x = min(max(x, -clip), clip) }
        return 1 / (1 + expf(-x))
    }

    func decode(ty: Float, tx: Float, th: Float, tw: Float, anchor: DetectionAnchor) -> DetectionBox {
        switch arithmetic {
        case .tflitePostProcess:
            return CenterSizeBoxCoding.decode(ty: ty, tx: tx, th: th, tw: tw, anchor: anchor, scales: scales)
        case .mediapipe:
            let xCenter = tx / scales.x * anchor.width + anchor.xCenter
            let yCenter = ty / scales.y * anchor.height + anchor.yCenter
            let h = applyExponentialOnBoxSize ? expf(th / scales.h) * anchor.height : th / scales.h * anchor.height
            let w = applyExponentialOnBoxSize ? expf(tw / scales.w) * anchor.width : tw / scales.w * anchor.width
            return DetectionBox(ymin: yCenter - h / 2, xmin: xCenter - w / 2, ymax: yCenter + h / 2, xmax: xCenter + w / 2)
        }
    }

    /// MediaPipe's weighted NMS (`NonMaxSuppressionCalculator`, WEIGHTED): candidates above the threshold by
    /// descending score; the best takes every remaining box overlapping it by more than the IoU threshold, and
    /// its box becomes their score-weighted average.
    private func weightedSuppression(boxes: [DetectionBox], scores: [Float], classes: [Int]) -> [ObjectProposal] {
        var remaining = scores.indices.filter { scores[$0] >= scoreThreshold && boxes[$0].width >= 0 && boxes[$0].height >= 0 }
            .sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }
        var result: [ObjectProposal] = []
        while let top = remaining.first, result.count < maxDetections {
            var cluster: [Int] = []
            var rest: [Int] = []
            for i in remaining {
                if boxes[top].intersectionOverUnion(boxes[i]) > iouThreshold || i == top { cluster.append(i) } else { rest.append(i) }
            }
            var box = boxes[top]
            if cluster.count > 1 {
                var total: Float = 0
                var (ymin, xmin, ymax, xmax): (Float, Float, Float, Float) = (0, 0, 0, 0)
                for i in cluster {
                    total += scores[i]
                    ymin += boxes[i].ymin * scores[i]; xmin += boxes[i].xmin * scores[i]
                    ymax += boxes[i].ymax * scores[i]; xmax += boxes[i].xmax * scores[i]
                }
                box = DetectionBox(ymin: ymin / total, xmin: xmin / total, ymax: ymax / total, xmax: xmax / total)
            }
            result.append(ObjectProposal(box: box, score: scores[top], classIndex: classes[top]))
            remaining = rest
        }
        return result
    }
}

/// One object found by a detector model: a box normalized to the image it ran on, a score and the detector's
/// own class (selection and tracking ignore it, proposals being class-agnostic; ``ObjectDetector`` reports it as
/// ``Object/detectorLabel``).
public struct ObjectProposal: Sendable, Equatable, Codable {
    /// The box, normalized to the image the detector ran on.
    public var box: DetectionBox
    /// The detector's score for the box.
    public var score: Float
    /// The detector's class for the box (ignored by ``ObjectDetector``).
    public var classIndex: Int

    /// A proposal from its fields.
    public init(box: DetectionBox, score: Float, classIndex: Int) {
        self.box = box
        self.score = score
        self.classIndex = classIndex
    }
}

// MARK: - Sources of anchors

extension SSDDecoding {
    /// Reads the JSON sidecar written for a model whose `TFLite_Detection_PostProcess` op was removed: `anchors`
    /// as [y_center, x_center, h, w] rows and the op's options under `postprocess_options`.
    public init(anchorsJSON data: Data) throws {
        struct Sidecar: Decodable {
            struct Options: Decodable {
                var max_detections: Int
                var nms_iou_threshold: Float
                var nms_score_threshold: Float
                var num_classes: Int
                var y_scale: Float, x_scale: Float, h_scale: Float, w_scale: Float
            }
            var anchors: [[Float]]
            var postprocess_options: Options
        }
        let sidecar: Sidecar
        do { sidecar = try JSONDecoder().decode(Sidecar.self, from: data) } catch {
            throw TaskError.invalidArgument("anchors JSON: \(error)")
        }
        let options = sidecar.postprocess_options
        guard !sidecar.anchors.isEmpty, sidecar.anchors.count <= 1_000_000, sidecar.anchors.allSatisfy({ $0.count == 4 }) else {
            throw TaskError.invalidArgument("anchors JSON: anchors must be a non-empty list of [y_center, x_center, h, w]")
        }
        guard options.num_classes > 0, options.max_detections > 0, options.nms_iou_threshold > 0, options.nms_iou_threshold <= 1,
              [options.y_scale, options.x_scale, options.h_scale, options.w_scale].allSatisfy({ $0.isFinite && $0 != 0 }) else {
            throw TaskError.invalidArgument("anchors JSON: post-process options out of range")
        }
        self.init(anchors: sidecar.anchors.map { DetectionAnchor(yCenter: $0[0], xCenter: $0[1], height: $0[2], width: $0[3]) },
                  scales: .init(y: options.y_scale, x: options.x_scale, h: options.h_scale, w: options.w_scale),
                  arithmetic: .tflitePostProcess, classCount: options.num_classes,
                  scoreThreshold: options.nms_score_threshold, iouThreshold: options.nms_iou_threshold,
                  maxDetections: options.max_detections)
    }

    /// Reads MediaPipe detection graph options (protobuf text format) and fills what the text leaves out with
    /// the defaults of MediaPipe's face detection graph (`face_detection.pbtxt`), which is what the short-range
    /// face model's pbtxt relies on: min_scale 0.1484375, max_scale 0.75, anchor offsets 0.5, aspect ratio 1,
    /// fixed anchor size, 16 coordinates with 6 keypoints, (x, y, w, h) order, sigmoid scores clipped at 100,
    /// weighted NMS at IoU 0.3.
    public init(mediapipeGraph text: String) throws {
        let fields = ProtoTextFields(text)
        var anchorOptions = SSDAnchorOptions()
        anchorOptions.numLayers = try fields.int("num_layers") ?? 4
        anchorOptions.minScale = try fields.float("min_scale") ?? 0.1484375
        anchorOptions.maxScale = try fields.float("max_scale") ?? 0.75
        anchorOptions.inputHeight = try fields.int("input_size_height") ?? fields.int("tensor_height") ?? 128
        anchorOptions.inputWidth = try fields.int("input_size_width") ?? fields.int("tensor_width") ?? 128
        anchorOptions.anchorOffsetX = try fields.float("anchor_offset_x") ?? 0.5
        anchorOptions.anchorOffsetY = try fields.float("anchor_offset_y") ?? 0.5
        anchorOptions.strides = try fields.ints("strides")
        anchorOptions.featureMapWidths = try fields.ints("feature_map_width")
        anchorOptions.featureMapHeights = try fields.ints("feature_map_height")
        let ratios = try fields.floats("aspect_ratios")
        anchorOptions.aspectRatios = ratios.isEmpty ? [1] : ratios
        anchorOptions.reduceBoxesInLowestLayer = try fields.bool("reduce_boxes_in_lowest_layer") ?? false
        anchorOptions.interpolatedScaleAspectRatio = try fields.float("interpolated_scale_aspect_ratio") ?? 1
        anchorOptions.fixedAnchorSize = try fields.bool("fixed_anchor_size") ?? true
        let anchors = try anchorOptions.generateAnchors()
        if let boxes = try fields.int("num_boxes"), boxes != anchors.count {
            throw TaskError.invalidArgument("graph options: num_boxes \(boxes) but the anchor options give \(anchors.count) anchors")
        }
        let scales = CenterSizeBoxCoding.Scales(y: try fields.float("y_scale") ?? 1, x: try fields.float("x_scale") ?? 1,
                                                h: try fields.float("h_scale") ?? 1, w: try fields.float("w_scale") ?? 1)
        guard [scales.y, scales.x, scales.h, scales.w].allSatisfy({ $0.isFinite && $0 != 0 }) else {
            throw TaskError.invalidArgument("graph options: box scales must be finite and non-zero")
        }
        self.init(anchors: anchors, scales: scales, arithmetic: .mediapipe, classCount: try fields.int("num_classes") ?? 1,
                  scoreThreshold: try fields.float("min_score_thresh") ?? 0.5,
                  iouThreshold: try fields.float("min_suppression_threshold") ?? 0.3,
                  maxDetections: try fields.int("max_num_detections") ?? 100)
        coordinatesPerAnchor = try fields.int("num_coords") ?? 16
        boxCoordinateOffset = try fields.int("box_coord_offset") ?? 0
        guard coordinatesPerAnchor >= 4, boxCoordinateOffset >= 0, boxCoordinateOffset + 4 <= coordinatesPerAnchor, classCount > 0 else {
            throw TaskError.invalidArgument("graph options: num_coords \(coordinatesPerAnchor), box_coord_offset \(boxCoordinateOffset), num_classes \(classCount) do not fit")
        }
        reverseOutputOrder = try fields.bool("reverse_output_order") ?? true
        applyExponentialOnBoxSize = try fields.bool("apply_exponential_on_box_size") ?? false
        sigmoidScore = try fields.bool("sigmoid_score") ?? true
        scoreClipping = try fields.float("score_clipping_thresh") ?? 100
        suppression = (fields.string("algorithm") ?? "WEIGHTED") == "DEFAULT" ? .greedy : .weighted
    }
}

/// MediaPipe's `SsdAnchorsCalculatorOptions`.
public struct SSDAnchorOptions: Sendable, Equatable {
    /// `num_layers`: feature maps that carry anchors.
    public var numLayers = 4
    /// `min_scale`: the anchor scale of the first layer.
    public var minScale: Float = 0.1484375
    /// `max_scale`: the anchor scale of the last layer.
    public var maxScale: Float = 0.75
    /// `input_size_height`, in pixels.
    public var inputHeight = 128
    /// `input_size_width`, in pixels.
    public var inputWidth = 128
    /// `anchor_offset_x`: the anchor centre within its cell, as a fraction of the cell.
    public var anchorOffsetX: Float = 0.5
    /// `anchor_offset_y`: the anchor centre within its cell, as a fraction of the cell.
    public var anchorOffsetY: Float = 0.5
    /// `strides`: one per layer, in input pixels per cell.
    public var strides: [Int] = []
    /// `feature_map_width`: one per layer when given (else from the input size and stride).
    public var featureMapWidths: [Int] = []
    /// `feature_map_height`: one per layer when given (else from the input size and stride).
    public var featureMapHeights: [Int] = []
    /// `aspect_ratios`: one anchor per ratio in every cell.
    public var aspectRatios: [Float] = [1]
    /// `reduce_boxes_in_lowest_layer`: the first layer has three fixed anchors per cell.
    public var reduceBoxesInLowestLayer = false
    /// `interpolated_scale_aspect_ratio`: adds an anchor between this layer's scale and the next one's (0: none).
    public var interpolatedScaleAspectRatio: Float = 1
    /// `fixed_anchor_size`: every anchor has width and height 1.
    public var fixedAnchorSize = true

    /// The values of MediaPipe's short-range face detection graph where it sets them (4 layers, scales 0.1484375 to 0.75,
    /// a 128x128 input, centred anchors of one aspect ratio and fixed size); no strides or feature maps.
    public init() {}

    private func scale(_ strideIndex: Int, _ strideCount: Int) -> Float {
        if strideCount == 1 { return (minScale + maxScale) * 0.5 }
        // MediaPipe multiplies by the double 1.0 here, so the quotient is a double rounded to float once.
        return Float(Double(minScale) + Double(maxScale - minScale) * 1.0 * Double(strideIndex) / Double(Float(strideCount) - 1))
    }

    /// The anchors in MediaPipe's order: layer by layer (layers of equal stride merged), row, column, anchor.
    public func generateAnchors() throws -> [DetectionAnchor] {
        let usesFeatureMaps = !featureMapHeights.isEmpty
        guard usesFeatureMaps || !strides.isEmpty else {
            throw TaskError.invalidArgument("Both feature map shape and strides are missing. Must provide either one.")
        }
        guard numLayers > 0, numLayers <= 64, inputWidth > 0, inputHeight > 0, inputWidth <= 16384, inputHeight <= 16384 else {
            throw TaskError.invalidArgument("anchor options out of range: \(numLayers) layers, input \(inputWidth)x\(inputHeight)")
        }
        if usesFeatureMaps {
            guard featureMapHeights.count == numLayers, featureMapWidths.count == numLayers,
                  (featureMapHeights + featureMapWidths).allSatisfy({ $0 > 0 && $0 <= 4096 }) else {
                throw TaskError.invalidArgument("feature_map_height/width must have num_layers (\(numLayers)) positive entries")
            }
        } else {
            guard strides.count == numLayers, strides.allSatisfy({ $0 > 0 }) else {
                throw TaskError.invalidArgument("strides must have num_layers (\(numLayers)) positive entries, got \(strides)")
            }
        }
        var anchors: [DetectionAnchor] = []
        var layer = 0
        while layer < numLayers {
            var ratios: [Float] = []
            var scales: [Float] = []
            var last = layer
            while last < strides.count && strides[last] == strides[layer] {
                let s = scale(last, strides.count)
                if last == 0 && reduceBoxesInLowestLayer {
                    ratios += [1, 2, 0.5]
                    scales += [0.1, s, s]
                } else {
                    for ratio in aspectRatios {
                        ratios.append(ratio)
                        scales.append(s)
                    }
                    if interpolatedScaleAspectRatio > 0 {
                        let next: Float = last == strides.count - 1 ? 1 : scale(last + 1, strides.count)
                        scales.append((s * next).squareRoot())
                        ratios.append(interpolatedScaleAspectRatio)
                    }
                }
                last += 1
            }
            if usesFeatureMaps && last == layer { last = layer + 1 }
            var sizes: [(h: Float, w: Float)] = []
            for (ratio, s) in zip(ratios, scales) {
                let root = ratio.squareRoot()
                sizes.append((s / root, s * root))
            }
            let mapHeight: Int, mapWidth: Int
            if usesFeatureMaps {
                mapHeight = featureMapHeights[layer]
                mapWidth = featureMapWidths[layer]
            } else {
                mapHeight = Int((Float(inputHeight) / Float(strides[layer])).rounded(.up))
                mapWidth = Int((Float(inputWidth) / Float(strides[layer])).rounded(.up))
            }
            guard anchors.count + mapHeight * mapWidth * max(sizes.count, 1) <= 1_000_000 else {
                throw TaskError.invalidArgument("anchor options give more than a million anchors")
            }
            for y in 0..<mapHeight {
                for x in 0..<mapWidth {
                    for size in sizes {
                        let xCenter = (Float(x) + anchorOffsetX) / Float(mapWidth)
                        let yCenter = (Float(y) + anchorOffsetY) / Float(mapHeight)
                        anchors.append(DetectionAnchor(yCenter: yCenter, xCenter: xCenter,
                                                       height: fixedAnchorSize ? 1 : size.h, width: fixedAnchorSize ? 1 : size.w))
                    }
                }
            }
            layer = last
        }
        return anchors
    }
}

/// The scalar fields of a protobuf text-format message, flattened: every `name: value` line, wherever it is
/// nested. Enough for MediaPipe calculator options whose field names do not collide.
struct ProtoTextFields {
    private var values: [String: [String]] = [:]

    init(_ text: String) {
        for rawLine in text.split(whereSeparator: \.isNewline) {
            var line = Substring(rawLine)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            var value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), !value.isEmpty, value != "{" else { continue }
            if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            values[name, default: []].append(value)
        }
    }

    func string(_ name: String) -> String? { values[name]?.last }

    func int(_ name: String) throws -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text) else { throw TaskError.invalidArgument("graph options: \(name) \"\(text)\" is not an integer") }
        return value
    }

    func float(_ name: String) throws -> Float? {
        guard let text = string(name) else { return nil }
        guard let value = Float(text), value.isFinite else { throw TaskError.invalidArgument("graph options: \(name) \"\(text)\" is not a number") }
        return value
    }

    func bool(_ name: String) throws -> Bool? {
        guard let text = string(name) else { return nil }
        switch text {
        case "true", "1": return true
        case "false", "0": return false
        default: throw TaskError.invalidArgument("graph options: \(name) \"\(text)\" is not a boolean")
        }
    }

    func ints(_ name: String) throws -> [Int] {
        try (values[name] ?? []).map { text in
            guard let value = Int(text) else { throw TaskError.invalidArgument("graph options: \(name) \"\(text)\" is not an integer") }
            return value
        }
    }

    func floats(_ name: String) throws -> [Float] {
        try (values[name] ?? []).map { text in
            guard let value = Float(text), value.isFinite else { throw TaskError.invalidArgument("graph options: \(name) \"\(text)\" is not a number") }
            return value
        }
    }
}
