import CLiteKernels

/// SQUARED_DIFFERENCE: (a - b)² with broadcasting; float32, or int8 with TFLite's integer arithmetic
/// (squared_difference.cc): each input, less its zero point and shifted left by 7, is rescaled to twice the larger
/// input scale, the difference squared in int32, and the square rescaled to the output by
/// `(2·max_scale)² / (2^14 · output_scale)`; every rescale is `MultiplyByQuantizedMultiplier` with a multiplier below one.
final class SquaredDifference: BinaryElementwise, FloatBinaryOperation {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { (a - b) * (a - b) }

    struct QuantizedParameters {
        let offset1: Int32, offset2: Int32, outputOffset: Int32
        let multiplier1: Int32, shift1: Int, multiplier2: Int32, shift2: Int
        let outputMultiplier: Int32, outputShift: Int
    }

    /// How the node runs, chosen in `prepare`.
    enum Plan {
        case float
        /// int8 with TFLite's integer arithmetic, element by element.
        case quantized(QuantizedParameters)
        #if arch(x86_64)
        /// int8 in `fast` numerics where the configuration has the vector kernel and every rescale fits a 32-bit lane
        /// (a multiplier at least 0, a shift in -31...30): whole groups of eight in the kernel, exactly as the scalar
        /// loop computes them, the rest of each run in that loop.
        case quantizedVector(QuantizedParameters, ElementwiseKernels)
        #endif
    }

    private var plan = Plan.float

    /// The left shift that makes room below the rescaled inputs' integer part (7 for int8, as TFLite's kernel).
    static let leftShift = 7

    override func prepare() throws {
        let a = try input(0), b = try input(1), output = try self.output(0)
        guard a.type == .int8 else {
            try super.prepare()
            plan = .float
            return
        }
        guard b.type == .int8, output.type == .int8 else { throw KernelError.unsupported("SQUARED_DIFFERENCE of \(a.type) and \(b.type) into \(output.type)") }
        let qa = try QuantizedTensorInfo(a), qb = try QuantizedTensorInfo(b), qo = try QuantizedTensorInfo(output)
        for zero in [qa.zeroPoint, qb.zeroPoint, qo.zeroPoint] where !(-128...127).contains(zero) {
            throw KernelError.invalid("int8 zero point \(zero) out of range")
        }
        let twiceMaximumScale = 2 * Double(max(qa.scale, qb.scale))
        let (m1, s1) = IntegerArithmetic.quantizeMultiplier(Double(qa.scale) / twiceMaximumScale)
        let (m2, s2) = IntegerArithmetic.quantizeMultiplier(Double(qb.scale) / twiceMaximumScale)
        let (mo, so) = IntegerArithmetic.quantizeMultiplier(twiceMaximumScale * twiceMaximumScale / (Double(1 << (2 * Self.leftShift)) * Double(qo.scale)))
        guard so <= 0 else { throw KernelError.unsupported("SQUARED_DIFFERENCE output rescale above one (output scale \(qo.scale))") }
        let parameters = QuantizedParameters(offset1: -qa.zeroPoint, offset2: -qb.zeroPoint, outputOffset: qo.zeroPoint,
                                             multiplier1: m1, shift1: s1, multiplier2: m2, shift2: s2, outputMultiplier: mo, outputShift: so)
        plan = .quantized(parameters)
        #if arch(x86_64)
        let lanesTake = [(m1, s1), (m2, s2), (mo, so)].allSatisfy { $0.0 >= 0 && (-31...30).contains($0.1) }
        if node.numerics == .fast, lanesTake, let kernels = KernelConfiguration.current.elementwise {
            plan = .quantizedVector(parameters, kernels)
        }
        #endif
        output.shape = try broadcastShape(a.shape, b.shape)
    }

    override func run(_ context: RunContext) throws {
        switch plan {
        case .float: compute(context.threads, SquaredDifference.self)
        case .quantized(let q): runQuantized(q, vector: nil)
        #if arch(x86_64)
        case .quantizedVector(let q, let kernels): runQuantized(q, vector: kernels)
        #endif
        }
    }

    #if arch(x86_64)
    private typealias VectorKernels = ElementwiseKernels
    #else
    private typealias VectorKernels = Never
    #endif

    /// TFLite's integer arithmetic over every broadcast run; `vector` takes the whole groups of eight of each run.
    private func runQuantized(_ q: QuantizedParameters, vector kernels: VectorKernels?) {
        let a = node.inputs[0]!, b = node.inputs[1]!, output = node.outputs[0]
        let pa = UnsafePointer<Int8>(OpaquePointer(a.data!)), pb = UnsafePointer<Int8>(OpaquePointer(b.data!))
        let out = output.data!.assumingMemoryBound(to: Int8.self)
        #if arch(x86_64)
        var parameters = lite_qs8_squared_difference_params(
            input1_offset: q.offset1, input2_offset: q.offset2, output_offset: q.outputOffset, input1_multiplier: q.multiplier1,
            input1_shift: Int32(q.shift1), input2_multiplier: q.multiplier2, input2_shift: Int32(q.shift2),
            output_multiplier: q.outputMultiplier, output_shift: Int32(q.outputShift))
        #endif
        forEachBroadcastRun(aShape: a.shape, bShape: b.shape, outShape: output.shape) { o, ia, stepA, ib, stepB, count in
            var k = 0
            #if arch(x86_64)
            // The whole groups of eight of the run, exactly as the loop below.
            if let kernels { k = kernels.squaredDifferenceS8(pa + ia, stepA, pb + ib, stepB, out + o, count, &parameters) }
            #endif
            while k < count {
                let x = (Int32(pa[ia + k * stepA]) + q.offset1) << Int32(Self.leftShift)
                let y = (Int32(pb[ib + k * stepB]) + q.offset2) << Int32(Self.leftShift)
                // Each rescaled input is below 2^15 in magnitude (half of 255·2^7), so the square fits in int32.
                let difference = IntegerArithmetic.multiplyByQuantizedMultiplier(x, q.multiplier1, q.shift1)
                    - IntegerArithmetic.multiplyByQuantizedMultiplier(y, q.multiplier2, q.shift2)
                let value = IntegerArithmetic.multiplyByQuantizedMultiplier(difference * difference, q.outputMultiplier, q.outputShift) + q.outputOffset
                out[o + k] = Int8(truncatingIfNeeded: min(max(value, -128), 127))
                k += 1
            }
        }
    }
}
