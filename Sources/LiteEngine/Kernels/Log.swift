import Foundation

/// LOG: natural logarithm (libm's `logf`, as TFLite's std::log); uint8/int8 through TFLite's lookup table of it.
final class Log: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { logf(x) }

    override class var quantizedFunction: ((Float) -> Float)? { { logf($0) } }

    override func run(_ context: RunContext) throws {
        if runLookupTable() { return }
        compute(context.threads, Log.self)
    }
}
