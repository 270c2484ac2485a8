import Foundation
import LiteEngine
import LiteFormat
import LiteImage

/// An SSD-style object detector run by the engine: the image is stretched to the model's input as MediaPipe's
/// ImageToTensorCalculator does, and the outputs become class-agnostic ``ObjectProposal``s, either read from a
/// `TFLite_Detection_PostProcess` op (boxes, classes, scores, count) or decoded from raw box and score tensors
/// with ``SSDDecoding``. Each proposal keeps the detector's own class index; ``labels`` names it.
///
/// Calls are serialized by a lock; make one detector per thread for parallel work.
public final class DetectorModel: @unchecked Sendable {
    /// Where the detections come from.
    public enum Decoding: Sendable, Equatable {
        /// The model ends in `TFLite_Detection_PostProcess`.
        case postProcessOp
        /// The model outputs raw boxes and scores; anchors and suppression come from here.
        case raw(SSDDecoding)
    }

    /// The detector model with its metadata.
    public let resources: ModelResources
    /// Whether detections come from the post-process op or are decoded here.
    public let decoding: Decoding
    /// The metadata's score threshold for the scores output, if any.
    public let metadataScoreThreshold: Float?
    /// The detector's label map, indexed by a proposal's `classIndex`: the `labels` given at init, else the
    /// TENSOR_VALUE_LABELS file of the classes output (output 1) for a model with `TFLite_Detection_PostProcess`
    /// (COCO SSD's labelmap.txt: "person", "bicycle", ...), or the TENSOR_AXIS_LABELS file of the scores output
    /// (output 1, without a background column's label) for a raw SSD, with English display names when the metadata has them, as MediaPipe's
    /// ObjectDetector reads them. Empty when the model has none.
    public let labels: [LabelItem]
    private let interpreter: Interpreter
    private let specs: ImageTensorSpecs
    private let scoreCalibration: ScoreCalibration?
    private let lock = NSLock()

    /// The model's input size in pixels.
    public var inputWidth: Int { specs.width }
    /// The model's input height in pixels.
    public var inputHeight: Int { specs.height }

    /// Loads a detector. `decoding` is needed only for a model without the post-process op; when nil, a sidecar
    /// beside the file (`<name>_anchors.json` or `<name>.pbtxt`) is used. `normalization` (mean, std) stands in
    /// for missing NormalizationOptions metadata of a float model; `labels` (one per class index) for a missing
    /// label map.
    public convenience init(path: String, decoding: SSDDecoding? = nil, normalization: (mean: Float, std: Float)? = nil,
                            labels: [String]? = nil, threads: Int = 1, numerics: Numerics = .fast) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw TaskError.notFound("detector model \(path) does not exist") }
        let resources = try ModelResources(path: path)
        let explicit = try decoding ?? SSDDecoding.sidecar(forModelAt: path)
        try self.init(resources: resources, decoding: explicit, normalization: normalization, labels: labels, threads: threads, numerics: numerics)
    }

    /// Makes a detector of a model already read; `decoding` is needed for a model without the post-process op (a model
    /// with the op ignores it). Throws ``TaskError/invalidArgument(_:)`` when the model does not have one image input
    /// and a detector's outputs (or a raw detector has no `decoding`), ``TaskError/model(_:)`` when the engine cannot
    /// run it.
    public init(resources: ModelResources, decoding raw: SSDDecoding?, normalization: (mean: Float, std: Float)? = nil,
                labels: [String]? = nil, threads: Int = 1, numerics: Numerics = .fast) throws {
        self.resources = resources
        let model = resources.model
        let hasPostProcess = model.operatorCodes.contains { $0.customName == "TFLite_Detection_PostProcess" }
        let interpreter = try TaskError.wrap { try Interpreter(model: model, options: .init(threads: threads, numerics: numerics)) }
        guard interpreter.inputCount == 1 else {
            throw TaskError.invalidArgument("a detector model must have one image input; this one has \(interpreter.inputCount)")
        }
        try TaskError.wrap { try interpreter.allocateTensors() }
        specs = try ImageTensorSpecs(resources: resources, input: try TaskError.wrap { try interpreter.input(at: 0) }, normalization: normalization)
        if hasPostProcess {
            guard interpreter.outputCount == 4 else {
                throw TaskError.invalidArgument("a detector with TFLite_Detection_PostProcess must have 4 outputs (locations, classes, scores, count); this one has \(interpreter.outputCount)")
            }
            decoding = .postProcessOp
            metadataScoreThreshold = resources.outputMetadata(2)?.scoreThreshold
            scoreCalibration = try resources.scoreCalibration(forOutput: 2)
            self.labels = try labels.map { $0.map { LabelItem(name: $0, displayName: nil) } }
                ?? resources.labels(forOutput: 1, ofType: .tensorValueLabels, locale: "en")
        } else {
            guard let raw else {
                throw TaskError.invalidArgument("the detector has no TFLite_Detection_PostProcess op and no anchors: give SSDDecoding or put <model>_anchors.json or <model>.pbtxt beside it")
            }
            guard interpreter.outputCount == 2 else {
                throw TaskError.invalidArgument("a raw SSD detector must have 2 outputs (box encodings, scores); this one has \(interpreter.outputCount)")
            }
            let boxes = try TaskError.wrap { try interpreter.output(at: 0) }, scores = try TaskError.wrap { try interpreter.output(at: 1) }
            guard boxes.rank == 3, scores.rank == 3, boxes.shape[1] == raw.anchors.count, scores.shape[1] == raw.anchors.count,
                  boxes.shape[2] == raw.coordinatesPerAnchor, scores.shape[2] == raw.classCount || scores.shape[2] == raw.classCount + 1 else {
                throw TaskError.invalidArgument("raw outputs \(boxes.shape) and \(scores.shape) do not fit \(raw.anchors.count) anchors, \(raw.coordinatesPerAnchor) coordinates and \(raw.classCount) classes")
            }
            decoding = .raw(raw)
            metadataScoreThreshold = nil
            scoreCalibration = nil
            var axisLabels = try resources.labels(forOutput: 1, ofType: .tensorAxisLabels, locale: "en")
            // One label per score column: a background column's label goes with the column.
            if scores.shape[2] == raw.classCount + 1, axisLabels.count == raw.classCount + 1 { axisLabels.removeFirst() }
            self.labels = labels.map { $0.map { LabelItem(name: $0, displayName: nil) } } ?? axisLabels
        }
        self.interpreter = interpreter
    }

    /// The text of class `index` in ``labels`` (its display name when there is one), nil when the label map does
    /// not have it.
    public func labelText(ofClass index: Int) -> String? {
        guard labels.indices.contains(index) else { return nil }
        return labels[index].displayName ?? labels[index].name
    }

    /// The input tensor bytes the detector feeds the model for an upright image.
    public func preprocessedInput(_ upright: Image) throws -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        let input = try TaskError.wrap { try interpreter.input(at: 0) }
        specs.fill(input, from: upright, region: nil)
        return Array(UnsafeRawBufferPointer(start: input.data, count: input.byteCount))
    }

    /// Detections in an upright image, boxes normalized to it, best first.
    public func proposals(in upright: Image) throws -> [ObjectProposal] {
        lock.lock()
        defer { lock.unlock() }
        let input = try TaskError.wrap { try interpreter.input(at: 0) }
        specs.fill(input, from: upright, region: nil)
        return try runLocked()
    }

    /// Detections for an already preprocessed input tensor (its bytes).
    public func proposals(forInput bytes: [UInt8]) throws -> [ObjectProposal] {
        lock.lock()
        defer { lock.unlock() }
        try bytes.withUnsafeBytes { buffer in try TaskError.wrap { try interpreter.copy(buffer, toInputAt: 0) } }
        return try runLocked()
    }

    private func runLocked() throws -> [ObjectProposal] {
        try TaskError.wrap { try interpreter.invoke() }
        switch decoding {
        case .postProcessOp:
            let outputs = try (0..<4).map { i in try TaskError.wrap { try interpreter.output(at: i) } }
            let slots = outputs[2].elementCount
            let count = Int(outputs[3].dequantizedValues(count: 1).first ?? 0)
            guard count >= 0, count <= slots, outputs[0].elementCount == slots * 4, outputs[1].elementCount == slots else {
                throw TaskError.invalidArgument("detector outputs \(outputs.map(\.shape)) with count \(count) are inconsistent")
            }
            let boxes = outputs[0].dequantizedValues(), classes = outputs[1].dequantizedValues(), scores = outputs[2].dequantizedValues()
            return (0..<count).map { i in
                var score = scores[i]
                if let scoreCalibration { score = scoreCalibration.calibrate(score, index: Int(classes[i])) }
                return ObjectProposal(box: DetectionBox(ymin: boxes[4 * i], xmin: boxes[4 * i + 1], ymax: boxes[4 * i + 2], xmax: boxes[4 * i + 3]),
                                      score: score, classIndex: Int(classes[i]))
            }
        case .raw(let raw):
            let boxes = try TaskError.wrap { try interpreter.output(at: 0) }, scores = try TaskError.wrap { try interpreter.output(at: 1) }
            return try raw.detections(boxEncodings: boxes.dequantizedValues(), scores: scores.dequantizedValues(), scoreColumns: scores.shape[2])
        }
    }
}
