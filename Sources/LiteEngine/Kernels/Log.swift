import Foundation

/// LOG: natural logarithm (libm's `logf`, as TFLite's std::log); uint8/int8 through TFLite's lookup table of it, int16
/// (16x8 models) through its 513-entry interpolated table (`LUTPopulate<int16_t>` in single precision) of a logarithm
/// that is the output's lowest value at and below zero: the table's anchors next to zero interpolate towards it, as
/// LiteRT's do (its table over an input range through zero, read back from its outputs: anchor 256, just below zero,
/// is −28,852 there, which only that saturation gives).
final class Log: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { logf(x) }

    override class var quantizedFunction: ((Float) -> Float)? { { logf($0) } }

    private var int16Table: [Int16]?

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        int16Table = nil
        guard input.type == .int16 else { return try super.prepare() }
        guard output.type == .int16 else { throw KernelError.unsupported("int16 LOG into \(output.type)") }
        let qi = try QuantizedTensorInfo(input), qo = try QuantizedTensorInfo(output)
        let lowest = qo.scale * Float(-32768 - qo.zeroPoint)
        int16Table = Int16Activations.lookupTable(inputScale: qi.scale, inputZeroPoint: qi.zeroPoint, outputScale: qo.scale,
                                                  outputZeroPoint: qo.zeroPoint) { $0 <= 0 ? lowest : logf($0) }
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
        compute(context.threads, Log.self)
    }
}
