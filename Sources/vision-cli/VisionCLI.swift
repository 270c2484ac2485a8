import ArgumentParser
import Foundation

@main
struct VisionCLI: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vision-cli",
        abstract: "Run TensorFlow Lite models in pure Swift.",
        subcommands: [Classify.self, Detect.self, Track.self, InkCommand.self, Models.self, Inspect.self, Run.self, Bench.self, CPU.self]
    )
}

/// Writes to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
