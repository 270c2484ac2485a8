import Foundation

/// TANH: hyperbolic tangent; uint8/int8 through TFLite's float lookup table. Float runs ``vectorizableTanh``
/// (a few ulp from libm's `tanhf`, which the lookup table keeps for exactness).
final class Tanh: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { vectorizableTanh(x) }

    override class var quantizedFunction: ((Float) -> Float)? { { x in tanhf(x) } }

    override func run(_ context: RunContext) throws {
        if runLookupTable() { return }
        compute(context.threads, Tanh.self)
    }
}
