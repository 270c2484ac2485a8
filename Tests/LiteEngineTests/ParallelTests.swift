import Foundation
@testable import LiteEngine
import XCTest

/// parallelFor and the worker pool under it: every index runs exactly once, however many callers share the pool,
/// loops inside loops, and loops too small to split.
final class ParallelTests: XCTestCase {
    /// Counts how many times each index ran; every count must be exactly 1.
    private func assertEveryIndexOnce(count: Int, threads: Int, workPerItem: Int = .max, file: StaticString = #filePath, line: UInt = #line) {
        let hits = UnsafeMutablePointer<Int>.allocate(capacity: max(count, 1))
        hits.initialize(repeating: 0, count: max(count, 1))
        defer { hits.deallocate() }
        parallelFor(count, threads: threads, workPerItem: workPerItem) { range in
            for i in range { hits[i] += 1 }
        }
        for i in 0..<count where hits[i] != 1 {
            XCTFail("index \(i) of \(count) ran \(hits[i]) times with \(threads) threads", file: file, line: line)
            return
        }
    }

    func testEveryIndexRunsOnceForAnyCountAndThreads() {
        for threads in [1, 2, 3, 4, 8] {
            for count in [0, 1, 2, 3, 7, 64, 1000, 4097] { assertEveryIndexOnce(count: count, threads: threads) }
        }
    }

    /// Thousands of back-to-back loops, as an interpreter runs op after op: no lost or repeated chunk, no hang
    /// when a worker has gone to sleep between two of them.
    func testBackToBackLoopsAndPausesLongEnoughForWorkersToSleep() {
        for round in 0..<3000 { assertEveryIndexOnce(count: 37 + round % 50, threads: 2) }
        for _ in 0..<5 {
            usleep(2_000)
            assertEveryIndexOnce(count: 100, threads: 2)
        }
    }

    /// Several threads running loops at once (several interpreters in one server) and a loop inside a chunk:
    /// the callers that find the pool busy split their loops on Dispatch instead.
    func testConcurrentCallersAndNestedLoops() {
        let failures = NSLock()
        var wrong = 0
        DispatchQueue.concurrentPerform(iterations: 4) { caller in
            for round in 0..<500 {
                let count = 50 + (caller * 131 + round) % 200
                var sums = [Int](repeating: 0, count: 4)
                sums.withUnsafeMutableBufferPointer { sums in
                    parallelFor(4, threads: 4) { outer in
                        for o in outer {
                            let partial = UnsafeMutablePointer<Int>.allocate(capacity: count)
                            partial.initialize(repeating: 0, count: count)
                            parallelFor(count, threads: 2) { inner in
                                for i in inner { partial[i] = i }
                            }
                            sums[o] = (0..<count).reduce(0) { $0 + partial[$1] }
                            partial.deallocate()
                        }
                    }
                }
                if sums != [Int](repeating: count * (count - 1) / 2, count: 4) {
                    failures.lock(); wrong += 1; failures.unlock()
                }
            }
        }
        XCTAssertEqual(wrong, 0)
    }

    /// Below ``minimumWorkPerThread`` a loop runs inline on the caller, in one piece.
    func testSmallLoopsAreNotSplit() {
        var pieces = 0
        parallelFor(1000, threads: 2, workPerItem: 1) { _ in pieces += 1 }
        XCTAssertEqual(pieces, 1)
        var split = [Range<Int>]()
        let lock = NSLock()
        parallelFor(1000, threads: 2, workPerItem: minimumWorkPerThread) { range in lock.lock(); split.append(range); lock.unlock() }
        XCTAssertEqual(split.sorted { $0.lowerBound < $1.lowerBound }, [0..<500, 500..<1000])
    }
}
