import ArgumentParser
import Foundation
import LiteEngine

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Run a model on .npy inputs and write its outputs as .npy files.")

    @Argument(help: "A .tflite path or a registry model name (vision-cli models list).") var model: String
    @Option(name: .long, help: "An input .npy file, once per model input, in order.") var input: [String] = []
    @Option(name: .long, help: "Directory for output_<i>.npy.") var outputDir: String
    @Option(name: .long, help: "Threads.") var threads = 1
    @Option(name: .long, help: "Quantized arithmetic: exact or fast.") var numerics: String = "fast"
    @Flag(name: .long, help: "Also write every node's outputs as DIR/tensors/t<tensor index>.npy (for debugging).") var dumpTensors = false
    @Option(name: .long, help: "Run this signature's subgraph (TFLite's signature runner) instead of the main graph; --input files in that subgraph's input order.")
    var signature: String?
    @OptionGroup var location: RegistryLocation

    func validate() throws {
        guard threads >= 1 else { throw ValidationError("--threads must be at least 1") }
        guard Numerics(rawValue: numerics) != nil else { throw ValidationError("--numerics must be exact or fast") }
    }

    func run() throws {
        // With --dump-tensors every node's own output is written, as unfused as the model file has it.
        let options = Interpreter.Options(threads: threads, numerics: Numerics(rawValue: numerics)!, fusesActivations: !dumpTensors)
        let main: Interpreter
        do { main = try Interpreter(modelPath: try location.resolve(model, task: nil), options: options) } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.model(error)
        }
        do {
            let interpreter = try signature.map { try main.signatureRunner($0) } ?? main
            guard input.count == interpreter.inputCount else {
                throw EngineError.invalidArgument("the model has \(interpreter.inputCount) inputs, \(input.count) --input given")
            }
            let arrays = try input.map { try NumPyArray(contentsOf: $0) }
            for (i, array) in arrays.enumerated() {
                let tensor = try interpreter.input(at: i)
                guard array.type == tensor.type else {
                    throw EngineError.invalidArgument("input \(i) (\(input[i])) is \(array.type), the model wants \(tensor.type)")
                }
                if array.shape != tensor.shape { try interpreter.resizeInput(at: i, to: array.shape) }
            }
            try interpreter.allocateTensors()
            for (i, array) in arrays.enumerated() {
                try array.bytes.withUnsafeBytes { try interpreter.copy($0, toInputAt: i) }
            }
            do { try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true) } catch {
                throw CLIError(.outputFailed, "cannot create the folder \(outputDir): \((error as NSError).localizedFailureReason ?? "\(error)")")
            }
            if dumpTensors {
                let folder = URL(fileURLWithPath: outputDir).appendingPathComponent("tensors")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try interpreter.invoke { _, outputs in
                    for tensor in outputs {
                        try OutputFile.write(tensor.numpy().encoded(), to: folder.appendingPathComponent("t\(tensor.index).npy").path)
                    }
                }
            } else {
                try interpreter.invoke()
            }
            for i in 0..<interpreter.outputCount {
                let bytes = try interpreter.output(at: i).numpy().encoded()
                try OutputFile.write(bytes, to: (outputDir as NSString).appendingPathComponent("output_\(i).npy"))
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError(.inputsFailed, "\(error)")
        }
    }
}
