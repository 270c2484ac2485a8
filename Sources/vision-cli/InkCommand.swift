import ArgumentParser
import Foundation
import LiteImage
import LiteTasks

struct InkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ink",
        abstract: "Recognize handwriting or a drawn shape with ML Kit's digital ink recognition API.",
        discussion: """
        FILE is JSON {"strokes": [[{"x": .., "y": .., "t": ..}, ...], ...]} (t in ms, optional) or one line of the \
        ../shared/ink format {"label": .., "strokes": [[[x, y, t], ...], ...]}. --batch reads a whole .ndjson or \
        .ndjson.gz file of that format and prints one JSON object a sample (--jsonl); --render draws an ink to PNG.
        """
    )

    @Argument(help: "The ink file (JSON).") var file: String?
    @Option(help: "BCP-47 tag of the model: en, en-US, ..., ja, or zxx-Zsym-x-shapes (alias: shapes).") var lang = "en"
    @Option(help: "The text before the ink (its last 20 characters are used).") var preContext = ""
    @Option(help: "The writing area WIDTHxHEIGHT in the ink's units.") var writingArea: String?
    @Option(help: "Most candidates to print.") var maxCandidates = 10
    @Flag(help: "Print JSON.") var json = false
    @Option(help: "Recognize every sample of this .ndjson[.gz] file (the ../shared/ink format; '-': standard input).") var batch: String?
    @Option(help: "With --batch: only the first N samples.") var limit: Int?
    @Flag(help: "With --batch: one JSON object per line, written as each sample is done: index, label, candidates, ms.") var jsonl = false
    @Option(help: "With --batch --jsonl: skip the samples whose index has a record in this JSON lines file.") var resume: String?
    @Option(help: "With --batch: take only shard I of N (I/N, 0-based), by a hash of each sample's index.") var shard: String?
    @Option(help: "Draw this ink file to --output instead of recognizing it.") var render: String?
    @Option(help: "The image --render writes, PNG or JPEG by its extension.") var output: String?
    @Option(help: "Engine threads.") var threads = 1
    @Option(help: "Decoding: hypotheses kept per frame.") var beamWidth: Int?
    @Option(help: "Decoding: weight of the language model.") var lmWeight: Double?
    @Option(help: "Decoding: bonus per character.") var characterBonus: Double?
    @Option(help: "Chinese and Japanese decoding: weight of the bigram model.") var cjkLmWeight: Double?
    @Option(help: "Chinese and Japanese decoding: bonus per character.") var cjkCharacterBonus: Double?
    @Option(help: "Chinese and Japanese decoding: penalty on characters narrower than --cjk-narrow-width.") var cjkNarrowness: Double?
    @Option(help: "Chinese and Japanese decoding: the width (in character heights) below which a character is narrow.") var cjkNarrowWidth: Double?
    @Option(help: "Chinese and Japanese decoding: readings kept at each cut.") var cjkBeamWidth: Int?
    @Option(help: "Chinese and Japanese decoding: penalty on a character written narrower than --cjk-squeeze-tolerance of its canonical width.") var cjkSqueeze: Double?
    @Option(help: "Chinese and Japanese decoding: the fraction of its canonical width a character may be written at without penalty.") var cjkSqueezeTolerance: Double?
    @Option(help: "Decoding: weight of the character network's opinion on a lone character (0: the LSTM alone).") var characterWeight: Double?
    @Option(help: "Shapes: weight of the geometry network's opinion (0: the LSTM alone).") var shapeGeometryWeight: Double?
    @Flag(help: "Also read a leaning line upright and average the two readings (slower, a little more accurate).") var slantCorrection = false

    func validate() throws {
        if json && jsonl { throw ValidationError("--json and --jsonl exclude each other") }
        if render != nil {
            guard let output else { throw ValidationError("--render needs --output OUT.png") }
            _ = try OutputFile.imageFormat(of: output)
        } else if batch == nil, file == nil {
            throw ValidationError("give an ink FILE, --batch FILE or --render FILE")
        }
        guard maxCandidates > 0 else { throw ValidationError("--max-candidates must be positive") }
        if (resume != nil || shard != nil) && batch == nil { throw ValidationError("--resume and --shard go with --batch") }
        if resume != nil && !jsonl { throw ValidationError("--resume reads and continues a --jsonl output") }
        _ = try parsedShard()
        for (name, weight) in [("--character-weight", characterWeight), ("--shape-geometry-weight", shapeGeometryWeight)] {
            if let weight, !weight.isFinite { throw ValidationError("\(name) must be a finite number") }
        }
    }

    func run() throws {
        if let render, let output {
            let sample = try InkFile.read(render)
            try OutputFile.writeImage(try InkDrawing.render(sample.ink), to: output)
            print("wrote \(output)")
            return
        }
        guard let identifier = Self.modelIdentifier(lang) else {
            let known = DigitalInkRecognitionModelIdentifier.allModelIdentifiers().map(\.languageTag).sorted().joined(separator: ", ")
            throw ValidationError("no digital ink model for the language tag \"\(lang)\" (models: \(known))")
        }
        var options = DigitalInkRecognizerOptions(model: DigitalInkRecognitionModel(modelIdentifier: identifier))
        options.maxResultCount = maxCandidates
        options.threads = threads
        if let beamWidth { options.beamWidth = beamWidth }
        if let lmWeight { options.languageModelWeight = lmWeight }
        if let characterBonus { options.characterBonus = characterBonus }
        if let cjkLmWeight { options.cjkDecoding.languageModelWeight = cjkLmWeight }
        if let cjkCharacterBonus { options.cjkDecoding.characterBonus = cjkCharacterBonus }
        if let cjkNarrowness { options.cjkDecoding.narrownessPenalty = cjkNarrowness }
        if let cjkNarrowWidth { options.cjkDecoding.narrowWidth = cjkNarrowWidth }
        if let cjkBeamWidth { options.cjkDecoding.beamWidth = cjkBeamWidth }
        if let cjkSqueeze { options.cjkDecoding.squeezePenalty = cjkSqueeze }
        if let cjkSqueezeTolerance { options.cjkDecoding.squeezeTolerance = cjkSqueezeTolerance }
        if let characterWeight { options.characterModelWeight = characterWeight }
        if let shapeGeometryWeight { options.shapeGeometryWeight = shapeGeometryWeight }
        options.slantCorrection = slantCorrection
        let recognizer = DigitalInkRecognizer.digitalInkRecognizer(options: options)
        var context = DigitalInkRecognitionContext(preContext: preContext)
        if let writingArea {
            let parts = writingArea.lowercased().split(separator: "x").compactMap { Float($0) }
            guard parts.count == 2 else { throw ValidationError("--writing-area is WIDTHxHEIGHT, for example 800x120") }
            context.writingArea = WritingArea(width: parts[0], height: parts[1])
        }
        if let batch {
            let started = DispatchTime.now().uptimeNanoseconds
            try recognizer.loadModel()
            printError("loaded \(identifier) in \(String(format: "%.0f", Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)) ms")
            try runBatch(batch, recognizer: recognizer, context: context)
            return
        }
        let sample = try InkFile.read(file!)
        let started = DispatchTime.now().uptimeNanoseconds
        let result = try recognizer.recognize(ink: sample.ink, context: context)
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
        if json {
            print(jsonText(["file": file!, "ms": milliseconds, "candidates": candidatesJSON(result, segments: true)], pretty: true))
        } else {
            print("\(file!): \(sample.ink.strokes.count) strokes, \(sample.ink.pointCount) points, \(String(format: "%.1f", milliseconds)) ms")
            for (rank, candidate) in result.candidates.enumerated() {
                let score = candidate.score.map { String(format: "%.3f", $0) } ?? "-"
                print("\(rank + 1). \(candidate.text.debugDescription)  score \(score)")
            }
        }
    }

    /// The model of a BCP-47 tag, or of a registry alias of an ink model (`shapes`, as `models list` shows it).
    static func modelIdentifier(_ tag: String) -> DigitalInkRecognitionModelIdentifier? {
        if let identifier = DigitalInkRecognitionModelIdentifier(forLanguageTag: tag) { return identifier }
        guard let registry = try? ModelRegistry.bundled(), let model = try? registry.model(named: tag) else { return nil }
        return DigitalInkRecognitionModelIdentifier.allModelIdentifiers().first { $0.registryName == model.name }
    }

    /// `--shard I/N`, checked.
    func parsedShard() throws -> (index: Int, count: Int)? {
        var options = BatchOptions()
        options.shard = shard
        return try options.parsedShard()
    }

    /// Recognizes each line of an NDJSON file as it is read, writing each record at once (flushed), so memory stays
    /// that of one sample; SIGINT and SIGTERM end the batch after the sample in progress (exit status 130, 143).
    func runBatch(_ path: String, recognizer: DigitalInkRecognizer, context: DigitalInkRecognitionContext) throws {
        guard let reader = LineReader(path: path == "-" ? "/dev/stdin" : path) else { throw ValidationError("cannot open \(path)") }
        let shard = try parsedShard()
        var resumeOptions = BatchOptions()
        resumeOptions.resume = resume
        let done = Set(try resumeOptions.resumedIndices())
        let writer = RecordWriter(ordered: false)
        let stopRequested = Counter()
        let stop = StopSignal { _ = stopRequested.increment() }
        var index = 0, recognized = 0, correct = 0, failures = 0
        var totalMilliseconds = 0.0
        while stopRequested.value == 0, let line = reader.next(maximumBytes: InkFile.maximumBytes) {
            if let limit, index >= limit { break }
            defer { index += 1 }
            if let shard, !shardContains(String(index), index: shard.index, count: shard.count) { continue }
            if done.contains(index) { continue }
            var record: [String: Any] = ["index": index]
            do {
                guard let text = line.text else { throw InkFile.tooLarge("\(path) line \(index + 1)", bytes: line.bytes) }
                let sample = try InkFile.parse(Data(text.utf8), name: "\(path) line \(index + 1)")
                if let label = sample.label { record["label"] = label }
                let started = DispatchTime.now().uptimeNanoseconds
                let result = try recognizer.recognize(ink: sample.ink, context: context)
                let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
                totalMilliseconds += milliseconds
                recognized += 1
                record["candidates"] = candidatesJSON(result, segments: false)
                record["ms"] = (milliseconds * 1000).rounded() / 1000
                if result.candidates.first?.text == sample.label { correct += 1 }
                if !jsonl { writer.write("\(index)\t\(sample.label ?? "")\t\(result.candidates.first?.text ?? "")", at: index) }
            } catch {
                failures += 1
                record["error"] = "\(error)"
                if !jsonl { writer.write("\(index)\terror: \(error)", at: index) }
            }
            if jsonl { writer.write(jsonText(record, pretty: false), at: index) }
        }
        if !jsonl, recognized > 0 {
            printError("\(recognized) inks, top-1 exact \(correct) (\(String(format: "%.1f", 100 * Double(correct) / Double(recognized)))%), mean \(String(format: "%.2f", totalMilliseconds / Double(recognized))) ms")
        }
        stop.exitIfStopped()
        if failures > 0 { throw ExitCode(.inputsFailed) }
    }

    func candidatesJSON(_ result: DigitalInkRecognitionResult, segments: Bool) -> [[String: Any]] {
        result.candidates.map { candidate in
            var item: [String: Any] = ["text": candidate.text]
            if let score = candidate.score { item["score"] = (Double(score) * 1e4).rounded() / 1e4 }
            if segments {
                func json(_ s: InkSegment) -> [String: Any] {
                    ["text": s.text, "range": [s.characterRange.lowerBound, s.characterRange.upperBound],
                     "start": ["stroke": s.start.stroke, "point": s.start.point], "end": ["stroke": s.end.stroke, "point": s.end.point],
                     "box": boxJSON(x: Double(s.boundingBox.minX), y: Double(s.boundingBox.minY), width: Double(s.boundingBox.maxX - s.boundingBox.minX),
                                    height: Double(s.boundingBox.maxY - s.boundingBox.minY))]
                }
                item["words"] = candidate.words.map(json)
                item["characters"] = candidate.characters.map(json)
            }
            return item
        }
    }
}

/// Ink files: ML Kit-like JSON, or a line of the ../shared/ink NDJSON format.
enum InkFile {
    struct Sample {
        var ink: Ink
        var label: String?
    }

    /// The largest ink file or batch line read: 32 MiB, four times what the recognizer's 200,000 points take as
    /// JSON.
    static let maximumBytes = 32 << 20

    static func read(_ path: String) throws -> Sample {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
        if let size, size > maximumBytes { throw tooLarge(path, bytes: size) }
        guard FileManager.default.fileExists(atPath: path) else { throw ValidationError("no such ink file: \(path)") }
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIError(.inputsFailed, "cannot read \(path)") }
        return try parse(data, name: path)
    }

    static func tooLarge(_ name: String, bytes: Int) -> CLIError {
        CLIError(.inputsFailed, "\(name) is \(bytes) bytes; an ink may be at most \(maximumBytes) bytes of JSON")
    }

    /// The ink in `data` (`name` labels the errors). The reader stops at the recognizer's point and stroke limits, so
    /// memory and time stay bounded by the file size limit whatever the file holds.
    static func parse(_ data: Data, name: String) throws -> Sample {
        guard data.count <= maximumBytes else { throw tooLarge(name, bytes: data.count) }
        do throws(InkJSON.Failure) {
            let document = try InkJSON.parse(data)
            return Sample(ink: document.ink, label: document.label)
        } catch {
            guard error.kind != .notJSON else { throw CLIError(.inputsFailed, "\(name) is not a JSON object (\(error.message))") }
            throw CLIError(.inputsFailed, "\(name): \(error.message)")
        }
    }
}

/// Draws an ink: strokes in their order's colours on white, scaled to fit 800 pixels.
enum InkDrawing {
    static func render(_ ink: Ink, size: Int = 800, margin: Int = 20) throws -> Image {
        let points = ink.strokes.flatMap(\.points).filter { $0.x.isFinite && $0.y.isFinite }
        guard let first = points.first else { throw CLIError(.inputsFailed, "the ink has no finite points to draw") }
        var minX = first.x, maxX = first.x, minY = first.y, maxY = first.y
        for p in points { minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y) }
        let scale = Float(size - 2 * margin) / max(maxX - minX, maxY - minY, 1e-6)
        let width = Int((maxX - minX) * scale) + 2 * margin, height = Int((maxY - minY) * scale) + 2 * margin
        var image = try Image(width: width, height: height, pixels: Array(repeating: 255, count: width * height * 3))
        func pixel(_ p: StrokePoint) -> (Float, Float) { (Float(margin) + (p.x - minX) * scale, Float(margin) + (p.y - minY) * scale) }
        for (s, stroke) in ink.strokes.enumerated() {
            let color = RGBColor.palette(s)
            let valid = stroke.points.filter { $0.x.isFinite && $0.y.isFinite }
            for (a, b) in zip(valid, valid.dropFirst().isEmpty ? valid : Array(valid.dropFirst())) {
                let (x0, y0) = pixel(a), (x1, y1) = pixel(b)
                let steps = max(1, Int(max(abs(x1 - x0), abs(y1 - y0))))
                for k in 0...steps {
                    let f = Float(k) / Float(steps)
                    let x = Int(x0 + (x1 - x0) * f), y = Int(y0 + (y1 - y0) * f)
                    image.fill(x0: x - 1, y0: y - 1, x1: x + 2, y1: y + 2, color: color)
                }
            }
            if let start = valid.first {
                let (x, y) = pixel(start)
                image.drawText("\(s)", x: Int(x) + 4, y: Int(y) - 10, color: color, background: nil)
            }
        }
        return image
    }
}
