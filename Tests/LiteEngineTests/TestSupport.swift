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
    case .float32, .complex64:
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

/// The comparison of goldens marked special (float outputs of sums over inputs with NaN and ±inf): NaN, ±inf and
/// ±FLT_MAX exactly where LiteRT has them, every other value within `tolerance` of the largest of those others.
func assertCloseWithSpecialValues(_ ours: NumPyArray, _ reference: NumPyArray, tolerance: Float = 1e-4, _ label: String,
                                  file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(ours.shape, reference.shape, "\(label): shape", file: file, line: line)
    guard ours.shape == reference.shape, ours.type == .float32, reference.type == .float32 else {
        return XCTFail("\(label): float32 outputs expected, are \(ours.type) and \(reference.type)", file: file, line: line)
    }
    let a = ours.floats(), b = reference.floats()
    func isSpecial(_ x: Float) -> Bool { !x.isFinite || abs(x) == .greatestFiniteMagnitude }
    let scale = max(1, b.filter { !isSpecial($0) }.map(abs).max() ?? 0)
    var specials = 0
    for i in 0..<a.count {
        if isSpecial(b[i]) || isSpecial(a[i]) {
            specials += 1
            let same = (a[i].isNaN && b[i].isNaN) || a[i] == b[i]
            XCTAssert(same, "\(label): at \(i) ours \(a[i]), LiteRT \(b[i])", file: file, line: line)
            if !same { return }
        } else if !(abs(a[i] - b[i]) <= tolerance * scale) {
            return XCTFail("\(label): at \(i) ours \(a[i]), LiteRT \(b[i]), allowed \(tolerance * scale)", file: file, line: line)
        }
    }
    XCTAssertGreaterThan(specials, 0, "\(label): no special value to compare", file: file, line: line)
}

/// The comparison of goldens marked exact: the same values bit for bit, any NaN matching any NaN.
func assertIdentical(_ ours: NumPyArray, _ reference: NumPyArray, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(ours.shape, reference.shape, "\(label): shape", file: file, line: line)
    XCTAssertEqual(ours.type, reference.type, "\(label): dtype", file: file, line: line)
    guard ours.shape == reference.shape, ours.type == reference.type else { return }
    guard reference.type == .float32 else { return XCTAssertEqual(ours.bytes, reference.bytes, "\(label): values differ", file: file, line: line) }
    let a = ours.floats(), b = reference.floats()
    let differing = a.indices.filter { !(a[$0].isNaN && b[$0].isNaN) && a[$0].bitPattern != b[$0].bitPattern }
    XCTAssert(differing.isEmpty, "\(label): \(differing.count) values differ, first at \(differing.first ?? 0) (ours \(differing.first.map { a[$0] } ?? 0), "
              + "LiteRT \(differing.first.map { b[$0] } ?? 0))", file: file, line: line)
}

/// `fast` numerics on a quantized model's output: every value within one step of LiteRT's built-in kernels (the
/// issue's rule), and a vector of class scores with the built-in top-1; XNNPACK's distance on the same input is
/// only reported. Steps: 1 for uint8/int8 outputs; for a float output, its range / 255.
func assertWithinOneStep(_ ours: NumPyArray, _ reference: NumPyArray, xnnpack: NumPyArray, _ label: String,
                            file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(ours.shape, reference.shape, "\(label): shape", file: file, line: line)
    XCTAssertEqual(ours.type, reference.type, "\(label): dtype", file: file, line: line)
    guard ours.shape == reference.shape, ours.type == reference.type, xnnpack.shape == reference.shape else { return }
    func values(_ array: NumPyArray) -> [Float] {
        switch array.type {
        case .uint8: return array.bytes.map { Float($0) }
        case .int8: return array.bytes.map { Float(Int8(bitPattern: $0)) }
        default: return array.floats()
        }
    }
    let a = values(ours), b = values(reference), x = values(xnnpack)
    let step: Float = reference.type == .uint8 || reference.type == .int8 ? 1 : max(1e-6, ((b.max() ?? 0) - (b.min() ?? 0)) / 255)
    let xnnpackDistance = zip(x, b).map { abs($0 - $1) }.max() ?? 0
    let distance = zip(a, b).map { abs($0 - $1) }.max() ?? 0
    // The rule for `fast`: within one step of LiteRT's built-in kernels everywhere (XNNPACK's own distance
    // is only reported).
    XCTAssertLessThanOrEqual(distance, step * 1.0001,
                             "\(label): differs from the built-in kernels by \(distance) (XNNPACK by \(xnnpackDistance), one step \(step))", file: file, line: line)
    if reference.shape.filter({ $0 > 1 }).count == 1 {
        func top(_ v: [Float]) -> Int { v.indices.max { v[$0] < v[$1] || (v[$0] == v[$1] && $0 > $1) } ?? 0 }
        XCTAssertEqual(top(a), top(b), "\(label): top-1", file: file, line: line)
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

extension XCTestCase {
    /// A model file whose one op (LSH_PROJECTION) the engine does not implement, written to a temporary file (removed when
    /// the test ends): what a user sees when a model needs an op that is missing.
    func unsupportedModelPath() throws -> String {
        var builder = ModelBuilder()
        let x = builder.addTensor(name: "x", type: .float32, shape: [1, 4])
        let y = builder.addTensor(name: "y", type: .float32, shape: [1, 4])
        builder.addOperator(BuiltinOperator(rawValue: 15), version: 1, inputs: [x], outputs: [y])
        builder.inputs = [x]
        builder.outputs = [y]
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("unsupported-lsh-projection-\(UUID().uuidString).tflite")
        try Data(builder.build()).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }
}

