/// RANDOM_UNIFORM: float32 values uniform in [0, 1) of the shape the first input gives, four per Philox block (the
/// last block's unused values are dropped), as TFLite's random_ops.cc.
final class RandomUniform: RandomKernel {
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
            for (j, value) in [block.0, block.1, block.2, block.3].enumerated() where i + j < count {
                out[i + j] = Philox.unitFloat(value)
            }
            i += 4
        }
    }
}
