import Dispatch
import Foundation
import LiteEngine
import LiteFormat

/// How to build a recognizer: ML Kit's `DigitalInkRecognizerOptions`.
public struct DigitalInkRecognizerOptions: Sendable {
    /// The model to recognize with.
    public var model: DigitalInkRecognitionModel
    /// How many candidates to return at most (ML Kit returns up to about ten; not an ML Kit option).
    public var maxResultCount: Int = 10
    /// Engine threads (not an ML Kit option).
    public var threads: Int = 1
    /// The model manager whose registry holds the model (not an ML Kit option; the package's by default).
    public var modelManager: ModelManager = .modelManager()
    /// Decoding (not ML Kit options): hypotheses kept per frame (a wider beam finds more of the readings the
    /// language model prefers, at more time a word), the weight of the language model's log-probability and the bonus
    /// per character, chosen on the validation writers (Docs/digital-ink.md, "Tuning").
    public var beamWidth = 64
    /// Decoding: the weight of the language model's log-probability (see ``beamWidth``).
    public var languageModelWeight = 0.9
    /// Decoding: the bonus added per character of a hypothesis (see ``beamWidth``).
    public var characterBonus = 2.0
    /// Whether a line that leans by more than ``DigitalInkRecognizer/slantCorrectionThreshold`` (see
    /// ``InkFeatures/slant``) is also read upright, and the two readings' character probabilities averaged frame by
    /// frame before decoding (not an ML Kit option). Off by default: it costs a second pass through the network for
    /// about half of the inks (for a writer who leans, nearly every ink), for a small gain (Docs/digital-ink.md,
    /// "Tuning").
    public var slantCorrection = false
    /// How much the character network's opinion counts when an ink is one character on its own (see
    /// ``DigitalInkRecognizer``; 0 leaves the LSTM's reading alone). Not an ML Kit option; the default reads the most
    /// validation words right (Docs/digital-ink.md).
    public var characterModelWeight = 1.5
    /// How much the shape geometry network's opinion counts for a shapes model with a `<model>.geometry.tflite`
    /// beside it (`InkShapeGeometry`): its log-probabilities times this are added to the LSTM's; 0 leaves the
    /// LSTM alone. Chosen on Quick, Draw!'s validation drawings (Docs/digital-ink.md, "Tuning"). Not an ML Kit
    /// option.
    public var shapeGeometryWeight = 0.25
    /// How Chinese and Japanese models read a line (not ML Kit options).
    public var cjkDecoding = CJKLineDecodingOptions()

    /// Options for `model`, with every other option at its default.
    public init(model: DigitalInkRecognitionModel) {
        self.model = model
    }
}

/// Recognizes handwritten text or a drawn shape: ML Kit's `DigitalInkRecognizer`.
///
/// The ink is checked, split into lines (each line's words put in reading order), turned into ``InkFeatures`` and
/// run through the model's LSTM network by the engine. Text models are decoded by `CTCBeamSearch` with the
/// language's ``InkLanguageModel`` and the pre-context (an ink that is one character on its own is also read as a
/// picture by the model's `InkCharacterClassifier`, which "en" has); the shapes model scores one shape for the whole ink. The
/// model is loaded on the first recognition (as ML Kit does, which fails then when it is not downloaded).
/// Recognitions are serialized; make one recognizer per thread for parallel work.
public final class DigitalInkRecognizer: @unchecked Sendable {
    /// Limits on what is accepted as an ink (larger is an error, not a stall).
    public static let maximumPoints = 200_000
    /// The most strokes an ink may have.
    public static let maximumStrokes = 20_000
    /// The most pre-context characters used, as in ML Kit.
    public static let preContextLength = 20
    /// The least ``InkFeatures/slant`` (either way) that ``DigitalInkRecognizerOptions/slantCorrection`` corrects;
    /// upright writing gains nothing from a second reading.
    public static let slantCorrectionThreshold: Float = 0.1

    /// The options the recognizer was made with.
    public let options: DigitalInkRecognizerOptions
    private let lock = NSLock()
    private var loaded: LoadedModel?
    private let queue = DispatchQueue(label: "litevision.digital-ink", qos: .userInitiated)

    private struct LoadedModel {
        /// The LSTM network of text and shape models (nil for Chinese and Japanese models, which read `cjk`).
        var interpreter: Interpreter?
        var languageModel: InkLanguageModel?
        /// Text models with a `<model>.characters.tflite` beside them: the network that reads a lone character as a picture.
        var characterClassifier: InkCharacterClassifier?
        /// Shape models with a `<model>.geometry.tflite` beside them: the network that reads the ink's geometry.
        var shapeGeometry: InkShapeGeometry?
        /// Text models: the network's characters (`<model>.alphabet.txt`, else printable ASCII). Shape models: the class names.
        var alphabet: InkAlphabet
        /// Text models with a `<language>.charset.txt`: whether each class k ≥ 1 may be emitted (index k - 1); nil
        /// when every class may.
        var allowedClasses: [Bool]?
        var shapeNames: [String]
        /// Chinese and Japanese models, which have a `<model>.classes.txt` beside the network.
        var cjk: CJKRecognitionModel?
    }

    /// ML Kit's factory. It does not fail: a missing model is reported by `recognize`.
    public static func digitalInkRecognizer(options: DigitalInkRecognizerOptions) -> DigitalInkRecognizer {
        DigitalInkRecognizer(options: options)
    }

    /// A recognizer with `options`; it does not fail (the model is loaded at the first recognition).
    public init(options: DigitalInkRecognizerOptions) {
        self.options = options
    }

    // MARK: ML Kit's calls

    /// Recognizes `ink`; `completion` runs on a background queue (ML Kit's runs on the main queue, which a Linux
    /// server process usually does not service) with the result or the error.
    public func recognize(ink: Ink, completion: @escaping @Sendable (DigitalInkRecognitionResult?, Error?) -> Void) {
        recognize(ink: ink, context: DigitalInkRecognitionContext(), completion: completion)
    }

    /// Recognizes `ink` after `context`; `completion` runs on a background queue with the result or the error
    /// (``TaskError/invalidArgument(_:)`` for an ink that fails the checks, ``TaskError/failedPrecondition(_:)`` for a
    /// model that is not downloaded).
    public func recognize(ink: Ink, context: DigitalInkRecognitionContext,
                          completion: @escaping @Sendable (DigitalInkRecognitionResult?, Error?) -> Void) {
        queue.async {
            do {
                completion(try self.recognize(ink: ink, context: context), nil)
            } catch {
                completion(nil, error)
            }
        }
    }

    /// The async form of `recognize(ink:context:completion:)`.
    public func recognize(ink: Ink, context: DigitalInkRecognitionContext = DigitalInkRecognitionContext()) async throws -> DigitalInkRecognitionResult {
        try await withCheckedThrowingContinuation { continuation in
            recognize(ink: ink, context: context) { result, error in
                if let result { continuation.resume(returning: result) } else { continuation.resume(throwing: error!) }
            }
        }
    }

    /// Recognizes `ink` on the calling thread.
    public func recognize(ink: Ink, context: DigitalInkRecognitionContext = DigitalInkRecognitionContext()) throws -> DigitalInkRecognitionResult {
        lock.lock()
        defer { lock.unlock() }
        let strokes = try Self.validated(ink, context: context)
        let model = try load()
        if let cjk = model.cjk {
            let decoding = options.cjkDecoding
            guard (1...CJKLineDecodingOptions.maximumBeamWidth).contains(decoding.beamWidth) else {
                throw TaskError.invalidArgument("cjkDecoding.beamWidth must be 1 ... \(CJKLineDecodingOptions.maximumBeamWidth); got \(decoding.beamWidth)")
            }
            guard decoding.languageModelWeight.isFinite, decoding.characterBonus.isFinite, decoding.narrownessPenalty.isFinite,
                  decoding.narrowWidth.isFinite, decoding.squeezePenalty.isFinite, decoding.squeezeTolerance.isFinite else {
                throw TaskError.invalidArgument("cjkDecoding's weights must be finite numbers; got \(decoding)")
            }
            guard decoding.squeezeTolerance > 0 else {
                throw TaskError.invalidArgument("cjkDecoding.squeezeTolerance must be positive (a fraction of a character's canonical width); got \(decoding.squeezeTolerance)")
            }
            return DigitalInkRecognitionResult(candidates: try cjk.recognize(strokes, preContext: String(context.preContext.suffix(Self.preContextLength)),
                                                                             results: max(1, options.maxResultCount), options: options.cjkDecoding))
        }
        if model.languageModel == nil && !model.shapeNames.isEmpty {
            return try recognizeShape(strokes, model: model, context: context)
        }
        return try recognizeText(strokes, model: model, context: context)
    }

    /// Loads the model (and its language model) now instead of at the first recognition, so that the first
    /// recognition is not slower than the rest. Not an ML Kit call; recognitions load on demand without it.
    public func loadModel() throws {
        lock.lock()
        defer { lock.unlock() }
        _ = try load()
    }

    // MARK: Input checks

    /// The non-empty strokes with their indices, after checking that the ink and context are usable.
    static func validated(_ ink: Ink, context: DigitalInkRecognitionContext) throws -> [InkLayout.IndexedStroke] {
        guard ink.strokes.count <= maximumStrokes else {
            throw TaskError.invalidArgument("the ink has \(ink.strokes.count) strokes; at most \(maximumStrokes) are accepted")
        }
        let points = ink.pointCount
        guard points > 0 else { throw TaskError.invalidArgument("the ink is empty: it has no points") }
        guard points <= maximumPoints else {
            throw TaskError.invalidArgument("the ink has \(points) points; at most \(maximumPoints) are accepted")
        }
        for (s, stroke) in ink.strokes.enumerated() {
            for (p, point) in stroke.points.enumerated() where !point.x.isFinite || !point.y.isFinite {
                throw TaskError.invalidArgument("stroke \(s) point \(p) has a coordinate that is not a finite number (x \(point.x), y \(point.y))")
            }
        }
        if let area = context.writingArea {
            guard area.width.isFinite, area.height.isFinite, area.width > 0, area.height > 0 else {
                throw TaskError.invalidArgument("the writing area must have a finite, positive width and height; got \(area.width) x \(area.height)")
            }
        }
        return ink.strokes.enumerated().filter { !$0.element.points.isEmpty }.map { ($0.offset, $0.element.points) }
    }

    // MARK: Model

    private func load() throws -> LoadedModel {
        if let loaded { return loaded }
        let files = try InkModelFiles(options.model, manager: options.modelManager)
        let name = files.model
        let model = try files.tfliteModel(name)
        if let classes = try files.text(files.sidecar(".classes.txt"), maximumBytes: 1 << 22) {
            let network = try CJKCharacterNetwork(model: model, name: name, classesText: classes, threads: options.threads)
            let arpa = files.languageSidecar(".lm.arpa")
            let bigram = try files.text(arpa, maximumBytes: CharacterBigramModel.maximumBytes).map { try CharacterBigramModel(arpa: $0, path: arpa) }
            let loaded = LoadedModel(interpreter: nil, alphabet: .printableASCII, shapeNames: [],
                                     cjk: try CJKRecognitionModel(network: network, bigram: bigram, name: name))
            self.loaded = loaded
            return loaded
        }
        let interpreter = try TaskError.wrap { try Interpreter(model: model, options: .init(threads: options.threads)) }
        guard interpreter.inputCount == 1, interpreter.outputCount == 1 else {
            throw TaskError.model("an ink model has one input (features) and one output; \(name) has \(interpreter.inputCount) and \(interpreter.outputCount)")
        }
        let input = try TaskError.wrap { try interpreter.input(at: 0) }
        if input.rank == 4, input.shape.last == InkDirectionPlanes.planes {
            throw TaskError.model("\(name) reads direction planes, as a Chinese or Japanese character network does, but its classes file \(files.sidecar(".classes.txt")) is missing")
        }
        guard input.rank == 3, input.shape.last == InkFeatures.width, input.type == .float32 else {
            throw TaskError.model("an ink model's input is float32 [1, time, \(InkFeatures.width)]; \(name) has \(input)")
        }
        let loaded: LoadedModel
        if let labels = try files.text(files.sidecar(".labels.txt")) {
            let names = labels.split(whereSeparator: \.isNewline).map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let geometry = files.sidecar(".geometry.tflite")
            let shapeGeometry = files.exists(geometry)
                ? try InkShapeGeometry(model: files.tfliteModel(geometry), name: geometry, classes: names.count, threads: options.threads) : nil
            loaded = LoadedModel(interpreter: interpreter, languageModel: nil, characterClassifier: nil, shapeGeometry: shapeGeometry,
                                 alphabet: .printableASCII, shapeNames: names)
        } else {
            let alphabetFile = files.sidecar(".alphabet.txt")
            let alphabet = try files.text(alphabetFile, maximumBytes: 1 << 20).map { try InkAlphabet(parsing: $0, name: alphabetFile) } ?? .printableASCII
            let output = try TaskError.wrap { try interpreter.output(at: 0) }
            if let classes = output.shape.last, classes > 1, classes != alphabet.classCount {
                throw TaskError.model("\(name) has \(classes) classes, but its alphabet (\(files.exists(alphabetFile) ? alphabetFile : "printable ASCII")) makes \(alphabet.classCount) with the CTC blank")
            }
            let charsetFile = files.languageSidecar(".charset.txt")
            let allowedClasses = try files.text(charsetFile, maximumBytes: 1 << 20).map { alphabet.allowed(byCharset: try InkAlphabet.charset(parsing: $0, name: charsetFile)) }
            // The letters the network may write get symbols in the language model even when no word has them.
            let letters = alphabet.characters.indices.filter { allowedClasses?[$0] ?? true }.map { alphabet.characters[$0] }
                .filter { !$0.isASCII && Character($0).isLetter }
            let languageModel = try files.lexicon().map { try files.languageModel($0, extraLetters: letters) }
            let characters = files.sidecar(".characters.tflite")
            let characterClassifier = files.exists(characters)
                ? try InkCharacterClassifier(model: files.tfliteModel(characters), name: characters, threads: options.threads) : nil
            loaded = LoadedModel(interpreter: interpreter, languageModel: languageModel, characterClassifier: characterClassifier,
                                 shapeGeometry: nil, alphabet: alphabet, allowedClasses: allowedClasses, shapeNames: [])
        }
        self.loaded = loaded
        return loaded
    }

    /// Runs the network on one sequence of features; returns [frames, classes] log-probabilities.
    private func logProbabilities(_ features: InkFeatures, model: LoadedModel) throws -> (values: [Float], classes: Int) {
        guard let interpreter = model.interpreter else { throw TaskError.model("the ink model has no sequence network") }
        try TaskError.wrap {
            try interpreter.resizeInput(at: 0, to: [1, features.length, InkFeatures.width])
            try interpreter.allocateTensors()
            // The LSTM state is in variable tensors that persist across invocations (TFLite's streaming form);
            // every ink starts from zero.
            interpreter.resetVariableTensors()
            try interpreter.copy(features.values, toInputAt: 0)
            try interpreter.invoke()
        }
        let output = try TaskError.wrap { try interpreter.output(at: 0) }
        var values = output.toArray(of: Float.self)
        let classes = output.shape.last ?? 0
        guard classes > 0, values.count % classes == 0 else { throw TaskError.model("unexpected ink model output \(output)") }
        for row in stride(from: 0, to: values.count, by: classes) { values.formLogSoftmax(row..<(row + classes)) }
        return (values, classes)
    }

    // MARK: Shapes

    private func recognizeShape(_ strokes: [InkLayout.IndexedStroke], model: LoadedModel, context: DigitalInkRecognitionContext) throws -> DigitalInkRecognitionResult {
        // The shapes model reads shapes, not drawing speed: it was trained on inks with the synthetic clock only.
        let untimed = strokes.map { stroke in (stroke.index, stroke.points.map { StrokePoint(x: $0.x, y: $0.y) }) }
        let features = try InkFeatures(strokes: untimed, writingAreaHeight: context.writingArea?.height)
        var (logits, classes) = try logProbabilities(features, model: model)
        guard classes == model.shapeNames.count, logits.count == classes else {
            throw TaskError.model("the shapes model has \(classes) outputs per ink but \(model.shapeNames.count) labels")
        }
        guard options.shapeGeometryWeight.isFinite else {
            throw TaskError.invalidArgument("shapeGeometryWeight must be a finite number; got \(options.shapeGeometryWeight)")
        }
        if let geometry = model.shapeGeometry, options.shapeGeometryWeight != 0 {
            // The two opinions multiplied (weighted), renormalized so that a score stays -log(probability).
            let opinion = try geometry.logProbabilities(strokes.map(\.points))
            let weight = Float(options.shapeGeometryWeight)
            for c in logits.indices { logits[c] += weight * opinion[c] }
            logits.formLogSoftmax()
        }
        let ranked = (0..<classes).sorted { logits[$0] > logits[$1] }.prefix(max(1, options.maxResultCount))
        return DigitalInkRecognitionResult(candidates: ranked.map { DigitalInkRecognitionCandidate(text: model.shapeNames[$0], score: -logits[$0]) })
    }

    // MARK: Text

    private func recognizeText(_ strokes: [InkLayout.IndexedStroke], model: LoadedModel, context: DigitalInkRecognitionContext) throws -> DigitalInkRecognitionResult {
        let lines = InkLayout.lines(strokes).map(InkLayout.readingOrder)
        let wanted = max(1, options.maxResultCount)
        var perLine: [[DigitalInkRecognitionCandidate]] = []
        let preContext = String(context.preContext.suffix(Self.preContextLength))
        for (n, line) in lines.enumerated() {
            // A long line is read a few words at a time; each piece after the first begins a new word, and the
            // language model reads it after the piece before and a space.
            var pieces: [[DigitalInkRecognitionCandidate]] = []
            var piecePreContext = n == 0 ? preContext : ""
            let linePieces = InkLayout.pieces(line)
            for piece in linePieces {
                let candidates = try recognizeTextPiece(piece, model: model, context: context, preContext: piecePreContext, wanted: wanted,
                                                        wholeInk: lines.count == 1 && linePieces.count == 1)
                pieces.append(candidates)
                piecePreContext = String(((candidates.first?.text ?? "") + " ").suffix(Self.preContextLength))
            }
            perLine.append(Self.join(pieces, separator: " ", limit: wanted))
        }
        return DigitalInkRecognitionResult(candidates: Self.join(perLine, separator: "\n", limit: wanted))
    }

    /// The candidates of one piece of a line, read after `preContext`.
    private func recognizeTextPiece(_ line: [InkLayout.IndexedStroke], model: LoadedModel, context: DigitalInkRecognitionContext,
                                    preContext: String, wanted: Int, wholeInk: Bool) throws -> [DigitalInkRecognitionCandidate] {
        let features = try InkFeatures(strokes: line, writingAreaHeight: context.writingArea?.height)
        var (logProbabilities, classes) = try logProbabilities(features, model: model)
        let slant = features.slant
        if options.slantCorrection, abs(slant) >= Self.slantCorrectionThreshold {
            let (upright, _) = try self.logProbabilities(features.sheared(by: -slant), model: model)
            guard upright.count == logProbabilities.count else { throw TaskError.model("the ink model's output length depends on more than the sequence length") }
            // The mean of the two probabilities, in logs: log((p + q) / 2) = max + log1p(exp(min - max)) - log 2.
            for i in logProbabilities.indices {
                let larger = max(logProbabilities[i], upright[i]), smaller = min(logProbabilities[i], upright[i])
                guard larger.isFinite else { continue }
                logProbabilities[i] = larger + log1pf(expf(smaller - larger)) - logf(2)
            }
        }
        guard classes == model.alphabet.classCount else {
            throw TaskError.model("a text ink model has \(model.alphabet.classCount) classes (the CTC blank and its alphabet's characters); this one has \(classes)")
        }
        if let allowed = model.allowedClasses { InkAlphabet.mask(&logProbabilities, classes: classes, allowed: allowed) }
        let starts = startHypotheses(preContext: preContext, languageModel: model.languageModel, alphabet: model.alphabet)
        var search = CTCBeamSearch(beamWidth: max(options.beamWidth, wanted), languageModelWeight: options.languageModelWeight,
                                   characterBonus: options.characterBonus)
        search.scoresLoneCharacters = preContext.isEmpty
        // A few more than wanted, as readings that differ only by a trailing space become one.
        let hypotheses = search.decode(logProbabilities: logProbabilities, classes: classes, alphabet: model.alphabet,
                                       languageModel: model.languageModel, starts: starts, results: wanted + 4)
        // An empty reading is kept only when there is nothing else (a stroke the network sees no character in).
        let nonEmpty = hypotheses.filter { !$0.text.allSatisfy { $0 == " " } }
        var readings = Self.withoutTrailingSpaces(nonEmpty.isEmpty ? hypotheses : nonEmpty)
        if wholeInk, preContext.isEmpty, readings.first?.text.count == 1, let classifier = model.characterClassifier {
            readings = try loneCharacterReadings(readings, strokes: line, logProbabilities: logProbabilities, classes: classes,
                                                 alphabet: model.alphabet, classifier: classifier)
        }
        return readings.prefix(wanted).map { candidate(from: $0, features: features, ink: line) }
    }

    /// The readings of an ink that is best read as one character on its own: every character is scored as the
    /// lone character (all of the network's paths that spell it, ``CTCBeamSearch/singleCharacterReadings``, plus
    /// the bonus and the weighted lone-character prior, as the search scores one) and by the character network
    /// (``InkCharacterClassifier``): `characterModelWeight` times its log-probability's excess over a uniform
    /// guess, so that the longer readings, which it cannot judge, keep their scores. All ranked together.
    private func loneCharacterReadings(_ readings: [CTCBeamSearch.Hypothesis], strokes: [InkLayout.IndexedStroke], logProbabilities: [Float],
                                       classes: Int, alphabet: InkAlphabet, classifier: InkCharacterClassifier) throws -> [CTCBeamSearch.Hypothesis] {
        let pictureLogProbabilities = try classifier.logProbabilities(strokes)
        let network = CTCBeamSearch.singleCharacterReadings(logProbabilities: logProbabilities, classes: classes)
        let uniform = -log(Double(InkCharacterClassifier.characters.count))
        var out = readings.filter { $0.text.count != 1 }
        for (k, character) in alphabet.characters.enumerated() where character.isASCII {
            guard let j = InkCharacterClassifier.characters.firstIndex(of: UInt8(character.value)), network[k].logProbability > -.infinity else { continue }
            let score = network[k].logProbability + options.characterBonus
                + options.languageModelWeight * InkLanguageModel.loneCharacterLogProbability(character)
                + options.characterModelWeight * (Double(pictureLogProbabilities[j]) - uniform)
            out.append(CTCBeamSearch.Hypothesis(text: [character], emittedAt: [network[k].frame], score: score))
        }
        out.sort { $0.score != $1.score ? $0.score > $1.score : $0.text.lexicographicallyPrecedes($1.text) }
        return out
    }

    /// The readings (best first) without the spaces the network read after their last character, which no
    /// stroke shows ("Jewel " is "Jewel"); a reading that becomes one already listed is dropped.
    static func withoutTrailingSpaces(_ hypotheses: [CTCBeamSearch.Hypothesis]) -> [CTCBeamSearch.Hypothesis] {
        var seen = Set<[Unicode.Scalar]>()
        return hypotheses.compactMap { hypothesis in
            var trimmed = hypothesis
            while trimmed.text.count > 1, trimmed.text.last == " " {
                trimmed.text.removeLast()
                trimmed.emittedAt.removeLast()
            }
            return seen.insert(trimmed.text).inserted ? trimmed : nil
        }
    }

    /// Where decoding may begin after `preContext`: continuing its last word, or (when it ends inside a word or
    /// after a sentence mark) a new word with a leading space; the language model weighs the two. The text is read
    /// composed (NFC: "e" and a combining acute are "é", as the network writes it); characters beyond ASCII that the
    /// network cannot write are read as spaces.
    private func startHypotheses(preContext: String, languageModel: InkLanguageModel?,
                                 alphabet: InkAlphabet) -> [(text: [Unicode.Scalar], state: InkLanguageModel.State?, score: Double)] {
        guard let languageModel else { return [([], nil, 0)] }
        let written = String(String.UnicodeScalarView(preContext.precomposedStringWithCanonicalMapping.unicodeScalars.map { $0.isASCII || alphabet.classIndex(of: $0) > 0 ? $0 : " " }))
        let state = languageModel.state(after: written)
        guard let last = written.unicodeScalars.last, last != " ", last != "\n" else { return [([], state, 0)] }
        let weight = options.languageModelWeight
        let (spaceCost, afterSpace) = languageModel.extend(state, with: " ")
        if languageModel.symbol(of: last) != nil {
            return [([], state, 0), ([" "], afterSpace, weight * spaceCost)]
        }
        if ".,;:!?".unicodeScalars.contains(last) { return [([" "], afterSpace, 0)] }
        return [([], state, 0)]
    }

    /// The candidate of one decoded hypothesis, with each character's and word's place in the ink.
    private func candidate(from hypothesis: CTCBeamSearch.Hypothesis, features: InkFeatures, ink: [InkLayout.IndexedStroke]) -> DigitalInkRecognitionCandidate {
        let text = String(String.UnicodeScalarView(hypothesis.text))
        var pointsOfStroke: [Int: [StrokePoint]] = [:]
        for stroke in ink { pointsOfStroke[stroke.index] = stroke.points }
        func segment(_ range: Range<Int>, frames: Range<Int>) -> InkSegment? {
            guard !frames.isEmpty else { return nil }
            var box = InkLayout.Box()
            var previous: (stroke: Int, point: Int)?
            for frame in frames {
                let source = features.sources[frame]
                let points = pointsOfStroke[source.stroke]!
                let from = previous.map { $0.stroke == source.stroke ? min($0.point, source.point) : source.point } ?? source.point
                for p in from...source.point { box.add(points[p]) }
                previous = source
            }
            let start = features.sources[frames.lowerBound], end = features.sources[frames.upperBound - 1]
            let characters = Array(text)
            return InkSegment(text: String(characters[range]), characterRange: range, start: start, end: end,
                              boundingBox: (box.minX, box.minY, box.maxX, box.maxY))
        }
        // Character i is read from the frames between its first emission and the next character's.
        let emitted = hypothesis.emittedAt
        var characters: [InkSegment] = []
        for i in emitted.indices where emitted[i] >= 0 && hypothesis.text[i] != " " {
            let next = emitted[(i + 1)...].first(where: { $0 >= 0 }) ?? features.length
            if let s = segment(i..<(i + 1), frames: emitted[i]..<max(next, emitted[i] + 1)) { characters.append(s) }
        }
        var words: [InkSegment] = []
        var i = 0
        while i < hypothesis.text.count {
            guard hypothesis.text[i] != " " else { i += 1; continue }
            var j = i
            while j < hypothesis.text.count, hypothesis.text[j] != " " { j += 1 }
            let frames = emitted[i..<j].filter { $0 >= 0 }
            if let first = frames.first {
                let next = emitted[j...].first(where: { $0 >= 0 }) ?? features.length
                if let s = segment(i..<j, frames: first..<max(next, first + 1)) { words.append(s) }
            }
            i = j
        }
        return DigitalInkRecognitionCandidate(text: text, score: Float(-hypothesis.score), characters: characters, words: words)
    }

    /// Candidates of an ink read in parts (lines, or pieces of a line): the parts' best readings joined with
    /// `separator`, then the readings that change one part to its next-best, cheapest first. Segment ranges are
    /// shifted into the joined text.
    static func join(_ lines: [[DigitalInkRecognitionCandidate]], separator: String, limit: Int) -> [DigitalInkRecognitionCandidate] {
        guard lines.count > 1 else { return lines.first ?? [] }
        guard lines.allSatisfy({ !$0.isEmpty }) else { return [] }
        func join(_ choice: [Int]) -> DigitalInkRecognitionCandidate {
            var text = "", score: Float = 0
            var characters: [InkSegment] = [], words: [InkSegment] = []
            for (line, k) in zip(lines, choice) {
                if !text.isEmpty { text += separator }
                let offset = text.count
                let c = line[k]
                text += c.text
                score += c.score ?? 0
                characters += c.characters.map { var s = $0; s.characterRange = (s.characterRange.lowerBound + offset)..<(s.characterRange.upperBound + offset); return s }
                words += c.words.map { var s = $0; s.characterRange = (s.characterRange.lowerBound + offset)..<(s.characterRange.upperBound + offset); return s }
            }
            return DigitalInkRecognitionCandidate(text: text, score: score, characters: characters, words: words)
        }
        var choices: [[Int]] = [Array(repeating: 0, count: lines.count)]
        for (n, line) in lines.enumerated() {
            for k in line.indices.dropFirst() {
                var choice = Array(repeating: 0, count: lines.count)
                choice[n] = k
                choices.append(choice)
            }
        }
        // Ranked by score before any is joined: a long line in many pieces has many choices, each a long text.
        let scores = choices.map { choice in zip(lines, choice).reduce(Float(0)) { $0 + ($1.0[$1.1].score ?? 0) } }
        return choices.indices.sorted { scores[$0] < scores[$1] }.prefix(limit).map { join(choices[$0]) }
    }
}
