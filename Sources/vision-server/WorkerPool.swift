import Dispatch
import Foundation

/// N workers, each lent to one request at a time, with a bounded queue of requests waiting for one. A request that
/// finds every worker busy and `queueLimit` requests already waiting is refused at once (503 with Retry-After)
/// rather than left to pile up.
actor WorkerPool {
    private var idle: [Worker]
    private var waiting: [CheckedContinuation<Worker, Never>] = []
    let size: Int
    let queueLimit: Int
    /// Milliseconds each job holds its worker beyond its own work (--debug-hold-ms; tests make slow requests with it).
    let holdMilliseconds: Int

    init(workers: [Worker], queueLimit: Int, holdMilliseconds: Int = 0) {
        idle = workers
        size = workers.count
        self.queueLimit = queueLimit
        self.holdMilliseconds = holdMilliseconds
    }

    var busy: Int { size - idle.count }
    var queued: Int { waiting.count }

    /// Throws the 503 a request would get now, so that a full server refuses it before reading its body.
    func checkRoom() throws {
        if idle.isEmpty && waiting.count >= queueLimit { throw busyError() }
    }

    private func busyError() -> APIError {
        APIError(status: .serviceUnavailable, kind: "busy",
                 message: "all \(size) workers are busy and \(waiting.count) requests are waiting (--queue \(queueLimit)); try again shortly",
                 retryAfter: 1)
    }

    private func acquire() async throws -> Worker {
        if let worker = idle.popLast() { return worker }
        guard waiting.count < queueLimit else { throw busyError() }
        return await withCheckedContinuation { waiting.append($0) }
    }

    private func release(_ worker: Worker) {
        if waiting.isEmpty {
            idle.append(worker)
        } else {
            waiting.removeFirst().resume(returning: worker)
        }
    }

    /// Runs `job` on a worker, on a thread of its own (inference blocks; it must not hold the server's event loops
    /// or Swift's cooperative threads), waiting in the queue for a worker when all are busy.
    nonisolated func run<T: Sendable>(_ job: @escaping @Sendable (Worker) throws -> T) async throws -> T {
        let worker = try await acquire()
        let hold = holdMilliseconds
        let result: Result<T, Error> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let result = Result { try job(worker) }
                if hold > 0 { usleep(useconds_t(hold) * 1000) }
                continuation.resume(returning: result)
            }
        }
        await release(worker)
        return try result.get()
    }
}
