import Foundation

/// LOGISTIC: 1 / (1 + e^-x).
enum LogisticOperation: UnaryFloatOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { 1 / (1 + expf(-x)) }
}

typealias Logistic = UnaryElementwise<LogisticOperation>
