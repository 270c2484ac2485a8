import Foundation

/// TANH: hyperbolic tangent; uint8/int8 through TFLite's float lookup table.
final class Tanh: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { tanhf(x) }

    override class var quantizedFunction: ((Float) -> Float)? { { x in tanhf(x) } }

    override func run(_ context: RunContext) throws {
        if runLookupTable() { return }
        compute(context.threads, Tanh.self)
    }
}
