import Dispatch

/// How much work (multiply-adds, or element operations for the simplest ops) a chunk must have before it is worth
/// handing to another thread: below it, the hand-off to the spinning ``WorkerPool`` costs more than the split saves
/// (see Docs/architecture.md for how the value was chosen). Tests set it to 1 so that small shapes take the split
/// paths.
nonisolated(unsafe) var minimumWorkPerThread = 1 << 16

/// How many granules each thread's share of a loop is cut into on the ``WorkerPool`` at most: a thread that finishes
/// early takes the others' last granules, so a thread slowed by a granule's worth of work or less (a virtual CPU the
/// host took away) costs no waiting. Each granule is another call of the loop's body, with its setup, so a share is
/// cut only when each piece still has ``granuleWork`` to do: most ops of a mobile model take 10-50 µs, and cutting
/// their shares in four cost them more at two threads than the balancing won (Docs/benchmarks.md).
let granulesPerThread = 4

/// The least work (in ``minimumWorkPerThread``'s units) for which a thread's share is cut into another granule: tens
/// of microseconds.
var granuleWork: Int {
    let (work, overflow) = minimumWorkPerThread.multipliedReportingOverflow(by: 64)
    return overflow ? .max : work
}

/// Splits `0..<count` into at most `threads` contiguous shares and runs them concurrently, on the ``WorkerPool``
/// (Linux: each share in granules, threads that finish early taking over the rest of the others') or, when the pool
/// is busy with another caller's loop, on Dispatch's workers, one share each.
/// With one thread (or little work) it runs inline, so single-threaded runs have no dispatch overhead.
/// `workPerItem` is the work of one item, in the units of ``minimumWorkPerThread``; the pieces handed to `body` are
/// at least `minimumChunk` items long except the last of a share.
@inline(__always)
func parallelFor(_ count: Int, threads: Int, minimumChunk: Int = 1, workPerItem: Int = .max, _ body: (Range<Int>) -> Void) {
    let (total, overflow) = count.multipliedReportingOverflow(by: max(workPerItem, 1))
    let byWork = overflow ? Int.max : total / max(minimumWorkPerThread, 1)
    let chunks = min(max(threads, 1), max(count / max(minimumChunk, 1), 1), max(byWork, 1))
    if chunks <= 1 {
        body(0..<count)
        return
    }
    #if os(Linux)
    let pieces = overflow ? granulesPerThread : min(granulesPerThread, max(total / chunks / max(granuleWork, 1), 1))
    let granule = max(minimumChunk, (count + chunks * pieces - 1) / (chunks * pieces))
    if WorkerPool.shared.run(threads: chunks, count: count, granule: granule, body) { return }
    #endif
    let chunk = { (chunk: Int) in body(count * chunk / chunks ..< count * (chunk + 1) / chunks) }
    withoutActuallyEscaping(chunk) { chunk in
        let shares = ConcurrentShares(run: chunk)
        DispatchQueue.concurrentPerform(iterations: chunks) { shares.run($0) }
    }
}

/// A loop body handed to Dispatch's workers. `parallelFor`'s contract makes sharing it safe though the compiler cannot
/// see it: each share covers its own range of the loop, and the callers' bodies write only the outputs of their range.
private struct ConcurrentShares: @unchecked Sendable {
    let run: (Int) -> Void
}
