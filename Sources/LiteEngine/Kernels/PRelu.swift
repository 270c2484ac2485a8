import CLiteKernels

/// PRELU: x where x >= 0, else alpha * x; alpha broadcasts against x. uint8/int8 as TFLite's quantized PRELU:
/// `x - zp_x` rescaled by `s_x / s_out` when it is at least 0, else `(x - zp_x)·(alpha - zp_alpha)` rescaled by
/// `s_x · s_alpha / s_out` (float products, then `QuantizeMultiplier`), plus `zp_out`, clamped to the type.
final class PRelu: BinaryElementwise, FloatBinaryOperation {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a >= 0 ? a : a * b }

    struct QuantizedParameters {
        let identity: (multiplier: Int32, shift: Int)
        let negative: (multiplier: Int32, shift: Int)
        let inputZeroPoint: Int32, alphaZeroPoint: Int32, outputZeroPoint: Int32
        let low: Int32, high: Int32
    }

    /// How the node runs, chosen in `prepare` by the input's type.
    enum Plan {
        case float
        /// One slope per channel (alpha [1, ..., 1, C] against x [..., C], MediaPipe's models) through the level's
        /// kernel: `rows` rows of `channels`.
        case floatChannelSlopes(lite_f32_prelu_channels_fn, rows: Int, channels: Int)
        /// uint8/int8 through ``BinaryElementwise/computeStoredValues(_:zeroPoints:_:)`` and these rescales.
        case quantized(QuantizedParameters)
    }

    private var plan = Plan.float

    override func prepare() throws {
        let x = try input(0), alpha = try input(1), output = try self.output(0)
        guard x.type == .uint8 || x.type == .int8 else {
            try super.prepare()
            plan = .float
            let channels = x.shape.last ?? 0
            if x.type == .float32, alpha.type == .float32, output.shape == x.shape, channels > 0, alpha.elementCount == channels,
               alpha.shape.last == channels, let kernel = KernelConfiguration.current.float?.preluChannels {
                plan = .floatChannelSlopes(kernel, rows: x.elementCount / channels, channels: channels)
            }
            return
        }
        guard alpha.type == x.type, output.type == x.type else {
            throw KernelError.unsupported("PRELU of \(x.type) with \(alpha.type) alpha into \(output.type)")
        }
        let qx = try QuantizedTensorInfo(x), qa = try QuantizedTensorInfo(alpha), qo = try QuantizedTensorInfo(output)
        guard qa.scales.count == 1 else { throw KernelError.unsupported("PRELU alpha quantized per channel") }
        let identity = IntegerArithmetic.quantizeMultiplier(Double(qx.scale / qo.scale))
        let negative = IntegerArithmetic.quantizeMultiplier(Double(qx.scale * qa.scale / qo.scale))
        guard identity.shift <= 30, negative.shift <= 30 else { throw KernelError.unsupported("PRELU rescale too large") }
        let (low, high): (Int32, Int32) = x.type == .int8 ? (-128, 127) : (0, 255)
        plan = .quantized(QuantizedParameters(identity: identity, negative: negative, inputZeroPoint: qx.zeroPoint,
                                              alphaZeroPoint: qa.zeroPoint, outputZeroPoint: qo.zeroPoint, low: low, high: high))
        output.shape = try broadcastShape(x.shape, alpha.shape)
    }

    override var scratchBytes: Int {
        switch plan {
        case .float, .floatChannelSlopes: 0
        case .quantized: storedValueScratchBytes
        }
    }

    override func run(_ context: RunContext) throws {
        switch plan {
        case .float: compute(context.threads, PRelu.self)
        case .floatChannelSlopes(let kernel, let rows, let channels): runChannelSlopes(kernel, rows: rows, channels: channels, context)
        case .quantized(let q): runQuantized(context, q)
        }
    }

    private func runChannelSlopes(_ kernel: lite_f32_prelu_channels_fn, rows: Int, channels: Int, _ context: RunContext) {
        let x = node.inputs[0]!.floats, slopes = node.inputs[1]!.floats, out = node.outputs[0].floats
        parallelFor(rows, threads: context.threads, minimumChunk: 16, workPerItem: 4 * channels) { range in
            kernel(x + range.lowerBound * channels, slopes, out + range.lowerBound * channels, range.count, channels)
        }
    }

    private func runQuantized(_ context: RunContext, _ q: QuantizedParameters) {
        // The offsets `x - zp_x` and `alpha - zp_alpha` arrive as exact small integers in floats.
        computeStoredValues(context, zeroPoints: (q.inputZeroPoint, q.alphaZeroPoint)) { xv, av in
            let offset = Int32(xv)
            let scaled = offset >= 0
                ? IntegerArithmetic.multiplyByQuantizedMultiplier(offset, q.identity.multiplier, q.identity.shift)
                : IntegerArithmetic.multiplyByQuantizedMultiplier(offset &* Int32(av), q.negative.multiplier, q.negative.shift)
            return Float(min(max(scaled &+ q.outputZeroPoint, q.low), q.high))
        }
    }
}

extension PRelu: FoldableIntoStore {
    func canRunOnRows(of operand: Int) -> Bool {
        operand == 0 && node.inputs.count == 2 && node.inputs.allSatisfy({ $0?.type == .float32 }) && node.outputs[0].type == .float32
    }

    func tensorsRead(besides operand: Int) -> [Tensor] { node.inputs[1].map { [$0] } ?? [] }

    /// One slope per channel (``Plan/floatChannelSlopes``) of rows of `channels`.
    func storeStep(operand: Int, channels: Int) -> StoreStep? {
        guard operand == 0, case .floatChannelSlopes(let kernel, _, let slopeCount) = plan, slopeCount == channels else { return nil }
        return .prelu(slopes: UnsafePointer(node.inputs[1]!.floats), kernel: kernel)
    }
}
