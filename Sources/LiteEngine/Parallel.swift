import Dispatch

/// How much work (multiply-adds, or element operations for the simplest ops) a chunk must have before it is worth
/// handing to another thread. Handing a chunk to a Dispatch worker costs tens of microseconds on these 2-core
/// machines: the face detector's 17 RELUs took 0.7 ms at 2 threads against 0.03 ms at 1, and the whole model twice
/// its 1-thread time. 2^20 measured at or near the best of 0, 2^16, 2^18, 2^20, 2^22 on the MobileNets, the face
/// detector and COCO SSD at 2 threads (2026-11-25). Tests set it to 1 so that small shapes take the split paths.
nonisolated(unsafe) var minimumWorkPerThread = 1 << 20

/// Splits `0..<count` into at most `threads` contiguous chunks and runs them concurrently.
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
    withoutActuallyEscaping(body) { body in
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let start = count * chunk / chunks
            let end = count * (chunk + 1) / chunks
            body(start..<end)
        }
    }
}
