import Foundation
import ModelFuzzing

// model-fuzz [--cases N] [--seed S] [--models DIR]: mutates every .tflite under DIR (default ../shared/models)
// and checks that the reader and planner never crash. Exit 0 with a summary; a crash kills the process.
var cases = 100_000
var seed: UInt64 = 1
var directory = "../shared/models"
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--cases": cases = Int(arguments.next() ?? "") ?? cases
    case "--seed": seed = UInt64(arguments.next() ?? "") ?? seed
    case "--models": directory = arguments.next() ?? directory
    default:
        FileHandle.standardError.write(Data("usage: model-fuzz [--cases N] [--seed S] [--models DIR]\n".utf8))
        exit(2)
    }
}
let models = ModelFuzzer.models(under: directory)
guard !models.isEmpty else {
    FileHandle.standardError.write(Data("no .tflite files under \(directory)\n".utf8))
    exit(1)
}
print("fuzzing \(models.count) models, \(cases) cases, seed \(seed)")
var fuzzer = ModelFuzzer(seed: seed)
let start = Date()
let outcome = try fuzzer.run(models: models, count: cases) { progress in
    if progress.cases % 10_000 == 0 { print("  \(progress)") }
}
print(outcome)
print(String(format: "%.1f s", Date().timeIntervalSince(start)))
