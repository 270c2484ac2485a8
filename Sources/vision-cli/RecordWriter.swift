import Foundation

/// Writes a batch's records to standard output as they are done, each whole and flushed at once, so that a reader
/// of the stream (a pipe, `RDD.pipe`, a `--resume` file) sees complete lines only and sees them early.
///
/// `ordered`: records are written in input order. A record that arrives early waits in a buffer; a worker whose
/// record is more than `window` positions ahead of the next one to write waits before adding it, so the buffer
/// stays bounded however many inputs there are. Inputs that are skipped (other shards, resumed) leave gaps in the
/// positions: ``skip(through:)`` tells the writer, so it never waits for them.
final class RecordWriter: @unchecked Sendable {
    private let condition = NSCondition()
    private let ordered: Bool
    private let window: Int
    /// The ordered mode's next position to write, and the records waiting for it (nil: nothing to print).
    private var next = 0
    private var waiting: [Int: String?] = [:]
    /// Positions handed out and not yet written (ordered mode).
    private var handedOut = Set<Int>()

    init(ordered: Bool, window: Int = 64) {
        self.ordered = ordered
        self.window = window
    }

    /// Records that the input at `position` was handed to a worker. ``BatchInputs`` calls this in increasing
    /// order, so the positions below it that were not handed out (other shards, resumed) will never have records.
    func handedOut(_ position: Int) {
        guard ordered else { return }
        condition.lock()
        defer { condition.unlock() }
        handedOut.insert(position)
        advance()
    }

    /// Writes `record` (one or more complete lines, without the last newline; nil writes nothing but still counts
    /// for the order) for the input at `position`.
    func write(_ record: String?, at position: Int) {
        guard ordered else {
            if let record { emit(record) }
            return
        }
        condition.lock()
        defer { condition.unlock() }
        while position - next > window { condition.wait() }
        waiting[position] = .some(record)
        advance()
    }

    /// Writes the waiting records that are next in order. Positions never handed out (skipped inputs) below the
    /// lowest handed-out one are passed over.
    private func advance() {
        while true {
            if let record = waiting.removeValue(forKey: next) {
                if let record { emit(record) }
                handedOut.remove(next)
                next += 1
                condition.broadcast()
            } else if !handedOut.contains(next), let lowest = handedOut.min(), lowest > next {
                next = lowest
                condition.broadcast()
            } else {
                return
            }
        }
    }

    private func emit(_ record: String) {
        FileHandle.standardOutput.write(Data((record + "\n").utf8))
    }
}
