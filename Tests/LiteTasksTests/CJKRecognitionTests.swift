import Foundation
import LiteFormat
@testable import LiteTasks
import XCTest

/// The Japanese model ("ja", models/ink-ja.*) and the Chinese ones ("zh-Hans", "zh-Hant": models/ink-zh.tflite with
/// each script's bigram model) on real handwriting they never trained on (they learnt from synthetic ink only):
/// tegaki's learner's kanji and kana and its Traditional characters in ../shared/ink, one character at a time and
/// composed into lines.
final class CJKRecognitionTests: XCTestCase {
    static let kanjiFile = "tegaki-japanese-kanji.ndjson.gz"
    static let kanaFile = "tegaki-kana.ndjson.gz"
    static let traditionalFile = "tegaki-zh-tw.ndjson.gz"

    private func recognizer(_ identifier: DigitalInkRecognitionModelIdentifier = .japanese) -> DigitalInkRecognizer {
        DigitalInkRecognizer.digitalInkRecognizer(options: DigitalInkRecognizerOptions(model: DigitalInkRecognitionModel(modelIdentifier: identifier)))
    }

    /// Every sample of a ../shared/ink file.
    private func samples(_ file: String, count: Int) throws -> [InkGoldens.Record] {
        try InkGoldens.records(file: file, lines: Array(0..<count))
    }

    /// Top-1 and top-10 of the recognizer on `records`, one character each.
    private func accuracy(_ records: [InkGoldens.Record], _ identifier: DigitalInkRecognitionModelIdentifier = .japanese) throws -> (top1: Double, top10: Double) {
        let r = recognizer(identifier)
        var top1 = 0, top10 = 0
        for record in records {
            let texts = try r.recognize(ink: record.ink).candidates.map(\.text)
            if texts.first == record.label { top1 += 1 }
            if texts.prefix(10).contains(record.label) { top10 += 1 }
        }
        return (Double(top1) / Double(records.count), Double(top10) / Double(records.count))
    }

    /// The shipped networks give LiteRT's log-probabilities for real inks (Goldens/cjk.json, made by
    /// tools/ink/make_cjk_goldens.py from LiteRT's built-in kernels), the planes rounded as the training pictures were.
    func testTheNetworksMatchLiteRT() throws {
        let goldens = InkDirectionPlanesTests.goldens.networks
        XCTAssertEqual(Set(goldens.keys), ["ink-ja.tflite", "ink-zh.tflite"])
        let models = Paths.packageRoot.appendingPathComponent("models")
        for (file, golden) in goldens.sorted(by: { $0.key < $1.key }) {
            let bytes = try Data(contentsOf: models.appendingPathComponent(file))
            XCTAssertEqual(SHA256.hex(of: [UInt8](bytes)), golden.modelSha256, "models/\(file) changed: rerun tools/ink/make_cjk_goldens.py")
            let classesFile = (file as NSString).deletingPathExtension + ".classes.txt"
            let classes = try String(contentsOf: models.appendingPathComponent(classesFile), encoding: .utf8)
            let network = try CJKCharacterNetwork(model: TFLiteModel(path: models.appendingPathComponent(file).path),
                                                  name: file, classesText: classes, threads: 1)
            XCTAssertGreaterThanOrEqual(golden.samples.count, 3, file)
            for sample in golden.samples {
                let record = try XCTUnwrap(InkGoldens.records(file: sample.file, lines: [sample.line]).first)
                XCTAssertEqual(record.label, sample.label, "\(sample.file) line \(sample.line) moved: rerun tools/ink/make_cjk_goldens.py")
                let logProbabilities = try network.logProbabilities(record.ink.strokes.map(\.points))
                for pair in sample.top {
                    let expected = pair[1]
                    XCTAssertEqual(Double(logProbabilities[Int(pair[0])]), expected, accuracy: 1e-4 * max(1, abs(expected)),
                                   "\(file), \(sample.label): \(network.classes[Int(pair[0])])")
                }
                XCTAssertEqual(logProbabilities.indices.max { logProbabilities[$0] < logProbabilities[$1] }, Int(sample.top[0][0]), "\(file), \(sample.label)")
            }
        }
    }

    /// The learner's 250 kanji (50 kanji, 5 times each): zinnia's Japanese model reads 77.6% top-1 and 96.4% top-10
    /// of them (tools/ink/cjk_compare.py); the shipped model 93.6% and 97.2% (models/README.md), above the
    /// issue's 90%.
    func testRealKanjiAreReadBetterThanZinnia() throws {
        let (top1, top10) = try accuracy(try samples(Self.kanjiFile, count: 250))
        XCTAssertGreaterThan(top1, 0.92, "top-1 \(top1)")
        XCTAssertGreaterThan(top10, 0.964, "top-10 \(top10)")
    }

    /// The 147 kana by one writer: zinnia's model reads 22.4% top-1 (it has no voiced kana and confuses hiragana
    /// with katakana); the shipped model 85.7%.
    func testRealKanaAreRead() throws {
        let (top1, _) = try accuracy(try samples(Self.kanaFile, count: 147))
        XCTAssertGreaterThan(top1, 0.80, "top-1 \(top1)")
    }

    /// The characters of a language: those its bigram model lists.
    private func vocabulary(_ identifier: DigitalInkRecognitionModelIdentifier) throws -> Set<String> {
        let url = Paths.packageRoot.appendingPathComponent("models/\(identifier.registryName).lm.arpa")
        let model = try CharacterBigramModel(arpa: String(contentsOf: url, encoding: .utf8), path: url.path)
        return Set(model.characters)
    }

    /// The samples of a ../shared/ink file whose label is a character of `identifier`'s language.
    private func samples(_ file: String, count: Int, inTheVocabularyOf identifier: DigitalInkRecognitionModelIdentifier) throws -> [InkGoldens.Record] {
        let characters = try vocabulary(identifier)
        return try samples(file, count: count).filter { characters.contains($0.label) }
    }

    /// zh-Hans on the learner's kanji that Simplified Chinese writes with the same characters (those in its
    /// vocabulary, 185 of the 250): zinnia's Simplified Chinese model reads 49.7% top-1 and 71.4% top-10 of them
    /// (tools/ink/cjk_compare.py --sets kanji-zh); the shipped model 85.9% and 95.7%.
    func testSharedKanjiAreReadAsSimplifiedChinese() throws {
        let records = try samples(Self.kanjiFile, count: 250, inTheVocabularyOf: .chineseSimplified)
        XCTAssertEqual(records.count, 185)
        let (top1, top10) = try accuracy(records, .chineseSimplified)
        XCTAssertGreaterThan(top1, 0.82, "top-1 \(top1)")
        XCTAssertGreaterThan(top10, 0.94, "top-10 \(top10)")
    }

    /// zh-Hant on tegaki's Traditional characters in its vocabulary: 5 of the 72 (the rest are components and rare
    /// characters outside the 4,800 frequent ones). The shipped model reads 2 of them top-1 (兀 內; 辯 is read 靜,
    /// 戶 片, 囪 因) and all 5 within its top 5; zinnia's Simplified model 1 of them.
    func testTraditionalCharactersAreRead() throws {
        let records = try samples(Self.traditionalFile, count: 72, inTheVocabularyOf: .chineseTraditional)
        XCTAssertEqual(records.count, 5)
        let (top1, top10) = try accuracy(records, .chineseTraditional)
        XCTAssertGreaterThanOrEqual(top1, 0.4, "top-1 \(top1)")
        XCTAssertEqual(top10, 1, "top-10 \(top10)")
    }

    /// The two Chinese identifiers share one network but each answers in its own script: a Traditional character's
    /// stroke centre lines (Make Me a Hanzi, the synthesis source) read as itself in zh-Hant and as no Traditional-only
    /// character in zh-Hans, and the other way round.
    func testEachChineseScriptAnswersInItsOwnCharacters() throws {
        let simplified = try vocabulary(.chineseSimplified), traditional = try vocabulary(.chineseTraditional)
        // 书 書, 说 說, 门 門, 马 馬 (line numbers of hanzi-strokes.ndjson.gz).
        let pairs = [(120, 3175), (7292, 7132), (8504, 8462), (9032, 8985)]
        let hans = recognizer(.chineseSimplified), hant = recognizer(.chineseTraditional)
        for (simplifiedLine, traditionalLine) in pairs {
            let records = try InkGoldens.records(file: "hanzi-strokes.ndjson.gz", lines: [simplifiedLine, traditionalLine])
            let (s, t) = (records[0], records[1])
            XCTAssertTrue(simplified.contains(s.label) && !simplified.contains(t.label), "\(s.label) \(t.label)")
            XCTAssertTrue(traditional.contains(t.label) && !traditional.contains(s.label), "\(s.label) \(t.label)")
            XCTAssertEqual(try hans.recognize(ink: s.ink).candidates.first?.text, s.label)
            XCTAssertEqual(try hant.recognize(ink: t.ink).candidates.first?.text, t.label)
            for candidate in try hans.recognize(ink: t.ink).candidates {
                XCTAssertTrue(candidate.text.allSatisfy { simplified.contains(String($0)) }, "zh-Hans read \(t.label) as \(candidate.text)")
            }
            for candidate in try hant.recognize(ink: s.ink).candidates {
                XCTAssertTrue(candidate.text.allSatisfy { traditional.contains(String($0)) }, "zh-Hant read \(s.label) as \(candidate.text)")
            }
        }
    }

    /// Real characters side by side: each scaled to `height`, `gap` apart, vertically centred (y down).
    static func line(_ characters: [Ink], height: Float = 100, gap: Float = 15) -> Ink {
        var x: Float = 0
        var strokes: [Stroke] = []
        for ink in characters {
            let points = ink.strokes.flatMap(\.points)
            let minX = points.map(\.x).min()!, maxX = points.map(\.x).max()!
            let minY = points.map(\.y).min()!, maxY = points.map(\.y).max()!
            let scale = height / max(maxX - minX, maxY - minY)
            let top = (height - (maxY - minY) * scale) / 2
            strokes += ink.strokes.map { stroke in
                Stroke(points: stroke.points.map { StrokePoint(x: x + ($0.x - minX) * scale, y: top + ($0.y - minY) * scale) })
            }
            x += (maxX - minX) * scale + gap
        }
        return Ink(strokes: strokes)
    }

    /// Words written with the learner's kanji (another sample of each character for each word), read as lines:
    /// the characters are found, in order, with boxes that do not overlap.
    func testWordsOfRealKanjiAreReadAsLines() throws {
        let records = try samples(Self.kanjiFile, count: 250)
        var byLabel: [String: [Ink]] = [:]
        for record in records { byLabel[record.label, default: []].append(record.ink) }
        let words = ["練習", "安全", "感想", "代金", "集金", "温水", "近代", "防水", "女神", "反感", "発想", "全集", "近代化", "安全感"]
        let r = recognizer()
        var exact = 0, errors = 0, characters = 0
        for (n, word) in words.enumerated() {
            for sample in 0..<5 {
                let inks = word.map { byLabel[String($0)]![(sample + n) % 5] }
                let result = try r.recognize(ink: Self.line(inks))
                let best = try XCTUnwrap(result.candidates.first)
                if best.text == word { exact += 1 }
                errors += DigitalInkRecognizerTests.editDistance(Array(best.text), Array(word))
                characters += word.count
                // The characters of a line read right are boxed apart, in reading order.
                if best.text == word {
                    for (a, b) in zip(best.characters, best.characters.dropFirst()) {
                        XCTAssertLessThanOrEqual(a.boundingBox.maxX, b.boundingBox.minX, "\(word): \(best.text)")
                    }
                }
                XCTAssertEqual(best.words.count, 1)
                XCTAssertEqual(best.characters.map(\.text).joined(), best.text)
            }
        }
        let lines = words.count * 5
        // Measured: 70 of 70 lines exact, CER 0.
        XCTAssertGreaterThanOrEqual(Double(exact) / Double(lines), 0.95, "\(exact) of \(lines) lines exact")
        XCTAssertLessThanOrEqual(Double(errors) / Double(characters), 0.03, "CER \(errors) / \(characters)")
    }

    /// The pre-context reaches the bigram model: 金 after 代 (代金, payment) costs less than after 泣 (no word).
    func testThePreContextIsScoredByTheBigramModel() throws {
        let records = try samples(Self.kanjiFile, count: 250)
        let ink = try XCTUnwrap(records.first { $0.label == "金" }).ink
        let r = recognizer()
        func cost(_ preContext: String) throws -> Float {
            let result = try r.recognize(ink: ink, context: DigitalInkRecognitionContext(preContext: preContext))
            return try XCTUnwrap(result.candidates.first { $0.text == "金" }?.score)
        }
        XCTAssertLessThan(try cost("代"), try cost("泣"))
        XCTAssertNotEqual(try cost("代"), try cost(""))
    }

    /// The classes file gives each character's canonical width after a tab; a file without widths (or with a tab and
    /// no width) still loads without them, Windows line ends and trailing blanks are read alike, and a width that is
    /// not a positive number is a model error naming the line.
    func testTheClassesFileGivesCanonicalWidths() throws {
        let models = Paths.packageRoot.appendingPathComponent("models")
        let model = try TFLiteModel(path: models.appendingPathComponent("ink-ja.tflite").path)
        let text = try String(contentsOf: models.appendingPathComponent("ink-ja.classes.txt"), encoding: .utf8)
        let network = try CJKCharacterNetwork(model: model, name: "ink-ja", classesText: text, threads: 1)
        let widths = Dictionary(uniqueKeysWithValues: zip(network.classes, network.canonicalWidths))
        XCTAssertEqual(try XCTUnwrap(widths["土"] ?? nil), 0.98, accuracy: 0.005)
        XCTAssertEqual(try XCTUnwrap(widths["日"] ?? nil), 0.54, accuracy: 0.005)
        XCTAssertTrue(network.canonicalWidths.allSatisfy { $0 != nil })
        let bare = text.split(separator: "\n").map { $0.split(separator: "\t")[0] }.joined(separator: "\n")
        let old = try CJKCharacterNetwork(model: model, name: "ink-ja", classesText: bare, threads: 1)
        XCTAssertEqual(old.classes, network.classes)
        XCTAssertTrue(old.canonicalWidths.allSatisfy { $0 == nil })
        let emptyWidths = try CJKCharacterNetwork(model: model, name: "ink-ja", classesText: bare.replacingOccurrences(of: "\n", with: "\t\n"), threads: 1)
        XCTAssertEqual(emptyWidths.classes, network.classes)
        XCTAssertTrue(emptyWidths.canonicalWidths.allSatisfy { $0 == nil })
        let windows = try CJKCharacterNetwork(model: model, name: "ink-ja", classesText: text.replacingOccurrences(of: "\n", with: " \r\n"), threads: 1)
        XCTAssertEqual(windows.classes, network.classes)
        XCTAssertEqual(windows.canonicalWidths, network.canonicalWidths)
        var lines = text.split(separator: "\n").map(String.init)
        lines[2] = lines[2].split(separator: "\t")[0] + "\twide"
        XCTAssertThrowsError(try CJKCharacterNetwork(model: model, name: "ink-ja", classesText: lines.joined(separator: "\n"), threads: 1)) { error in
            guard case TaskError.model(let message) = error, message.contains("line 3") else { return XCTFail("\(error)") }
        }
    }

    /// A character network downloaded without its classes file (a registry entry that is not bundled, whose cache
    /// holds only the .tflite) is a model error that names the missing file, not a complaint about its input shape.
    func testACharacterNetworkWithoutItsClassesIsAModelError() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("litevision-cjk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        var entry = try ModelRegistry.bundled().model(named: "ink-ja")
        entry.bundled = nil
        let registry = ModelRegistry(models: [entry], cacheDirectory: cache.path)
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Paths.packageRoot.appendingPathComponent("models/ink-ja.tflite"), to: registry.cachedPath(entry))
        var options = DigitalInkRecognizerOptions(model: DigitalInkRecognitionModel(modelIdentifier: .japanese))
        options.modelManager = ModelManager(registry: registry)
        let ink = try XCTUnwrap(samples(Self.kanjiFile, count: 1).first).ink
        XCTAssertThrowsError(try DigitalInkRecognizer.digitalInkRecognizer(options: options).recognize(ink: ink)) { error in
            guard case TaskError.model(let message) = error, message.contains(".classes.txt") else { return XCTFail("\(error)") }
        }
    }

    /// Inks that are not characters still get readings or typed errors, never a crash or a stall: one point, one
    /// dot per piece across a wide line (every piece a candidate character), and too many pieces.
    func testOddInksAreReadOrRefused() throws {
        let r = recognizer()
        XCTAssertFalse(try r.recognize(ink: Ink(strokes: [Stroke(points: [StrokePoint(x: 5, y: 5)])])).candidates.isEmpty)
        let dots = Ink(strokes: (0..<40).map { Stroke(points: [StrokePoint(x: Float($0) * 10, y: 0), StrokePoint(x: Float($0) * 10 + 1, y: 1)]) })
        XCTAssertFalse(try r.recognize(ink: dots).candidates.isEmpty)
        let many = Ink(strokes: (0..<(CJKLineDecoder.maximumPieces + 1)).map { Stroke(points: [StrokePoint(x: Float($0) * 10, y: 0)]) })
        XCTAssertThrowsError(try r.recognize(ink: many)) { error in
            guard case TaskError.invalidArgument = error else { return XCTFail("\(error)") }
        }
    }

    /// Decoding weights that cannot mean anything are refused before any reading: a squeeze tolerance of zero or
    /// less (no fraction of a width), or a weight that is not a finite number.
    func testMeaninglessDecodingWeightsAreInvalidArguments() throws {
        let ink = Ink(strokes: [Stroke(points: [StrokePoint(x: 0, y: 0), StrokePoint(x: 10, y: 10)])])
        for change in [{ (o: inout CJKLineDecodingOptions) in o.squeezeTolerance = 0 }, { $0.squeezeTolerance = -1 },
                       { $0.squeezePenalty = .nan }, { $0.squeezeTolerance = .infinity }] {
            var options = DigitalInkRecognizerOptions(model: DigitalInkRecognitionModel(modelIdentifier: .japanese))
            change(&options.cjkDecoding)
            XCTAssertThrowsError(try DigitalInkRecognizer.digitalInkRecognizer(options: options).recognize(ink: ink)) { error in
                guard case TaskError.invalidArgument = error else { return XCTFail("\(error)") }
            }
        }
    }
}
