import Foundation

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
