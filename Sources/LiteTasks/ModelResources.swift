import LiteEngine
import LiteFormat

/// A loaded model with its metadata and packed files: what MediaPipe calls `ModelResources`.
public final class ModelResources: @unchecked Sendable {
    /// The model.
    public let model: TFLiteModel
    /// The model's TFLite Metadata, if it has any.
    public let metadata: ModelMetadata?
    /// The zip archive appended to the model (empty when there is none).
    public let associatedFiles: AssociatedFiles

    /// Reads the model at `path` with its metadata and associated files; throws ``TaskError/model(_:)`` when the file
    /// or its metadata cannot be read.
    public convenience init(path: String) throws {
        let model = try TaskError.wrap { try TFLiteModel(path: path) }
        try self.init(model: model)
    }

    /// Reads a model from a copy of `bytes` (MediaPipe's `model_asset_buffer`); errors as ``init(path:)``.
    public convenience init(bytes: [UInt8]) throws {
        let model = try TaskError.wrap { try TFLiteModel(storage: ModelBytes(copying: bytes)) }
        try self.init(model: model)
    }

    /// Reads `model`'s metadata and associated files; throws ``TaskError/model(_:)`` when they are malformed.
    public init(model: TFLiteModel) throws {
        self.model = model
        metadata = try TaskError.wrap { try ModelMetadata(model: model) }
        associatedFiles = try TaskError.wrap { try AssociatedFiles(model: model) }
    }

    /// Metadata of the main subgraph's input `index`, if the model has metadata for it.
    public func inputMetadata(_ index: Int) -> TensorMetadata? {
        guard let tensors = metadata?.subgraphs.first?.inputTensors, tensors.indices.contains(index) else { return nil }
        return tensors[index]
    }

    /// Metadata of the main subgraph's output `index`, if the model has metadata for it.
    public func outputMetadata(_ index: Int) -> TensorMetadata? {
        guard let tensors = metadata?.subgraphs.first?.outputTensors, tensors.indices.contains(index) else { return nil }
        return tensors[index]
    }

    /// The labels of output `index` with display names in `locale`, chosen as MediaPipe does: names from the
    /// first TENSOR_AXIS_LABELS file of the tensor (any locale), display names from the first such file whose
    /// locale equals `locale` exactly. Empty when the tensor has no labels file.
    public func labels(forOutput index: Int, locale: String) throws -> [LabelItem] {
        try labels(forOutput: index, ofType: .tensorAxisLabels, locale: locale)
    }

    /// As ``labels(forOutput:locale:)`` for files of `type`: `.tensorValueLabels` is the label map of a tensor whose
    /// values are class indices (the classes output of an SSD with `TFLite_Detection_PostProcess`, as MediaPipe's
    /// ObjectDetector reads it).
    public func labels(forOutput index: Int, ofType type: AssociatedFileType, locale: String) throws -> [LabelItem] {
        guard let tensor = outputMetadata(index),
              let labelsFile = tensor.firstAssociatedFile(ofType: type) else { return [] }
        let displayFile = locale.isEmpty ? nil : tensor.firstAssociatedFile(ofType: type, locale: locale)
        let labelsText = try TaskError.wrap { try associatedFiles.text(of: labelsFile) }
        let displayText = try displayFile.map { name in try TaskError.wrap { try associatedFiles.text(of: name) } }
        return try LabelItem.labelMap(labels: labelsText, displayNames: displayText)
    }

    /// The per-class sigmoid calibration of output `index`, if its metadata has ScoreCalibrationOptions and a
    /// TENSOR_AXIS_SCORE_CALIBRATION file.
    public func scoreCalibration(forOutput index: Int) throws -> ScoreCalibration? {
        guard let tensor = outputMetadata(index), let options = tensor.scoreCalibration else { return nil }
        guard let file = tensor.firstAssociatedFile(ofType: .tensorAxisScoreCalibration) else {
            throw TaskError.invalidArgument("output \(index) has ScoreCalibrationOptions but no TENSOR_AXIS_SCORE_CALIBRATION file")
        }
        let text = try TaskError.wrap { try associatedFiles.text(of: file) }
        return try ScoreCalibration(options: options, csv: text)
    }
}

/// One class of a classification head: its label and, when a localized labels file exists, its display name.
public struct LabelItem: Sendable, Equatable {
    /// The class's label (a line of the labels file).
    public var name: String
    /// The label in the display-names locale, when the model has a labels file for it.
    public var displayName: String?

    /// MediaPipe's `BuildLabelMapFromFiles`: one label per line (a trailing "\r" is dropped), the empty line
    /// after a final newline ignored, display names required to have the same count.
    static func labelMap(labels: String, displayNames: String?) throws -> [LabelItem] {
        func lines(_ text: String) -> [String] {
            // Split the bytes, not the Characters: Swift treats "\r\n" as one Character.
            var result = text.utf8.split(separator: 10, omittingEmptySubsequences: false).map { line -> String in
                String(decoding: line.last == 13 ? line.dropLast() : line[...], as: UTF8.self)
            }
            if result.last == "" { result.removeLast() }
            return result
        }
        guard !labels.isEmpty else { throw TaskError.invalidArgument("Expected non-empty labels file.") }
        let names = lines(labels)
        var items = names.map { LabelItem(name: $0, displayName: nil) }
        if let displayNames, !displayNames.isEmpty {
            let display = lines(displayNames)
            guard display.count == names.count else {
                throw TaskError.invalidArgument("Mismatch between number of labels (\(names.count)) and display names (\(display.count)).")
            }
            for i in items.indices { items[i].displayName = display[i] }
        }
        return items
    }
}

/// Sigmoid score calibration from TFLite Metadata: for class `i` with parameters (scale, slope, offset,
/// min_score), `f(x) = scale / (1 + exp(-(slope * g(x) + offset)))` when `x > min_score` (or no min_score),
/// else `default_score`; `g` is identity, log or inverse logistic. Classes with no parameters get `default_score`.
public struct ScoreCalibration: Sendable, Equatable {
    /// One class's parameters: a line `scale,slope,offset[,min_score]` of the calibration file.
    public struct Parameters: Sendable, Equatable {
        /// The sigmoid's scale.
        public var scale: Float
        /// The slope applied to the transformed score.
        public var slope: Float
        /// The offset added before the sigmoid.
        public var offset: Float
        /// Scores at or below it get the default score; nil when the line has three numbers.
        public var minScore: Float?
    }

    /// The transformation `g` applied to the raw score first.
    public var transformation: ScoreTransformation
    /// The score of classes without parameters, and of scores at or below their `min_score`.
    public var defaultScore: Float
    /// One entry per class; nil where the CSV line is empty.
    public var parameters: [Parameters?]

    init(options: ScoreCalibrationOptions, csv: String) throws {
        transformation = options.transformation
        defaultScore = options.defaultScore
        var lines = csv.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        if lines.last == "" { lines.removeLast() }
        parameters = try lines.enumerated().map { number, line in
            if line.isEmpty { return nil }
            let values = line.split(separator: ",").map { Float($0.trimmingCharacters(in: .whitespaces)) }
            guard values.count == 3 || values.count == 4, values.allSatisfy({ $0 != nil }) else {
                throw TaskError.invalidArgument("score calibration line \(number + 1) \"\(line)\": expected 3 or 4 numbers")
            }
            return Parameters(scale: values[0]!, slope: values[1]!, offset: values[2]!, minScore: values.count == 4 ? values[3]! : nil)
        }
    }

    /// The calibrated score of class `index` for raw score `x`, computed as MediaPipe's
    /// `ScoreCalibrationCalculator` does (below `min_score` means strictly below; the sigmoid is evaluated in
    /// its numerically stable form on either side of 0).
    public func calibrate(_ x: Float, index: Int) -> Float {
        guard index < parameters.count, let p = parameters[index] else { return defaultScore }
        if let minScore = p.minScore, x < minScore { return defaultScore }
        let transformed: Float
        switch transformation {
        case .identity: transformed = x
        case .log: transformed = logf(x)
        case .inverseLogistic: transformed = logf(x) - log1pf(-x)
        }
        let shifted = transformed * p.slope + p.offset
        if shifted >= 0 { return p.scale / (1 + expf(-shifted)) }
        let e = expf(shifted)
        return p.scale * e / (1 + e)
    }
}

import Foundation
