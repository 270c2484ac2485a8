import Foundation

/// EXP: e^x.
final class Exp: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { expf(x) }

    override func run(_ context: RunContext) throws {
        compute(context.threads, Exp.self)
    }
}
