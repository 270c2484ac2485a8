import Foundation

/// ATAN2: the angle of (x, y) = (second input, first input), `atan2f(y, x)`, float32 with broadcasting.
final class Atan2: NumericBinaryElementwise {
    override func prepare() throws {
        try super.prepare()
        try expectType(try input(0), .float32)
    }

    override func run(_ context: RunContext) throws {
        try compute(Float.self) { y, x in atan2f(y, x) }
    }
}
