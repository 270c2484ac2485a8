/// ABS: |x|.
final class Abs: UnaryElementwise {
    override func run(_ context: RunContext) throws {
        compute(context.threads) { x in Swift.abs(x) }
    }
}
