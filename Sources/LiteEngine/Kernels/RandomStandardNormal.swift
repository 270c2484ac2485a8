/// RANDOM_STANDARD_NORMAL: float32 values from the standard normal distribution of the shape the first input gives,
/// two per pair of Philox values (Box-Muller), four per block, as TFLite's random_ops.cc. For an odd count the last
/// pair's second value is dropped.
final class RandomStandardNormal: RandomKernel {
    override func run(_ context: RunContext) throws {
        let output = node.outputs[0], out = output.pointer(Float.self), count = output.elementCount
        var i = 0
        while i < count {
            let block = generator.next()
            let first = Philox.normalPair(block.0, block.1)
            out[i] = first.0
            if i + 1 < count { out[i + 1] = first.1 }
            if i + 2 < count {
                let second = Philox.normalPair(block.2, block.3)
                out[i + 2] = second.0
                if i + 3 < count { out[i + 3] = second.1 }
            }
            i += 4
        }
    }
}
