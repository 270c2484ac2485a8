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
        var tables: [String: [Int16]] = ["sigmoid_f3": FixedPoint16.sigmoidTable]
        for bits in 0...6 { tables["tanh_f\(bits)"] = FixedPoint16.tanhTable(integerBits: bits) }
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

    func testSigmoidAndTanhAreCloseToTheRealFunctions() {
        for raw in stride(from: -32768, through: 32767, by: 97) {
            let x = Double(raw) / 4096
            XCTAssertEqual(Double(FixedPoint16.sigmoidTable[Int(UInt16(bitPattern: Int16(raw)))]) / 32768, 1 / (1 + exp(-x)), accuracy: 1e-3)
            XCTAssertEqual(Double(FixedPoint16.tanhTable(integerBits: 3)[Int(UInt16(bitPattern: Int16(raw)))]) / 32768, Foundation.tanh(x), accuracy: 1e-3)
        }
    }
}
