#if os(Linux)
import Synchronization
#else
import Foundation
#endif

/// The cancellation request of one interpreter, shared with the interpreters of its control-flow subgraphs and the
/// signature runners it makes (``Interpreter/cancel()``). Read once per node, so it must cost nothing: an atomic
/// load on Linux.
final class Cancellation: Sendable {
    #if os(Linux)
    private let requested = Atomic<Bool>(false)

    var isRequested: Bool { requested.load(ordering: .relaxed) }
    func request() { requested.store(true, ordering: .relaxed) }
    func clear() { requested.store(false, ordering: .relaxed) }
    #else
    private let lock = NSLock()
    nonisolated(unsafe) private var flag = false

    var isRequested: Bool { lock.withLock { flag } }
    func request() { lock.withLock { flag = true } }
    func clear() { lock.withLock { flag = false } }
    #endif
}
