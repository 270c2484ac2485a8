import Foundation

/// LOG: natural logarithm (libm's `logf`, as TFLite's std::log).
final class Log: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { logf(x) }

    override func run(_ context: RunContext) throws {
        compute(context.threads, Log.self)
    }
}
