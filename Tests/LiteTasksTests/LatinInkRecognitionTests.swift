import Foundation
@testable import LiteTasks
import XCTest

/// Spanish, Turkish, German, French, Portuguese, Italian and Vietnamese through the shipped Latin-script network and
/// each language's lexicon: Hershey-font inks of words with their marks drawn in (tools/ink/make_ink_goldens.py,
/// LATIN_WORDS), read as a user of the language's model would.
final class LatinInkRecognitionTests: XCTestCase {
    /// A pre-context in each language that the words below may follow.
    static let preContexts = ["es": "Es el ", "tr": "Bu bir ", "de": "Das ist ", "fr": "C'est le ", "pt": "Ele disse ", "it": "Non è ", "vi": "Tôi nói "]

    func recognizer(_ language: String) throws -> DigitalInkRecognizer {
        let identifier = try XCTUnwrap(DigitalInkRecognitionModelIdentifier(forLanguageTag: language), language)
        return DigitalInkRecognizer(options: DigitalInkRecognizerOptions(model: DigitalInkRecognitionModel(modelIdentifier: identifier)))
    }

    func ink(_ word: InkGoldens.LatinWord) -> Ink {
        Ink(strokes: word.strokes.map { Stroke(points: $0.map { StrokePoint(x: $0[0], y: $0[1]) }) })
    }

    /// Every word is among the first five readings, and at least `leastTopOne` of the 14 are the first. Two are not
    /// (measured): Turkish "ışık", whose ı is in the print font the same stroke as I ("Işık" first), and German
    /// "Straße", whose ß is drawn as the Greek font's β ("strafe" first).
    static let leastTopOne = 12

    func testEachLanguageReadsItsWordsWithTheirMarks() throws {
        try readEveryWord { _ in DigitalInkRecognitionContext() }
    }

    func testThePreContextIsReadInEachLanguage() throws {
        try readEveryWord { language in DigitalInkRecognitionContext(preContext: Self.preContexts[language] ?? "") }
    }

    func readEveryWord(context: (String) -> DigitalInkRecognitionContext) throws {
        var first = 0
        for word in InkGoldens.shared.latin {
            let result = try recognizer(word.language).recognize(ink: ink(word), context: context(word.language))
            let texts = result.candidates.map(\.text)
            XCTAssertTrue(texts.prefix(5).contains(word.text), "\(word.language): \(word.text) read as \(texts.prefix(5))")
            first += texts.first == word.text ? 1 : 0
        }
        XCTAssertGreaterThanOrEqual(first, Self.leastTopOne)
    }

    /// A pre-context with its marks as combining characters ("e" + U+0301) reads as the composed one.
    func testADecomposedPreContextReadsAsTheComposedOne() throws {
        let word = try XCTUnwrap(InkGoldens.shared.latin.first { $0.text == "niño" })
        let composed = "Él está", decomposed = "E\u{301}l esta\u{301}"
        XCTAssertNotEqual(Array(composed.unicodeScalars), Array(decomposed.unicodeScalars))
        let recognizer = try recognizer("es")
        let a = try recognizer.recognize(ink: ink(word), context: DigitalInkRecognitionContext(preContext: composed))
        let b = try recognizer.recognize(ink: ink(word), context: DigitalInkRecognitionContext(preContext: decomposed))
        XCTAssertEqual(a.candidates.map(\.text), b.candidates.map(\.text))
        XCTAssertEqual(a.candidates.first?.score, b.candidates.first?.score)
    }

    /// A language's readings hold only printable ASCII and the characters of its charset: a Spanish reading of
    /// Turkish ink has no ı or ş, a Turkish reading of Vietnamese ink no tone marks.
    func testALanguageWritesOnlyItsOwnCharacters() throws {
        let charsets = try Dictionary(uniqueKeysWithValues: ["es", "tr", "de", "vi"].map { language in
            let text = try String(contentsOf: Paths.packageRoot.appendingPathComponent("models/ink-\(language).charset.txt"), encoding: .utf8)
            return (language, Set(text.unicodeScalars.filter { !$0.properties.isWhitespace }))
        })
        let pairs = [("es", "ışık"), ("tr", "tiếng"), ("de", "người"), ("vi", "Straße")]
        for (language, text) in pairs {
            let word = try XCTUnwrap(InkGoldens.shared.latin.first { $0.text == text })
            let result = try recognizer(language).recognize(ink: ink(word))
            XCTAssertFalse(result.candidates.isEmpty)
            for candidate in result.candidates {
                let foreign = candidate.text.unicodeScalars.filter { !(32...126).contains($0.value) && !charsets[language]!.contains($0) }
                XCTAssertTrue(foreign.isEmpty, "\(language) read \(text) as \(candidate.text)")
            }
        }
    }
}
