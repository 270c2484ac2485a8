/// SQUARED_DIFFERENCE: (a - b)² with broadcasting.
final class SquaredDifference: BinaryElementwise {
    override func run(_ context: RunContext) throws {
        compute { a, b in (a - b) * (a - b) }
    }
}
