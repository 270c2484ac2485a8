/// MINIMUM: elementwise min with broadcasting; float32, int32, int64, or uint8/int8/int16 stored values.
final class Minimum: SelectingBinaryElementwise, FloatBinaryOperation {
    /// TFLite's `a < b ? a : b`: a NaN first operand gives the second, a NaN second operand stays.
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a < b ? a : b }

    override func run(_ context: RunContext) throws {
        switch plan {
        case .float: compute(context.threads, Minimum.self)
        case .integers: computeIntegers { Swift.min($0, $1) }
        case .storedValues: computeStoredValues(context, Minimum.apply)
        }
    }
}
