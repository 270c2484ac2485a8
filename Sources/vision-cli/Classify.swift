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
        discussion: "IMAGE may be files or folders (their PNG, JPEG, BMP and PPM files, in name order). The default model is the registry's default image classifier (ImageNet MobileNetV2)."
    )

    @Argument(help: "Images or folders of images.") var images: [String]
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
    @Option(help: "Images classified in parallel (one inference thread each); for one image, inference threads.") var threads = 1
    @Option(help: "Quantized numerics: exact or fast.") var numerics: Numerics = .fast
    @Flag(help: "One JSON object (one image).") var json = false
    @Flag(help: "One JSON line per image.") var jsonl = false
    @OptionGroup var location: RegistryLocation

    func validate() throws {
        if json && jsonl { throw ValidationError("--json and --jsonl exclude each other") }
        if (!allow.isEmpty || allowFile != nil) && (!deny.isEmpty || denyFile != nil) {
            throw ValidationError("--allow and --deny exclude each other (as MediaPipe's category allowlist and denylist do)")
        }
        guard threads >= 1 else { throw ValidationError("--threads must be at least 1") }
    }

    func run() throws {
        let files = try expandImagePaths(images)
        guard !files.isEmpty else { throw ValidationError("no images found in \(images.joined(separator: " "))") }
        if json, files.count > 1 { throw ValidationError("--json prints one image; use --jsonl for several") }
        let explicitOrientation = try orientation.map { name -> ImageOrientation in
            guard let value = ImageOrientation(name: name) else { throw ValidationError("unknown orientation \(name)") }
            return value
        }
        let modelPath = try location.resolve(model, task: "image-classification")
        var options = ImageClassifierOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.baseOptions.numerics = numerics
        options.baseOptions.threads = files.count == 1 ? threads : 1
        options.maxResults = maxResults
        options.scoreThreshold = scoreThreshold
        options.displayNamesLocale = locale
        options.categoryAllowlist = try allow + (allowFile.map(Self.names(inFile:)) ?? [])
        options.categoryDenylist = try deny + (denyFile.map(Self.names(inFile:)) ?? [])

        let workers = max(1, min(threads, files.count))
        let classifiers: [ImageClassifier]
        do { classifiers = try (0..<workers).map { _ in try ImageClassifier(options: options) } } catch {
            throw CLIError.model(error)
        }
        let outcomes = OutcomeTable<ImageClassifierResult>(count: files.count)
        let bar = files.count > 1 ? ProgressBar(label: "classify", total: files.count) : nil
        let counter = Counter()
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var index = worker
            while index < files.count {
                let file = files[index]
                let started = DispatchTime.now().uptimeNanoseconds
                do {
                    var image = try MPImage(contentsOfFile: file)
                    if let explicitOrientation { image.orientation = explicitOrientation }
                    let region = try roi.map { try Self.normalizedRegion($0, width: image.width, height: image.height) }
                    let result = try classifiers[worker].classify(image: image, regionOfInterest: region)
                    let ms = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
                    outcomes.set(index, .success(result, ms))
                } catch {
                    outcomes.set(index, .failure("\(error)"))
                }
                bar?.update(counter.increment())
                index += workers
            }
        }
        bar?.finish()

        var failures = 0
        for (index, file) in files.enumerated() {
            switch outcomes.get(index) {
            case let .success(result, ms):
                if json || jsonl {
                    print(Self.jsonLine(file: file, result: result, ms: ms, pretty: json))
                } else {
                    print(Self.text(file: file, result: result))
                }
            case let .failure(message):
                failures += 1
                printError("error: \(file): \(message)")
                if jsonl { print(Self.jsonError(file: file, message: message)) }
            case .none:
                failures += 1
            }
        }
        if failures > 0 { throw ExitCode(.inputsFailed) }
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

    static func jsonLine(file: String, result: ImageClassifierResult, ms: Double, pretty: Bool) -> String {
        let object: [String: Any] = [
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

    static func jsonError(file: String, message: String) -> String {
        jsonText(["image": file, "error": message], pretty: false)
    }
}

/// What became of one input of a parallel run: its result and milliseconds, or why it failed.
enum Outcome<Value> {
    case success(Value, Double)
    case failure(String)
}

/// The outcomes of a parallel run by input index, filled by the workers and read in input order.
final class OutcomeTable<Value>: @unchecked Sendable {
    private var values: [Outcome<Value>?]
    private let lock = NSLock()
    init(count: Int) { values = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ value: Outcome<Value>) { lock.lock(); values[index] = value; lock.unlock() }
    func get(_ index: Int) -> Outcome<Value>? { lock.lock(); defer { lock.unlock() }; return values[index] }
}

final class Counter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func increment() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value }
}
