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

    /// Below ``minimumWorkPerThread`` a loop runs inline on the caller, in one piece; above it the pieces tile the
    /// loop and are no shorter than `minimumChunk` except the last of each thread's share.
    func testSmallLoopsAreNotSplitAndPiecesRespectTheMinimumChunk() {
        var pieces = 0
        parallelFor(1000, threads: 2, workPerItem: 1) { _ in pieces += 1 }
        XCTAssertEqual(pieces, 1)
        for (count, minimumChunk) in [(1000, 1), (1000, 64), (37, 16), (100_000, 4096)] {
            var split = [Range<Int>]()
            let lock = NSLock()
            parallelFor(count, threads: 2, minimumChunk: minimumChunk, workPerItem: minimumWorkPerThread) { range in
                lock.lock(); split.append(range); lock.unlock()
            }
            split.sort { $0.lowerBound < $1.lowerBound }
            XCTAssertGreaterThan(split.count, 1, "\(count) items were not split")
            XCTAssertEqual(split.first?.lowerBound, 0)
            XCTAssertEqual(split.last?.upperBound, count)
            XCTAssertTrue(zip(split, split.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound }, "\(split) do not tile 0..<\(count)")
            XCTAssertLessThanOrEqual(split.filter { $0.count < minimumChunk }.count, 2, "\(split): too many pieces under \(minimumChunk)")
        }
    }

    /// A share is cut into granules only when each still has ``granuleWork`` to do: a loop of 64 items worth a few
    /// times the split's minimum runs as one piece a thread, however the two threads meet it (a thread that finds
    /// the other's share untouched takes it whole); one with four granules' work a share runs as four pieces a share.
    func testSharesAreCutIntoGranulesOnlyWhenEachHasEnoughWork() throws {
        // Granules are the worker pool's (Linux, two CPUs or more); Dispatch's fallback runs one share a thread.
        #if os(Linux)
        let poolThreads = WorkerPool.maximumThreads
        #else
        let poolThreads = 0
        #endif
        try XCTSkipIf(poolThreads < 2, "no worker pool of two threads here")
        let lock = NSLock()
        var pieces = [Range<Int>]()
        let record = { (range: Range<Int>) in lock.lock(); pieces.append(range); lock.unlock() }
        for _ in 0..<20 {
            pieces.removeAll()
            parallelFor(64, threads: 2, workPerItem: minimumWorkPerThread / 4, record)
            XCTAssertEqual(pieces.sorted { $0.lowerBound < $1.lowerBound }, [0..<32, 32..<64])
            pieces.removeAll()
            parallelFor(64, threads: 2, workPerItem: granuleWork * 4 / 32, record)
            XCTAssertEqual(pieces.sorted { $0.lowerBound < $1.lowerBound }, stride(from: 0, to: 64, by: 8).map { $0..<$0 + 8 })
        }
    }

    /// A thread held up inside its share (a virtual CPU the host took away) does not hold up the loop: the other
    /// thread runs the rest of that share. Every piece takes 100 µs, so the worker starts on its share while the
    /// caller is still on its own; the piece that starts the second share sleeps 200 ms when a worker runs it, and
    /// the caller must then have run that share's last item.
    func testAnIdleThreadTakesOverTheRestOfASlowThreadsShare() {
        let saved = minimumWorkPerThread
        minimumWorkPerThread = 1
        defer { minimumWorkPerThread = saved }
        let caller = pthread_self()
        let count = 64
        let ranBy = UnsafeMutablePointer<pthread_t?>.allocate(capacity: count)
        defer { ranBy.deallocate() }
        for _ in 0..<20 {
            ranBy.initialize(repeating: nil, count: count)
            parallelFor(count, threads: 2) { range in
                let me = pthread_self()
                usleep(100)
                if range.contains(count / 2), pthread_equal(me, caller) == 0 { usleep(200_000) }
                for i in range { ranBy[i] = me }
            }
            XCTAssertTrue((0..<count).allSatisfy { ranBy[$0] != nil })
            guard let slow = ranBy[count / 2], pthread_equal(slow, caller) == 0 else { continue }  // nothing slept: again
            XCTAssertNotEqual(pthread_equal(ranBy[count - 1]!, caller), 0, "the last item waited for the sleeping worker")
            return
        }
        XCTFail("in twenty loops the worker never ran the middle piece")
    }
}
