import Foundation
@testable import LiteTasks
import XCTest

/// The character bigram model of the Chinese and Japanese recognizers against the ARPA tables it reads
/// (Goldens/cjk.json: a small Japanese model made by tools/ink/make_cjk_language_model.py and the pairs'
/// probabilities computed from its tables by tools/ink/make_cjk_goldens.py).
final class CharacterBigramModelTests: XCTestCase {
    /// The bigram model scores pairs as tools/ink/make_cjk_goldens.py computes them from the same ARPA tables: seen
    /// and unseen pairs, the start of the text, characters the model does not list.
    func testCharacterBigramModelMatchesItsTables() throws {
        let golden = InkDirectionPlanesTests.goldens.languageModel
        let model = try CharacterBigramModel(arpa: golden.arpa, path: "cjk.json")
        XCTAssertGreaterThanOrEqual(golden.queries.count, 15)
        for query in golden.queries {
            let value = model.logProbability(of: query.character, after: query.previous)
            XCTAssertEqual(Double(value), query.logProbability, accuracy: 1e-4, "\(query.previous ?? "start") -> \(query.character)")
        }
        // After any character, the next one's probabilities sum to 1 less the chance of an empty word (a word end
        // right after a word start): a distribution, which a copy of the formula could not show.
        for previous in [nil, "日", "の", "ん"] as [String?] {
            let sum = model.characters.reduce(0.0) { $0 + exp(Double(model.logProbability(of: $1, after: previous))) }
            XCTAssertEqual(sum, 1, accuracy: 0.02, "after \(previous ?? "the start")")
        }
        // A likely pair scores above an unlikely one (日本 against 本日 after 本's statistics).
        XCTAssertGreaterThan(model.logProbability(of: "本", after: "日"), model.logProbability(of: "日", after: "本"))
    }

    /// Malformed files are typed errors that name the line.
    func testMalformedBigramModelsAreRefused() {
        let good = "\\data\\\nngram 1=3\nngram 2=1\n\n\\1-grams:\n-99\t<s>\t-0.3\n-0.5\t</s>\n-0.2\t日\t-0.1\n\n\\2-grams:\n-0.1\t日 </s>\n\n\\end\\\n"
        XCTAssertNoThrow(try CharacterBigramModel(arpa: good, path: "good"))
        var cases: [(String, String)] = [
            (good.replacingOccurrences(of: "\\end\\\n", with: ""), "does not end"),
            (good.replacingOccurrences(of: "-0.1\t日 </s>", with: "-0.1\t日 月"), "not a unigram"),
            (good.replacingOccurrences(of: "ngram 2=1", with: "ngram 2=0"), "more bigrams than"),
            (good.replacingOccurrences(of: "-0.2\t日", with: "0.5\t日"), "line 8"),
            (good.replacingOccurrences(of: "-0.2\t日", with: "nan\t日"), "line 8"),
            (good.replacingOccurrences(of: "ngram 1=3", with: "ngram 1=99999999999"), "at most"),
            (good.replacingOccurrences(of: "\\2-grams:", with: "\\3-grams:"), "section"),
            (good.replacingOccurrences(of: "ngram 1=3", with: "ngram 1=2"), "more unigrams than"),
            (good.replacingOccurrences(of: "-99\t<s>\t-0.3\n", with: ""), "no <s>"),
        ]
        XCTAssertNoThrow(try CharacterBigramModel(arpa: good.replacingOccurrences(of: "\n", with: "\r\n"), path: "crlf"), "CRLF line ends")
        cases += [
            (good.replacingOccurrences(of: "-0.2\t日", with: "-1e30\t日"), "line 8"),
            (good.replacingOccurrences(of: "-0.2\t日\t-0.1", with: "-0.2\t日\t-1e30"), "backoff weight"),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try CharacterBigramModel(arpa: text, path: "bad")) { error in
                XCTAssertTrue("\(error)".contains(message), "\(message): \(error)")
            }
        }
    }
}
