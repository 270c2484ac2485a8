import Foundation
import LiteTasks
import XCTest

/// The bounded ink JSON reader: the inks `JSONSerialization` would give, typed errors, limits met before memory grows.
final class InkJSONTests: XCTestCase {
    func parse(_ text: String, maximumPoints: Int = 1000, maximumStrokes: Int = 100) throws -> InkJSON.Document {
        try InkJSON.parse(Data(text.utf8), maximumPoints: maximumPoints, maximumStrokes: maximumStrokes)
    }

    func failure(_ text: String, maximumPoints: Int = 1000, maximumStrokes: Int = 100,
                 file: StaticString = #filePath, line: UInt = #line) -> InkJSON.Failure? {
        do {
            _ = try parse(text, maximumPoints: maximumPoints, maximumStrokes: maximumStrokes)
            XCTFail("\(text) was read", file: file, line: line)
            return nil
        } catch let error as InkJSON.Failure {
            return error
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
    }

    func testBothPointFormsTimesAndLabel() throws {
        let document = try parse("""
            {"label": "caf\\u00e9 \\ud83d\\ude00\\n", "extra": {"nested": [1, true, null, "x"]},
             "strokes": [[{"x": 1.5, "y": -2, "t": 10.4}, {"y": 3, "x": 4, "t": null, "pressure": 0.5}],
                         [[5, 6e1, 20], [7, 8], [9, 10, null, "ignored"]], []]}
            """)
        XCTAssertEqual(document.label, "café 😀\n")
        XCTAssertEqual(document.ink.strokes, [
            Stroke(points: [StrokePoint(x: 1.5, y: -2, t: 10), StrokePoint(x: 4, y: 3, t: nil)]),
            Stroke(points: [StrokePoint(x: 5, y: 60, t: 20), StrokePoint(x: 7, y: 8, t: nil), StrokePoint(x: 9, y: 10, t: nil)]),
            Stroke(points: []),
        ])
        XCTAssertNil(try parse("{\"strokes\": [], \"label\": 3}").label)
    }

    /// Random inks written by `JSONSerialization` in either point form read back as they were.
    func testReadsWhatJSONSerializationWrites() throws {
        var generator = SplitMix(seed: 53)
        for _ in 0..<200 {
            let strokes = (0..<Int(generator.next() % 5)).map { _ in
                Stroke(points: (0..<Int(generator.next() % 8)).map { _ in
                    StrokePoint(x: Float(Int(generator.next() % 20001) - 10000) / 8, y: Float(bitPattern: UInt32(truncatingIfNeeded: generator.next() % 0x7F00_0000)),
                                t: generator.next() % 3 == 0 ? nil : Int64(generator.next() % 1_000_000))
                })
            }
            let asObjects = generator.next() % 2 == 0
            let json: [String: Any] = ["label": "w", "strokes": strokes.map { $0.points.map { point -> Any in
                if asObjects {
                    var object: [String: Any] = ["x": Double(point.x), "y": Double(point.y)]
                    if let t = point.t { object["t"] = t }
                    return object
                }
                return [Double(point.x), Double(point.y)] + (point.t.map { [$0] } ?? [])
            } }]
            let document = try InkJSON.parse(try JSONSerialization.data(withJSONObject: json))
            XCTAssertEqual(document.ink.strokes, strokes)
            XCTAssertEqual(document.label, "w")
        }
    }

    func testShapeErrorsNameThePoint() {
        XCTAssertEqual(failure("{\"strokes\": [[{\"x\": 0, \"y\": 0, \"t\": \"soon\"}]]}")?.message,
                       "stroke 0 point 0 has a time (soon) that is not a number of milliseconds")
        XCTAssertEqual(failure("{\"strokes\": [[[0, 0, 0], [1, 2, 1e300]]]}")?.message,
                       "stroke 0 point 1 has a time (1e+300) that is not a number of milliseconds")
        XCTAssertEqual(failure("{\"strokes\": [[[0, 0]], [[1e39, 0]]]}")?.message,
                       "stroke 1 point 0 has a coordinate (1e+39) beyond a 32-bit float's range")
        XCTAssertEqual(failure("{\"strokes\": [[[-1e999, 0]]]}")?.message, "stroke 0 point 0 has a coordinate (-inf) beyond a 32-bit float's range")
        XCTAssertEqual(failure("{\"strokes\": [[[true, 0]]]}")?.kind, .notAnInk)
        XCTAssertEqual(failure("{\"strokes\": [[{\"x\": 1}]]}")?.kind, .notAnInk)
        XCTAssertEqual(failure("{\"strokes\": [5]}")?.message, "stroke 0 is not an array of points")
        XCTAssertEqual(failure("{\"lines\": []}")?.message, "the document has no \"strokes\" array")
        XCTAssertEqual(failure("{\"strokes\": {}}")?.kind, .notAnInk)
        XCTAssertEqual(failure("[1, 2]")?.message, "the document is not a JSON object")
    }

    /// Bytes that are not JSON are reported as such even when a shape error comes first in the text.
    func testSyntaxErrorsComeFirst() {
        for text in ["", "{", "{\"strokes\": [[{\"x\": 1,", "{\"strokes\": [[[NaN, 0]]]}", "{\"strokes\": []} x", "{\"strokes\": [[[01, 0]]]}",
                     "{\"strokes\": [[[1., 0]]]}", "{\"strokes\": [], \"a\": \"\u{1}\"}", "{\"strokes\": [], \"a\": \"\\x\"}", "{'strokes': []}",
                     "{\"strokes\": 5, \"a\": tru}", "{\"strokes\": [[[1e39, 0]]], \"a\": [}"] {
            XCTAssertEqual(failure(text)?.kind, .notJSON, text)
        }
    }

    func testNestingPointAndStrokeLimits() {
        let deep = "{\"strokes\": [], \"a\": " + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}"
        XCTAssertEqual(failure(deep)?.kind, .notJSON)
        XCTAssertTrue(failure(deep)?.message.contains("nest more than 512 deep") ?? false)
        let nested511 = "{\"strokes\": [], \"a\": " + String(repeating: "[", count: 510) + String(repeating: "]", count: 510) + "}"
        XCTAssertNoThrow(try parse(nested511))

        let points = "{\"strokes\": [[" + Array(repeating: "[1, 2]", count: 11).joined(separator: ",") + "]]}"
        XCTAssertEqual(try parse(points, maximumPoints: 11).ink.strokes[0].points.count, 11)
        XCTAssertEqual(failure(points, maximumPoints: 10)?.kind, .tooLarge)
        XCTAssertEqual(failure(points, maximumPoints: 10)?.message, "the ink has more than 10 points")
        let strokes = "{\"strokes\": [" + Array(repeating: "[[1, 2]]", count: 4).joined(separator: ",") + "]}"
        XCTAssertEqual(failure(strokes, maximumStrokes: 3)?.message, "the ink has more than 3 strokes")
        XCTAssertEqual(failure(points + "x", maximumPoints: 10)?.kind, .notJSON, "a size error in bytes that are not JSON")
    }

    func testMilliseconds() {
        XCTAssertEqual(InkJSON.milliseconds(12.5), 13)
        XCTAssertEqual(InkJSON.milliseconds(-3.2), -3)
        XCTAssertNil(InkJSON.milliseconds(.nan))
        XCTAssertNil(InkJSON.milliseconds(9e15))
    }
}

/// SplitMix64: a small seeded generator for test data.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
