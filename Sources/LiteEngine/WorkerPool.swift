#if os(Linux)
import CLiteKernels
import Foundation
import Synchronization

/// Worker threads that wait for work by spinning for a short while before they sleep, so that handing work to
/// another thread costs about a microsecond while ops follow each other, not the tens of microseconds of waking
/// a sleeping Dispatch worker (pthreadpool, which XNNPACK runs on, does the same).
///
/// A job is a loop over `0..<count`, split into one contiguous range per thread. Each thread runs its own range
/// front to back, a granule at a time, then takes granules from the back of the other threads' ranges (work
/// stealing, as pthreadpool does). When every thread runs at full speed each one does exactly its own range, so an
/// op reads the part of its input that the same core wrote; when one is slowed (a virtual CPU the host takes away for
/// tens of microseconds, a worker that was asleep) the others finish its range instead of waiting for it.
///
/// One job at a time: a caller that finds the pool busy (another interpreter on another thread, or a loop inside
/// a chunk) gets `false` from ``run(threads:count:granule:_:)`` and splits its loop some other way.
final class WorkerPool: @unchecked Sendable {
    static let shared = WorkerPool()

    /// How long an idle worker keeps looking for work before it sleeps.
    static let spinNanoseconds: UInt64 = 200_000

    /// At most one thread per core: spinning workers on a shared core would take turns with the ones doing the work
    /// (an interpreter asked for 16 threads on this 2-core machine splits on Dispatch instead).
    static let maximumThreads = min(1 << 15, max(ProcessInfo.processInfo.activeProcessorCount, 1))

    /// The largest loop the pool takes: a range's bounds are 32-bit halves of one atomic word.
    static let maximumCount = Int(UInt32.max)

    /// The current job: its generation (bits 16 and up) and how many threads share it (bits 0-15).
    private let ticket = Atomic<UInt64>(0)
    /// Items of the current job that have run.
    private let finished = Atomic<Int>(0)
    private let sleepers = Atomic<Int>(0)
    /// The current job's body; written before the job's ranges are stored. A thread reads it only after it has taken a
    /// granule from one of those ranges, so it never runs an item with another job's body.
    private nonisolated(unsafe) var body: UnsafeMutablePointer<(Range<Int>) -> Void>?
    /// The current job's granule. Atomic (relaxed) because a worker still leaving the previous job reads it for its
    /// last, empty take while the caller stores the next job's; any value is right for a take that finds nothing.
    private let granule = Atomic<Int>(1)
    /// One range per thread: thread 0 is the caller, thread i the i-th worker.
    private let ranges: [ThreadRange]
    /// Set while a job runs: taken with an acquiring compare-and-exchange, given back with a releasing store. Not a
    /// `Mutex`: the pool never waits for it, and on Linux a contended `Mutex` hands itself over inside the kernel
    /// (priority-inheritance futex), which ThreadSanitizer cannot see, so it reported what the lock protects
    /// (this flag, `body`, `workers`) as racing between callers.
    private let busy = Atomic<Bool>(false)
    private let wake = NSCondition()
    /// Started worker threads; only changed by ``run(threads:count:granule:_:)`` while it holds `busy`.
    private nonisolated(unsafe) var workers = 0

    private init() {
        ranges = (0..<Self.maximumThreads).map { _ in ThreadRange() }
    }

    /// Runs `body` over `0..<count` in pieces of at most `granule` items (fewer at the end of a range) on the calling
    /// thread and up to `threads - 1` workers; every item runs exactly once, and the call returns when all have.
    /// Returns false, running nothing, when the pool is already running a job (or for counts it does not take).
    func run(threads: Int, count: Int, granule: Int, _ body: (Range<Int>) -> Void) -> Bool {
        guard threads >= 1, threads <= Self.maximumThreads, count >= 1, count <= Self.maximumCount else { return false }
        guard busy.compareExchange(expected: false, desired: true, successOrdering: .acquiring, failureOrdering: .relaxed).exchanged else {
            return false
        }
        defer { busy.store(false, ordering: .releasing) }
        startWorkers(threads - 1)
        withoutActuallyEscaping(body) { body in
            let slot = UnsafeMutablePointer<(Range<Int>) -> Void>.allocate(capacity: 1)
            slot.initialize(to: body)
            defer { slot.deinitialize(count: 1); slot.deallocate() }
            self.body = slot
            self.granule.store(max(granule, 1), ordering: .relaxed)
            finished.store(0, ordering: .sequentiallyConsistent)
            for t in 0..<threads {
                ranges[t].store(count * t / threads ..< count * (t + 1) / threads)
            }
            let generation = (ticket.load(ordering: .sequentiallyConsistent) >> 16) &+ 1
            ticket.store(generation << 16 | UInt64(threads), ordering: .sequentiallyConsistent)
            if sleepers.load(ordering: .sequentiallyConsistent) > 0 {
                wake.lock()
                wake.broadcast()
                wake.unlock()
            }
            work(as: 0, threads: threads)
            while finished.load(ordering: .sequentiallyConsistent) < count { lite_spin_pause() }
        }
        return true
    }

    /// Runs thread `me`'s own range, then whatever is left of the others' (nearest first).
    private func work(as me: Int, threads: Int) {
        while let items = ranges[me].takeFront(granule.load(ordering: .relaxed)) { execute(items) }
        for offset in 1..<max(threads, 1) {
            let victim = ranges[(me + offset) % threads]
            while let items = victim.takeBack(granule.load(ordering: .relaxed)) { execute(items) }
        }
    }

    @inline(__always)
    private func execute(_ items: Range<Int>) {
        body!.pointee(items)
        finished.add(items.count, ordering: .sequentiallyConsistent)
    }

    /// Called before the job is published: a new worker starts from the generation before it, so it takes part in it.
    private func startWorkers(_ wanted: Int) {
        while workers < wanted {
            workers += 1
            let index = workers, seen = ticket.load(ordering: .sequentiallyConsistent) >> 16
            let thread = Thread { [self] in workerLoop(index, seen: seen) }
            thread.name = "LiteEngine worker \(index)"
            thread.start()
        }
    }

    private func workerLoop(_ index: Int, seen: UInt64) {
        var seen = seen
        while true {
            let job = waitForJob(after: seen)
            seen = job >> 16
            let threads = Int(job & 0xFFFF)
            if index < threads { work(as: index, threads: threads) }
        }
    }

    /// Spins until a job newer than `seen` is published, then sleeps until one is; returns its ticket.
    private func waitForJob(after seen: UInt64) -> UInt64 {
        let start = DispatchTime.now().uptimeNanoseconds
        var spins = 0
        while true {
            let job = ticket.load(ordering: .sequentiallyConsistent)
            if job >> 16 != seen { return job }
            lite_spin_pause()
            spins += 1
            if spins & 255 == 0, DispatchTime.now().uptimeNanoseconds - start > Self.spinNanoseconds { break }
        }
        wake.lock()
        defer { wake.unlock() }
        sleepers.add(1, ordering: .sequentiallyConsistent)
        defer { sleepers.subtract(1, ordering: .sequentiallyConsistent) }
        while true {
            let job = ticket.load(ordering: .sequentiallyConsistent)
            if job >> 16 != seen { return job }
            wake.wait()
        }
    }
}

/// The items of one thread's range not yet taken: its owner takes from the front, other threads from the back. Both
/// bounds live in one atomic word (front in the high 32 bits), so every take is one compare-and-swap and no item is
/// taken twice. A thread still looking at the ranges after its job ended may take an item of the next job; that is
/// harmless, since it reads the body only after the take (see ``WorkerPool``).
private final class ThreadRange: @unchecked Sendable {
    // Padding keeps each range's word on a cache line of its own: owners and thieves write it on every take.
    private let paddingBefore: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private let bounds = Atomic<UInt64>(0)
    private let paddingAfter: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

    func store(_ range: Range<Int>) {
        bounds.store(UInt64(range.lowerBound) << 32 | UInt64(range.upperBound), ordering: .sequentiallyConsistent)
    }

    @inline(__always) func takeFront(_ granule: Int) -> Range<Int>? { take(granule, fromFront: true) }
    @inline(__always) func takeBack(_ granule: Int) -> Range<Int>? { take(granule, fromFront: false) }

    /// Up to `granule` items from one end, or nil when none are left.
    @inline(__always)
    private func take(_ granule: Int, fromFront: Bool) -> Range<Int>? {
        var current = bounds.load(ordering: .sequentiallyConsistent)
        while true {
            let front = Int(current >> 32), back = Int(current & 0xFFFF_FFFF)
            guard front < back else { return nil }
            let taken = min(granule, back - front)
            let desired = fromFront ? current &+ UInt64(taken) << 32 : current &- UInt64(taken)
            let (exchanged, original) = bounds.compareExchange(expected: current, desired: desired, ordering: .sequentiallyConsistent)
            if exchanged { return fromFront ? front ..< front + taken : back - taken ..< back }
            current = original
        }
    }
}
#endif
