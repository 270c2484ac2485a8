import Foundation
@testable import LiteTasks
import XCTest

/// The detector sidecars are parsed from bytes: mutated MediaPipe pbtxt and anchors JSON must give a decoding or
/// a TaskError, never a crash, a hang or a runaway allocation (anchor counts are capped).
final class DetectionFuzzTests: XCTestCase {
    func mutate(_ bytes: [UInt8], _ generator: inout SystemRandomNumberGenerator) -> [UInt8] {
        var out = bytes
        switch Int.random(in: 0..<5, using: &generator) {
        case 0: out = Array(out.prefix(Int.random(in: 0...out.count, using: &generator)))
        case 1:
            for _ in 0..<Int.random(in: 1...8, using: &generator) where !out.isEmpty {
                out[Int.random(in: 0..<out.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
        case 2:
            // Digits are where the numbers are: replace one run of them with an extreme value.
            if let start = out.indices.filter({ (48...57).contains(out[$0]) }).randomElement(using: &generator) {
                let extreme = ["0", "-1", "99999999", "1e30", "nan", "-0", "65536", "4096"].randomElement(using: &generator)!
                out.replaceSubrange(start..<min(out.count, start + 1), with: Array(extreme.utf8))
            }
        case 3:
            if !out.isEmpty {
                let at = Int.random(in: 0..<out.count, using: &generator)
                out.insert(contentsOf: out[at..<min(out.count, at + 40)], at: at)
            }
        default:
            if out.count > 2 { out.remove(at: Int.random(in: 0..<out.count, using: &generator)) }
        }
        return out
    }

    func testMutatedMediaPipeGraphOptions() throws {
        let text = Array(try Data(contentsOf: URL(fileURLWithPath: Paths.model("detection/face_detection_short_range.pbtxt"))))
        var generator = SystemRandomNumberGenerator()
        var parsed = 0
        let cases = Int(ProcessInfo.processInfo.environment["LITEVISION_FUZZ_CASES"] ?? "") ?? 3000
        for _ in 0..<cases {
            let bytes = mutate(text, &generator)
            if let decoding = try? SSDDecoding(mediapipeGraph: String(decoding: bytes, as: UTF8.self)) {
                XCTAssertLessThanOrEqual(decoding.anchors.count, 1_000_000)
                parsed += 1
            }
        }
        XCTAssertGreaterThan(parsed, 0, "some mutants should still parse")
    }

    func testMutatedAnchorsJSON() throws {
        let full = try Data(contentsOf: URL(fileURLWithPath: Paths.model("detection/coco_ssd_mobilenet_v1_1.0_raw_anchors.json")))
        // The head of the file (options, first anchors) closed into valid JSON keeps each case small.
        let object = try JSONSerialization.jsonObject(with: full) as! [String: Any]
        var small = object
        small["anchors"] = Array((object["anchors"] as! [[Double]]).prefix(40))
        let bytes = Array(try JSONSerialization.data(withJSONObject: small, options: [.sortedKeys]))
        var generator = SystemRandomNumberGenerator()
        var parsed = 0
        for _ in 0..<1500 {
            if (try? SSDDecoding(anchorsJSON: Data(mutate(bytes, &generator)))) != nil { parsed += 1 }
        }
        XCTAssertGreaterThan(parsed, 0)
    }
}
