import Dispatch
import Foundation
import LiteEngine
import LiteFormat
import LiteImage

/// How a vision task receives images: MediaPipe's `RunningMode`.
public enum RunningMode: Sendable, CustomStringConvertible {
    /// Independent images: `classify(image:)`.
    case image
    /// Frames of a decoded video, with increasing timestamps: `classify(videoFrame:timestampInMilliseconds:)`.
    case video
    /// A live camera feed: `classifyAsync(image:timestampInMilliseconds:)`, results to a delegate or closure.
    case liveStream

    /// The mode's name as MediaPipe's error messages spell it: "Image", "Video" or "Live Stream".
    public var description: String {
        switch self {
        case .image: return "Image"
        case .video: return "Video"
        case .liveStream: return "Live Stream"
        }
    }
}

/// Where the model comes from: MediaPipe's `BaseOptions`.
public struct BaseOptions: Sendable {
    /// Path of a .tflite file.
    public var modelAssetPath: String?
    /// The model's bytes, used when no path is set (MediaPipe's `model_asset_buffer`).
    public var modelAssetBuffer: [UInt8]?
    /// Engine threads for inference (a Linux addition; MediaPipe chooses by delegate).
    public var threads = 1
    /// The engine's quantized numerics (LiteEngine's `Numerics`).
    public var numerics: Numerics = .fast

    /// Options for the model at `modelAssetPath` (nil: set ``modelAssetPath`` or ``modelAssetBuffer`` later), one
    /// thread and `.fast` numerics.
    public init(modelAssetPath: String? = nil) {
        self.modelAssetPath = modelAssetPath
    }
}

/// Receives live-stream results: MediaPipe's `ImageClassifierLiveStreamDelegate`.
public protocol ImageClassifierLiveStreamDelegate: AnyObject, Sendable {
    /// Called on one serial queue, in timestamp order, once per frame that was not dropped.
    func imageClassifier(_ imageClassifier: ImageClassifier, didFinishClassification result: ImageClassifierResult?,
                         timestampInMilliseconds: Int, error: Error?)
}

/// Options of an ``ImageClassifier``: MediaPipe's `ImageClassifierOptions` with the same names and defaults.
public struct ImageClassifierOptions: Sendable {
    /// The model and the engine's options.
    public var baseOptions = BaseOptions()
    /// Image (the default), video or live stream; each has its own classify method.
    public var runningMode: RunningMode = .image
    /// Locale of display names. Default "en".
    public var displayNamesLocale = "en"
    /// Most categories per head; -1 (default) for all; 0 is an error.
    public var maxResults = -1
    /// Overrides the metadata's score threshold when set (MediaPipe's Python and C++ `score_threshold`).
    public var scoreThreshold: Float?
    /// Only these category names are returned. Exclusive with ``categoryDenylist``; needs a labels file.
    public var categoryAllowlist: [String] = []
    /// These category names are never returned. Exclusive with ``categoryAllowlist``; needs a labels file.
    public var categoryDenylist: [String] = []
    /// Receives results in live-stream mode (required there, an error elsewhere). Held weakly, as on iOS.
    public weak var imageClassifierLiveStreamDelegate: ImageClassifierLiveStreamDelegate?
    /// A closure alternative to the delegate for live-stream results.
    public var liveStreamResultHandler: (@Sendable (ImageClassifierResult?, Int, Error?) -> Void)?

    /// The defaults: image mode, display names in "en", every category, the metadata's score threshold.
    public init() {}

    var classifierOptions: ClassifierOptions {
        var options = ClassifierOptions()
        options.displayNamesLocale = displayNamesLocale
        options.maxResults = maxResults
        options.scoreThreshold = scoreThreshold
        options.categoryAllowlist = categoryAllowlist
        options.categoryDenylist = categoryDenylist
        return options
    }
}

/// The result of one classification: MediaPipe's `ImageClassifierResult`.
public struct ImageClassifierResult: Sendable, Equatable, Codable {
    /// The categories of every output head.
    public var classificationResult: ClassificationResult
    /// The frame's timestamp in video and live-stream modes; 0 in image mode.
    public var timestampInMilliseconds: Int
}

/// Classifies images with a TFLite classification model and its metadata, with the semantics of MediaPipe
/// Tasks' `ImageClassifier` (options, running modes, errors, results).
///
/// ```swift
/// let classifier = try ImageClassifier(modelPath: "mobilenet_v2_1.0_224_quant.tflite")
/// let result = try classifier.classify(image: MPImage(contentsOfFile: "bird.png"))
/// print(result.classificationResult.classifications[0].categories[0].categoryName ?? "")
/// ```
///
/// Threading: an `ImageClassifier` is `Sendable`. Calls from several tasks or threads are safe and run one at
/// a time on its interpreter (a lock serializes them); for parallel throughput make one classifier per worker.
/// In live-stream mode `classifyAsync` returns at once; a frame that arrives while another is being classified
/// is dropped (MediaPipe's flow limiter) and results reach the delegate or closure in order on one serial queue.
public final class ImageClassifier: @unchecked Sendable {
    /// The options the classifier was made with.
    public let options: ImageClassifierOptions
    /// The model with its metadata, labels and score calibration.
    public let resources: ModelResources
    private let interpreter: Interpreter
    private let specs: ImageTensorSpecs
    private let postprocessor: ClassificationPostprocessor
    private let lock = NSLock()
    private var lastTimestamp = Int.min
    private var inFlight = false
    private let resultQueue = DispatchQueue(label: "litevision.image-classifier.results")

    /// The model's input width and height: the smallest picture worth decoding for it
    /// (LiteImage's `ImageDecodingOptions.minimumSize`).
    public var inputSize: ImageSize { ImageSize(width: specs.width, height: specs.height) }

    /// A classifier with default options for the model at `modelPath`.
    public convenience init(modelPath: String) throws {
        var options = ImageClassifierOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// A classifier with `options`.
    ///
    /// - Throws: ``TaskError/failedPrecondition(_:)`` for live-stream mode without a delegate or handler, or a delegate
    ///   in another mode; ``TaskError/notFound(_:)`` for a model file that does not exist;
    ///   ``TaskError/invalidArgument(_:)`` for no model, a model with more than one input or an input that is not an
    ///   image, or bad metadata; ``TaskError/unimplemented(_:)`` for per-channel normalization; ``TaskError/model(_:)``
    ///   when the model cannot be read or run.
    public init(options: ImageClassifierOptions) throws {
        if options.runningMode == .liveStream {
            guard options.imageClassifierLiveStreamDelegate != nil || options.liveStreamResultHandler != nil else {
                throw TaskError.failedPrecondition("The vision task is in live stream mode. An object must be set as the delegate of the task in its options to ensure asynchronous delivery of results.")
            }
        } else if options.imageClassifierLiveStreamDelegate != nil || options.liveStreamResultHandler != nil {
            throw TaskError.failedPrecondition("The vision task is in image or video mode. The delegate must not be set in the task's options.")
        }
        let resources: ModelResources
        if let path = options.baseOptions.modelAssetPath {
            guard FileManager.default.fileExists(atPath: path) else { throw TaskError.notFound("model file \(path) does not exist") }
            resources = try ModelResources(path: path)
        } else if let bytes = options.baseOptions.modelAssetBuffer {
            resources = try ModelResources(bytes: bytes)
        } else {
            throw TaskError.invalidArgument("ExternalFile must specify at least one of 'file_content', 'file_name', 'file_pointer_meta' or 'file_descriptor_meta'.")
        }
        let interpreter = try TaskError.wrap {
            try Interpreter(model: resources.model, options: .init(threads: options.baseOptions.threads, numerics: options.baseOptions.numerics))
        }
        guard interpreter.inputCount == 1 else {
            throw TaskError.invalidArgument("Image classification tflite models are assumed to have a single input; this one has \(interpreter.inputCount).")
        }
        try TaskError.wrap { try interpreter.allocateTensors() }
        specs = try ImageTensorSpecs(resources: resources, input: try TaskError.wrap { try interpreter.input(at: 0) })
        postprocessor = try ClassificationPostprocessor(resources: resources, interpreter: interpreter, options: options.classifierOptions)
        self.options = options
        self.resources = resources
        self.interpreter = interpreter
    }

    /// Classifies one image (image mode). `regionOfInterest` is normalized to [0, 1] in the oriented picture.
    public func classify(image: MPImage, regionOfInterest: CGRect? = nil) throws -> ImageClassifierResult {
        try requireMode(.image)
        return try run(image, regionOfInterest: regionOfInterest, timestamp: 0)
    }

    /// Classifies one video frame (video mode). Timestamps must increase from call to call.
    public func classify(videoFrame image: MPImage, timestampInMilliseconds: Int, regionOfInterest: CGRect? = nil) throws -> ImageClassifierResult {
        try requireMode(.video)
        try advance(to: timestampInMilliseconds)
        return try run(image, regionOfInterest: regionOfInterest, timestamp: timestampInMilliseconds)
    }

    /// Sends a live frame (live-stream mode). Returns at once; the result goes to the delegate or closure. A frame
    /// sent while the previous one is still being classified is dropped and gets no callback.
    public func classifyAsync(image: MPImage, timestampInMilliseconds: Int, regionOfInterest: CGRect? = nil) throws {
        try requireMode(.liveStream)
        try advance(to: timestampInMilliseconds)
        lock.lock()
        if inFlight {
            lock.unlock()
            return
        }
        inFlight = true
        lock.unlock()
        resultQueue.async { [self] in
            var result: ImageClassifierResult?
            var failure: Error?
            do { result = try run(image, regionOfInterest: regionOfInterest, timestamp: timestampInMilliseconds) } catch { failure = error }
            lock.lock()
            inFlight = false
            lock.unlock()
            if let delegate = options.imageClassifierLiveStreamDelegate {
                delegate.imageClassifier(self, didFinishClassification: result, timestampInMilliseconds: timestampInMilliseconds, error: failure)
            }
            options.liveStreamResultHandler?(result, timestampInMilliseconds, failure)
        }
    }

    /// Waits until every frame sent with `classifyAsync` has been delivered.
    public func waitForPendingResults() {
        resultQueue.sync {}
    }

    /// The labels of every head, without running inference.
    public func labels() throws -> [[LabelItem]] {
        postprocessor.heads.map(\.labels)
    }

    private func requireMode(_ mode: RunningMode) throws {
        guard options.runningMode == mode else {
            throw TaskError.invalidArgument("The vision task is not initialized with \(mode.description.lowercased()) mode. Current Running Mode: \(options.runningMode)")
        }
    }

    private func advance(to timestamp: Int) throws {
        lock.lock()
        defer { lock.unlock() }
        guard timestamp > lastTimestamp else {
            throw TaskError.invalidArgument("Input timestamp must be monotonically increasing: got \(timestamp) after \(lastTimestamp).")
        }
        lastTimestamp = timestamp
    }

    /// Preprocessing alone: the input tensor bytes this classifier would feed the model for `image`.
    public func preprocessedInput(_ image: MPImage, regionOfInterest: CGRect? = nil) throws -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        try prepareInput(image, regionOfInterest: regionOfInterest)
        let input = try TaskError.wrap { try interpreter.input(at: 0) }
        return Array(UnsafeRawBufferPointer(start: input.data, count: input.byteCount))
    }

    private func prepareInput(_ image: MPImage, regionOfInterest: CGRect?) throws {
        guard !image.orientation.isMirrored else {
            throw TaskError.invalidArgument("Mirrored orientations (\(image.orientation)) are not supported: MediaPipe's vision tasks accept up, down, left and right only.")
        }
        // The orientation is applied inside the resampling (only the sampled pixels are read), not to the whole image.
        let region = try regionOfInterest.map { try $0.pixelRegion(width: image.width, height: image.height) }
        let input = try TaskError.wrap { try interpreter.input(at: 0) }
        specs.fill(input, from: image.image, orientation: image.orientation, region: region)
    }

    private func run(_ image: MPImage, regionOfInterest: CGRect?, timestamp: Int) throws -> ImageClassifierResult {
        lock.lock()
        defer { lock.unlock() }
        try prepareInput(image, regionOfInterest: regionOfInterest)
        try TaskError.wrap { try interpreter.invoke() }
        let heads = try postprocessor.classifications(from: interpreter)
        return ImageClassifierResult(classificationResult: ClassificationResult(classifications: heads, timestampInMilliseconds: timestamp),
                                     timestampInMilliseconds: timestamp)
    }
}
