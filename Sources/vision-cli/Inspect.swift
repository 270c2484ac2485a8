import ArgumentParser
import Foundation
import LiteEngine
import LiteFormat

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "inspect", abstract: "Show a model's graph, tensors, ops, metadata and planned memory.")

    @Argument(help: "Path to a .tflite model.") var model: String
    @Flag(help: "Print one JSON object.") var json = false
    @Flag(help: "List every tensor with its type, shape and quantization (per tensor or per channel).") var tensors = false

    func run() throws {
        let report: ModelReport
        do {
            report = try ModelReport(path: model, allTensors: tensors)
        } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.text)
        }
    }
}
