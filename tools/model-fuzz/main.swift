import Foundation
import ModelFuzzing

// model-fuzz [--cases N] [--seed S] [--models DIR] [--save-case K FILE]: mutates every .tflite under DIR (default
// ../shared/models) and checks that the reader and planner never crash. Exit 0 with a summary; a crash kills the
// process. --save-case writes case K's mutant to FILE (to look at a slow or failing case a run named).
var cases = 100_000
var seed: UInt64 = 1
var directory = "../shared/models"
var saveCase: (Int, String)?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--cases": cases = Int(arguments.next() ?? "") ?? cases
    case "--seed": seed = UInt64(arguments.next() ?? "") ?? seed
    case "--models": directory = arguments.next() ?? directory
    case "--save-case": saveCase = (Int(arguments.next() ?? "") ?? -1, arguments.next() ?? "case.tflite")
    default:
        FileHandle.standardError.write(Data("usage: model-fuzz [--cases N] [--seed S] [--models DIR] [--save-case K FILE]\n".utf8))
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
fuzzer.saveCase = saveCase
let start = Date()
let outcome = try fuzzer.run(models: models, count: cases) { progress in
    if progress.cases % 10_000 == 0 { print("  \(progress)") }
}
print(outcome)
print(String(format: "%.1f s", Date().timeIntervalSince(start)))
