import Dispatch
import Foundation
@testable import LiteTasks
import XCTest

/// The model cache under faults: corrupt and truncated entries, and fetches of one model at once.
final class ModelCacheTests: XCTestCase {
    /// A registry whose mirror is ../shared/models, with an empty cache of its own.
    func registry() throws -> ModelRegistry {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("litevision-cache-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: cache) }
        return try ModelRegistry.bundled(mirror: Paths.shared.appendingPathComponent("models").path, cacheDirectory: cache)
    }

    func sha256(_ url: URL) throws -> String { SHA256.hex(of: [UInt8](try Data(contentsOf: url))) }

    /// A cache entry whose bytes changed (same size, a new modification time) or that was cut short is detected and
    /// fetched again; an intact one is used as it is, without a copy.
    func testACorruptOrTruncatedEntryIsFetchedAgain() throws {
        let registry = try registry()
        let model = try registry.model(named: "flowers")
        let path = try registry.fetch(model)
        XCTAssertEqual(try sha256(path), model.sha256)

        var copies = 0
        _ = try registry.fetch(model) { _, _ in copies += 1 }
        XCTAssertEqual(copies, 0, "an intact entry is not copied again")

        let handle = try FileHandle(forWritingTo: path)
        try handle.seek(toOffset: UInt64(model.size / 2))
        try handle.write(contentsOf: Data([0x5A, 0xA5, 0x5A, 0xA5]))
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: path.path)
        XCTAssertNotEqual(try sha256(path), model.sha256, "the entry was corrupted")
        _ = try registry.fetch(model) { _, _ in copies += 1 }
        XCTAssertGreaterThan(copies, 0, "a corrupt entry is copied again")
        XCTAssertEqual(try sha256(path), model.sha256)

        try FileHandle(forWritingTo: path).truncate(atOffset: UInt64(model.size / 3))
        _ = try registry.fetch(model)
        XCTAssertEqual(try sha256(path), model.sha256, "a truncated entry is fetched again")
    }

    /// Four fetches of one model at once (threads here; processes take the same file lock) with a slow copy: one
    /// copies while the others wait, then find its verified file. Without the lock they would write one partial file
    /// together and fail their checksums (one attempt each).
    func testConcurrentFetchesOfOneModelCopyItOnce() throws {
        let registry = try registry()
        let model = try registry.model(named: "birds")
        let copiers = Counter(), failures = Counter()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            var copied = false
            do {
                let path = try registry.fetch(model, retries: 1) { _, _ in
                    copied = true
                    usleep(20_000)
                }
                if (try? sha256(path)) != model.sha256 { failures.increment() }
            } catch {
                failures.increment()
            }
            if copied { copiers.increment() }
        }
        XCTAssertEqual(failures.value, 0)
        XCTAssertEqual(copiers.value, 1, "one fetch copied the model, the others waited for it")
        XCTAssertFalse(FileManager.default.fileExists(atPath: registry.partialPath(model).path))
    }

    final class Counter: @unchecked Sendable {
        private var count = 0
        private let lock = NSLock()
        var value: Int { lock.withLock { count } }
        func increment() { lock.withLock { count += 1 } }
    }
}
