/// RANDOM_UNIFORM: float32 values uniform in [0, 1) of the shape the first input gives, four per Philox block (the
/// last block's unused values are dropped), as TFLite's random_ops.cc.
final class RandomUniform: RandomKernel {
    override func run(_ context: RunContext) throws {
        let output = node.outputs[0], out = output.pointer(Float.self), count = output.elementCount
        var i = 0
        while i < count {
            let block = generator.next()
            out[i] = Philox.unitFloat(block.0)
            if i + 1 < count { out[i + 1] = Philox.unitFloat(block.1) }
            if i + 2 < count { out[i + 2] = Philox.unitFloat(block.2) }
            if i + 3 < count { out[i + 3] = Philox.unitFloat(block.3) }
            i += 4
        }
    }
}
