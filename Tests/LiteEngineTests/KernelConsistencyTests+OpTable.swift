import Foundation
@testable import LiteEngine
import LiteFormat
import XCTest

extension KernelConsistencyTests {
    /// Reference against fast over the op table (Goldens/op_cases.json), in the manner of ggml's test-backend-ops: each
    /// case's model in every numerics mode the table lists, against `exact` (the reference kernels), on other values than
    /// the golden's (float inputs drawn within the golden input's range, 8- and 16-bit inputs over the whole type,
    /// index-like int32/int64/bool inputs as recorded). Float outputs agree within 1e-5 of the largest value (NaN where
    /// the other has NaN), 8- and 16-bit outputs within one step (a value next to a rounding tie), others exactly; a
    /// model the values make fail must fail in both modes. `LITEVISION_OPS` narrows it as it narrows OpGoldenTests;
    /// LITEVISION_ISA picks the instruction-set level (tools/test.sh runs every level the CPU has).
    func testOpTableFastMatchesReference() throws {
        let table = try OpTable.shared.get()
        var compared = 0, failedInBoth = 0
        for (name, entry) in table.selected() {
            let folder = OpTable.folder(name)
            let model = try TFLiteModel(path: folder.appendingPathComponent("model.tflite").path)
            let recorded = try (0..<entry.inputs).map { try NumPyArray(contentsOf: folder.appendingPathComponent("input_\($0).npy").path) }
            for trial in 0..<2 {
                let inputs = recorded.map { otherValues(like: $0) }
                var results: [(Numerics, Result<[NumPyArray], Error>)] = []
                for numerics in [Numerics.exact] + entry.numericsModes.filter({ $0 != .exact }) {
                    results.append((numerics, Result { try runTableCase(model, inputs, numerics) }))
                }
                guard case .success(let reference) = results[0].1 else {
                    for (numerics, result) in results.dropFirst() {
                        if case .success = result { XCTFail("\(name) trial \(trial): exact failed, \(numerics) ran") }
                    }
                    failedInBoth += 1
                    continue
                }
                for (numerics, result) in results.dropFirst() {
                    switch result {
                    case .failure(let error): XCTFail("\(name) trial \(trial): \(numerics) failed where exact ran: \(error)")
                    case .success(let outputs):
                        XCTAssertEqual(outputs.count, reference.count, "\(name): output count")
                        for (i, (ours, expected)) in zip(outputs, reference).enumerated() {
                            assertAgree(ours, expected, "\(name) output \(i) trial \(trial), \(numerics) against exact")
                        }
                    }
                }
                compared += 1
            }
        }
        if OpTable.filter == nil { XCTAssertGreaterThan(compared, 400) }
        print("op table consistency: \(compared) runs compared, \(failedInBoth) failed in every mode")
    }

    func runTableCase(_ model: TFLiteModel, _ inputs: [NumPyArray], _ numerics: Numerics) throws -> [NumPyArray] {
        let interpreter = try Interpreter(model: model, options: .init(numerics: numerics, maximumLoopIterations: 10_000))
        for (i, array) in inputs.enumerated() where try interpreter.input(at: i).shape != array.shape {
            try interpreter.resizeInput(at: i, to: array.shape)
        }
        try interpreter.allocateTensors()
        for (i, array) in inputs.enumerated() { try array.bytes.withUnsafeBytes { try interpreter.copy($0, toInputAt: i) } }
        try interpreter.invoke()
        return try (0..<interpreter.outputCount).map { try interpreter.output(at: $0).numpy() }
    }

    /// An input of `recorded`'s shape and type with other values: floats within its range, 8- and 16-bit integers over
    /// the whole type; other types (indices, shapes, flags) kept as recorded.
    func otherValues(like recorded: NumPyArray) -> NumPyArray {
        var bytes = recorded.bytes
        switch recorded.type {
        case .float32:
            let values = recorded.floats().filter(\.isFinite)
            let low = values.min() ?? 0, high = values.max() ?? 0
            for i in 0..<recorded.elementCount {
                // Weighted so that a range wider than Float's (inputs of ±3e38) stays finite.
                let t = Float.random(in: 0...1, using: &generator), value = low < high ? low * (1 - t) + high * t : low
                withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.replaceSubrange(i * 4..<(i * 4 + 4), with: $0) }
            }
        case .int8, .uint8:
            for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &generator) }
        case .int16:
            for i in 0..<recorded.elementCount {
                withUnsafeBytes(of: Int16.random(in: .min ... .max, using: &generator).littleEndian) { bytes.replaceSubrange(i * 2..<(i * 2 + 2), with: $0) }
            }
        default:
            break
        }
        return NumPyArray(type: recorded.type, shape: recorded.shape, bytes: bytes)
    }

    /// `ours` against `reference` as described at ``testOpTableFastMatchesReference()``.
    func assertAgree(_ ours: NumPyArray, _ reference: NumPyArray, _ label: String) {
        XCTAssertEqual(ours.shape, reference.shape, "\(label): shape")
        XCTAssertEqual(ours.type, reference.type, "\(label): dtype")
        guard ours.shape == reference.shape, ours.type == reference.type else { return }
        switch reference.type {
        case .float32:
            let a = ours.floats(), b = reference.floats()
            let scale = max(1, b.filter(\.isFinite).map(abs).max() ?? 0)
            for i in a.indices where !(a[i] == b[i] || a[i].isNaN && b[i].isNaN) {
                guard abs(a[i] - b[i]) <= 1e-5 * scale else {
                    return XCTFail("\(label): \(a[i]) against \(b[i]) at \(i), allowed \(1e-5 * scale)")
                }
            }
        case .int8, .uint8, .int16:
            let size = reference.type == .int16 ? 2 : 1
            for i in 0..<reference.elementCount {
                func value(_ array: NumPyArray) -> Int {
                    switch array.type {
                    case .int8: Int(Int8(bitPattern: array.bytes[i]))
                    case .uint8: Int(array.bytes[i])
                    default: Int(Int16(bitPattern: UInt16(array.bytes[i * size]) | UInt16(array.bytes[i * size + 1]) << 8))
                    }
                }
                guard abs(value(ours) - value(reference)) <= 1 else {
                    return XCTFail("\(label): \(value(ours)) against \(value(reference)) at \(i)")
                }
            }
        default:
            XCTAssertEqual(ours.bytes, reference.bytes, "\(label): values differ")
        }
    }
}
