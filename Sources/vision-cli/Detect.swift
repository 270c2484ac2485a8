import ArgumentParser
import Dispatch
import Foundation
import LiteEngine
import LiteImage
import LiteTasks

/// Options shared by `detect` and `track`: the two models and ML Kit's classification options.
struct DetectionModelOptions: ParsableArguments {
    @Flag(help: "Up to five objects instead of the most prominent one.") var multiple = false
    @Flag(help: "Label each object with the custom classifier.") var classify = false
    @Option(help: "Classifier: a registry name or a .tflite path (default: the registry's object classifier, ML Kit's object_labeler).") var classifier: String?
    @Option(parsing: .unconditional, help: "Minimum label confidence (default: the classifier metadata's threshold, else 0).") var threshold: Float?
    @Option(parsing: .unconditional, help: "Most labels per object.") var maxLabels = 10
    @Option(help: "Detector: a registry name or a .tflite path; a model without TFLite_Detection_PostProcess needs <name>_anchors.json or <name>.pbtxt beside it.") var detector: String?
    @Option(parsing: .unconditional, help: "Minimum detector score (default: the detector metadata's threshold, else 0.4).") var detectorThreshold: Float?
    @Option(help: "Orientation of the stored pixels: up, down, left, right, upMirrored, ... (EXIF orientation is used when absent).") var orientation: String?
    @Option(help: "detect: images processed in parallel (one detector and one engine thread each); for one image, and for track (frames are sequential), engine threads.") var threads = 1
    @Option(help: "Quantized numerics: exact or fast.") var numerics: Numerics = .fast
    @Option(parsing: .unconditional, help: "Most pixels an image may have (width times height); a JPEG over it is decoded at 1/2, 1/4 or 1/8 scale (the smallest still at least the detector's input size), its frames still given in the file's pixels.")
    var maxPixels = ImageLimits.default.maximumPixels
    @OptionGroup var location: RegistryLocation

    func validate() throws {
        guard maxPixels >= 1 else { throw ValidationError("--max-pixels must be at least 1") }
    }

    /// The detector, or a ``CLIError`` with the model-unavailable status.
    func makeDetector(mode: ObjectDetectorMode, configure: (inout CustomObjectDetectorOptions) -> Void = { _ in }) throws -> ObjectDetector {
        do {
            return try makeDetectorOrThrow(mode: mode, configure: configure)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.model(error)
        }
    }

    private func makeDetectorOrThrow(mode: ObjectDetectorMode, configure: (inout CustomObjectDetectorOptions) -> Void) throws -> ObjectDetector {
        var options = CustomObjectDetectorOptions()
        if classify {
            options.localModel = LocalModel(path: try location.resolve(classifier, task: "object-classification"))
        }
        let detectorPath = try location.resolve(detector, task: "object-detection")
        options.detectorModel = .local(LocalModel(path: detectorPath))
        options.detectorMode = mode
        options.shouldEnableMultipleObjects = multiple
        options.shouldEnableClassification = classify
        options.classificationConfidenceThreshold = threshold
        options.maxPerObjectLabelCount = maxLabels
        options.detectorScoreThreshold = detectorThreshold
        options.threads = threads
        options.numerics = numerics
        configure(&options)
        return try ObjectDetector.objectDetector(options: options)
    }

    /// `--orientation`, parsed (nil: the file's EXIF orientation).
    func explicitOrientation() throws -> ImageOrientation? {
        guard let orientation else { return nil }
        guard let value = ImageOrientation(name: orientation) else { throw ValidationError("unknown orientation \(orientation)") }
        return value
    }

    /// Decoding within --max-pixels: a JPEG over it at the smallest reduced scale still at least the detector's input.
    func decoding(for detector: ObjectDetector) -> ImageDecodingOptions {
        ImageDecodingOptions(limits: ImageLimits(maximumPixels: maxPixels),
                             minimumSize: ImageSize(width: detector.detector.inputWidth, height: detector.detector.inputHeight))
    }
}

struct Detect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Detect objects (and label them with a custom classifier) with ML Kit's object detection semantics, single-image mode.",
        discussion: "IMAGE may be files or folders. Frames are in pixels of the image as shown (after its orientation)."
    )

    @Argument(help: "Images or folders of images ('-': one image from standard input).") var images: [String] = []
    @OptionGroup var models: DetectionModelOptions
    @Option(help: "Write the image with boxes and labels drawn, as PNG or JPEG by the name's extension (with several images: OUT-<image name>.<ext>).")
    var annotate: String?
    @Flag(help: "One JSON object (one image).") var json = false
    @Flag(help: "One JSON line per image, written as each is done (--ordered: in input order).") var jsonl = false
    @OptionGroup var batch: BatchOptions

    /// One image given as a file (not a folder or a list): `--threads` are then the engine's threads.
    private var isSingleFile: Bool { batch.isSingleFile(images) }

    func validate() throws {
        if json && jsonl { throw ValidationError("--json and --jsonl exclude each other") }
        if let annotate { _ = try OutputFile.imageFormat(of: annotate) }
        guard models.threads >= 1 else { throw ValidationError("--threads must be at least 1") }
        if images.isEmpty && batch.pathsFrom == nil { throw ValidationError("give images, folders, '-' or --paths-from FILE") }
        if json && !isSingleFile { throw ValidationError("--json prints one image; use --jsonl for several") }
        if batch.resume != nil && !jsonl { throw ValidationError("--resume reads and continues a --jsonl output") }
        _ = try batch.parsedShard()
    }

    /// As `classify` (Docs/cli.md, "Batches"): inputs streamed to `--threads` workers, each with its own detector
    /// (models loaded once per worker) running one engine thread (one image gets `--threads` engine threads);
    /// records written as each image is done. An annotated image that cannot be written ends the run (exit status
    /// 4): no new image is taken, and the error names the output, not the photo.
    func run() throws {
        let single = isSingleFile
        let workers = single ? 1 : models.threads
        let detectors = try (0..<workers).map { _ in
            try models.makeDetector(mode: .singleImage) { options in if !single { options.threads = 1 } }
        }
        let writer = RecordWriter(ordered: batch.ordered || !jsonl)
        let inputs = try BatchInputs(arguments: images, pathsFrom: batch.pathsFrom, extensions: imageFileExtensions, recursive: batch.recursive,
                                     shard: try batch.parsedShard(), skip: try batch.resumedPaths(key: "image"), writer: writer)
        let stop = StopSignal { inputs.stop() }
        let failures = Counter(), done = Counter()
        let outputFailure = OutputFailure()
        let knownTotal = batch.isFileList(images) && images.count > 1
        let bar = knownTotal ? ProgressBar(label: "detect", total: images.count) : nil
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            while let input = inputs.next() {
                let started = DispatchTime.now().uptimeNanoseconds
                var record: String?
                do {
                    if let problem = input.problem { throw CLIError(.inputsFailed, problem) }
                    let decoding = models.decoding(for: detectors[worker])
                    var image = try input.bytes.map { bytes -> VisionImage in
                        let decoded = try Image.decode([UInt8](bytes), options: decoding)
                        var image = VisionImage(image: decoded.image, orientation: decoded.orientation)
                        image.scale = decoded.scale
                        return image
                    } ?? VisionImage(contentsOfFile: input.path, options: decoding)
                    if let orientation = try models.explicitOrientation() { image.orientation = orientation }
                    let objects = try detectors[worker].results(in: image)
                    let ms = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
                    let reported = inFilePixels(objects, scale: image.scale)
                    record = json || jsonl
                        ? objectsJSON(["index": input.index, "image": input.path, "ms": (ms * 1000).rounded() / 1000], reported, pretty: json)
                        : objectsText(input.path, reported)
                    if let annotate {
                        let out = single ? annotate : Self.numbered(annotate, input.path == "-" ? "stdin" : input.path)
                        do {
                            try OutputFile.writeImage(image.oriented().annotated(with: objects), to: out)
                        } catch {
                            outputFailure.set(error)
                            inputs.stop()
                        }
                    }
                } catch {
                    _ = failures.increment()
                    printError("error: \(input.path): \(error)")
                    if jsonl { record = objectsJSON(["index": input.index, "image": input.path, "error": "\(error)"], nil, pretty: false) }
                }
                writer.write(record, at: input.index)
                bar?.update(done.increment())
            }
        }
        bar?.finish()
        if let error = outputFailure.error { throw error }
        stop.exitIfStopped()
        if failures.value > 0 { throw ExitCode(.inputsFailed) }
    }

    /// OUT-<image name>.<OUT's extension>: one annotated file per image of several.
    static func numbered(_ out: String, _ file: String) -> String {
        let base = (out as NSString).deletingPathExtension
        let stem = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        return "\(base)-\(stem).\((out as NSString).pathExtension)"
    }
}

struct Track: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "track",
        abstract: "Track objects over an image sequence with ML Kit's stream mode: stable tracking IDs, labels as they become ready.",
        discussion: "Frames are tracked in name order, one after another: each frame's tracking IDs and labels depend on the frames before it, so --threads sets engine threads; the next frames are decoded in parallel meanwhile (one per core, a few frames ahead), under a progress bar on a terminal. Objects are reported per frame with their tracking ID; an object may appear before its labels (stream mode labels at most two objects per frame)."
    )

    @Argument(help: "Frames, in order (sorted by name).") var frames: [String] = []
    @Option(name: .customLong("frames"), help: "A folder of frames, in name order.") var framesDirectory: String?
    @Option(help: "Frame rate, for the timestamps printed.") var fps: Double = 30
    @OptionGroup var models: DetectionModelOptions
    @Option(help: "Write every frame annotated as PNG into this folder.") var annotateDir: String?
    @Option(help: "Most objects classified per frame; the others keep their labels or wait their turn.") var classificationsPerFrame = 2
    @Option(help: "Frames after which an object's labels are refreshed.") var relabelInterval = 30
    @Flag(help: "One JSON document for the whole sequence.") var json = false
    @Flag(help: "One JSON line per frame.") var jsonl = false

    func validate() throws {
        if json && jsonl { throw ValidationError("--json and --jsonl exclude each other") }
    }

    func run() throws {
        guard fps > 0, fps.isFinite else { throw ValidationError("--fps must be positive") }
        var files = try expandImagePaths(frames)
        if let framesDirectory { files += try expandImagePaths([framesDirectory]) }
        files.sort { ($0 as NSString).lastPathComponent < ($1 as NSString).lastPathComponent }
        guard !files.isEmpty else { throw ValidationError("give frames as arguments or --frames DIR") }
        let detector = try models.makeDetector(mode: .stream) { options in
            options.classificationsPerFrame = classificationsPerFrame
            options.relabelInterval = relabelInterval
        }
        if let annotateDir {
            do { try FileManager.default.createDirectory(atPath: annotateDir, withIntermediateDirectories: true) } catch {
                throw CLIError(.outputFailed, "cannot create the folder \(annotateDir): \((error as NSError).localizedFailureReason ?? "\(error)")")
            }
        }
        var documents: [String] = []
        // Decoding does not depend on earlier frames: each batch of the next frames is decoded in parallel, one per
        // core, then tracked in order. A batch is two frames per core, so memory holds only those.
        let decoding = models.decoding(for: detector)
        let explicitOrientation = try models.explicitOrientation()
        let batchSize = 2 * max(1, ProcessInfo.processInfo.activeProcessorCount)
        let bar = files.count > 1 ? ProgressBar(label: "track", total: files.count) : nil
        for batchStart in stride(from: 0, to: files.count, by: batchSize) {
            let batch = Array(files[batchStart..<min(batchStart + batchSize, files.count)])
            let decoded = DecodedFrames(count: batch.count)
            DispatchQueue.concurrentPerform(iterations: batch.count) { k in
                decoded.set(k, Result {
                    var image = try VisionImage(contentsOfFile: batch[k], options: decoding)
                    if let explicitOrientation { image.orientation = explicitOrientation }
                    return image
                })
            }
            for (k, file) in batch.enumerated() {
                let index = batchStart + k
                let image: VisionImage
                let objects: [Object]
                let started: UInt64
                do {
                    image = try decoded.get(k).get()
                    // The time of ML Kit's processing of a frame already in memory: decoding the file is not counted.
                    started = DispatchTime.now().uptimeNanoseconds
                    objects = try detector.results(in: image)
                } catch {
                    bar?.finish()
                    printError("error: \(file): \(error)")
                    throw ExitCode(.inputsFailed)
                }
                let ms = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
                let timestamp = (Double(index) * 1000 / fps).rounded()
                let header: [String: Any] = ["frame": index, "image": file, "timestamp_ms": timestamp, "ms": (ms * 1000).rounded() / 1000]
                let reported = inFilePixels(objects, scale: image.scale)
                if json {
                    documents.append(objectsJSON(header, reported, pretty: false))
                } else if jsonl {
                    print(objectsJSON(header, reported, pretty: false))
                } else {
                    print(objectsText("frame \(index) (\(Int(timestamp)) ms) \(file)", reported))
                }
                if let annotateDir {
                    let name = ((file as NSString).lastPathComponent as NSString).deletingPathExtension + ".png"
                    try OutputFile.writeImage(image.oriented().annotated(with: objects), to: (annotateDir as NSString).appendingPathComponent(name))
                }
                bar?.update(index + 1)
            }
        }
        bar?.finish()
        if json { print("{\"frames\": [\n" + documents.joined(separator: ",\n") + "\n]}") }
    }
}

/// Frames in pixels of the file as shown: a JPEG decoded at 1/`scale` (over --max-pixels) is detected on the smaller
/// picture, and its frames are scaled back.
func inFilePixels(_ objects: [Object], scale: Int) -> [Object] {
    guard scale > 1 else { return objects }
    let factor = CGFloat(scale)
    return objects.map { object in
        var scaled = object
        let f = object.frame
        scaled.frame = CGRect(x: f.origin.x * factor, y: f.origin.y * factor, width: f.size.width * factor, height: f.size.height * factor)
        return scaled
    }
}

/// Files given directly, plus the PNG/JPEG/BMP/PPM/WebP/GIF/TIFF files of given folders in name order.
func expandImagePaths(_ paths: [String]) throws -> [String] {
    let extensions = imageFileExtensions
    var files: [String] = []
    for path in paths {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            let names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
            files += names.filter { extensions.contains(($0 as NSString).pathExtension.lowercased()) }.map { (path as NSString).appendingPathComponent($0) }
        } else if FileManager.default.fileExists(atPath: path) {
            files.append(path)
        } else {
            throw ValidationError("""
                no such image: \(path). Give the path of a PNG, JPEG, BMP, PPM, WebP, GIF or TIFF file, or of a folder of them \
                (a sample photo: cp ../shared/images/bird.png . on a machine with ../shared beside the checkout).
                """)
        }
    }
    return files
}

func objectsText(_ title: String, _ objects: [Object]) -> String {
    var lines = [title]
    if objects.isEmpty { lines.append("  (no object)") }
    for (n, object) in objects.enumerated() {
        let f = object.frame
        let id = object.trackingID.map { " id \($0)" } ?? ""
        var detector = String(format: "detector score %.3f", object.detectionConfidence)
        if let label = object.detectorLabel {
            detector += ", class \(label.text ?? "-") (index \(label.index))"
        }
        lines.append(String(format: "  Object #%d%@: x %.1f y %.1f w %.1f h %.1f (%@)", n, id, f.minX, f.minY, f.width, f.height, detector))
        for label in object.labels {
            lines.append(String(format: "    %@ (index %d) %.4f", label.text ?? "-", label.index, label.confidence))
        }
    }
    return lines.joined(separator: "\n")
}

/// A classifier label or the detector's class: `{"text", "index", "confidence"}`.
func labelJSON(_ label: ObjectLabel) -> [String: Any] {
    ["text": label.text ?? NSNull(), "index": label.index, "confidence": Double(label.confidence)]
}

func objectsJSON(_ header: [String: Any], _ objects: [Object]?, pretty: Bool) -> String {
    var document = header
    if let objects {
        document["objects"] = objects.map { object -> [String: Any] in
            let f = object.frame
            return [
                // CGFloat does not bridge to NSNumber in swift-corelibs-foundation's JSONSerialization.
                "frame": boxJSON(x: Double(f.minX), y: Double(f.minY), width: Double(f.width), height: Double(f.height)),
                "tracking_id": object.trackingID ?? NSNull(),
                "detection_confidence": Double(object.detectionConfidence),
                "labels": object.labels.map(labelJSON),
                "detector_label": object.detectorLabel.map(labelJSON) ?? NSNull(),
            ]
        }
    }
    return jsonText(document, pretty: pretty)
}

/// The first output file that could not be written, shared by the workers of a batch.
final class OutputFailure: @unchecked Sendable {
    private var first: Error?
    private let lock = NSLock()
    var error: Error? { lock.withLock { first } }
    func set(_ error: Error) { lock.withLock { if first == nil { first = error } } }
}

/// Frames decoded in parallel, by position in their batch.
final class DecodedFrames: @unchecked Sendable {
    private var frames: [Result<VisionImage, Error>?]
    private let lock = NSLock()
    init(count: Int) { frames = Array(repeating: nil, count: count) }
    func set(_ k: Int, _ frame: Result<VisionImage, Error>) { lock.withLock { frames[k] = frame } }
    func get(_ k: Int) -> Result<VisionImage, Error> { lock.withLock { frames[k]! } }
}
