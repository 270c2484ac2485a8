import Foundation

/// LOG: natural logarithm (libm's `logf`, as TFLite's std::log); uint8/int8 through TFLite's lookup table of it, int16
/// (16x8 models) through its 513-entry interpolated table (`LUTPopulate<int16_t>` in single precision) of a logarithm
/// that is the output's lowest value at and below zero: the table's anchors next to zero interpolate towards it, as
/// LiteRT's do (its table over an input range through zero, read back from its outputs: anchor 256, just below zero,
/// is −28,852 there, which only that saturation gives).
final class Log: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { logf(x) }

    override class var quantizedFunction: ((Float) -> Float)? { { logf($0) } }

    override class func int16Function(input: Tensor, output: Tensor) throws -> ((Int32) -> Int32)? {
        let qo = try QuantizedTensorInfo(output)
        let lowest = qo.scale * Float(-32768 - qo.zeroPoint)
        return try Int16Activations.interpolated(input: input, output: output) { $0 <= 0 ? lowest : logf($0) }
    }

    override func runFloat(_ context: RunContext) throws {
        compute(context.threads, Log.self)
    }
}
