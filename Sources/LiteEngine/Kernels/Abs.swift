import Foundation

/// ABS: |x|.
enum AbsOperation: UnaryFloatOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { Swift.abs(x) }
}

typealias Abs = UnaryElementwise<AbsOperation>
