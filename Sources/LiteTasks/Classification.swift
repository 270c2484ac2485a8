import LiteEngine
import LiteFormat

/// A class with its score: MediaPipe's `ResultCategory`.
public struct ResultCategory: Sendable, Equatable, Codable {
    /// Index of the class in the model's output.
    public var index: Int
    /// The class's score after dequantization and score calibration (for most models a probability in [0, 1]).
    public var score: Float
    /// The label from the model's labels file, if it has one.
    public var categoryName: String?
    /// The label in `displayNamesLocale`, if the model has a labels file for that locale.
    public var displayName: String?

    /// A category from its fields.
    public init(index: Int, score: Float, categoryName: String?, displayName: String?) {
        self.index = index
        self.score = score
        self.categoryName = categoryName
        self.displayName = displayName
    }
}

/// The categories of one output head: MediaPipe's `Classifications`.
public struct Classifications: Sendable, Equatable, Codable {
    /// Index of the output tensor (head) these categories come from.
    public var headIndex: Int
    /// The output tensor's name in the metadata, if any.
    public var headName: String?
    /// Sorted by score, highest first; ties keep the lower index first.
    public var categories: [ResultCategory]
}

/// All heads of one classification: MediaPipe's `ClassificationResult`.
public struct ClassificationResult: Sendable, Equatable, Codable {
    /// One entry per output head, in the model's output order.
    public var classifications: [Classifications]
    /// The frame's timestamp in video and live-stream modes; 0 in image mode.
    public var timestampInMilliseconds: Int
}

/// The options every MediaPipe classifier shares (`ClassifierOptions`).
public struct ClassifierOptions: Sendable, Equatable {
    /// Locale of display names; labels files for other locales are ignored. Default "en".
    public var displayNamesLocale = "en"
    /// Most categories per head; -1 (the default) keeps all, 0 is an error.
    public var maxResults = -1
    /// Categories scoring below this are dropped. nil (the default) uses the model metadata's
    /// ScoreThresholdingOptions when present, else keeps every score.
    public var scoreThreshold: Float?
    /// Only these category names are returned. Exclusive with `categoryDenylist`.
    public var categoryAllowlist: [String] = []
    /// These category names are never returned. Exclusive with `categoryAllowlist`.
    public var categoryDenylist: [String] = []

    /// The defaults: display names in "en", every category, the metadata's threshold, no allow- or denylist.
    public init() {}
}

/// Turns output tensors into ``Classifications`` as MediaPipe's classification post-processing graph does:
/// dequantize, calibrate, filter by threshold and allow/deny list, sort, keep `maxResults`.
struct ClassificationPostprocessor: Sendable {
    struct Head: Sendable {
        var outputIndex: Int
        var name: String?
        var classCount: Int
        var labels: [LabelItem]
        var calibration: ScoreCalibration?
        var threshold: Float?
        var allowed: Set<Int>?
        var denied: Set<Int>
    }

    let heads: [Head]
    let maxResults: Int

    init(resources: ModelResources, interpreter: Interpreter, options: ClassifierOptions) throws {
        guard options.maxResults != 0 else {
            throw TaskError.invalidArgument("Invalid `max_results` option: value must be != 0.")
        }
        guard options.categoryAllowlist.isEmpty || options.categoryDenylist.isEmpty else {
            throw TaskError.invalidArgument("`category_allowlist` and `category_denylist` are mutually exclusive options.")
        }
        maxResults = options.maxResults
        heads = try (0..<interpreter.outputCount).map { index in
            let tensor = try TaskError.wrap { try interpreter.output(at: index) }
            let classes = tensor.shape.last ?? 0
            guard tensor.shape.dropLast().allSatisfy({ $0 == 1 }), classes > 0 else {
                throw TaskError.invalidArgument("output \(index) \(tensor.shape) is not a vector of class scores (expected [1, classes])")
            }
            guard [.float32, .uint8, .int8].contains(tensor.type) else {
                throw TaskError.invalidArgument("output \(index) has type \(tensor.type); class scores must be float32, uint8 or int8")
            }
            let labels = try resources.labels(forOutput: index, locale: options.displayNamesLocale)
            if !labels.isEmpty, labels.count != classes {
                throw TaskError.invalidArgument("Mismatch between number of categories (\(classes)) and number of labels (\(labels.count)).")
            }
            var head = Head(outputIndex: index, name: resources.outputMetadata(index)?.name, classCount: classes, labels: labels,
                            calibration: try resources.scoreCalibration(forOutput: index),
                            threshold: options.scoreThreshold ?? resources.outputMetadata(index)?.scoreThreshold,
                            allowed: nil, denied: [])
            let list = options.categoryAllowlist.isEmpty ? options.categoryDenylist : options.categoryAllowlist
            if !list.isEmpty {
                guard !labels.isEmpty else {
                    throw TaskError.invalidArgument("Using `category_allowlist` or `category_denylist` requires labels to be present in the TFLite Model Metadata but none was found.")
                }
                let wanted = Set(list)
                let indices = Set(labels.indices.filter { wanted.contains(labels[$0].name) })
                guard !indices.isEmpty else {
                    throw TaskError.invalidArgument("None of the categories in the allowlist or denylist (\(list.joined(separator: ", "))) is a label of output \(index).")
                }
                if options.categoryAllowlist.isEmpty { head.denied = indices } else { head.allowed = indices }
            }
            return head
        }
    }

    func classifications(from interpreter: Interpreter) throws -> [Classifications] {
        try heads.map { head in
            let tensor = try TaskError.wrap { try interpreter.output(at: head.outputIndex) }
            var scores = tensor.dequantizedValues(count: head.classCount)
            if let calibration = head.calibration {
                for i in scores.indices { scores[i] = calibration.calibrate(scores[i], index: i) }
            }
            var kept: [Int] = []
            kept.reserveCapacity(scores.count)
            for i in scores.indices {
                if let threshold = head.threshold, scores[i] < threshold { continue }
                if let allowed = head.allowed, !allowed.contains(i) { continue }
                if head.denied.contains(i) { continue }
                kept.append(i)
            }
            kept.sort { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }
            if maxResults > 0, kept.count > maxResults { kept.removeSubrange(maxResults...) }
            let categories = kept.map { i in
                ResultCategory(index: i, score: scores[i],
                               categoryName: head.labels.isEmpty ? nil : head.labels[i].name,
                               displayName: head.labels.isEmpty ? nil : head.labels[i].displayName)
            }
            return Classifications(headIndex: head.outputIndex, headName: head.name, categories: categories)
        }
    }
}

extension Tensor {
    /// The first `count` values as floats: quantized tensors become `(q - zeroPoint) * scale` with the first
    /// scale and zero point, computed in float as TFLite's dequantizing ops do.
    func dequantizedValues(count: Int? = nil) -> [Float] {
        let count = count ?? elementCount
        guard let data else { return [] }
        let scale = quantization?.scale.first ?? 1
        let zeroPoint = Float(quantization?.zeroPoint.first ?? 0)
        switch type {
        case .uint8:
            let q = data.assumingMemoryBound(to: UInt8.self)
            return (0..<count).map { (Float(q[$0]) - zeroPoint) * scale }
        case .int8:
            let q = data.assumingMemoryBound(to: Int8.self)
            return (0..<count).map { (Float(q[$0]) - zeroPoint) * scale }
        default:
            return Array(UnsafeBufferPointer(start: data.assumingMemoryBound(to: Float.self), count: count))
        }
    }
}
