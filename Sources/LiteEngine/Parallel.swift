import Dispatch

/// Splits `0..<count` into at most `threads` contiguous chunks and runs them concurrently.
/// With one thread (or little work) it runs inline, so single-threaded runs have no dispatch overhead.
@inline(__always)
func parallelFor(_ count: Int, threads: Int, minimumChunk: Int = 1, _ body: (Range<Int>) -> Void) {
    let chunks = min(max(threads, 1), max(count / max(minimumChunk, 1), 1))
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
