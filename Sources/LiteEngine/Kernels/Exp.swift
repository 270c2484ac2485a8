import Foundation

/// EXP: e^x; uint8/int8 through TFLite's lookup table of `expf`, int16 (16x8 models, zero points 0) through its
/// 513-entry interpolated table of it (`LUTPopulate<int16_t>`, exp.cc).
final class Exp: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { expf(x) }

    override class var quantizedFunction: ((Float) -> Float)? { { expf($0) } }

    override class func int16Function(input: Tensor, output: Tensor) throws -> ((Int32) -> Int32)? {
        try Int16Activations.expectSymmetric(input, output)
        return try Int16Activations.interpolated(input: input, output: output) { expf($0) }
    }

    override func runFloat(_ context: RunContext) throws {
        compute(context.threads, Exp.self)
    }
}
