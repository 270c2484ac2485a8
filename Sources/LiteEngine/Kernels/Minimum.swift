/// MINIMUM: elementwise min with broadcasting.
final class Minimum: BinaryElementwise {
    override func run(_ context: RunContext) throws {
        compute { a, b in Swift.min(a, b) }
    }
}
