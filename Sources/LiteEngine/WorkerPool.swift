#if os(Linux)
import Foundation
import Synchronization

/// Worker threads that wait for work by spinning for a short while before they sleep, so that handing a chunk to
/// another thread costs about a microsecond while ops follow each other, not the tens of microseconds of waking
/// a sleeping Dispatch worker (pthreadpool, which XNNPACK runs on, does the same).
///
/// One job at a time: a caller that finds the pool busy (another interpreter on another thread, or a loop inside
/// a chunk) gets `false` from ``run(chunks:_:)`` and splits its loop some other way.
final class WorkerPool: @unchecked Sendable {
    static let shared = WorkerPool()

    /// How long an idle worker keeps looking for work before it sleeps.
    static let spinNanoseconds: UInt64 = 200_000

    /// The job's ticket: generation (bits 24 and up), chunk count (bits 12-23) and the next unclaimed chunk
    /// (bits 0-11). A chunk is claimed by a compare-and-swap of the whole ticket, so a worker that looked at an
    /// older job can never claim a chunk of a newer one.
    private let ticket = Atomic<UInt64>(0)
    private let finished = Atomic<Int>(0)
    private let sleepers = Atomic<Int>(0)
    /// The current job's body; written before its ticket is published, read only by a worker holding one of its chunks.
    private nonisolated(unsafe) var body: UnsafeMutablePointer<(Int) -> Void>?
    private let busy = Mutex<Bool>(false)
    private let wake = NSCondition()
    /// Started worker threads; only changed by ``run(chunks:_:)`` while it holds `busy`.
    private nonisolated(unsafe) var workers = 0

    /// At most one thread per core: spinning workers on a shared core would take turns with the ones doing the work
    /// (an interpreter asked for 16 threads on this 2-core machine splits on Dispatch instead). 4,095 is the
    /// ticket's limit.
    static let maximumChunks = min((1 << 12) - 1, max(ProcessInfo.processInfo.activeProcessorCount, 1))

    /// Runs `body(0) ... body(chunks - 1)` on the calling thread and up to `chunks - 1` workers; returns when all
    /// have finished. Returns false, running nothing, when the pool is already running a job.
    func run(chunks: Int, _ body: (Int) -> Void) -> Bool {
        guard chunks >= 1, chunks <= Self.maximumChunks else { return false }
        let acquired = busy.withLock { busy -> Bool in
            if busy { return false }
            busy = true
            return true
        }
        guard acquired else { return false }
        defer { busy.withLock { $0 = false } }
        startWorkers(chunks - 1)
        withoutActuallyEscaping(body) { body in
            let slot = UnsafeMutablePointer<(Int) -> Void>.allocate(capacity: 1)
            slot.initialize(to: body)
            defer { slot.deinitialize(count: 1); slot.deallocate() }
            self.body = slot
            finished.store(0, ordering: .sequentiallyConsistent)
            let generation = (ticket.load(ordering: .sequentiallyConsistent) >> 24) &+ 1
            // Chunk 0 is the caller's before the job is published, so workers claim from chunk 1 on: with as many
            // chunks as threads each thread gets the same part of every op, and an op reads the part of its input
            // that the same core wrote (a worker that won chunk 0 made both cores read the other's cache).
            ticket.store(generation << 24 | UInt64(chunks) << 12 | 1, ordering: .sequentiallyConsistent)
            if sleepers.load(ordering: .sequentiallyConsistent) > 0 {
                wake.lock()
                wake.broadcast()
                wake.unlock()
            }
            slot.pointee(0)
            finished.add(1, ordering: .sequentiallyConsistent)
            while let chunk = claim(generation: generation) {
                slot.pointee(chunk)
                finished.add(1, ordering: .sequentiallyConsistent)
            }
            while finished.load(ordering: .sequentiallyConsistent) < chunks {}
        }
        return true
    }

    /// The next unclaimed chunk of job `generation`, or nil when there is none (or that job is over).
    private func claim(generation: UInt64) -> Int? {
        var current = ticket.load(ordering: .sequentiallyConsistent)
        while true {
            let chunks = (current >> 12) & 0xFFF, next = current & 0xFFF
            guard current >> 24 == generation, next < chunks else { return nil }
            let (exchanged, original) = ticket.compareExchange(expected: current, desired: current + 1, ordering: .sequentiallyConsistent)
            if exchanged { return Int(next) }
            current = original
        }
    }

    private func startWorkers(_ wanted: Int) {
        while workers < wanted {
            workers += 1
            let thread = Thread { [self] in workerLoop() }
            thread.name = "LiteEngine worker \(workers)"
            thread.start()
        }
    }

    private func workerLoop() {
        var seen = ticket.load(ordering: .sequentiallyConsistent) >> 24
        while true {
            let generation = waitForJob(after: seen)
            seen = generation
            while let chunk = claim(generation: generation) {
                body!.pointee(chunk)
                finished.add(1, ordering: .sequentiallyConsistent)
            }
        }
    }

    /// Spins until a job newer than `seen` is published, then sleeps until one is; returns its generation.
    private func waitForJob(after seen: UInt64) -> UInt64 {
        let start = DispatchTime.now().uptimeNanoseconds
        var spins = 0
        while true {
            let generation = ticket.load(ordering: .sequentiallyConsistent) >> 24
            if generation != seen { return generation }
            spins += 1
            if spins & 255 == 0, DispatchTime.now().uptimeNanoseconds - start > Self.spinNanoseconds { break }
        }
        wake.lock()
        defer { wake.unlock() }
        sleepers.add(1, ordering: .sequentiallyConsistent)
        defer { sleepers.subtract(1, ordering: .sequentiallyConsistent) }
        while true {
            let generation = ticket.load(ordering: .sequentiallyConsistent) >> 24
            if generation != seen { return generation }
            wake.wait()
        }
    }
}
#endif
