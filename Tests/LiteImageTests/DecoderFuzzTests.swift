import Foundation
@testable import LiteImage
import LiteFormat
import LiteEngine
import XCTest

/// Mutated image files (bit flips, byte runs, truncations, header rewrites) must decode or fail with an
/// `ImageError`; a crash fails the whole test run. Deterministic seeds; a CI-sized run.
final class DecoderFuzzTests: XCTestCase {

    func mutate(_ original: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var bytes = original
        switch random.below(5) {
        case 0:
            for _ in 0..<(1 + random.below(8)) { bytes[random.below(bytes.count)] ^= UInt8(1 << random.below(8)) }
        case 1:
            let start = random.below(bytes.count), count = min(bytes.count - start, 1 + random.below(64))
            for i in start..<(start + count) { bytes[i] = UInt8(truncatingIfNeeded: random.next()) }
        case 2:
            bytes = Array(bytes.prefix(random.below(bytes.count)))
        case 3:
            // Header fields: the first 64 bytes hold every format's dimensions and offsets.
            let at = random.below(min(64, bytes.count))
            bytes[at] = [0x00, 0xFF, 0x7F, 0x80][random.below(4)]
        default:
            let at = random.below(bytes.count)
            bytes.insert(contentsOf: [UInt8](repeating: UInt8(truncatingIfNeeded: random.next()), count: 1 + random.below(32)), at: at)
        }
        return bytes
    }

    func testMutatedImagesNeverCrash() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasSuffix(".json") }.sorted()
        var random = SplitMix64(seed: 20261122)
        var decoded = 0, rejected = 0
        let limits = ImageLimits(maximumPixels: 4_000_000)
        for name in names {
            let original = [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
            for _ in 0..<(Int(ProcessInfo.processInfo.environment["LITEVISION_FUZZ_CASES"] ?? "") ?? 150) {
                do {
                    _ = try Image.decode(mutate(original, &random), limits: limits)
                    decoded += 1
                } catch is ImageError {
                    rejected += 1
                }
            }
        }
        XCTAssertEqual(decoded + rejected, names.count * (Int(ProcessInfo.processInfo.environment["LITEVISION_FUZZ_CASES"] ?? "") ?? 150))
        XCTAssertGreaterThan(rejected, 0)
        print("fuzz: \(decoded) decoded, \(rejected) rejected with ImageError")
    }
}

extension SplitMix64 {
    /// A value in `0..<n` (modulo bias is fine for fuzzing).
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
}
