import Foundation
@testable import LiteTasks
import XCTest

/// The network alphabet file (`<model>.alphabet.txt`), the language's character set (`<language>.charset.txt`) and
/// the masking of the classes a language does not write.
final class InkAlphabetTests: XCTestCase {
    func testAnAlphabetFileNamesTheClassesInOrder() throws {
        let alphabet = try InkAlphabet(parsing: "a\n \n\u{F1}\n\u{1EBF}\n\u{AB}\n", name: "test")
        XCTAssertEqual(alphabet.characters, ["a", " ", "\u{F1}", "\u{1EBF}", "\u{AB}"])
        XCTAssertEqual(alphabet.classCount, 6)
        XCTAssertEqual(alphabet.classIndex(of: "a"), 1)
        XCTAssertEqual(alphabet.classIndex(of: " "), 2)
        XCTAssertEqual(alphabet.classIndex(of: "\u{F1}"), 3)  // ñ
        XCTAssertEqual(alphabet.classIndex(of: "\u{1EBF}"), 4)  // ế
        XCTAssertEqual(alphabet.classIndex(of: "b"), 0)
        XCTAssertEqual(alphabet.classIndex(of: "\u{E9}"), 0)
        // Without a final newline the same classes.
        XCTAssertEqual(try InkAlphabet(parsing: "a\n \n\u{F1}\n\u{1EBF}\n\u{AB}", name: "test"), alphabet)
    }

    func testPrintableASCIIIsTheAlphabetWithoutAFile() throws {
        let ascii = InkAlphabet.printableASCII
        XCTAssertEqual(ascii.classCount, 96)
        XCTAssertEqual(ascii.characters.first, " ")
        XCTAssertEqual(ascii.characters.last, "~")
        XCTAssertEqual(ascii.classIndex(of: "A"), 34)
        let text = (32...126).map { String(UnicodeScalar(UInt8($0))) }.joined(separator: "\n") + "\n"
        XCTAssertEqual(try InkAlphabet(parsing: text, name: "ascii"), ascii)
    }

    func testMalformedAlphabetsAreModelErrors() {
        let cases: [(String, String)] = [
            ("", "has no characters"),
            ("\n", "line 1 () is 0 characters"),
            ("a\n\nb", "line 2 () is 0 characters"),
            ("a\nbc\n", "line 2 (U+62 U+63) is 2 characters"),
            ("a\r\nb", "line 1 (U+61 U+D) is 2 characters"),
            ("a\ne\u{301}\n", "line 2 (U+65 U+301) is one character of 2 Unicode scalars"),
            ("a\n\u{301}\n", "a control character or a combining mark"),
            ("a\n\t\n", "a control character or a combining mark"),
            ("a\nb\na\n", "line 3 (U+61) repeats line 1"),
            ("a\nb\n\n", "line 3 () is 0 characters"),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try InkAlphabet(parsing: text, name: "bad.alphabet.txt"), text.debugDescription) { error in
                guard case TaskError.model(let description) = error else { return XCTFail("\(text.debugDescription): \(error)") }
                XCTAssertTrue(description.contains("bad.alphabet.txt"), description)
                XCTAssertTrue(description.contains(message), "\(text.debugDescription): \(description)")
            }
        }
    }

    func testACharsetIsItsCharactersWhateverTheSpacing() throws {
        let charset = try InkAlphabet.charset(parsing: "\u{E1} \u{E9}\t\u{ED}\n\u{F1}\u{BF}  \u{A1}\n", name: "es")
        XCTAssertEqual(charset, ["\u{E1}", "\u{E9}", "\u{ED}", "\u{F1}", "\u{BF}", "\u{A1}"])
        XCTAssertEqual(try InkAlphabet.charset(parsing: "", name: "empty"), [])
        XCTAssertThrowsError(try InkAlphabet.charset(parsing: "\u{E1} e\u{301}", name: "nfd.charset.txt")) { error in
            guard case TaskError.model(let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("nfd.charset.txt") && message.contains("U+65 U+301"), message)
        }
    }

    /// Printable ASCII and the charset's characters stay; every other class becomes -infinity in every frame.
    func testClassesOutsideTheCharsetAreMasked() throws {
        let alphabet = try InkAlphabet(parsing: ["a", "\u{F1}", "\u{DF}", "\u{131}", "!", "\u{AB}"].joined(separator: "\n"), name: "test")
        let allowed = alphabet.allowed(byCharset: ["\u{F1}", "\u{AB}"])
        XCTAssertEqual(allowed, [true, true, false, false, true, true])
        let classes = alphabet.classCount
        var logProbabilities = (0..<(3 * classes)).map { -Float($0 % classes) - 0.5 }
        let before = logProbabilities
        InkAlphabet.mask(&logProbabilities, classes: classes, allowed: allowed)
        for row in 0..<3 {
            for c in 0..<classes {
                let value = logProbabilities[row * classes + c]
                if c == 3 || c == 4 {
                    XCTAssertEqual(value, -.infinity, "row \(row) class \(c)")
                } else {
                    XCTAssertEqual(value, before[row * classes + c], "row \(row) class \(c)")
                }
            }
        }
    }

    /// A masked class is never emitted even when the network prefers it: "ß" (masked) loses to "s".
    func testTheSearchNeverEmitsAMaskedClass() throws {
        let alphabet = try InkAlphabet(parsing: "s\n\u{DF}\n", name: "test")
        let classes = alphabet.classCount
        // Three frames: blank, then ß 0.7 against s 0.3, then blank.
        var logProbabilities: [Float] = [0, -30, -30, -30, log(0.3), log(0.7), 0, -30, -30]
        func best() -> String {
            let top = CTCBeamSearch().decode(logProbabilities: logProbabilities, classes: classes, alphabet: alphabet, languageModel: nil,
                                             starts: [([], nil, 0)], results: 1)
            return String(String.UnicodeScalarView(top[0].text))
        }
        XCTAssertEqual(best(), "\u{DF}")
        InkAlphabet.mask(&logProbabilities, classes: classes, allowed: alphabet.allowed(byCharset: []))
        XCTAssertEqual(best(), "s")
    }
}
