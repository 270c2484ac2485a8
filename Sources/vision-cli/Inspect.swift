import ArgumentParser
import Foundation
import LiteEngine
import LiteFormat

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "inspect", abstract: "Show a model's graph, tensors, ops, metadata and planned memory.")

    @Argument(help: "A .tflite path or a registry model name (vision-cli models list).") var model: String
    @Flag(help: "Print one JSON object.") var json = false
    @Flag(help: "List every tensor with its type, shape and quantization (per tensor or per channel).") var tensors = false
    @OptionGroup var location: RegistryLocation

    func run() throws {
        let path = try location.resolve(model, task: nil)
        let report: ModelReport
        do {
            report = try ModelReport(path: path, allTensors: tensors)
        } catch {
            throw CLIError.model(error)
        }
        if json {
            print(String(decoding: try snakeCaseEncoder().encode(report), as: UTF8.self))
        } else {
            print(report.text)
        }
    }
}
