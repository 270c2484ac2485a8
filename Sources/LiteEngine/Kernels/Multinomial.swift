import Foundation

/// MULTINOMIAL (`tf.random.categorical`): for each row of float32 logits [batch, classes], `num_samples` class
/// indices (int32 or int64) drawn with probabilities softmax(logits), as TFLite's random_ops.cc: non-finite logits
/// have probability 0; each draw takes 52 bits of two Philox values as a double u and returns the first class whose
/// cumulative weight exceeds u times the total (so a row of only non-finite logits draws `classes`).
/// The stored stream moves a fixed distance per run, whatever was drawn, as TensorFlow's op does.
final class Multinomial: RandomKernel {
    override class var inputCount: Int { 2 }

    override func prepare() throws {
        let logits = try input(0), samples = try input(1), output = try self.output(0)
        try expectType(logits, .float32)
        try expectRank(logits, 2)
        try expectType(samples, .int32)
        try expectRank(samples, 0)
        try expectType(output, .int32, .int64)
        guard logits.shape[1] > 0 else { throw KernelError.invalid("MULTINOMIAL needs at least one class, logits are \(logits.shape)") }
        let count = try integers(samples)[0]
        guard count >= 0 else { throw KernelError.invalid("MULTINOMIAL num_samples \(count)") }
        output.shape = [logits.shape[0], count]
        seedGenerator()
    }

    /// One row's cumulative weights.
    override var scratchBytes: Int { saturatingProduct(node.inputs[0]?.shape.last ?? 0, 8) }

    override func run(_ context: RunContext) throws {
        let logits = node.inputs[0]!, output = node.outputs[0]
        let batch = logits.shape[0], classes = logits.shape[1], samples = output.shape[1]
        var draws = generator
        // TensorFlow skips 256 blocks per pair of values a run could take, for samples rounded up to fours.
        generator.skip(UInt64(batch) &* UInt64((samples + 3) / 4 * 4) &* 2 &* 256)
        var block = (UInt32(0), UInt32(0), UInt32(0), UInt32(0)), used = 4
        let cumulative = context.scratch.assumingMemoryBound(to: Double.self)
        for row in 0..<batch {
            let values = logits.pointer(Float.self) + row * classes
            var largest = -Float.greatestFiniteMagnitude
            for i in 0..<classes where values[i].isFinite { largest = max(largest, values[i]) }
            var total = 0.0
            for i in 0..<classes {
                if values[i].isFinite { total += exp(Double(values[i]) - Double(largest)) }
                cumulative[i] = total
            }
            for j in 0..<samples {
                if used == 4 {
                    block = draws.next()
                    used = 0
                }
                let pair = used == 0 ? (block.0, block.1) : (block.2, block.3)
                used += 2
                let target = Philox.unitDouble(pair.0, pair.1) * total
                // std::upper_bound: the first class whose cumulative weight exceeds the target, `classes` when none does.
                var low = 0, count = classes
                while count > 0 {
                    let half = count &>> 1
                    if cumulative[low &+ half] <= target {
                        low &+= half &+ 1
                        count &-= half &+ 1
                    } else {
                        count = half
                    }
                }
                if output.type == .int64 {
                    output.pointer(Int64.self)[row * samples + j] = Int64(low)
                } else {
                    output.pointer(Int32.self)[row * samples + j] = Int32(low)
                }
            }
        }
    }
}
