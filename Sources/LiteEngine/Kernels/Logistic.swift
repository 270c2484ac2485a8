import Foundation

/// LOGISTIC: 1 / (1 + e^-x).
final class Logistic: UnaryElementwise {
    override func run(_ context: RunContext) throws {
        compute(context.threads) { x in 1 / (1 + expf(-x)) }
    }
}
