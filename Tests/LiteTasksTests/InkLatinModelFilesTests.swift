import Foundation
@testable import LiteTasks
import XCTest

/// How a recognizer of a Latin-script language finds its files beside a network it may share: the network's
/// `.alphabet.txt`, the language's `.lexicon.tsv` and `.charset.txt` (named by the registry entry). The "en"
/// network stands in for the shared one, under a temporary registry entry "ink-es".
final class InkLatinModelFilesTests: XCTestCase {
    private var cache: URL!
    private var registry: ModelRegistry!
    private var base: String!

    override func setUpWithError() throws {
        cache = FileManager.default.temporaryDirectory.appendingPathComponent("litevision-latin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        var entry = try ModelRegistry.bundled().model(named: "ink-en")
        entry.bundled = nil
        entry.name = "ink-es"
        registry = ModelRegistry(models: [entry], cacheDirectory: cache.path)
        let model = registry.cachedPath(entry)
        try FileManager.default.copyItem(at: Paths.packageRoot.appendingPathComponent("models/ink-en.tflite"), to: model)
        base = model.deletingPathExtension().path
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: cache)
    }

    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    private func recognizer() -> DigitalInkRecognizer {
        var options = DigitalInkRecognizerOptions(model: DigitalInkRecognitionModel(modelIdentifier: .spanish))
        options.modelManager = ModelManager(registry: registry)
        return DigitalInkRecognizer.digitalInkRecognizer(options: options)
    }

    /// Printable ASCII with "~" (its last class) written as `last`.
    private func alphabet(last: String) -> String {
        (32..<126).map { String(UnicodeScalar(UInt8($0))) }.joined(separator: "\n") + "\n" + last + "\n"
    }

    func testTheLanguagesLexiconAlphabetAndCharsetAreRead() throws {
        try write(alphabet(last: "\u{F1}"), to: base + ".alphabet.txt")
        let lexicon = cache.appendingPathComponent("ink-es.lexicon.tsv").path
        try write("hola\t1000\nhello\t10\na\u{F1}o\t500\n", to: lexicon)
        try write("\u{E1} \u{F1} \u{BF}\n", to: cache.appendingPathComponent("ink-es.charset.txt").path)
        let r = recognizer()
        try r.loadModel()
        let result = try r.recognize(ink: InkGoldens.shared.synthetic("hello"))
        XCTAssertFalse(result.candidates.isEmpty)
        // The recognizer's language model is the shared one of ink-es's lexicon, for "es", with ñ (the network's
        // letter that the charset allows) among its letters.
        let shared = try InkLanguageModel.shared(path: lexicon, language: "es", extraLetters: ["\u{F1}"])
        XCTAssertEqual(shared.symbol(of: "\u{F1}"), 28)
        XCTAssertTrue(shared === (try InkLanguageModel.shared(path: lexicon, language: "es", extraLetters: ["\u{F1}"])))
    }

    func testAnAlphabetThatDoesNotMatchTheNetworkIsAModelError() throws {
        try write((33...126).map { String(UnicodeScalar(UInt8($0))) }.joined(separator: "\n"), to: base + ".alphabet.txt")
        XCTAssertThrowsError(try recognizer().loadModel()) { error in
            guard case TaskError.model(let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("96 classes") && message.contains("95") && message.contains(".alphabet.txt"), message)
        }
    }

    func testMalformedSidecarsAreModelErrors() throws {
        try write(alphabet(last: "a"), to: base + ".alphabet.txt")
        XCTAssertThrowsError(try recognizer().loadModel()) { error in
            guard case TaskError.model(let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("repeats line 66"), message)
        }
        try write(alphabet(last: "\u{F1}"), to: base + ".alphabet.txt")
        try Data([0x68, 0xFF, 0x0A]).write(to: cache.appendingPathComponent("ink-es.charset.txt"))
        XCTAssertThrowsError(try recognizer().loadModel()) { error in
            guard case TaskError.model(let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("ink-es.charset.txt") && message.contains("not UTF-8"), message)
        }
    }
}
