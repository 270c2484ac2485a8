import Foundation
@testable import LiteTasks
import XCTest

/// How the Chinese and Japanese line decoder cuts a line into pieces and chooses among the ways to read them, with a
/// stand-in for the character network (the real network's readings are tested in CJKRecognitionTests).
final class CJKLineDecoderTests: XCTestCase {
    /// A straight stroke from (x0, y0) to (x1, y1), y down.
    private func stroke(_ x0: Float, _ y0: Float, _ x1: Float, _ y1: Float) -> [StrokePoint] {
        (0...4).map { i in StrokePoint(x: x0 + (x1 - x0) * Float(i) / 4, y: y0 + (y1 - y0) * Float(i) / 4) }
    }

    /// 口 (left side; top and right side; bottom) then 十 to its right: the first character's second stroke lies right
    /// of its first, so 口 is cut in two; 十 starts right of all of 口 and is a piece of its own.
    func testPiecesCutWhereAStrokeStartsRightOfThePieceSoFar() {
        let strokes = [stroke(0, 0, 0, 10), stroke(0, 0, 10, 0) + stroke(10, 0, 10, 10).dropFirst(), stroke(0, 10, 10, 10),
                       stroke(14, 5, 24, 5), stroke(19, 0, 19, 10)]
        let pieces = CJKLineDecoder.pieces(strokes)
        XCTAssertEqual(pieces.map(\.strokes), [[0], [1, 2], [3, 4]])
        XCTAssertEqual(pieces[1].box.minX, 0)
        XCTAssertEqual(pieces[2].box.maxX, 24)
    }

    /// 口 written wide enough that no piece pays the narrowness penalty (left side; top and right side; bottom),
    /// then 十: the whole of 口 against its two pieces read apart.
    private var square: [[StrokePoint]] {
        let left = stroke(0, 0, 4.5, 10)  // slanting: 0.45 of the height wide
        let topAndRight = stroke(5, 0, 10, 0) + stroke(10, 0, 10, 10).dropFirst()
        return [left, topAndRight, stroke(0, 10, 10, 10), stroke(14, 5, 24, 5), stroke(19, 0, 19, 10)]
    }

    /// The search reads pieces together when the network is surer of the whole than of its parts (口, not イ and
    /// コ), and apart when it is surer of the parts; a span wider than a character is never read.
    func testTheSearchMergesAndSplitsPiecesByTheNetworksOpinion() throws {
        XCTAssertEqual(CJKLineDecoder.pieces(square).map { $0.strokes }, [[0], [1, 2], [3, 4]])
        var spans: [[Int]] = []
        func read(wholeScore: Float, partScore: Float) -> ([Int]) -> [CJKLineDecoder.Candidate] {
            { group in
                spans.append(group)
                switch group {
                case [0, 1, 2]: return [("口", wholeScore, nil), ("日", wholeScore - 3, nil)]
                case [0]: return [("イ", partScore, nil), ("ノ", partScore - 3, nil)]
                case [1, 2]: return [("コ", partScore, nil), ("己", partScore - 3, nil)]
                case [3, 4]: return [("十", -0.05, nil), ("干", -4, nil)]
                default: return [("田", -8, nil)]
                }
            }
        }
        let decoder = CJKLineDecoder()
        let merged = try decoder.decode(square, previous: nil, results: 5, read: read(wholeScore: -0.1, partScore: -4), bigram: { _, _ in -3 })
        XCTAssertEqual(merged.first?.characters, ["口", "十"])
        XCTAssertEqual(merged.first?.strokes, [[0, 1, 2], [3, 4]])
        XCTAssertEqual(Set(merged.map { $0.characters.joined() }).count, merged.count, "one reading per text")
        let scores = merged.map { $0.score }
        XCTAssertEqual(scores, scores.sorted(by: >))
        XCTAssertFalse(spans.contains { $0.contains(0) && $0.contains(3) }, "口 and 十 together are wider than a character")
        let split = try decoder.decode(square, previous: nil, results: 5, read: read(wholeScore: -3, partScore: -0.2), bigram: { _, _ in -3 })
        XCTAssertEqual(split.first?.characters, ["イ", "コ", "十"])
    }

    /// A span read as a character it is much narrower than (土 from the left half of 坊) pays the squeeze cost, so the
    /// whole reads as one character even where the network likes the halves; a character that is narrow by nature
    /// (日) written narrow pays nothing.
    func testAComponentReadAsAWideCharacterPaysForTheSqueeze() throws {
        // 坊 as two pieces side by side, each 0.5 of the height wide: 土 | 方.
        let strokes = [stroke(0, 5, 5, 5), stroke(2.5, 0, 2.5, 10), stroke(5.5, 0, 10.5, 10), stroke(10.5, 0, 5.5, 10)]
        XCTAssertEqual(CJKLineDecoder.pieces(strokes).map(\.strokes), [[0, 1], [2, 3]])
        func read(_ group: [Int]) -> [CJKLineDecoder.Candidate] {
            switch group {
            case [0, 1]: return [("土", -0.1, 0.98), ("日", -1.5, 0.54)]
            case [2, 3]: return [("方", -0.1, 0.96)]
            default: return [("坊", -1.5, 1.02)]
            }
        }
        var decoder = CJKLineDecoder()
        decoder.options.characterBonus = 1
        decoder.options.squeezePenalty = 0
        XCTAssertEqual(try decoder.decode(strokes, previous: nil, results: 3, read: read, bigram: { _, _ in -3 }).first?.characters, ["土", "方"])
        decoder.options.squeezePenalty = 4
        decoder.options.squeezeTolerance = 0.8
        XCTAssertEqual(try decoder.decode(strokes, previous: nil, results: 3, read: read, bigram: { _, _ in -3 }).first?.characters, ["坊"])
        // log(0.8 · 0.98 / 0.5) = 0.45 for 土 at half its width; 日 at 0.5 is 0.93 of its canonical 0.54: free.
        XCTAssertEqual(decoder.squeeze(0.5, canonical: 0.98), 4 * log(0.8 * 0.98 / 0.5), accuracy: 1e-5)
        XCTAssertEqual(decoder.squeeze(0.5, canonical: 0.54), 0)
        XCTAssertEqual(decoder.squeeze(0.5, canonical: nil), 0)
    }

    /// The bigram model decides between readings the network cannot tell apart, and the pre-context's last
    /// character is what the first character is scored after.
    func testTheLanguageModelAndThePreContextBreakTies() throws {
        let strokes = [stroke(0, 0, 10, 10)]
        func read(_ group: [Int]) -> [CJKLineDecoder.Candidate] { [("未", -0.7, nil), ("末", -0.7, nil)] }
        func bigram(_ character: String, _ previous: String?) -> Float {
            switch (previous, character) {
            case ("週", "末"): return -1
            case (nil, "未"): return -2
            default: return -6
            }
        }
        let decoder = CJKLineDecoder()
        XCTAssertEqual(try decoder.decode(strokes, previous: nil, results: 2, read: read, bigram: bigram).first?.characters, ["未"])
        XCTAssertEqual(try decoder.decode(strokes, previous: "週", results: 2, read: read, bigram: bigram).first?.characters, ["末"])
    }

    /// Nothing to read is no reading, not a crash.
    func testAnInkWithoutPointsHasNoReadings() throws {
        let readings = try CJKLineDecoder().decode([[]], previous: nil, results: 3, read: { _ in [("一", 0, nil)] }, bigram: { _, _ in 0 })
        XCTAssertTrue(readings.isEmpty)
    }
}
