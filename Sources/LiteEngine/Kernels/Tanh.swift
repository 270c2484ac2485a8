import Foundation

/// TANH: hyperbolic tangent.
enum TanhOperation: UnaryFloatOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { tanhf(x) }
}

typealias Tanh = UnaryElementwise<TanhOperation>
