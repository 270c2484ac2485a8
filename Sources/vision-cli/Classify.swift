import ArgumentParser
import Dispatch
import Foundation
import LiteEngine
import LiteImage
import LiteTasks

struct Classify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify",
        abstract: "Classify images with MediaPipe's ImageClassifier semantics.",
        discussion: """
        IMAGE may be files or folders (their PNG, JPEG, BMP, PPM, WebP, GIF and TIFF files, in name order), or '-' for one image's bytes         on standard input; --paths-from reads paths, one per line. With --jsonl each record is written as soon as its         image is done (--ordered: in input order), with the input's index and path. The default model is the         registry's default image classifier (ImageNet MobileNetV2). A JPEG of more than --max-pixels pixels is decoded at 1/2, 1/4 or 1/8 scale (the smallest still at least the model's input size); other images over the limit are refused.
        """
    )

    @Argument(help: "Images or folders of images ('-': one image from standard input).") var images: [String] = []
    @Option(help: "A registry model name or alias (e.g. birds) or a .tflite path.") var model: String?
    @Option(parsing: .unconditional, help: "Most categories per head (-1 for all).") var maxResults = 5
    @Option(parsing: .unconditional, help: "Drop categories scoring below this (default: the model metadata's threshold).") var scoreThreshold: Float?
    @Option(help: "Only this category name (repeat for several; names may contain commas).") var allow: [String] = []
    @Option(help: "A file of category names to allow, one per line.") var allowFile: String?
    @Option(help: "Never this category name (repeat for several).") var deny: [String] = []
    @Option(help: "A file of category names to deny, one per line.") var denyFile: String?
    @Option(help: "Locale of display names.") var locale = "en"
    @Option(help: "Orientation of the stored pixels: up, down, left, right (EXIF orientation is used when absent).") var orientation: String?
    @Option(help: "Region of interest x,y,w,h in pixels of the oriented image.") var roi: String?
    @Option(parsing: .unconditional, help: "Most pixels an image may have (width times height); a JPEG over it is decoded at reduced scale.") var maxPixels = ImageLimits.default.maximumPixels
    @Option(help: "Images classified in parallel (one inference thread each); for one image, inference threads.") var threads = 1
    @Option(help: "Quantized numerics: exact or fast.") var numerics: Numerics = .fast
    @Flag(help: "One JSON object (one image).") var json = false
    @Flag(help: "One JSON line per image.") var jsonl = false
    @OptionGroup var location: RegistryLocation
    @OptionGroup var batch: BatchOptions

    /// One image given as a file (not a folder or a list): `--threads` are then the engine's threads.
    private var isSingleFile: Bool { batch.isSingleFile(images) }

    func validate() throws {
        if json && jsonl { throw ValidationError("--json and --jsonl exclude each other") }
        if images.isEmpty && batch.pathsFrom == nil { throw ValidationError("give images, folders, '-' or --paths-from FILE") }
        if json && !isSingleFile { throw ValidationError("--json prints one image; use --jsonl for several") }
        if batch.resume != nil && !jsonl { throw ValidationError("--resume reads and continues a --jsonl output") }
        _ = try batch.parsedShard()
        if (!allow.isEmpty || allowFile != nil) && (!deny.isEmpty || denyFile != nil) {
            throw ValidationError("--allow and --deny exclude each other (as MediaPipe's category allowlist and denylist do)")
        }
        guard threads >= 1 else { throw ValidationError("--threads must be at least 1") }
        guard maxPixels >= 1 else { throw ValidationError("--max-pixels must be at least 1") }
    }

    func run() throws {
        let explicitOrientation = try orientation.map { name -> ImageOrientation in
            guard let value = ImageOrientation(name: name) else { throw ValidationError("unknown orientation \(name)") }
            return value
        }
        let modelPath = try location.resolve(model, task: "image-classification")
        var options = ImageClassifierOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.baseOptions.numerics = numerics
        options.baseOptions.threads = isSingleFile ? threads : 1
        options.maxResults = maxResults
        options.scoreThreshold = scoreThreshold
        options.displayNamesLocale = locale
        options.categoryAllowlist = try allow + (allowFile.map(Self.names(inFile:)) ?? [])
        options.categoryDenylist = try deny + (denyFile.map(Self.names(inFile:)) ?? [])

        let workers = isSingleFile ? 1 : threads
        let classifiers: [ImageClassifier]
        do { classifiers = try (0..<workers).map { _ in try ImageClassifier(options: options) } } catch {
            throw CLIError.model(error)
        }
        // Text is always in input order; JSON lines as each image is done unless --ordered.
        let writer = RecordWriter(ordered: batch.ordered || !jsonl)
        let inputs = try BatchInputs(arguments: images, pathsFrom: batch.pathsFrom, extensions: imageFileExtensions, recursive: batch.recursive,
                                     shard: try batch.parsedShard(), skip: try batch.resumedPaths(key: "image"), writer: writer)
        let stop = StopSignal { inputs.stop() }
        let failures = Counter(), done = Counter()
        let knownTotal = batch.isFileList(images) && images.count > 1
        let bar = knownTotal ? ProgressBar(label: "classify", total: images.count) : nil
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            // The previous image's pixel memory, decoded into again: a batch of photos then does not map, fault in
            // and unmap a new buffer (tens of MB for a 12 MP photo) per image.
            var storage: [UInt8] = []
            while let input = inputs.next() {
                let started = DispatchTime.now().uptimeNanoseconds
                let record: String?
                do {
                    if let problem = input.problem { throw CLIError(.inputsFailed, problem) }
                    let decoding = ImageDecodingOptions(limits: ImageLimits(maximumPixels: maxPixels), minimumSize: classifiers[worker].inputSize)
                    let decoded: DecodedImage
                    if let data = input.bytes {
                        decoded = try Image.decode([UInt8](data), options: decoding, reusing: &storage)
                    } else {
                        // As MPImage(contentsOfFile:options:) reads a file, errors included.
                        do {
                            guard let data = FileManager.default.contents(atPath: input.path) else {
                                let reason = FileManager.default.fileExists(atPath: input.path) ? "not readable" : "no such file"
                                throw ImageError.io(path: input.path, reason: reason)
                            }
                            decoded = try Image.decode([UInt8](data), options: decoding, reusing: &storage)
                        } catch let error as ImageError {
                            throw TaskError.image(error)
                        }
                    }
                    var image = MPImage(image: decoded.image, orientation: decoded.orientation)
                    image.scale = decoded.scale
                    if let explicitOrientation { image.orientation = explicitOrientation }
                    // --roi is in pixels of the file as shown; a reduced-scale decode keeps the same picture.
                    let region = try roi.map { try Self.normalizedRegion($0, width: image.width * image.scale, height: image.height * image.scale) }
                    let result = try classifiers[worker].classify(image: image, regionOfInterest: region)
                    // Hand the pixel memory back for the next image (the image is not used after this).
                    storage = image.image.pixels
                    image.image.pixels = []
                    let ms = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
                    record = json || jsonl ? Self.jsonLine(index: input.index, file: input.path, result: result, ms: ms, pretty: json)
                        : Self.text(file: input.path, result: result)
                } catch {
                    _ = failures.increment()
                    printError("error: \(input.path): \(error)")
                    record = jsonl ? Self.jsonError(index: input.index, file: input.path, message: "\(error)") : nil
                }
                writer.write(record, at: input.index)
                bar?.update(done.increment())
            }
        }
        bar?.finish()
        stop.exitIfStopped()
        if failures.value > 0 { throw ExitCode(.inputsFailed) }
    }

    /// The non-empty lines of a file of category names, trimmed.
    static func names(inFile path: String) throws -> [String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw ValidationError("cannot read the category list \(path)") }
        return text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func normalizedRegion(_ text: String, width: Int, height: Int) throws -> CGRect {
        let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4 else { throw TaskError.invalidArgument("--roi wants x,y,w,h in pixels, got \(text)") }
        return CGRect(x: parts[0] / Double(width), y: parts[1] / Double(height), width: parts[2] / Double(width), height: parts[3] / Double(height))
    }

    /// The layout of tflite-support's and MediaPipe's classifier demos: heads, then ranked categories.
    static func text(file: String, result: ImageClassifierResult) -> String {
        var lines = [file]
        let heads = result.classificationResult.classifications
        for head in heads {
            lines.append(" Head #\(head.headIndex)\(head.headName.map { " (\($0))" } ?? ""):")
            if head.categories.isEmpty { lines.append("  (no category above the score threshold)") }
            for (rank, category) in head.categories.enumerated() {
                lines.append("  Rank #\(rank):")
                lines.append("   index       : \(category.index)")
                lines.append("   score       : \(String(format: "%.5f", category.score))")
                lines.append("   class name  : \(category.categoryName ?? "")")
                lines.append("   display name: \(category.displayName ?? "")")
            }
        }
        return lines.joined(separator: "\n")
    }

    static func jsonLine(index: Int, file: String, result: ImageClassifierResult, ms: Double, pretty: Bool) -> String {
        let object: [String: Any] = [
            "index": index,
            "image": file,
            "ms": (ms * 1000).rounded() / 1000,
            "classifications": result.classificationResult.classifications.map { head -> [String: Any] in
                [
                    "head_index": head.headIndex,
                    "head_name": head.headName ?? NSNull(),
                    "categories": head.categories.map { c -> [String: Any] in
                        ["index": c.index, "score": Double(c.score), "category_name": c.categoryName ?? NSNull(), "display_name": c.displayName ?? NSNull()]
                    },
                ]
            },
        ]
        return jsonText(object, pretty: pretty)
    }

    static func jsonError(index: Int, file: String, message: String) -> String {
        jsonText(["index": index, "image": file, "error": message], pretty: false)
    }
}

/// A count shared by worker threads.
final class Counter: @unchecked Sendable {
    private var count = 0
    private let lock = NSLock()
    var value: Int { lock.withLock { count } }
    /// Adds one and returns the new count.
    func increment() -> Int { lock.withLock { count += 1; return count } }
}
