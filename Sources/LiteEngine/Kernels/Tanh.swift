import Foundation

/// TANH: hyperbolic tangent; uint8/int8 through TFLite's float lookup table, int16 through its sigmoid table. Float runs ``vectorizableTanh``
/// (a few ulp from libm's `tanhf`, which the lookup table keeps for exactness).
final class Tanh: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { vectorizableTanh(x) }

    override class var quantizedFunction: ((Float) -> Float)? { { x in tanhf(x) } }

    /// int16: TFLite's table interpolation (``Int16Activations/tanh(_:multiplier:shift:)``), or on a power-of-two input
    /// scale gemmlowp's fixed-point tanh (``FixedPoint16``), as LiteRT's kernels choose.
    override class func int16Function(input: Tensor, output: Tensor) throws -> ((Int32) -> Int32)? {
        try Int16Activations.expectSymmetric(input, output)
        switch try Int16Activations.sigmoidInput(inputScale: try QuantizedTensorInfo(input).scale, outputScale: try QuantizedTensorInfo(output).scale,
                                                 tanh: true, op: "TANH") {
        case .rescaled(let multiplier, let shift):
            return { Int16Activations.tanh($0, multiplier: multiplier, shift: shift) }
        case .fixedPoint(let leftShift):
            return { Int32(FixedPoint16.tanh(FixedPoint16.multiplyByPOT(Int16(truncatingIfNeeded: $0), leftShift), integerBits: 3)) }
        }
    }

    override func runFloat(_ context: RunContext) throws {
        compute(context.threads, Tanh.self)
    }
}
