import Foundation

/// RSQRT: 1 / sqrt(x).
enum RsqrtOperation: UnaryFloatOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { 1 / x.squareRoot() }
}

typealias Rsqrt = UnaryElementwise<RsqrtOperation>
