import LiteFormat

/// SVDF (float32; keyword-spotting models): a rank-`r` singular value decomposition filter over time. Inputs: x
/// `[batch, input]`, feature weights `[filters, input]`, time weights `[filters, memory]`, an optional bias `[units]`
/// (`units = filters / r`) and the state, a variable `[batch, memory · filters]`. Each run shifts the whole state one
/// place to the left (as TFLite's loop does, across filter boundaries), writes each filter's feature dot product into
/// its last memory slot, multiplies each filter's memory by its time weights, sums the `r` filters of each unit, adds
/// the bias and applies the fused activation. int8 and hybrid SVDF are not here (a typed error).
final class SVDF: Kernel {
    var rank = 1
    var activation: (Float, Float) = (-.infinity, .infinity)

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 5...5, outputs: 1)
        // SVDFOptions { rank: int; fused_activation_function; asymmetric_quantize_inputs }
        rank = try node.options.map { Int(try $0.scalar(0, default: Int32(0))) } ?? 0
        let activationCode = try node.options.map { try $0.scalar(1, default: Int8(0)) } ?? 0
        guard let fused = FusedActivation(rawValue: activationCode) else { throw KernelError.invalid("fused activation \(activationCode)") }
        activation = try activationRange(fused)
    }

    override func prepare() throws {
        let input = try self.input(0), features = try self.input(1), time = try self.input(2), state = try self.input(4), output = try self.output(0)
        for tensor in [input, features, time, state] { try expectType(tensor, .float32) }
        try expectRank(input, 2)
        try expectRank(features, 2)
        try expectRank(time, 2)
        let (batch, filters, memory) = (input.dim(0), features.dim(0), time.dim(1))
        guard rank > 0, filters % rank == 0, features.dim(1) == input.dim(1), time.dim(0) == filters, state.isVariable,
              state.elementCount == batch * memory * filters, memory > 0 else {
            throw KernelError.invalid("SVDF of rank \(rank): input \(input.shape), features \(features.shape), time \(time.shape), state \(state.shape)")
        }
        if let bias = optionalInput(3) {
            guard bias.type == .float32, bias.elementCount == filters / rank else { throw KernelError.invalid("bias \(bias.shape) for \(filters / rank) units") }
        }
        output.type = .float32
        output.shape = [batch, filters / rank]
    }

    override var scratchBytes: Int {
        guard let input = node.inputs[0], let features = node.inputs[1], input.rank == 2, features.rank == 2 else { return 0 }
        return saturatingProduct(input.dim(0), features.dim(0), 4)
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, features = node.inputs[1]!, time = node.inputs[2]!, state = node.inputs[4]!, output = node.outputs[0]
        let (batch, inputSize, filters, memory) = (input.dim(0), input.dim(1), features.dim(0), time.dim(1))
        let units = filters / rank
        let x = input.floats, w = features.floats, t = time.floats, s = state.floats, out = output.floats
        let sums = context.scratch.assumingMemoryBound(to: Float.self)
        let total = batch * memory * filters
        if total > 1 { s.update(from: s + 1, count: total - 1) }
        for b in 0..<batch {
            for f in 0..<filters {
                var dot: Float = 0
                for k in 0..<inputSize { dot += w[f * inputSize + k] * x[b * inputSize + k] }
                s[(b * filters + f) * memory + memory - 1] = dot
            }
        }
        for b in 0..<batch {
            for f in 0..<filters {
                var sum: Float = 0
                for m in 0..<memory { sum += t[f * memory + m] * s[(b * filters + f) * memory + m] }
                sums[b * filters + f] = sum
            }
            for u in 0..<units {
                var value = optionalInput(3)?.floats[u] ?? 0
                for r in 0..<rank { value += sums[b * filters + u * rank + r] }
                out[b * units + u] = min(max(value, activation.0), activation.1)
            }
        }
    }
}
