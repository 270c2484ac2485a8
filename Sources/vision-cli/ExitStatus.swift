import ArgumentParser
import Foundation

/// vision-cli's exit statuses, the same for every command (Docs/cli.md).
enum ExitStatus: Int32 {
    /// Everything asked for was done.
    case success = 0
    /// Some inputs failed (each reported on stderr, and as an error record in JSON lines); the others were done.
    case inputsFailed = 1
    /// The command line is wrong: an unknown option, a bad value, flags that exclude each other, a missing input.
    case usage = 2
    /// The model could not be found, fetched or loaded.
    case modelUnavailable = 3
    /// An output file could not be written.
    case outputFailed = 4
}

/// An error that ends the command with its own exit status and message.
struct CLIError: Error, CustomStringConvertible {
    let status: ExitStatus
    let message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    var description: String { message }

    /// A model that could not be found, fetched or loaded.
    static func model(_ error: Error) -> CLIError { CLIError(.modelUnavailable, "\(error)") }
}

extension ExitCode {
    init(_ status: ExitStatus) { self.init(status.rawValue) }
}
