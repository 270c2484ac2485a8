import Foundation
import LiteFormat

/// The custom op `TFLite_Detection_PostProcess` (tensorflow/lite/kernels/detection_postprocess.cc): decodes
/// SSD box encodings against anchors, then runs fast (class-agnostic on each anchor's best class) or regular
/// (per-class) non-maximum suppression.
///
/// Inputs: box encodings [1, N, ≥4] (y, x, h, w), class scores [1, N, C or C+1 with background], anchors [N, 4];
/// float32 or uint8 (dequantized first). Outputs, all float32: boxes [1, M, 4] (ymin, xmin, ymax, xmax),
/// classes [1, M], scores [1, M], count [1], with M = max_detections × max_classes_per_detection.
///
/// Where TFLite leaves output slots past the detection count untouched, this kernel writes zeros. Where
/// TFLite sorts with `std::partial_sort` (more than one class per detection, regular NMS), ties are broken by
/// index (a stable sort), which TFLite does not promise.
final class DetectionPostProcess: Kernel {
    struct Options {
        var maxDetections = 0
        var maxClassesPerDetection = 0
        var detectionsPerClass = 100
        var useRegularNMS = false
        var scoreThreshold: Float = 0
        var iouThreshold: Float = 0
        var numClasses = 0
        var yScale: Float = 0, xScale: Float = 0, hScale: Float = 0, wScale: Float = 0

        init(flexbuffer bytes: UnsafeRawBufferPointer?) throws {
            guard let bytes else { throw KernelError.invalid("missing custom options") }
            let map: [String: FlexValue]
            do { map = try FlexValue(root: bytes).map() } catch let error as FormatError {
                throw KernelError.invalid("custom options: \(error)")
            }
            func int(_ key: String, _ fallback: Int = 0) -> Int { map[key]?.intValue.map { Int(truncatingIfNeeded: $0) } ?? fallback }
            func float(_ key: String) -> Float { map[key]?.doubleValue.map(Float.init) ?? 0 }
            maxDetections = int("max_detections")
            maxClassesPerDetection = int("max_classes_per_detection")
            detectionsPerClass = int("detections_per_class", 100)
            useRegularNMS = map["use_regular_nms"]?.boolValue ?? false
            scoreThreshold = float("nms_score_threshold")
            iouThreshold = float("nms_iou_threshold")
            numClasses = int("num_classes")
            yScale = float("y_scale"); xScale = float("x_scale"); hScale = float("h_scale"); wScale = float("w_scale")
        }
    }

    let options: Options
    var boxCount = 0

    required init(_ node: NodeContext) throws {
        options = try Options(flexbuffer: node.customOptions)
        try super.init(node)
        try expectCounts(inputs: 3...3, outputs: 4)
        guard options.maxDetections >= 0, options.maxDetections <= 100_000, options.maxClassesPerDetection > 0,
              options.maxClassesPerDetection <= 1000, options.numClasses > 0, options.detectionsPerClass > 0 else {
            throw KernelError.invalid("options out of range: max_detections \(options.maxDetections), max_classes_per_detection \(options.maxClassesPerDetection), num_classes \(options.numClasses), detections_per_class \(options.detectionsPerClass)")
        }
        guard options.iouThreshold > 0, options.iouThreshold <= 1 else { throw KernelError.invalid("nms_iou_threshold \(options.iouThreshold) must be in (0, 1]") }
    }

    override func prepare() throws {
        let boxes = try input(0), scores = try input(1), anchors = try input(2)
        try expectType(boxes, .float32, .uint8)
        try expectType(scores, .float32, .uint8)
        try expectType(anchors, .float32, .uint8)
        try expectRank(boxes, 3)
        try expectRank(scores, 3)
        try expectRank(anchors, 2)
        boxCount = boxes.dim(1)
        guard boxes.dim(0) == 1, scores.dim(0) == 1, boxes.dim(2) >= 4, scores.dim(1) == boxCount, anchors.dim(0) == boxCount, anchors.dim(1) == 4 else {
            throw KernelError.invalid("boxes \(boxes.shape), scores \(scores.shape) and anchors \(anchors.shape) do not fit")
        }
        let withBackground = scores.dim(2)
        guard withBackground >= options.numClasses, withBackground - options.numClasses <= 1 else {
            throw KernelError.invalid("\(withBackground) score columns for \(options.numClasses) classes")
        }
        for t in [boxes, scores, anchors] where t.type == .uint8 {
            guard t.quantization?.scale.count == 1 else { throw KernelError.invalid("uint8 tensor \(t.index) needs one scale") }
        }
        let detected = options.maxDetections * options.maxClassesPerDetection
        let outputs = node.outputs
        for output in outputs { output.type = .float32 }
        outputs[0].shape = [1, detected, 4]
        outputs[1].shape = [1, detected]
        outputs[2].shape = [1, detected]
        outputs[3].shape = [1]
    }

    override var scratchBytes: Int {
        guard let scores = node.inputs[1] else { return 0 }
        return (boxCount * 4 + scores.elementCount) * 4
    }

    /// Reads element `i` of a float or uint8 tensor as float (uint8 as `(q - zero_point) * scale`).
    private static func reader(_ t: Tensor) -> (Int) -> Float {
        if t.type == .float32 {
            let p = t.floats
            return { p[$0] }
        }
        let p = t.pointer(UInt8.self)
        let zeroPoint = Float(t.quantization!.zeroPoint[0]), scale = t.quantization!.scale[0]
        return { (Float(p[$0]) - zeroPoint) * scale }
    }

    override func run(_ context: RunContext) throws {
        let encodings = node.inputs[0]!, scoresTensor = node.inputs[1]!, anchorsTensor = node.inputs[2]!
        let n = boxCount, stride = encodings.dim(2)
        let decoded = context.scratch.assumingMemoryBound(to: Float.self)
        let scores = decoded + n * 4
        let encoding = Self.reader(encodings), anchor = Self.reader(anchorsTensor), score = Self.reader(scoresTensor)
        let (sy, sx, sh, sw) = (Double(options.yScale), Double(options.xScale), Double(options.hScale), Double(options.wScale))
        for i in 0..<n {
            let (y, x, h, w) = (Double(encoding(i * stride)), Double(encoding(i * stride + 1)), Double(encoding(i * stride + 2)), Double(encoding(i * stride + 3)))
            let (ay, ax, ah, aw) = (Double(anchor(i * 4)), Double(anchor(i * 4 + 1)), Double(anchor(i * 4 + 2)), Double(anchor(i * 4 + 3)))
            // Decoding in double, rounded to float once per value, exactly as the reference.
            let yCenter = Float(y / sy * ah + ay)
            let xCenter = Float(x / sx * aw + ax)
            let halfH = Float(0.5 * Foundation.exp(h / sh) * ah)
            let halfW = Float(0.5 * Foundation.exp(w / sw) * aw)
            let box = decoded + 4 * i
            box[0] = yCenter - halfH
            box[1] = xCenter - halfW
            box[2] = yCenter + halfH
            box[3] = xCenter + halfW
            if box[0] > box[2] || box[1] > box[3] { throw KernelError.invalid("decoded box \(i) is inverted") }
        }
        for i in 0..<scoresTensor.elementCount { scores[i] = score(i) }

        for output in node.outputs { output.floats.update(repeating: 0, count: output.elementCount) }
        if options.useRegularNMS {
            regularNMS(decoded: decoded, scores: scores, withBackground: scoresTensor.dim(2))
        } else {
            fastNMS(decoded: decoded, scores: scores, withBackground: scoresTensor.dim(2))
        }
    }

    private static func iou(_ boxes: UnsafePointer<Float>, _ i: Int, _ j: Int) -> Float {
        let a = boxes + 4 * i, b = boxes + 4 * j
        let areaA = (a[2] - a[0]) * (a[3] - a[1]), areaB = (b[2] - b[0]) * (b[3] - b[1])
        if areaA <= 0 || areaB <= 0 { return 0 }
        let intersection = max(min(a[2], b[2]) - max(a[0], b[0]), 0) * max(min(a[3], b[3]) - max(a[1], b[1]), 0)
        return intersection / (areaA + areaB - intersection)
    }

    /// Greedy NMS over one score per box: keep scores >= threshold, stable-sort descending, drop any box whose
    /// IoU with an already kept one exceeds the threshold. Returns box indices.
    func singleClassNMS(decoded: UnsafePointer<Float>, scores: [Float], maxDetections: Int) -> [Int] {
        let kept = scores.indices.filter { scores[$0] >= options.scoreThreshold }
        let order = kept.enumerated().sorted { a, b in
            scores[a.element] != scores[b.element] ? scores[a.element] > scores[b.element] : a.offset < b.offset
        }.map(\.element)
        var active = [Bool](repeating: true, count: order.count)
        var remaining = order.count
        var selected: [Int] = []
        let limit = min(order.count, maxDetections)
        for i in 0..<order.count {
            if remaining == 0 || selected.count >= limit { break }
            guard active[i] else { continue }
            selected.append(order[i])
            active[i] = false
            remaining -= 1
            for j in (i + 1)..<max(order.count, i + 1) where active[j] {
                if Self.iou(decoded, order[i], order[j]) > options.iouThreshold {
                    active[j] = false
                    remaining -= 1
                }
            }
        }
        return selected
    }

    /// Indices of the `count` largest values, descending; ties keep the lower index first.
    static func topIndices(_ values: UnsafePointer<Float>, _ n: Int, count: Int) -> [Int] {
        if count == 1 {
            var best = 0
            for i in 1..<max(n, 1) where values[i] > values[best] { best = i }
            return [best]
        }
        return Array((0..<n).sorted { values[$0] != values[$1] ? values[$0] > values[$1] : $0 < $1 }.prefix(count))
    }

    private func fastNMS(decoded: UnsafePointer<Float>, scores: UnsafePointer<Float>, withBackground: Int) {
        let offset = withBackground - options.numClasses
        let perAnchor = min(options.maxClassesPerDetection, options.numClasses)
        var topClasses: [[Int]] = []
        var maxScores: [Float] = []
        topClasses.reserveCapacity(boxCount)
        for row in 0..<boxCount {
            let rowScores = scores + row * withBackground + offset
            let classes = Self.topIndices(rowScores, options.numClasses, count: perAnchor)
            topClasses.append(classes)
            maxScores.append(rowScores[classes[0]])
        }
        let selected = singleClassNMS(decoded: decoded, scores: maxScores, maxDetections: options.maxDetections)
        let (boxes, classes, outScores, count) = (node.outputs[0].floats, node.outputs[1].floats, node.outputs[2].floats, node.outputs[3].floats)
        for (k, anchor) in selected.enumerated() {
            for col in 0..<perAnchor {
                let slot = options.maxClassesPerDetection * k + col
                (boxes + 4 * slot).update(from: decoded + 4 * anchor, count: 4)
                classes[slot] = Float(topClasses[anchor][col])
                outScores[slot] = scores[anchor * withBackground + offset + topClasses[anchor][col]]
            }
        }
        count[0] = Float(selected.count)
    }

    private func regularNMS(decoded: UnsafePointer<Float>, scores: UnsafePointer<Float>, withBackground: Int) {
        let offset = withBackground - options.numClasses
        var best: [(score: Float, anchor: Int, cls: Int)] = []
        for cls in 0..<options.numClasses {
            let classScores = (0..<boxCount).map { scores[$0 * withBackground + cls + offset] }
            let selected = singleClassNMS(decoded: decoded, scores: classScores, maxDetections: options.detectionsPerClass)
            let merged = best + selected.map { (classScores[$0], $0, cls) }
            best = Array(merged.enumerated().sorted { a, b in
                a.element.score != b.element.score ? a.element.score > b.element.score : a.offset < b.offset
            }.map(\.element).prefix(options.maxDetections))
        }
        let (boxes, classes, outScores, count) = (node.outputs[0].floats, node.outputs[1].floats, node.outputs[2].floats, node.outputs[3].floats)
        for (k, detection) in best.enumerated() {
            (boxes + 4 * k).update(from: decoded + 4 * detection.anchor, count: 4)
            classes[k] = Float(detection.cls)
            outScores[k] = detection.score
        }
        count[0] = Float(best.count)
    }
}
