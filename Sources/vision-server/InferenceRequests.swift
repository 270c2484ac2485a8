import Foundation
import LiteImage
import LiteTasks

/// The options that make an `ImageClassifier`: requests with equal keys share a worker's classifier.
struct ClassifierKey: Hashable {
    var modelPath: String
    var maxResults = 5
    var scoreThreshold: Float?
    var allow: [String] = []
    var deny: [String] = []
    var locale = "en"
}

/// The options that make an `ObjectDetector`.
struct DetectorKey: Hashable {
    var detectorPath: String
    var classifierPath: String?
    var multiple = false
    var classify = false
    var threshold: Float?
    var maxLabels = 10
    var detectorThreshold: Float?
}

/// The options that make a `DigitalInkRecognizer`.
struct InkKey: Hashable {
    var languageTag: String
    var maxCandidates = 10
}

/// `POST /v1/classify`'s query: vision-cli classify's options (`model`, `max-results`, `score-threshold`, `allow`,
/// `deny`, `locale`, `orientation`, `roi`).
struct ClassifyQuery {
    var key: ClassifierKey
    var orientation: ImageOrientation?
    var roi: String?

    init(_ query: inout QueryParameters, locator: ModelLocator, defaultModel: String?) throws {
        let model = query.string("model")
        key = ClassifierKey(modelPath: try locator.path(model ?? defaultModel, task: "image-classification", fromClient: model != nil))
        if let maxResults = try query.int("max-results") {
            guard maxResults != 0, maxResults >= -1 else { throw APIError.badParameter("max-results must be positive, or -1 for all") }
            key.maxResults = maxResults
        }
        key.scoreThreshold = try query.float("score-threshold")
        key.allow = query.strings("allow")
        key.deny = query.strings("deny")
        if !key.allow.isEmpty && !key.deny.isEmpty {
            throw APIError.badParameter("allow and deny exclude each other (as MediaPipe's category allowlist and denylist do)")
        }
        key.locale = query.string("locale") ?? "en"
        orientation = try query.orientation()
        roi = query.string("roi")
        try query.rejectUnknown()
    }

    /// The region of interest `x,y,w,h` in pixels of the oriented image, normalized.
    func region(width: Int, height: Int) throws -> CGRect? {
        guard let roi else { return nil }
        let parts = roi.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, parts.allSatisfy(\.isFinite) else { throw APIError.badParameter("roi wants x,y,w,h in pixels, got \(roi)") }
        return CGRect(x: parts[0] / Double(width), y: parts[1] / Double(height), width: parts[2] / Double(width), height: parts[3] / Double(height))
    }
}

/// `POST /v1/detect`'s query: vision-cli detect's options (`multiple`, `classify`, `classifier`, `threshold`,
/// `max-labels`, `detector`, `detector-threshold`, `orientation`).
struct DetectQuery {
    var key: DetectorKey
    var orientation: ImageOrientation?

    init(_ query: inout QueryParameters, locator: ModelLocator, defaultDetector: String?, defaultClassifier: String?) throws {
        let detector = query.string("detector")
        key = DetectorKey(detectorPath: try locator.path(detector ?? defaultDetector, task: "object-detection", fromClient: detector != nil))
        key.multiple = try query.flag("multiple")
        key.classify = try query.flag("classify")
        let classifier = query.string("classifier")
        if key.classify {
            key.classifierPath = try locator.path(classifier ?? defaultClassifier, task: "object-classification", fromClient: classifier != nil)
        }
        key.threshold = try query.float("threshold")
        if let maxLabels = try query.int("max-labels") {
            guard maxLabels > 0 else { throw APIError.badParameter("max-labels must be positive") }
            key.maxLabels = maxLabels
        }
        key.detectorThreshold = try query.float("detector-threshold")
        orientation = try query.orientation()
        try query.rejectUnknown()
    }
}

/// `POST /v1/ink`'s query: vision-cli ink's options (`lang`, `pre-context`, `writing-area`, `max-candidates`).
struct InkQuery {
    var key: InkKey
    var identifier: DigitalInkRecognitionModelIdentifier
    var context: DigitalInkRecognitionContext

    init(_ query: inout QueryParameters, registry: ModelRegistry) throws {
        let lang = query.string("lang") ?? "en"
        guard let identifier = Self.modelIdentifier(lang, registry: registry) else {
            let known = DigitalInkRecognitionModelIdentifier.allModelIdentifiers().map(\.languageTag).sorted().joined(separator: ", ")
            throw APIError(status: .badRequest, kind: "unknown_model", message: "no digital ink model for the language tag \"\(lang)\" (models: \(known))")
        }
        self.identifier = identifier
        key = InkKey(languageTag: identifier.languageTag)
        if let maxCandidates = try query.int("max-candidates") {
            guard maxCandidates > 0 else { throw APIError.badParameter("max-candidates must be positive") }
            key.maxCandidates = maxCandidates
        }
        context = DigitalInkRecognitionContext(preContext: query.string("pre-context") ?? "")
        if let area = query.string("writing-area") {
            let parts = area.lowercased().split(separator: "x").compactMap { Float($0) }
            guard parts.count == 2, parts.allSatisfy({ $0.isFinite && $0 > 0 }) else {
                throw APIError.badParameter("writing-area is WIDTHxHEIGHT, for example 800x120")
            }
            context.writingArea = WritingArea(width: parts[0], height: parts[1])
        }
        try query.rejectUnknown()
    }

    /// The model of a BCP-47 tag, or of a registry alias of an ink model (`shapes`).
    static func modelIdentifier(_ tag: String, registry: ModelRegistry) -> DigitalInkRecognitionModelIdentifier? {
        if let identifier = DigitalInkRecognitionModelIdentifier(forLanguageTag: tag) { return identifier }
        guard let model = try? registry.model(named: tag) else { return nil }
        return DigitalInkRecognitionModelIdentifier.allModelIdentifiers().first { $0.registryName == model.name }
    }
}
