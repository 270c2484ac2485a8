/// PRELU: x where x >= 0, else alpha * x; alpha broadcasts against x.
final class PRelu: BinaryElementwise {
    override func run(_ context: RunContext) throws {
        compute { a, b in a >= 0 ? a : a * b }
    }
}
