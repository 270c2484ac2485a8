import Foundation

/// EXP: e^x.
enum ExpOperation: UnaryFloatOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { expf(x) }
}

typealias Exp = UnaryElementwise<ExpOperation>
