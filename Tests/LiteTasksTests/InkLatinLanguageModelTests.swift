import Foundation
@testable import LiteTasks
import XCTest

/// The language model over letters beyond ASCII: accented words, Unicode's case pairs and Turkish's, the quotes and
/// marks of the Latin-script languages, and lexicons that are too big or not text.
final class InkLatinLanguageModelTests: XCTestCase {
    let spanish = "a\u{F1}o\t500\nni\u{F1}o\t300\nano\t100\nque\t1000\nla\t2000\nmadrid\t50\tN\n"  // año, niño

    func model(_ text: String, language: String? = nil, extraLetters: [Unicode.Scalar] = []) throws -> InkLanguageModel {
        try InkLanguageModel(data: Data(text.utf8), name: "test", language: language, extraLetters: extraLetters)
    }

    func logProbability(_ model: InkLanguageModel, _ text: String, after context: String = "") -> Double {
        model.logProbability(of: text, after: context)
    }

    /// a-z keep 1...26 and the apostrophe 27; the other letters follow in scalar order, whatever order they are met in.
    func testLettersBeyondASCIIFollowTheFixedSymbols() throws {
        let m = try model("stra\u{DF}e\t10\nti\u{1EBF}ng\t10\na\u{F1}o\t10\ndon't\t10\n")  // straße, tiếng, año
        XCTAssertEqual(m.symbol(of: "a"), 1)
        XCTAssertEqual(m.symbol(of: "Z"), 26)
        XCTAssertEqual(m.symbol(of: "'"), 27)
        XCTAssertEqual(m.symbol(of: "\u{DF}"), 28)  // ß
        XCTAssertEqual(m.symbol(of: "\u{F1}"), 29)  // ñ
        XCTAssertEqual(m.symbol(of: "\u{1EBF}"), 30)  // ế
        XCTAssertEqual(m.symbolCount, 31)
        XCTAssertEqual(m.symbol(of: "\u{D1}"), 29)  // Ñ
        XCTAssertEqual(m.symbol(of: "\u{1EBE}"), 30)  // Ế
        XCTAssertNil(m.symbol(of: "\u{E7}"))  // ç: in no word
        XCTAssertNil(m.symbol(of: "-"))
        // The same words in another order: the same symbols and probabilities.
        let reordered = try model("don't\t10\na\u{F1}o\t10\nti\u{1EBF}ng\t10\nstra\u{DF}e\t10\n")
        XCTAssertEqual(reordered.symbol(of: "\u{F1}"), 29)
        for text in ["a\u{F1}o", "stra\u{DF}e", "ti\u{1EBF}ng", "\u{F1}\u{DF}", "Ti\u{1EBF}ng"] {
            XCTAssertEqual(logProbability(reordered, text), logProbability(m, text), text)
        }
    }

    func testAccentedLexiconWordsAreWords() throws {
        let m = try model(spanish, language: "es")
        XCTAssertNotNil(m.state(after: "ni\u{F1}").node, "niñ is a lexicon prefix")
        XCTAssertGreaterThan(logProbability(m, "a\u{F1}o"), logProbability(m, "a\u{F1}a") + 3)
        XCTAssertGreaterThan(logProbability(m, "ni\u{F1}o"), logProbability(m, "nino") + 3)
        // Upper case by Unicode: Ñ is ñ's, and a capitalized word begins a sentence.
        XCTAssertGreaterThan(logProbability(m, "A\u{D1}O"), logProbability(m, "A\u{D1}o") + 1)
        XCTAssertGreaterThan(logProbability(m, "A\u{F1}o", after: "Hola. "), logProbability(m, "a\u{F1}o", after: "Hola. ") + 1)
        XCTAssertGreaterThan(logProbability(m, "a\u{F1}o", after: "el "), logProbability(m, "A\u{F1}o", after: "el ") + 1)
    }

    /// "ß" upper-cases to "SS" in Unicode's mapping, but "ẞ" lower-cases to it: the two are a pair.
    func testGermanSharpSAndItsCapital() throws {
        let m = try model("stra\u{DF}e\t100\nstrasse\t1\n", language: "de")
        XCTAssertEqual(m.symbol(of: "\u{1E9E}"), m.symbol(of: "\u{DF}"))
        XCTAssertEqual(m.letters.symbol(of: "\u{1E9E}")?.upper, true)
        XCTAssertEqual(m.letters.symbol(of: "\u{DF}")?.upper, false)
        XCTAssertGreaterThan(logProbability(m, "stra\u{DF}e"), logProbability(m, "strasse") + 3)
        XCTAssertGreaterThan(logProbability(m, "STRA\u{1E9E}E"), logProbability(m, "STRA\u{DF}E") + 1)
    }

    /// Turkish pairs ı with I and i with İ: "IŞIK" is "ışık" in capitals and "İstanbul" is "istanbul"'s name form;
    /// other languages pair i with I.
    func testTurkishDottedAndDotlessI() throws {
        let lexicon = "\u{131}\u{15F}\u{131}k\t100\nistanbul\t100\tN\n"  // ışık, istanbul
        let turkish = try model(lexicon, language: "tr")
        XCTAssertEqual(turkish.symbol(of: "I"), turkish.symbol(of: "\u{131}"))
        XCTAssertEqual(turkish.symbol(of: "\u{130}"), turkish.symbol(of: "i"))
        XCTAssertNotEqual(turkish.symbol(of: "I"), turkish.symbol(of: "i"))
        XCTAssertEqual(turkish.letters.symbol(of: "I")?.upper, true)
        XCTAssertEqual(turkish.letters.symbol(of: "\u{130}")?.upper, true)
        XCTAssertGreaterThan(logProbability(turkish, "I\u{15E}IK"), logProbability(turkish, "\u{130}\u{15E}\u{130}K") + 3)
        XCTAssertGreaterThan(logProbability(turkish, "\u{130}stanbul"), logProbability(turkish, "Istanbul") + 3)
        XCTAssertGreaterThan(logProbability(turkish, "\u{130}stanbul"), logProbability(turkish, "istanbul") + 1)
        // Azerbaijani pairs them the same way.
        XCTAssertEqual(try model(lexicon, language: "az").symbol(of: "I"), turkish.symbol(of: "\u{131}"))
        // German: I is i's capital, İ a letter of its own (its lower case is two scalars).
        let german = try model(lexicon, language: "de", extraLetters: ["\u{130}"])
        XCTAssertEqual(german.symbol(of: "I"), german.symbol(of: "i"))
        XCTAssertNotEqual(german.symbol(of: "\u{130}"), german.symbol(of: "i"))
        XCTAssertGreaterThan(logProbability(german, "Istanbul"), logProbability(german, "\u{130}stanbul") + 3)
    }

    /// The language is part of what the shared model is cached by.
    func testTheSharedModelIsOnePerLanguage() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lexicon-\(UUID().uuidString).tsv")
        try Data("\u{131}\u{15F}\u{131}k\t100\n".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let turkish = try InkLanguageModel.shared(path: url.path, language: "tr")
        let german = try InkLanguageModel.shared(path: url.path, language: "de")
        XCTAssertTrue(turkish === (try InkLanguageModel.shared(path: url.path, language: "tr")))
        XCTAssertFalse(turkish === german)
        XCTAssertNotEqual(turkish.symbol(of: "I"), german.symbol(of: "I"))
        XCTAssertFalse(german === (try InkLanguageModel.shared(path: url.path, language: "de", extraLetters: ["\u{E7}"])))
    }

    func testVietnameseLettersWithTwoMarks() throws {
        let m = try model("ti\u{1EBF}ng\t1000\nvi\u{1EC7}t\t800\n", language: "vi")  // tiếng, việt
        XCTAssertGreaterThan(logProbability(m, "ti\u{1EBF}ng"), logProbability(m, "ti\u{1EC7}ng") + 3)
        XCTAssertGreaterThan(logProbability(m, "Vi\u{1EC7}t", after: "Xin. "), logProbability(m, "vi\u{1EC7}t", after: "Xin. ") + 1)
        XCTAssertEqual(m.symbol(of: "\u{1EC6}"), m.symbol(of: "\u{1EC7}"))  // Ệ, ệ
    }

    /// A letter the network writes that no word has still gets a symbol, and the character model its back-off
    /// probability; without it the letter is a rare symbol that ends the word.
    func testANetworkLetterOutsideTheLexiconIsStillALetter() throws {
        let with = try model(spanish, language: "es", extraLetters: ["\u{E7}", "\u{C7}"])  // ç, Ç
        let without = try model(spanish, language: "es")
        XCTAssertEqual(with.symbol(of: "\u{E7}"), 28)
        XCTAssertEqual(with.symbol(of: "\u{F1}"), 29)
        XCTAssertEqual(with.symbol(of: "\u{C7}"), 28)
        XCTAssertEqual(with.symbolCount, 30)
        XCTAssertNil(without.symbol(of: "\u{E7}"))
        let symbol = try XCTUnwrap(with.symbol(of: "\u{E7}"))
        let p = with.ngramProbability(symbol, history: [0, 0, 0][...])
        XCTAssertGreaterThan(p, 0)
        XCTAssertLessThan(p, with.ngramProbability(with.symbol(of: "a")!, history: [0, 0, 0][...]))
        // Inside a word: a letter (the word goes on), not a symbol's flat cost and a new word.
        let state = with.extend(with.state(after: "a"), with: "\u{E7}").1
        XCTAssertTrue(state.inWord)
        XCTAssertFalse(without.extend(without.state(after: "a"), with: "\u{E7}").1.inWord)
    }

    func testTheMarksOfLatinScriptLanguagesArePunctuation() {
        for mark in ["\u{AB}", "\u{BB}", "\u{BF}", "\u{A1}", "\u{2039}", "\u{203A}", "\u{201E}", "\u{201C}", "\u{201D}", "\u{2018}", "\u{2019}"] as [Unicode.Scalar] {
            XCTAssertEqual(InkLanguageModel.symbolLogProbability(mark), InkLanguageModel.punctuationLogProbability, "\(mark)")
            XCTAssertEqual(InkLanguageModel.loneCharacterLogProbability(mark), InkLanguageModel.loneCharacterLogProbability("?"), "\(mark)")
        }
        for symbol in ["\u{20AC}", "\u{A7}", "\u{B0}"] as [Unicode.Scalar] {
            XCTAssertEqual(InkLanguageModel.symbolLogProbability(symbol), InkLanguageModel.rareSymbolLogProbability, "\(symbol)")
        }
        // A letter beyond ASCII has an ASCII letter's share as a lone character, in its case.
        XCTAssertEqual(InkLanguageModel.loneCharacterLogProbability("\u{F1}"), InkLanguageModel.loneCharacterLogProbability("n"))
        XCTAssertEqual(InkLanguageModel.loneCharacterLogProbability("\u{D1}"), InkLanguageModel.loneCharacterLogProbability("N"))
        XCTAssertEqual(InkLanguageModel.loneCharacterLogProbability("\u{131}"), InkLanguageModel.loneCharacterLogProbability("i"))
    }

    /// "¿" and "¡" open a sentence as a bracket does, "«" as an opening quote, "»" closes as a closing quote.
    func testOpeningMarksKeepASentenceStart() throws {
        let m = try model(spanish, language: "es")
        func capitalizedGain(after context: String) -> Double { logProbability(m, "Que", after: context) - logProbability(m, "que", after: context) }
        for context in ["Hola. \u{BF}", "Hola. \u{A1}", "Fin. \u{AB}", "Fin. \u{AB}\u{BF}", "dijo.\u{BB} ", "\u{BF}Qu\u{E9}?\u{BB} "] {
            XCTAssertGreaterThan(capitalizedGain(after: context), 1, context)
        }
        for context in ["Hola, \u{BF}", "la \u{AB}", "", "dijo\u{BB} "] {
            XCTAssertLessThan(capitalizedGain(after: context), -1, context)
        }
        XCTAssertTrue(m.state(after: "Hola. \u{BF}").sentenceStart)
        XCTAssertTrue(m.state(after: "fin.\u{BB}").endsSentence)
        XCTAssertFalse(m.state(after: "fin\u{BB}").endsSentence)
    }

    func testHostileLexiconsAreModelErrors() throws {
        // 110 lower-case letters beyond ASCII: with a-z and the apostrophe, more than 126.
        let letters = (Array(0x430...0x45F) + Array(0x561...0x586) + Array(0x3B1...0x3C1) + Array(0x3C3...0x3C9)).map { Unicode.Scalar($0)! }
        XCTAssertEqual(Set(letters).count, 110)
        let tooMany = letters.map { "\($0)a\t10" }.joined(separator: "\n")
        let fits = letters.prefix(99).map { "\($0)a\t10" }.joined(separator: "\n")
        XCTAssertEqual(try model(fits).symbolCount, 127)
        let cases: [(Data, String)] = [
            (Data(tooMany.utf8), "line 100: the lexicon has more than 126 distinct letters"),
            (Data((String(repeating: "\u{F1}", count: 256) + "\t10").utf8), "line 1 holds a word longer than 255 characters"),
            (Data((String(repeating: "a", count: 1021) + "\t10").utf8), "line 1 holds a word longer than 255 characters"),
            (Data([0x61, 0xC3, 0x09, 0x31, 0x30]), "line 1: the word is not UTF-8 text"),
            (Data("ok\t10\n".utf8) + Data([0xFF, 0xFE, 0x09, 0x31, 0x30]), "line 2: the word is not UTF-8 text"),
            (Data([0xED, 0xA0, 0x80, 0x09, 0x31, 0x30]), "line 1: the word is not UTF-8 text"),  // a surrogate
            (Data("\u{20AC}uro\t10".utf8), "line 1: a word may hold only letters and '"),
            (Data("e\u{301}\t10".utf8), "line 1: a word may hold only letters and '"),  // a combining mark
        ]
        for (data, message) in cases {
            XCTAssertThrowsError(try InkLanguageModel(data: data, name: "hostile.tsv")) { error in
                guard case TaskError.model(let description) = error else { return XCTFail("\(message): \(error)") }
                XCTAssertTrue(description.contains("hostile.tsv") && description.contains(message), "\(message): \(description)")
            }
        }
        XCTAssertThrowsError(try model(fits, extraLetters: [letters[99]])) { error in
            guard case TaskError.model(let description) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(description.contains("the network's letters together have more than 126 distinct letters"), description)
        }
        XCTAssertEqual(try model(String(repeating: "\u{F1}", count: 255) + "\t10").wordCount, 1)
    }
}
