import ArgumentParser
import Foundation

@main
struct VisionCLI: ParsableCommand {
    /// The version `--version` prints.
    static let version = "0.9.0"

    static let configuration = CommandConfiguration(
        commandName: "vision-cli",
        abstract: "Run TensorFlow Lite models in pure Swift.",
        discussion: "Exit status: 0 all done, 1 some inputs failed, 2 usage error, 3 model unavailable, 4 output not written.",
        version: version,
        subcommands: [Classify.self, Detect.self, Track.self, InkCommand.self, Models.self, Inspect.self, Run.self, Bench.self, CPU.self]
    )

    /// Parses and runs the command, mapping errors to ``ExitStatus``: ArgumentParser's usage errors (its own
    /// status is 64) become 2, a ``CLIError`` its own status.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as CLIError {
            printError("error: \(error.message)")
            Foundation.exit(error.status.rawValue)
        } catch let error as ValidationError {
            // Thrown by a command's run (a missing input, a value only checkable there): the message alone.
            printError("error: \(error.message)")
            Foundation.exit(ExitStatus.usage.rawValue)
        } catch {
            if exitCode(for: error) == .validationFailure {
                printError(fullMessage(for: error))
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            exit(withError: error)
        }
    }
}

/// Writes to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
