import Dispatch
import Foundation

/// SIGINT and SIGTERM during a batch: the first one stops new inputs from being handed out, the inputs in progress
/// finish and their records are written whole, then the command exits with 128 + the signal's number (130 for
/// SIGINT, 143 for SIGTERM), as shells report a command ended by that signal. A second signal ends the process at
/// once.
final class StopSignal: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let lock = NSLock()
    private var received: Int32?

    /// The signal that asked for a stop, if one did.
    var signal: Int32? { lock.withLock { received } }

    /// Starts listening; `onStop` runs once, on a background queue, at the first signal.
    init(onStop: @escaping @Sendable () -> Void) {
        for number in [SIGINT, SIGTERM] {
            Foundation.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                let first: Bool = lock.withLock {
                    defer { received = received ?? number }
                    return received == nil
                }
                if first {
                    printError("\nstopping after the inputs in progress (\(number == SIGINT ? "SIGINT" : "SIGTERM"); again to stop now)")
                    onStop()
                } else {
                    Foundation.exit(128 + number)
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Ends the process with 128 + the signal's number if a signal stopped the batch.
    func exitIfStopped() {
        if let signal { Foundation.exit(128 + signal) }
    }
}
