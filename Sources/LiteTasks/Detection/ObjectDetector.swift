import Dispatch
import Foundation
import LiteEngine
import LiteImage

/// An image with its orientation, as ML Kit's `VisionImage` (the same type as MediaPipe's ``MPImage``).
public typealias VisionImage = MPImage

/// ML Kit's `ObjectDetectorMode`.
public enum ObjectDetectorMode: Sendable, Equatable {
    /// Video frames: low latency, tracking IDs (the default).
    case stream
    /// Independent images: no tracking IDs.
    case singleImage
}

/// Where the object proposals come from (a Linux addition: ML Kit's detector is built in).
public enum ObjectDetectorModelSource: Sendable, Equatable {
    /// A registry entry, fetched through the cache and mirror (default: the registry's object-detection model,
    /// COCO SSD MobileNet v1 quantized).
    case registry(String)
    /// A .tflite file; a model without `TFLite_Detection_PostProcess` needs its anchors beside it.
    case local(LocalModel)
}

/// Options of a detector with a custom classifier: ML Kit's `CustomObjectDetectorOptions`, same names and
/// defaults, plus Linux additions marked as such.
public struct CustomObjectDetectorOptions: Sendable {
    /// The classifier as a file.
    public var localModel: LocalModel?
    /// The classifier as a registry model; it must be downloaded (see ``ModelManager``) before the detector is made.
    public var remoteModel: CustomRemoteModel?
    /// Stream (default: tracking IDs across frames) or single image.
    public var detectorMode: ObjectDetectorMode = .stream
    /// false (default): only the most prominent object; true: up to five.
    public var shouldEnableMultipleObjects = false
    /// Classify each object with the custom model (default false: objects come back without labels).
    public var shouldEnableClassification = false
    /// Minimum label confidence; nil (default) takes the classifier metadata's score threshold, else 0.
    public var classificationConfidenceThreshold: Float?
    /// Most labels per object (default 10).
    public var maxPerObjectLabelCount = 10

    /// Linux addition: the detector model.
    public var detectorModel: ObjectDetectorModelSource = .registry("coco_ssd_mobilenet_v1")
    /// Linux addition: minimum detector score for an object; nil takes the detector metadata's threshold, else
    /// ``ObjectDetector/defaultDetectorScoreThreshold``.
    public var detectorScoreThreshold: Float?
    /// Linux addition: tracking parameters for stream mode.
    public var tracking = ObjectTracker.Options()
    /// Linux addition: in stream mode, at most this many objects are classified per frame (new objects first,
    /// then the longest-unlabelled); the others keep their last labels or come back unlabelled until their turn.
    public var classificationsPerFrame = 2
    /// Linux addition: in stream mode, an object's labels are refreshed after this many frames.
    public var relabelInterval = 30
    /// Linux addition: engine threads and numerics for both models.
    public var threads = 1
    /// Linux addition: the engine's quantized numerics for both models (default `.fast`).
    public var numerics: Numerics = .fast

    /// Detection only: no classifier.
    public init() {}

    /// Options with the classifier in a file.
    public init(localModel: LocalModel) {
        self.localModel = localModel
    }

    /// Options with a classifier from the registry.
    public init(remoteModel: CustomRemoteModel) {
        self.remoteModel = remoteModel
    }
}

/// One label of an object: ML Kit's `ObjectLabel`.
public struct ObjectLabel: Sendable, Equatable, Codable {
    /// The label's text (the display name when the metadata has one), nil when the model has no labels.
    public var text: String?
    /// The classifier's score for the label.
    public var confidence: Float
    /// The class index in the classifier's output (for ``Object/detectorLabel``, the detector's class index).
    public var index: Int

    /// A label from its fields.
    public init(text: String?, confidence: Float, index: Int) {
        self.text = text
        self.confidence = confidence
        self.index = index
    }
}

/// A detected object: ML Kit's `Object`.
public struct Object: Sendable, Equatable, Codable {
    /// The bounding box in pixels of the image as shown (after its orientation).
    public var frame: CGRect
    /// Stable across frames in stream mode; nil in single-image mode.
    public var trackingID: Int?
    /// Labels from the custom classifier, best first; empty without classification.
    public var labels: [ObjectLabel]
    /// Linux addition: the detector's score for the box.
    public var detectionConfidence: Float
    /// Beyond ML Kit: the detector's own class for the box (COCO SSD: "dog"), with `text` from the detector's label
    /// map (nil when it has none, e.g. a face detector), `index` the detector's class index and `confidence` its
    /// score (the same as ``detectionConfidence``). ML Kit's detector is class-agnostic and throws this away;
    /// ``labels`` still come from the custom classifier only. In stream mode, the class of the track's latest
    /// detection; nil only for a track not yet matched to a detection.
    public var detectorLabel: ObjectLabel?

    /// An object from its fields (``detectorLabel`` nil by default).
    public init(frame: CGRect, trackingID: Int?, labels: [ObjectLabel], detectionConfidence: Float, detectorLabel: ObjectLabel? = nil) {
        self.frame = frame
        self.trackingID = trackingID
        self.labels = labels
        self.detectionConfidence = detectionConfidence
        self.detectorLabel = detectorLabel
    }
}

/// Finds objects, tracks them across frames and labels them with a custom classifier, with the shape of ML Kit's
/// object detection and tracking API.
///
/// ```swift
/// var options = CustomObjectDetectorOptions(localModel: LocalModel(path: "object_labeler.tflite"))
/// options.detectorMode = .singleImage
/// options.shouldEnableMultipleObjects = true
/// options.shouldEnableClassification = true
/// let detector = try ObjectDetector.objectDetector(options: options)
/// for object in try detector.results(in: VisionImage(contentsOfFile: "pets.jpg")) {
///     print(object.frame, object.labels.first?.text ?? "")
/// }
/// ```
///
/// Proposals come from an SSD detector and are class-agnostic (the detector's own class is reported beside ML
/// Kit's fields as ``Object/detectorLabel``, but plays no part in selection or tracking). With `shouldEnableMultipleObjects` off, the most
/// prominent one is kept: the largest value of box area (as a fraction of the image) times centrality
/// (1 − distance of the box centre from the image centre / half the image diagonal). With it on, the five best
/// by detector score. Calls are serialized; a detector keeps tracking state, so use one per video stream.
public final class ObjectDetector: @unchecked Sendable {
    /// The options the detector was made with.
    public let options: CustomObjectDetectorOptions
    /// The detector model that proposes the boxes.
    public let detector: DetectorModel
    private let classifier: ImageClassifier?
    private let scoreThreshold: Float
    private var tracker: ObjectTracker
    private var trackLabels: [Int: (labels: [ObjectLabel], frame: Int)] = [:]
    private var trackDetections: [Int: ObjectProposal] = [:]
    private var frameNumber = 0
    private let lock = NSLock()
    private let queue = DispatchQueue(label: "litevision.object-detector")

    /// Most objects returned with multiple objects enabled (ML Kit's limit).
    public static let maximumObjects = 5
    /// The detector score an object needs when neither the options nor the detector's metadata say: 0.4, the best
    /// MOTA of 0.3/0.4/0.5 on the synthetic tracking sequences with COCO SSD MobileNet v1 (Docs/object-detection.md).
    public static let defaultDetectorScoreThreshold: Float = 0.4
    /// Fraction of an object's width and height added on each side of its box before it is classified.
    public static let cropMargin = 0.1

    /// ML Kit's factory. Unlike ML Kit, a bad model or option is reported here rather than on the first image.
    public static func objectDetector(options: CustomObjectDetectorOptions) throws -> ObjectDetector {
        try ObjectDetector(options: options)
    }

    /// A detector with `options`, resolving registry models through `modelManager` (default: the package's).
    ///
    /// - Throws: ``TaskError/invalidArgument(_:)`` for both `localModel` and `remoteModel`, classification without a
    ///   classifier, a classifier that does not output one vector of class scores, or a confidence threshold outside
    ///   [0, 1]; ``TaskError/failedPrecondition(_:)`` for a remote classifier that is not downloaded; and the errors
    ///   of loading the models (``TaskError/notFound(_:)``, ``TaskError/model(_:)``).
    public init(options: CustomObjectDetectorOptions, modelManager: ModelManager = .modelManager()) throws {
        guard options.maxPerObjectLabelCount > 0 else {
            throw TaskError.invalidArgument("maxPerObjectLabelCount must be positive, got \(options.maxPerObjectLabelCount)")
        }
        if let threshold = options.classificationConfidenceThreshold, !(threshold >= 0 && threshold <= 1) {
            throw TaskError.invalidArgument("classificationConfidenceThreshold must be in [0, 1], got \(threshold)")
        }
        guard options.localModel == nil || options.remoteModel == nil else {
            throw TaskError.invalidArgument("set either localModel or remoteModel, not both")
        }
        let detectorPath: String
        switch options.detectorModel {
        case .local(let model): detectorPath = model.path
        case .registry(let name):
            let registry = modelManager.registry
            detectorPath = try registry.fetch(try registry.model(named: name)).path
        }
        detector = try DetectorModel(path: detectorPath, threads: options.threads, numerics: options.numerics)
        scoreThreshold = options.detectorScoreThreshold ?? detector.metadataScoreThreshold ?? Self.defaultDetectorScoreThreshold

        var classifierPath = options.localModel?.path
        if let remote = options.remoteModel {
            guard let path = modelManager.localPath(of: remote) else {
                throw TaskError.failedPrecondition("the remote model \"\(remote.registryName)\" is not downloaded: call ModelManager.download first, or use the bundled local model")
            }
            classifierPath = path
        }
        if options.shouldEnableClassification {
            guard let classifierPath else {
                throw TaskError.invalidArgument("shouldEnableClassification needs a classifier: CustomObjectDetectorOptions(localModel:) or (remoteModel:)")
            }
            var classifierOptions = ImageClassifierOptions()
            classifierOptions.baseOptions.modelAssetPath = classifierPath
            classifierOptions.baseOptions.threads = options.threads
            classifierOptions.baseOptions.numerics = options.numerics
            classifierOptions.maxResults = options.maxPerObjectLabelCount
            classifierOptions.scoreThreshold = options.classificationConfidenceThreshold
            let classifier = try ImageClassifier(options: classifierOptions)
            let heads = try classifier.labels()
            guard heads.count == 1 else {
                throw TaskError.invalidArgument("the classifier must have one output, a vector of class scores; it has \(heads.count)")
            }
            self.classifier = classifier
        } else {
            classifier = nil
        }
        self.options = options
        tracker = ObjectTracker(options: options.tracking)
    }

    /// Detects (and in stream mode tracks) objects in one image or frame, synchronously: ML Kit's `results(in:)`.
    public func results(in image: VisionImage) throws -> [Object] {
        lock.lock()
        defer { lock.unlock() }
        return try detect(image)
    }

    /// ML Kit's `process(_:completion:)`: runs on a serial background queue and calls `completion` there.
    public func process(_ image: VisionImage, completion: @escaping @Sendable ([Object]?, Error?) -> Void) {
        queue.async { [self] in
            do { completion(try results(in: image), nil) } catch { completion(nil, error) }
        }
    }

    /// The async form of ``process(_:completion:)``.
    public func process(_ image: VisionImage) async throws -> [Object] {
        try await withCheckedThrowingContinuation { continuation in
            process(image) { objects, error in
                if let objects { continuation.resume(returning: objects) } else { continuation.resume(throwing: error!) }
            }
        }
    }

    /// Forgets tracked objects (a new video); tracking IDs keep increasing.
    public func resetTracking() {
        lock.lock()
        defer { lock.unlock() }
        tracker.reset()
        trackLabels.removeAll()
        trackDetections.removeAll()
    }

    /// The classifier crop of a box normalized to the upright image: the box grown by ``cropMargin`` of its size
    /// on each side and clipped to the image; nil when nothing is left.
    public static func cropRegion(_ box: DetectionBox) -> CGRect? {
        let (ymin, xmin, ymax, xmax) = (Double(box.ymin), Double(box.xmin), Double(box.ymax), Double(box.xmax))
        let growX = (xmax - xmin) * cropMargin, growY = (ymax - ymin) * cropMargin
        let left = max(0, xmin - growX), top = max(0, ymin - growY)
        let right = min(1, xmax + growX), bottom = min(1, ymax + growY)
        guard left < right, top < bottom else { return nil }
        return CGRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The prominence that picks the single object: area fraction × centrality.
    public static func prominence(_ box: DetectionBox) -> Float {
        let cx = (box.xmin + box.xmax) / 2, cy = (box.ymin + box.ymax) / 2
        let distance = ((cx - 0.5) * (cx - 0.5) + (cy - 0.5) * (cy - 0.5)).squareRoot()
        let centrality = max(0, 1 - distance / (0.5 * Float(2).squareRoot()))
        return max(0, box.width) * max(0, box.height) * centrality
    }

    private func detect(_ image: VisionImage) throws -> [Object] {
        let upright = image.oriented()
        guard upright.width > 0, upright.height > 0 else { throw TaskError.invalidArgument("the image is empty") }
        var proposals = try detector.proposals(in: upright).filter { $0.score >= scoreThreshold && $0.score.isFinite }
        proposals = proposals.compactMap { proposal in
            var p = proposal
            p.box = clamped(p.box)
            return p.box.width > 0 && p.box.height > 0 ? p : nil
        }
        if options.shouldEnableMultipleObjects {
            proposals = Array(proposals.prefix(Self.maximumObjects))
        } else if let best = proposals.indices.max(by: { Self.prominence(proposals[$0].box) < Self.prominence(proposals[$1].box) }) {
            proposals = [proposals[best]]
        }

        // What to report: every proposal in single-image mode; the tracker's confirmed tracks in stream mode.
        // `detection` is the proposal behind the item: this frame's, or in stream mode the track's latest.
        var items: [(box: DetectionBox, detection: ObjectProposal?, id: Int?)]
        if options.detectorMode == .stream {
            let reports = tracker.update(with: proposals.map(\.box))
            for report in reports { if let d = report.detection { trackDetections[report.id] = proposals[d] } }
            items = reports.map { ($0.box, trackDetections[$0.id], $0.id) }
            let live = Set(tracker.tracks.map(\.id))
            trackDetections = trackDetections.filter { live.contains($0.key) }
            trackLabels = trackLabels.filter { live.contains($0.key) }
        } else {
            items = proposals.map { ($0.box, $0, nil) }
        }
        frameNumber += 1
        var labels = [[ObjectLabel]](repeating: [], count: items.count)
        if let classifier {
            var toClassify: [Int]
            if options.detectorMode == .stream {
                let due = items.indices.filter { i in
                    guard let cached = trackLabels[items[i].id!] else { return true }
                    return frameNumber - cached.frame >= options.relabelInterval
                }
                toClassify = Array(due.sorted { (trackLabels[items[$0].id!]?.frame ?? -1, items[$0].id!) < (trackLabels[items[$1].id!]?.frame ?? -1, items[$1].id!) }
                    .prefix(max(0, options.classificationsPerFrame)))
            } else {
                toClassify = Array(items.indices)
            }
            let source = MPImage(image: upright)
            for i in toClassify {
                guard let region = Self.cropRegion(clamped(items[i].box)) else { continue }
                let result = try classifier.classify(image: source, regionOfInterest: region)
                labels[i] = (result.classificationResult.classifications.first?.categories ?? []).map {
                    ObjectLabel(text: $0.displayName ?? $0.categoryName, confidence: $0.score, index: $0.index)
                }
                if let id = items[i].id { trackLabels[id] = (labels[i], frameNumber) }
            }
            for i in items.indices where !toClassify.contains(i) {
                if let id = items[i].id { labels[i] = trackLabels[id]?.labels ?? [] }
            }
        }

        let width = Double(upright.width), height = Double(upright.height)
        return items.indices.map { i in
            let box = clamped(items[i].box)
            let frame = CGRect(x: Double(box.xmin) * width, y: Double(box.ymin) * height,
                               width: Double(box.width) * width, height: Double(box.height) * height)
            let detectorLabel = items[i].detection.map {
                ObjectLabel(text: detector.labelText(ofClass: $0.classIndex), confidence: $0.score, index: $0.classIndex)
            }
            return Object(frame: frame, trackingID: items[i].id, labels: labels[i], detectionConfidence: items[i].detection?.score ?? 0,
                          detectorLabel: detectorLabel)
        }
    }

    private func clamped(_ box: DetectionBox) -> DetectionBox {
        DetectionBox(ymin: min(max(box.ymin, 0), 1), xmin: min(max(box.xmin, 0), 1), ymax: min(max(box.ymax, 0), 1), xmax: min(max(box.xmax, 0), 1))
    }
}
