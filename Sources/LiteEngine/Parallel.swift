import Dispatch

/// How much work (multiply-adds, or element operations for the simplest ops) a chunk must have before it is worth
/// handing to another thread. With the spinning ``WorkerPool`` a hand-off costs about a microsecond; 2^16 measured
/// best or within 3% of it among 1, 2^12, 2^14, 2^15, 2^16, 2^18 and 2^20 on the MobileNets, the face detector and
/// COCO SSD at 2 threads (2026-11-25; with Dispatch's sleeping workers, before the pool, 2^20 was best). Tests set
/// it to 1 so that small shapes take the split paths.
nonisolated(unsafe) var minimumWorkPerThread = 1 << 16

/// Splits `0..<count` into at most `threads` contiguous chunks and runs them concurrently, on the
/// ``WorkerPool`` (Linux) or, when it is busy with another caller's loop, on Dispatch's workers.
/// With one thread (or little work) it runs inline, so single-threaded runs have no dispatch overhead.
/// `workPerItem` is the work of one item, in the units of ``minimumWorkPerThread``.
@inline(__always)
func parallelFor(_ count: Int, threads: Int, minimumChunk: Int = 1, workPerItem: Int = .max, _ body: (Range<Int>) -> Void) {
    let (total, overflow) = count.multipliedReportingOverflow(by: max(workPerItem, 1))
    let byWork = overflow ? Int.max : total / max(minimumWorkPerThread, 1)
    let chunks = min(max(threads, 1), max(count / max(minimumChunk, 1), 1), max(byWork, 1))
    if chunks <= 1 {
        body(0..<count)
        return
    }
    let chunk = { (chunk: Int) in body(count * chunk / chunks ..< count * (chunk + 1) / chunks) }
    #if os(Linux)
    if WorkerPool.shared.run(chunks: chunks, chunk) { return }
    #endif
    withoutActuallyEscaping(chunk) { chunk in
        DispatchQueue.concurrentPerform(iterations: chunks, execute: chunk)
    }
}
