import Foundation
import LiteEngine
import LiteFormat
import XCTest

/// One `Interpreter` per thread, all sharing one `TFLiteModel`: eight threads at once compute, bit for bit, what one
/// interpreter computes alone, with one engine thread each and with two (their loops then share the worker pool).
/// Run under ThreadSanitizer too (Docs/hardening.md).
final class InterpreterPerThreadTests: XCTestCase {
    static let threads = 8
    /// ../shared beside the checkout (symbolic links resolved: tools/sanitize.sh builds this file in a package of its own).
    static let models = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("../../../shared/models").standardized

    /// Input `round` for `interpreter`: every byte of every input from a fixed sequence (any bytes are valid
    /// quantized values; float inputs get small values).
    static func fill(_ interpreter: Interpreter, round: Int) throws {
        for index in 0..<interpreter.inputCount {
            let tensor = try interpreter.input(at: index)
            var state = UInt64(round * 7919 + index * 104_729 + 1)
            func next() -> UInt64 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return state >> 33
            }
            if tensor.type == .float32 {
                try interpreter.copy((0..<tensor.elementCount).map { _ in Float(Int(next() % 2001) - 1000) / 1000 }, toInputAt: index)
            } else {
                var bytes = (0..<tensor.byteCount).map { _ in UInt8(truncatingIfNeeded: next()) }
                try bytes.withUnsafeMutableBytes { try interpreter.copy(UnsafeRawBufferPointer($0), toInputAt: index) }
            }
        }
    }

    /// Every output's bytes after running input `round`.
    static func outputs(_ interpreter: Interpreter, round: Int) throws -> [[UInt8]] {
        try fill(interpreter, round: round)
        try interpreter.invoke()
        return try (0..<interpreter.outputCount).map { index in
            let tensor = try interpreter.output(at: index)
            return Array(UnsafeRawBufferPointer(start: tensor.data, count: tensor.byteCount))
        }
    }

    func assertPerThreadInterpretersMatchSerial(_ relative: String, engineThreads: Int, rounds: Int,
                                                file: StaticString = #filePath, line: UInt = #line) throws {
        let model = try TFLiteModel(path: Self.models.appendingPathComponent(relative).path)
        let options = Interpreter.Options(threads: engineThreads)
        let alone = try Interpreter(model: model, options: options)
        try alone.allocateTensors()
        let serial = try (0..<rounds).map { try Self.outputs(alone, round: $0) }
        let lock = NSLock()
        var mismatches: [String] = []
        DispatchQueue.concurrentPerform(iterations: Self.threads) { thread in
            do {
                let interpreter = try Interpreter(model: model, options: options)
                try interpreter.allocateTensors()
                // Rounds in the serial order: a recurrent model's variable tensors carry state from run to run.
                for round in 0..<rounds {
                    if try Self.outputs(interpreter, round: round) != serial[round] {
                        lock.lock(); mismatches.append("thread \(thread) round \(round)"); lock.unlock()
                    }
                }
            } catch {
                lock.lock(); mismatches.append("thread \(thread): \(error)"); lock.unlock()
            }
        }
        XCTAssertEqual(mismatches, [], "\(relative), \(engineThreads) engine threads", file: file, line: line)
    }

    func testQuantizedClassifiers() throws {
        try assertPerThreadInterpretersMatchSerial("classification/mobilenet_v1_0.25_128_quant.tflite", engineThreads: 1, rounds: 3)
        try assertPerThreadInterpretersMatchSerial("classification/mobilenet_v1_0.25_128_quant.tflite", engineThreads: 2, rounds: 2)
    }

    /// A float model (the face detector: convolutions through OpenBLAS and the engine's float kernels).
    func testFloatFaceDetector() throws {
        try assertPerThreadInterpretersMatchSerial("detection/face_detection_short_range.tflite", engineThreads: 1, rounds: 2)
        try assertPerThreadInterpretersMatchSerial("detection/face_detection_short_range.tflite", engineThreads: 2, rounds: 2)
    }

    /// Recurrent models: the float and integer LSTMs, whose state lives in variable tensors of each interpreter.
    func testRecurrentModels() throws {
        try assertPerThreadInterpretersMatchSerial("lstm/trained_lstm.tflite", engineThreads: 1, rounds: 3)
        try assertPerThreadInterpretersMatchSerial("lstm/trained_lstm_int8.tflite", engineThreads: 1, rounds: 3)
    }
}
