import Foundation

/// EXP: e^x; uint8/int8 through TFLite's lookup table of `expf`.
final class Exp: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { expf(x) }

    override class var quantizedFunction: ((Float) -> Float)? { { expf($0) } }

    override func run(_ context: RunContext) throws {
        if runLookupTable() { return }
        compute(context.threads, Exp.self)
    }
}
