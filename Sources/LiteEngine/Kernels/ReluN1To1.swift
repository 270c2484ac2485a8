/// RELU_N1_TO_1: min(max(x, -1), 1).
final class ReluN1To1: UnaryElementwise {
    override func run(_ context: RunContext) throws {
        compute(context.threads) { x in x < -1 ? -1 : (x > 1 ? 1 : x) }
    }
}
