import LiteFormat

/// FULLY_CONNECTED: input [..., K] (flattened to [rows, K]), weights [units, K], bias [units] -> [rows, units],
/// or [..., units] with keep_num_dims. One sgemm with the weights transposed in place, then bias and activation.
final class FullyConnected: Kernel {
    let options: FullyConnectedOptions
    var activation: (Float, Float) = (-.infinity, .infinity)

    required init(_ node: NodeContext) throws {
        options = try FullyConnectedOptions(node.options)
        try super.init(node)
        try expectCounts(inputs: 2...3, outputs: 1)
        activation = try activationRange(options.activation)
        guard options.weightsFormat == 0 else { throw KernelError.unsupported("shuffled weights format \(options.weightsFormat)") }
    }

    override func prepare() throws {
        let input = try self.input(0), weights = try self.input(1), output = try self.output(0)
        try expectType(input, .float32)
        try expectType(weights, .float32)
        try expectRank(weights, 2)
        let depth = weights.dim(1), units = weights.dim(0)
        guard depth > 0, input.elementCount % depth == 0 else {
            throw KernelError.invalid("input \(input.shape) does not divide into rows of \(depth)")
        }
        if let bias = optionalInput(2) {
            try expectType(bias, .float32)
            guard bias.elementCount == units else { throw KernelError.invalid("bias has \(bias.elementCount) values for \(units) units") }
        }
        output.type = .float32
        if options.keepNumDims {
            guard input.dim(-1) == depth else { throw KernelError.invalid("keep_num_dims needs the last input dimension \(input.dim(-1)) = \(depth)") }
            output.shape = Array(input.shape.dropLast()) + [units]
        } else {
            output.shape = [input.elementCount / depth, units]
        }
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, weights = node.inputs[1]!, output = node.outputs[0]
        let depth = weights.dim(1), units = weights.dim(0), rows = input.elementCount / max(depth, 1)
        BLAS.sgemm(transposeB: true, m: rows, n: units, k: depth, a: input.floats, lda: depth,
                   b: weights.floats, ldb: depth, c: output.floats, ldc: units, threads: context.threads)
        addBiasAndActivate(output.floats, rows: rows, channels: units, bias: optionalInput(2)?.floats,
                           activation: activation, threads: context.threads)
    }
}

extension FullyConnected {
    /// The definition, for tests: out[r, u] = act(bias[u] + Σ_k in[r, k] * weights[u, k]).
    static func reference(input: [Float], rows: Int, weights: [Float], units: Int, bias: [Float]?, activation: FusedActivation) throws -> [Float] {
        let depth = weights.count / units
        let (low, high) = try activationRange(activation)
        return (0..<rows * units).map { i in
            let (r, u) = (i / units, i % units)
            var sum = bias?[u] ?? 0
            for k in 0..<depth { sum += input[r * depth + k] * weights[u * depth + k] }
            return min(max(sum, low), high)
        }
    }
}
