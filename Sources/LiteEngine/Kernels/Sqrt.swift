import Foundation

/// SQRT: square root (NaN below 0).
enum SqrtOperation: UnaryFloatOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x.squareRoot() }
}

typealias Sqrt = UnaryElementwise<SqrtOperation>
