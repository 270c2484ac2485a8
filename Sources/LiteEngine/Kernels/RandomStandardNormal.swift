/// RANDOM_STANDARD_NORMAL: float32 values from the standard normal distribution of the shape the first input gives,
/// two per pair of Philox values (Box-Muller), four per block, as TFLite's random_ops.cc. For an odd count the last
/// pair's second value is dropped.
final class RandomStandardNormal: RandomKernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        try prepareShapedOutput()
    }

    override func run(_ context: RunContext) throws {
        let output = node.outputs[0], out = output.pointer(Float.self), count = output.elementCount
        var i = 0
        while i < count {
            let block = generator.next()
            let first = Philox.normalPair(block.0, block.1), second = Philox.normalPair(block.2, block.3)
            for (j, value) in [first.0, first.1, second.0, second.1].enumerated() where i + j < count {
                out[i + j] = value
            }
            i += 4
        }
    }
}
