import Foundation

/// LOGISTIC: 1 / (1 + e^-x); uint8/int8 through TFLite's float lookup table. Float runs ``vectorizableSigmoid``
/// (a few ulp from libm's `expf`, which the lookup table keeps for exactness).
final class Logistic: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { vectorizableSigmoid(x) }

    override class var quantizedFunction: ((Float) -> Float)? { { x in 1 / (1 + expf(-x)) } }

    override func run(_ context: RunContext) throws {
        if runLookupTable() { return }
        compute(context.threads, Logistic.self)
    }
}
