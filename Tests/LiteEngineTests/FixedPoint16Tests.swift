import Foundation
@testable import LiteEngine
import LiteTasks
import XCTest

/// gemmlowp's 16-bit logistic and tanh, which the integer LSTM's gates go through, on all 65,536 inputs against
/// gemmlowp itself (tools/make_fixedpoint_goldens.py compiles its header from TensorFlow's wheel and records a
/// SHA-256 of every table plus every 257th value).
final class FixedPoint16Tests: XCTestCase {
    struct Golden: Decodable {
        let sha256: String
        let samples: [String: Int]
    }

    func testEveryInputMatchesGemmlowp() throws {
        let url = TestPaths.packageRoot.appendingPathComponent("Tests/LiteEngineTests/Goldens/fixedpoint16.json")
        let goldens = try JSONDecoder().decode([String: Golden].self, from: Data(contentsOf: url))
        var tables: [String: [Int16]] = ["sigmoid_f3": FixedPoint16.table(FixedPoint16.sigmoid)]
        for bits in 0...6 { tables["tanh_f\(bits)"] = FixedPoint16.table { FixedPoint16.tanh($0, integerBits: bits) } }
        XCTAssertEqual(Set(goldens.keys), Set(tables.keys))
        for (name, golden) in goldens {
            let table = try XCTUnwrap(tables[name])
            for (input, expected) in golden.samples {
                let index = Int(UInt16(bitPattern: Int16(input)!))
                XCTAssertEqual(Int(table[index]), expected, "\(name)(\(input))")
            }
            let digest = table.withUnsafeBytes { SHA256.hex(of: $0) }
            XCTAssertEqual(digest, golden.sha256, "\(name): some of the 65,536 values differ from gemmlowp's")
        }
    }

    func testWrittenOutConstantsAreGemmlowps() {
        XCTAssertEqual(FixedPoint16.expMinusOneEighth, FixedPoint16.constant(1895147668))
        XCTAssertEqual(FixedPoint16.oneThird, FixedPoint16.constant(715827883))
        XCTAssertEqual(FixedPoint16.fortyEightSeventeenths, FixedPoint16.constant(1515870810))
        XCTAssertEqual(FixedPoint16.minusThirtyTwoSeventeenths, FixedPoint16.constant(-1010580540))
        XCTAssertEqual(FixedPoint16.oneHalf, FixedPoint16.constant(1 << 30))
        let sources: [Int32] = [1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242]
        XCTAssertEqual(FixedPoint16.expMultipliers.map(\.multiplier), sources.map(FixedPoint16.constant))
    }

    func testSigmoidAndTanhAreCloseToTheRealFunctions() {
        for raw in stride(from: -32768, through: 32767, by: 97) {
            let x = Double(raw) / 4096
            XCTAssertEqual(Double(FixedPoint16.sigmoid(Int16(raw))) / 32768, 1 / (1 + exp(-x)), accuracy: 1e-3)
            XCTAssertEqual(Double(FixedPoint16.tanh(Int16(raw), integerBits: 3)) / 32768, Foundation.tanh(x), accuracy: 1e-3)
        }
    }

    func testMemoizedFunctionAnswersLikeTheFunction() {
        let memoized = MemoizedFixedPointFunction { FixedPoint16.tanh($0, integerBits: 4) }
        for raw in [0, 1, -1, 32767, -32768, 1234, 1234, -999, -999] {
            XCTAssertEqual(memoized(Int16(raw)), FixedPoint16.tanh(Int16(raw), integerBits: 4))
        }
    }
}
