import Foundation
import LiteEngine
import LiteFormat
import XCTest

/// Paths the tests read: the package root, the committed goldens and the shared models and images beside the project.
enum TestPaths {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let goldens = packageRoot.appendingPathComponent("Tests/LiteEngineTests/Goldens")
    static let shared = packageRoot.appendingPathComponent("../shared").standardized
    static let models = shared.appendingPathComponent("models")
    /// Whole-model goldens, made by `tools/make_model_goldens.py` (not committed: the inputs are large).
    static let modelGoldens = packageRoot.appendingPathComponent(".goldens/models")

    static func model(_ relative: String) throws -> String {
        let path = models.appendingPathComponent(relative).path
        guard FileManager.default.fileExists(atPath: path) else {
            throw EngineError.invalidArgument("missing test model \(path): ../shared must sit beside the project")
        }
        return path
    }
}

/// The comparison every golden test uses: max |ours - reference| <= 1e-4 * max(1, max |reference|).
func assertClose(_ ours: NumPyArray, _ reference: NumPyArray, tolerance: Float = 1e-4, _ label: String,
                 file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(ours.shape, reference.shape, "\(label): shape", file: file, line: line)
    XCTAssertEqual(ours.type, reference.type, "\(label): dtype", file: file, line: line)
    guard ours.shape == reference.shape, ours.type == reference.type else { return }
    switch reference.type {
    case .float32:
        let a = ours.floats(), b = reference.floats()
        let scale = max(1, b.map(abs).max() ?? 0)
        var worst: Float = 0, worstIndex = 0
        for i in 0..<a.count {
            let error = abs(a[i] - b[i])
            if !(error <= worst) { worst = error; worstIndex = i }
        }
        XCTAssert(worst <= tolerance * scale,
                  "\(label): max error \(worst) at \(worstIndex) (ours \(a.isEmpty ? 0 : a[worstIndex]), LiteRT \(b.isEmpty ? 0 : b[worstIndex])), allowed \(tolerance * scale)",
                  file: file, line: line)
    default:
        XCTAssertEqual(ours.bytes, reference.bytes, "\(label): values differ", file: file, line: line)
    }
}

/// Runs `model` on the arrays and returns every output.
func runModel(_ path: String, inputs: [NumPyArray], options: Interpreter.Options = .init()) throws -> [NumPyArray] {
    let interpreter = try Interpreter(modelPath: path, options: options)
    for (i, array) in inputs.enumerated() {
        if try interpreter.input(at: i).shape != array.shape { try interpreter.resizeInput(at: i, to: array.shape) }
    }
    try interpreter.allocateTensors()
    for (i, array) in inputs.enumerated() {
        try array.bytes.withUnsafeBytes { try interpreter.copy($0, toInputAt: i) }
    }
    try interpreter.invoke()
    return try (0..<interpreter.outputCount).map { try interpreter.output(at: $0).numpy() }
}
