import Foundation

/// FLOOR_DIV: ⌊x / y⌋ with broadcasting. float32 as `floor(x / y)`; int32 through double as TFLite does; a zero divisor
/// (float ones too, as LiteRT checks them) is an error when the node runs.
final class FloorDiv: NumericBinaryElementwise {
    override func run(_ context: RunContext) throws {
        if node.outputs[0].type == .float32 {
            return try compute(Float.self) { x, y in
                guard y != 0 else { throw KernelError.invalid("FLOOR_DIV by zero") }
                return (x / y).rounded(.down)
            }
        }
        try compute(Int32.self) { x, y in
            guard y != 0 else { throw KernelError.invalid("FLOOR_DIV of int32 by zero") }
            return Int32(truncatingIfNeeded: Int64((Double(x) / Double(y)).rounded(.down)))
        }
    }
}
