/// RSQRT: 1 / sqrt(x).
final class Rsqrt: UnaryElementwise {
    override func run(_ context: RunContext) throws {
        compute(context.threads) { x in 1 / x.squareRoot() }
    }
}
