/// SQRT: square root (NaN below 0).
final class Sqrt: UnaryElementwise {
    override func run(_ context: RunContext) throws {
        compute(context.threads) { x in x.squareRoot() }
    }
}
