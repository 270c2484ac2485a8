import Foundation
@testable import LiteTasks
import XCTest

/// The direction planes the Chinese and Japanese character network reads, against tools/ink/cjk_features.py's
/// (Goldens/cjk.json, made by tools/ink/make_cjk_goldens.py): real inks read from ../shared/ink and hand-made edge cases.
/// The same goldens hold the character bigram model's (CharacterBigramModelTests).
final class InkDirectionPlanesTests: XCTestCase {
    struct Goldens: Decodable {
        struct Sample: Decodable {
            var file: String?; var line: Int?; var label: String?; var writer: String?
            var name: String?; var strokes: [[[Float?]]]?
            /// The non-zero values as [index, value].
            var values: [[Double]]
        }
        /// A small Japanese bigram model and natural-log P(b | a) of pairs (a nil: the start of the text).
        struct LanguageModel: Decodable {
            struct Query: Decodable {
                var previous: String?; var character: String; var logProbability: Double
                init(from decoder: Decoder) throws {
                    var fields = try decoder.unkeyedContainer()
                    previous = try fields.decode(String?.self)
                    character = try fields.decode(String.self)
                    logProbability = try fields.decode(Double.self)
                }
            }
            var arpa: String
            var queries: [Query]
        }
        /// A shipped network's ten likeliest characters under LiteRT for real inks: [class index, ln p].
        struct Network: Decodable {
            struct Output: Decodable { var file: String; var line: Int; var label: String; var top: [[Double]] }
            var modelSha256: String
            var samples: [Output]
            enum CodingKeys: String, CodingKey { case modelSha256 = "model_sha256", samples }
        }
        var size: Int
        var planes: Int
        var samples: [Sample]
        var languageModel: LanguageModel
        /// The networks by file name in models/ ("ink-ja.tflite", "ink-zh.tflite").
        var networks: [String: Network]

        enum CodingKeys: String, CodingKey { case size, planes, samples, languageModel = "language_model", networks }
    }

    static let goldens: Goldens = {
        let url = Paths.packageRoot.appendingPathComponent("Tests/LiteTasksTests/Goldens/cjk.json")
        return try! JSONDecoder().decode(Goldens.self, from: Data(contentsOf: url))
    }()

    func testPlanesMatchThePythonFeatures() throws {
        let goldens = Self.goldens
        XCTAssertEqual(goldens.size, InkDirectionPlanes.size)
        XCTAssertEqual(goldens.planes, InkDirectionPlanes.planes)
        XCTAssertGreaterThanOrEqual(goldens.samples.count, 10)
        for sample in goldens.samples {
            let strokes: [[StrokePoint]]
            let name: String
            if let file = sample.file, let line = sample.line, let label = sample.label, let writer = sample.writer {
                strokes = try InkGoldens.ink(file: file, line: line, label: label, writer: writer).strokes.map { $0.points }
                name = "\(file):\(line) \(label)"
            } else {
                strokes = sample.strokes!.map { $0.map { StrokePoint(x: $0[0]!, y: $0[1]!, t: nil) } }
                name = sample.name!
            }
            let planes = InkDirectionPlanes.compute(strokes)
            XCTAssertEqual(planes.count, goldens.size * goldens.size * goldens.planes, name)
            var expected = [Double](repeating: 0, count: planes.count)
            for pair in sample.values { expected[Int(pair[0])] = pair[1] }
            var worst = (0.0, 0)
            for (i, value) in planes.enumerated() where abs(Double(value) - expected[i]) > worst.0 {
                worst = (abs(Double(value) - expected[i]), i)
            }
            XCTAssertLessThan(worst.0, 1e-6, "\(name): value \(worst.1) is \(planes[worst.1]), Python's \(expected[worst.1])")
        }
    }

    /// The planes do not depend on where the ink is or how large: only on its shape.
    func testPlanesIgnoreTranslationAndScale() throws {
        let ink: [[StrokePoint]] = [[.init(x: 0, y: 0, t: nil), .init(x: 10, y: 5, t: nil), .init(x: 3, y: 12, t: nil)],
                                    [.init(x: 8, y: 0, t: nil), .init(x: 8, y: 12, t: nil)]]
        let moved = ink.map { $0.map { StrokePoint(x: $0.x * 40 + 1000, y: $0.y * 40 - 300, t: nil) } }
        let (a, b) = (InkDirectionPlanes.compute(ink), InkDirectionPlanes.compute(moved))
        XCTAssertEqual(a.count, b.count)
        XCTAssertLessThan(zip(a, b).map { abs($0 - $1) }.max()!, 1e-5)
        XCTAssertGreaterThan(a.reduce(0, +), 10)
    }

    /// Coordinates that are not finite give empty planes, not a trap; the largest finite ones are scaled like any.
    func testNonFiniteInksGiveEmptyPlanes() {
        for bad: [[StrokePoint]] in [[[.init(x: .nan, y: 0, t: nil), .init(x: 1, y: 1, t: nil)]],
                                     [[.init(x: 0, y: .infinity, t: nil)]]] {
            XCTAssertEqual(InkDirectionPlanes.compute(bad), [Float](repeating: 0, count: 32 * 32 * 9))
        }
        let huge = InkDirectionPlanes.compute([[.init(x: -.greatestFiniteMagnitude, y: 0, t: nil), .init(x: .greatestFiniteMagnitude, y: 1, t: nil)]])
        XCTAssertTrue(huge.allSatisfy(\.isFinite))
        XCTAssertGreaterThan(huge.reduce(0, +), 10)
    }
}
