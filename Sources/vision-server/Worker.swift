import Foundation
import LiteEngine
import LiteImage
import LiteTasks

/// One inference worker: its own classifiers, detectors and ink recognizers, made on first use with a set of
/// options and kept (up to `cacheLimit` of each kind). The pool lends a worker to one request at a time, so nothing
/// here is locked.
final class Worker: @unchecked Sendable {
    let id: Int
    let numerics: Numerics
    let threads: Int
    let imageLimits: ImageLimits
    private var classifiers: [ClassifierKey: ImageClassifier] = [:]
    private var detectors: [DetectorKey: ObjectDetector] = [:]
    private var recognizers: [InkKey: DigitalInkRecognizer] = [:]
    private let cacheLimit = 8

    init(id: Int, numerics: Numerics, threads: Int, imageLimits: ImageLimits) {
        self.id = id
        self.numerics = numerics
        self.threads = threads
        self.imageLimits = imageLimits
    }

    func classifier(_ key: ClassifierKey) throws -> ImageClassifier {
        if let classifier = classifiers[key] { return classifier }
        var options = ImageClassifierOptions()
        options.baseOptions.modelAssetPath = key.modelPath
        options.baseOptions.numerics = numerics
        options.baseOptions.threads = threads
        options.maxResults = key.maxResults
        options.scoreThreshold = key.scoreThreshold
        options.displayNamesLocale = key.locale
        options.categoryAllowlist = key.allow
        options.categoryDenylist = key.deny
        let classifier = try ImageClassifier(options: options)
        if classifiers.count >= cacheLimit { classifiers.removeAll() }
        classifiers[key] = classifier
        return classifier
    }

    func detector(_ key: DetectorKey) throws -> ObjectDetector {
        if let detector = detectors[key] { return detector }
        var options = CustomObjectDetectorOptions()
        if let classifierPath = key.classifierPath { options.localModel = LocalModel(path: classifierPath) }
        options.detectorModel = .local(LocalModel(path: key.detectorPath))
        options.detectorMode = .singleImage
        options.shouldEnableMultipleObjects = key.multiple
        options.shouldEnableClassification = key.classify
        options.classificationConfidenceThreshold = key.threshold
        options.maxPerObjectLabelCount = key.maxLabels
        options.detectorScoreThreshold = key.detectorThreshold
        options.threads = threads
        options.numerics = numerics
        let detector = try ObjectDetector.objectDetector(options: options)
        if detectors.count >= cacheLimit { detectors.removeAll() }
        detectors[key] = detector
        return detector
    }

    func recognizer(_ key: InkKey, identifier: DigitalInkRecognitionModelIdentifier) throws -> DigitalInkRecognizer {
        if let recognizer = recognizers[key] { return recognizer }
        var options = DigitalInkRecognizerOptions(model: DigitalInkRecognitionModel(modelIdentifier: identifier))
        options.maxResultCount = key.maxCandidates
        options.threads = threads
        let recognizer = DigitalInkRecognizer.digitalInkRecognizer(options: options)
        try recognizer.loadModel()
        if recognizers.count >= cacheLimit { recognizers.removeAll() }
        recognizers[key] = recognizer
        return recognizer
    }

    /// The image of a request body, decoded within the server's pixel limit.
    func decode(_ bytes: [UInt8]) throws -> DecodedImage {
        guard !bytes.isEmpty else { throw APIError.invalidImage("the body is empty: send the image's bytes") }
        return try Image.decode(bytes, limits: imageLimits)
    }

    func classify(_ bytes: [UInt8], _ query: ClassifyQuery) throws -> [String: Any] {
        let started = DispatchTime.now().uptimeNanoseconds
        let decoded = try decode(bytes)
        var image = MPImage(image: decoded.image, orientation: decoded.orientation)
        if let orientation = query.orientation { image.orientation = orientation }
        let region = try query.region(width: image.width, height: image.height)
        let result = try classifier(query.key).classify(image: image, regionOfInterest: region)
        return classificationJSON(result, ms: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
    }

    func detect(_ bytes: [UInt8], _ query: DetectQuery) throws -> [String: Any] {
        let started = DispatchTime.now().uptimeNanoseconds
        let decoded = try decode(bytes)
        var image = VisionImage(image: decoded.image, orientation: decoded.orientation)
        if let orientation = query.orientation { image.orientation = orientation }
        let objects = try detector(query.key).results(in: image)
        return objectsJSON(objects, ms: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
    }

    func recognize(_ ink: Ink, _ query: InkQuery) throws -> [String: Any] {
        let started = DispatchTime.now().uptimeNanoseconds
        let result = try recognizer(query.key, identifier: query.identifier).recognize(ink: ink, context: query.context)
        return candidatesJSON(result, ms: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
    }
}
