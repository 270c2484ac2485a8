// libFuzzer target: load, plan and run (LiteEngine with LiteFormat and the CLiteKernels C files) on arbitrary model
// bytes. Built by tools/fuzz.sh into the LiteEngine module with its sources, against LiteFormat, and with the
// C kernels compiled by clang with the same sanitizers: every byte string must load, plan and run, or throw a
// FormatError or an EngineError, never crash.
//
// A mutated dimension can make a small model a legitimately huge computation, which is slow, not wrong: the plan is
// held to a memory limit (the engine rejects a bigger plan with an error), WHILE loops to a few steps, and a model is
// run only when its inputs are small. Inputs are filled from the fuzz bytes themselves, so that index and shape
// inputs (GATHER indices, RESHAPE shapes) take hostile values too.

import Foundation
import LiteFormat

/// The most bytes the plan may take (intermediate, scratch and variable tensors).
private let memoryLimit = 32 << 20
/// The most bytes of all inputs together for the model to be run.
private let maximumInputBytes = 1 << 16

@_cdecl("LLVMFuzzerInitialize")
public func modelInvokeFuzzerInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    // The sanitizer runtimes refuse dlopen's RTLD_DEEPBIND (Docs/hardening.md): OpenBLAS is opened without it.
    setenv("LITEVISION_BLAS_DEEPBIND", "0", 1)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func modelInvokeFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    do {
        let model = try TFLiteModel(bytes: Array(bytes))
        let interpreter = try Interpreter(model: model, options: .init(threads: 1, memoryLimit: memoryLimit, maximumLoopIterations: 16))
        var inputBytes = 0
        for index in 0..<interpreter.inputCount {
            let tensor = try interpreter.input(at: index)
            inputBytes += max(tensor.byteCount, 0)
            guard inputBytes <= maximumInputBytes else { return 0 }
        }
        for index in 0..<interpreter.inputCount {
            let count = try interpreter.input(at: index).byteCount
            // The model's own bytes, repeated: for a valid model, plausible floats and small integers.
            let filled = (0..<count).map { size == 0 ? 0 : bytes[$0 % size] }
            try filled.withUnsafeBytes { try interpreter.copy($0, toInputAt: index) }
        }
        try interpreter.invoke()
        // Read every output as the caller would.
        var checksum = 0
        for index in 0..<interpreter.outputCount {
            let tensor = try interpreter.output(at: index)
            if let base = tensor.data {
                let raw = UnsafeRawBufferPointer(start: base, count: tensor.byteCount)
                checksum &+= raw.reduce(0) { $0 &+ Int($1) }
            }
        }
        return checksum == Int.min ? 1 : 0
    } catch is FormatError {
    } catch is EngineError {
    } catch {
        // The engine throws only its two error types; anything else is a bug in how an error is reported.
        preconditionFailure("unexpected error type \(type(of: error)): \(error)")
    }
    return 0
}
