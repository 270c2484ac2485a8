import Foundation

/// EXP: e^x; uint8/int8 through TFLite's lookup table of `expf`, int16 (16x8 models, zero points 0) through its
/// 513-entry interpolated table of it (`LUTPopulate<int16_t>`, exp.cc).
final class Exp: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { expf(x) }

    override class var quantizedFunction: ((Float) -> Float)? { { expf($0) } }

    private var int16Table: [Int16]?

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        int16Table = nil
        guard input.type == .int16 else { return try super.prepare() }
        guard output.type == .int16 else { throw KernelError.unsupported("int16 EXP into \(output.type)") }
        try Int16Activations.expectSymmetric(input, output)
        let qi = try QuantizedTensorInfo(input), qo = try QuantizedTensorInfo(output)
        int16Table = Int16Activations.lookupTable(inputScale: qi.scale, inputZeroPoint: 0, outputScale: qo.scale, outputZeroPoint: 0) { expf($0) }
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        if let int16Table {
            let input = node.inputs[0]!.pointer(Int16.self), output = node.outputs[0].pointer(Int16.self)
            int16Table.withUnsafeBufferPointer { table in
                for i in 0..<node.inputs[0]!.elementCount { output[i] = Int16Activations.lookup(input[i], table.baseAddress!) }
            }
            return
        }
        if runLookupTable() { return }
        compute(context.threads, Exp.self)
    }
}
