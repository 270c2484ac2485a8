import Foundation

/// HARD_SWISH: x * relu6(x + 3) / 6.
enum HardSwishOperation: UnaryFloatOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x * Swift.min(Swift.max(x + 3, 0), 6) / 6 }
}

typealias HardSwish = UnaryElementwise<HardSwishOperation>
