import Foundation
import TensorFlowLiteCompat
import XCTest

/// The value types and options as TensorFlowLiteSwift code writes them.
final class APISurfaceTests: XCTestCase {
    final class CPUOnlyDelegate: Delegate {}

    func testOptionsDefaultsAndDelegatesAreKept() throws {
        let defaults = Interpreter.Options()
        XCTAssertNil(defaults.threadCount)
        XCTAssertFalse(defaults.isXNNPackEnabled)

        var options = Interpreter.Options()
        options.threadCount = 1
        options.isXNNPackEnabled = true
        XCTAssertNotEqual(options, defaults)
        let delegate = CPUOnlyDelegate()
        let interpreter = try Interpreter(modelPath: TestPaths.model("classification/mobilenet_v1_0.25_128_quant.tflite"),
                                          options: options, delegates: [delegate])
        XCTAssertEqual(interpreter.options, options)
        XCTAssertTrue(interpreter.delegates?.first === delegate)
        XCTAssertNil(try Interpreter(modelPath: TestPaths.model("classification/mobilenet_v1_0.25_128_quant.tflite")).options)
        try interpreter.allocateTensors()
        XCTAssertEqual(try interpreter.input(at: 0).shape, [1, 128, 128, 3])
        XCTAssertEqual(interpreter.signatureKeys, [])
    }

    func testShapeSpellings() {
        let literal: Tensor.Shape = [1, 224, 224, 3]
        XCTAssertEqual(literal, Tensor.Shape([1, 224, 224, 3]))
        XCTAssertEqual(literal, Tensor.Shape(1, 224, 224, 3))
        XCTAssertEqual(literal.rank, 4)
        XCTAssertEqual(literal.dimensions, [1, 224, 224, 3])
        XCTAssertEqual(Tensor.Shape([]).rank, 0)
        XCTAssertNotEqual(literal, [1, 3, 224, 224])
    }
}
