import Foundation
import LiteEngine

extension Array where Element == Float {
    /// Turns the logits in `range` into log-probabilities (log-softmax) in place; the largest logit is taken out
    /// before exponentiating, so no sum overflows.
    mutating func formLogSoftmax(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        var largest = -Float.infinity
        for i in range { largest = Swift.max(largest, self[i]) }
        var sum: Float = 0
        for i in range { sum += expf(self[i] - largest) }
        let logSum = largest + logf(sum)
        for i in range { self[i] -= logSum }
    }

    /// The whole array's logits as log-probabilities.
    mutating func formLogSoftmax() { formLogSoftmax(indices) }
}

extension Interpreter {
    /// Runs a network of one float input and one output of logits (the ink's small classifiers) on `input` and
    /// returns the output as log-probabilities.
    func logProbabilities(of input: [Float]) throws -> [Float] {
        try TaskError.wrap {
            try copy(input, toInputAt: 0)
            try invoke()
        }
        var logits = try TaskError.wrap { try output(at: 0) }.toArray(of: Float.self)
        logits.formLogSoftmax()
        return logits
    }
}

/// log(e^a + e^b), exact when either is -infinity.
@inline(__always) func logAdd(_ a: Double, _ b: Double) -> Double {
    if a == -.infinity { return b }
    if b == -.infinity { return a }
    return max(a, b) + log1p(exp(-abs(a - b)))
}
