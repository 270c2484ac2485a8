import LiteFormat

/// FULLY_CONNECTED: input [..., K] (flattened to [rows, K]), weights [units, K], bias [units] -> [rows, units],
/// or [..., units] with keep_num_dims. Float weights known at load go through ``PackedFilterGEMM`` (packed once, bias
/// and activation in the microkernel; one row, a classifier's last layer, streams the weights once); otherwise one
/// sgemm with the weights transposed in place, then bias and activation.
final class FullyConnected: Kernel {
    let options: FullyConnectedOptions
    var activation: (Float, Float) = (-.infinity, .infinity)

    required init(_ node: NodeContext) throws {
        options = try FullyConnectedOptions(node.options)
        try super.init(node)
        try expectCounts(inputs: 2...3, outputs: 1)
        activation = try builtinActivationRange(options.activation)
        guard options.weightsFormat == 0 else { throw KernelError.unsupported("shuffled weights format \(options.weightsFormat)") }
    }

    /// The path `run` takes, chosen by `prepare` (nil before it).
    private(set) var plan: FullyConnectedPlan?

    override func prepare() throws {
        let input = try self.input(0), weights = try self.input(1), output = try self.output(0)
        try expectRank(weights, 2)
        let depth = weights.dim(1), units = weights.dim(0)
        switch input.type {
        case .uint8, .int8:
            plan = try prepareQuantized(input, weights, output, depth: depth, units: units, previous: plan)
        case .int16:
            guard depth > 0, input.elementCount % depth == 0 else { throw KernelError.invalid("input \(input.shape) does not divide into rows of \(depth)") }
            let product: Int16MatrixProduct
            if case .int16(let existing) = plan {
                product = existing
            } else {
                product = try Int16MatrixProduct(weights: weights, units: units, bias: optionalInput(2), input: input, output: output,
                                                 activation: options.activation, op: "FULLY_CONNECTED", rescale: .doubleScale)
            }
            output.shape = options.keepNumDims ? Array(input.shape.dropLast()) + [units] : [input.elementCount / depth, units]
            plan = .int16(product)
        default:
            plan = try prepareFloat(input, weights, output, depth: depth, units: units, previous: plan)
        }
    }

    /// Float input with float weights (packed or sgemm) or int8 ones (hybrid: see ``HybridWeights``; inputs quantized
    /// symmetric or, with the `asymmetric_quantize_inputs` option, asymmetric per row).
    private func prepareFloat(_ input: Tensor, _ weights: Tensor, _ output: Tensor, depth: Int, units: Int,
                              previous: FullyConnectedPlan?) throws -> FullyConnectedPlan {
        try expectType(input, .float32)
        try expectType(weights, .float32, .int8)
        var hybrid: FullyConnectedPlan?
        if case .hybrid = previous {
            hybrid = previous
        } else if weights.type == .int8 {
            let hybridWeights = try HybridWeights(weights, channels: units)
            hybrid = .hybrid(hybridWeights, HybridMatrixProduct(hybridWeights))
        }
        guard depth > 0, input.elementCount % depth == 0 else {
            throw KernelError.invalid("input \(input.shape) does not divide into rows of \(depth)")
        }
        if let bias = optionalInput(2) {
            try expectType(bias, .float32)
            guard bias.elementCount == units else { throw KernelError.invalid("bias has \(bias.elementCount) values for \(units) units") }
        }
        var packed = previous?.packed
        if weights.type == .float32, packed == nil, isLoadTimeConstant(weights), optionalInput(2).map(isLoadTimeConstant) ?? true {
            packed = PackedFilterGEMM.make(filter: weights.floats, n: units, k: depth, bias: optionalInput(2)?.floats)
        }
        output.type = .float32
        if options.keepNumDims {
            guard input.dim(-1) == depth else { throw KernelError.invalid("keep_num_dims needs the last input dimension \(input.dim(-1)) = \(depth)") }
            output.shape = Array(input.shape.dropLast()) + [units]
        } else {
            output.shape = [input.elementCount / depth, units]
        }
        if let hybrid { return hybrid }
        if let packed { return .floatPacked(packed) }
        return .floatBLAS
    }

    /// uint8/int8: the widened AVX2 GEMM in `fast` numerics where it takes the layer, else exact dot products of doubles.
    private func prepareQuantized(_ input: Tensor, _ weights: Tensor, _ output: Tensor, depth: Int, units: Int,
                                  previous: FullyConnectedPlan?) throws -> FullyConnectedPlan {
        guard weights.type == input.type, output.type == input.type else {
            throw KernelError.unsupported("\(input.type) input with \(weights.type) weights into \(output.type)")
        }
        guard weights.storage != .arena, weights.data != nil else { throw KernelError.unsupported("quantized weights must be constant") }
        guard depth > 0, input.elementCount % depth == 0 else { throw KernelError.invalid("input \(input.shape) does not divide into rows of \(depth)") }
        if let bias = optionalInput(2) {
            guard bias.type == .int32, bias.elementCount == units else { throw KernelError.unsupported("bias must be int32 [\(units)], is \(bias)") }
            guard bias.storage != .arena, bias.data != nil else { throw KernelError.unsupported("quantized biases must be constant (tensor \(bias.index) is not)") }
        }
        let weightInfo = try QuantizedTensorInfo(weights), inputInfo = try QuantizedTensorInfo(input)
        let requantization = try ChannelRequantization(input: inputInfo, filter: weightInfo, output: try QuantizedTensorInfo(output),
                                                       channels: units, activation: options.activation, outputType: output.type)
        output.shape = options.keepNumDims ? Array(input.shape.dropLast()) + [units] : [input.elementCount / depth, units]
        let signed = input.type == .int8
        switch previous {
        case .quantizedWidened(let gemm): return .quantizedWidened(gemm)
        case .quantized(_, let existing): return .quantized(requantization, weights: existing)
        default: break
        }
        if node.numerics == .fast, QuantizedGEMMAVX2.isUsed,
           QuantizedGEMMAVX2.supports(depth: depth, signed: signed, inputZeroPoint: inputInfo.zeroPoint, filterZeroPoints: weightInfo.zeroPoints,
                                      requantization: requantization) {
            return .quantizedWidened(QuantizedGEMMAVX2(filter: weights, filterZeroPoints: weightInfo.zeroPoints, bias: optionalInput(2),
                                                       inputZeroPoint: inputInfo.zeroPoint, signed: signed, requantization: requantization))
        }
        let raw = UnsafeRawPointer(weights.data!), signedWeights = weights.type == .int8
        let quantizedWeights = (0..<weights.elementCount).map { i in
            let zero = weightInfo.zeroPoints.count == 1 ? weightInfo.zeroPoints[0] : weightInfo.zeroPoints[i / depth]
            return Double(loadQuantized(raw, i, signed: signedWeights) - zero)
        }
        return .quantized(requantization, weights: quantizedWeights)
    }

    override var scratchBytes: Int {
        guard let plan, let input = node.inputs[0], let weights = node.inputs[1] else { return 0 }
        switch plan {
        case .hybrid(_, let product):
            let rows = input.elementCount / max(product.depth, 1)
            return saturatingProduct(input.elementCount, 4) + product.scratchBytes(rows: rows)
        case .int16, .quantized:
            return saturatingProduct(input.elementCount / max(weights.dim(1), 1), weights.dim(1) + weights.dim(0), 8)
        case .quantizedWidened, .floatPacked, .floatBLAS: return 0
        }
    }

    /// The integer FULLY_CONNECTED (reference/fully_connected.h, integer_ops/fully_connected.h) with the rounding
    /// of TFLite's GEMM path, like CONV_2D.
    private func runQuantized(_ context: RunContext, requantization: ChannelRequantization, weights quantizedWeights: [Double]) {
        let input = node.inputs[0]!, weights = node.inputs[1]!, output = node.outputs[0]
        let depth = weights.dim(1), units = weights.dim(0), rows = input.elementCount / max(depth, 1)
        let signed = input.type == .int8
        let zero = (try? QuantizedTensorInfo(input).zeroPoint) ?? 0
        let x = context.scratch.assumingMemoryBound(to: Double.self), products = x + rows * depth
        let src = UnsafeRawPointer(input.data!)
        for i in 0..<(rows * depth) { x[i] = Double(loadQuantized(src, i, signed: signed) - zero) }
        quantizedWeights.withUnsafeBufferPointer { w in
            BLAS.dgemmTransposedB(m: rows, n: units, k: depth, a: x, b: w.baseAddress!, c: products, threads: context.threads)
        }
        let bias = optionalInput(2).map { UnsafePointer($0.pointer(Int32.self)) }
        let out = output.data!
        for r in 0..<rows {
            for u in 0..<units {
                let acc = Int32(products[r * units + u]) &+ (bias?[u] ?? 0)
                storeQuantized(out, r * units + u, requantization.applyRoundingUp(acc, channel: u), signed: signed)
            }
        }
    }

    /// TFLite's hybrid FULLY_CONNECTED: each row quantized on its own, `bias + float(Σ w·q − offset·Σ w) · (row_scale ·
    /// weight_scale[unit])`, clamped; the sums with the offset taken off each input, exactly.
    private func runHybrid(_ weights: HybridWeights, _ product: HybridMatrixProduct, _ context: RunContext) {
        let input = node.inputs[0]!, output = node.outputs[0]
        let depth = weights.depth, units = weights.channels, rows = input.elementCount / max(depth, 1)
        let dst = output.floats, values = context.scratch.assumingMemoryBound(to: Float.self)
        let scales = HybridQuantization.quantizeRows(input.floats, rows: rows, length: depth, asymmetric: options.asymmetricQuantizeInputs,
                                                     offsets: values, threads: context.threads)
        product.run(values, rows: rows, into: dst, scratch: UnsafeMutableRawPointer(values + rows * depth), threads: context.threads)
        HybridQuantization.rescale(dst, images: rows, rows: 1, channels: units, imageScales: scales, weightScales: weights.scales, bias: optionalInput(2),
                                   activation: activation, threads: context.threads)
    }

    override func run(_ context: RunContext) throws {
        guard let plan else { throw KernelError.invalid("FULLY_CONNECTED ran before it was prepared") }
        let input = node.inputs[0]!, weights = node.inputs[1]!, output = node.outputs[0]
        switch plan {
        case .int16(let product):
            let rows = input.elementCount / max(product.depth, 1)
            let values = context.scratch.assumingMemoryBound(to: Double.self)
            convertQuantized(input, zeroPoint: 0, into: values)
            product.run(rows: rows, columns: values, products: values + input.elementCount, output: output.pointer(Int16.self), threads: context.threads)
        case .quantizedWidened(let gemm):
            let depth = gemm.depth
            let rows = QuantizedGEMMAVX2.Rows(contiguous: UnsafePointer(OpaquePointer(input.data!)), depth: depth, signed: gemm.signedInput,
                                              zero: gemm.inputZeroPoint)
            gemm.run(rows: rows, rowCount: input.elementCount / max(depth, 1), output: output.data!, threads: context.threads)
        case .quantized(let requantization, let quantizedWeights): runQuantized(context, requantization: requantization, weights: quantizedWeights)
        case .hybrid(let hybridWeights, let product): runHybrid(hybridWeights, product, context)
        case .floatPacked(let packed):
            let depth = weights.dim(1), units = weights.dim(0), rows = input.elementCount / max(depth, 1)
            packed.run(a: input.floats, lda: depth, rows: rows, c: output.floats, ldc: units, activation: activation, threads: context.threads)
        case .floatBLAS:
            let depth = weights.dim(1), units = weights.dim(0), rows = input.elementCount / max(depth, 1)
            BLAS.sgemm(transposeB: true, m: rows, n: units, k: depth, a: input.floats, lda: depth,
                       b: weights.floats, ldb: depth, c: output.floats, ldc: units, threads: context.threads)
            addBiasAndActivate(output.floats, rows: rows, channels: units, bias: optionalInput(2)?.floats,
                               activation: activation, threads: context.threads)
        }
    }
}

extension FullyConnected {
    /// The definition, for tests: out[r, u] = act(bias[u] + Σ_k in[r, k] * weights[u, k]).
    static func reference(input: [Float], rows: Int, weights: [Float], units: Int, bias: [Float]?, activation: FusedActivation) throws -> [Float] {
        let depth = weights.count / units
        let (low, high) = try builtinActivationRange(activation)
        return (0..<rows * units).map { i in
            let (r, u) = (i / units, i % units)
            var sum = bias?[u] ?? 0
            for k in 0..<depth { sum += input[r * depth + k] * weights[u * depth + k] }
            return min(max(sum, low), high)
        }
    }
}

extension FullyConnected: ClampAbsorbing {
    func takeClamp(_ range: (Float, Float)) -> Bool {
        node.inputs[0]?.type == .float32 && narrowActivation(&activation, to: range, output: node.outputs[0])
    }
}
