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

    /// uint8 class scores dequantized, kept between runs.
    private var dequantizedScores: [Float] = []

    /// The class scores as floats: a float tensor in place, a uint8 one dequantized into ``dequantizedScores``.
    private func withScores<Result>(_ t: Tensor, _ body: (UnsafeBufferPointer<Float>) -> Result) -> Result {
        if t.type == .float32 { return body(UnsafeBufferPointer(start: t.floats, count: t.elementCount)) }
        let p = t.pointer(UInt8.self)
        let zeroPoint = Float(t.quantization!.zeroPoint[0]), scale = t.quantization!.scale[0]
        if dequantizedScores.count != t.elementCount { dequantizedScores = [Float](repeating: 0, count: t.elementCount) }
        dequantizedScores.withUnsafeMutableBufferPointer { out in
            for i in out.indices { out[i] = (Float(p[i]) - zeroPoint) * scale }
        }
        return dequantizedScores.withUnsafeBufferPointer(body)
    }

    override func run(_ context: RunContext) throws {
        let encodings = node.inputs[0]!, scoresTensor = node.inputs[1]!, anchorsTensor = node.inputs[2]!
        let stride = encodings.dim(2)
        let encoding = Self.reader(encodings), anchor = Self.reader(anchorsTensor)
        let scales = CenterSizeBoxCoding.Scales(y: options.yScale, x: options.xScale, h: options.hScale, w: options.wScale)
        var decoded: [DetectionBox] = []
        decoded.reserveCapacity(boxCount)
        for i in 0..<boxCount {
            let prior = DetectionAnchor(yCenter: anchor(i * 4), xCenter: anchor(i * 4 + 1), height: anchor(i * 4 + 2), width: anchor(i * 4 + 3))
            let box = CenterSizeBoxCoding.decode(ty: encoding(i * stride), tx: encoding(i * stride + 1), th: encoding(i * stride + 2),
                                                 tw: encoding(i * stride + 3), anchor: prior, scales: scales)
            if box.ymin > box.ymax || box.xmin > box.xmax { throw KernelError.invalid("decoded box \(i) is inverted") }
            decoded.append(box)
        }

        for output in node.outputs { output.floats.update(repeating: 0, count: output.elementCount) }
        withScores(scoresTensor) { scores in
            if options.useRegularNMS {
                regularNMS(decoded: decoded, scores: scores, withBackground: scoresTensor.dim(2))
            } else {
                fastNMS(decoded: decoded, scores: scores, withBackground: scoresTensor.dim(2))
            }
        }
    }

    private func singleClassNMS(decoded: [DetectionBox], scores: [Float], maxDetections: Int) -> [Int] {
        CenterSizeBoxCoding.nonMaxSuppression(boxes: decoded, scores: scores, scoreThreshold: options.scoreThreshold,
                                              iouThreshold: options.iouThreshold, maxDetections: maxDetections)
    }

    private static func write(_ box: DetectionBox, to pointer: UnsafeMutablePointer<Float>) {
        pointer[0] = box.ymin; pointer[1] = box.xmin; pointer[2] = box.ymax; pointer[3] = box.xmax
    }

    /// Indices of the `count` largest values, descending; ties keep the lower index first.
    static func topIndices(_ values: UnsafeBufferPointer<Float>, count: Int) -> [Int] {
        if count == 1 {
            var best = 0
            for i in values.indices where values[i] > values[best] { best = i }
            return [best]
        }
        return Array(values.indices.sorted { values[$0] != values[$1] ? values[$0] > values[$1] : $0 < $1 }.prefix(count))
    }

    private func fastNMS(decoded: [DetectionBox], scores: UnsafeBufferPointer<Float>, withBackground: Int) {
        let offset = withBackground - options.numClasses, classCount = options.numClasses
        let perAnchor = min(options.maxClassesPerDetection, classCount)
        var topClasses = [Int](repeating: 0, count: boxCount * perAnchor)
        var maxScores = [Float](repeating: 0, count: boxCount)
        for row in 0..<boxCount {
            let rowScores = UnsafeBufferPointer(rebasing: scores[(row * withBackground + offset)...].prefix(classCount))
            if perAnchor == 1 {
                var best = 0
                for c in 1..<classCount where rowScores[c] > rowScores[best] { best = c }
                topClasses[row] = best
            } else {
                for (col, c) in Self.topIndices(rowScores, count: perAnchor).enumerated() { topClasses[row * perAnchor + col] = c }
            }
            maxScores[row] = rowScores[topClasses[row * perAnchor]]
        }
        let selected = singleClassNMS(decoded: decoded, scores: maxScores, maxDetections: options.maxDetections)
        let (boxes, classes, outScores, count) = (node.outputs[0].floats, node.outputs[1].floats, node.outputs[2].floats, node.outputs[3].floats)
        for (k, anchor) in selected.enumerated() {
            for col in 0..<perAnchor {
                let slot = options.maxClassesPerDetection * k + col
                let cls = topClasses[anchor * perAnchor + col]
                Self.write(decoded[anchor], to: boxes + 4 * slot)
                classes[slot] = Float(cls)
                outScores[slot] = scores[anchor * withBackground + offset + cls]
            }
        }
        count[0] = Float(selected.count)
    }

    private func regularNMS(decoded: [DetectionBox], scores: UnsafeBufferPointer<Float>, withBackground: Int) {
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
            Self.write(decoded[detection.anchor], to: boxes + 4 * k)
            classes[k] = Float(detection.cls)
            outScores[k] = detection.score
        }
        count[0] = Float(best.count)
    }
}
