import LiteFormat

/// DEQUANTIZE to float32 from float16, or from int8/uint8/int16 with per-tensor or per-channel
/// `real = scale * (q - zero_point)`.
///
/// Per-tensor int8 and uint8 round as LiteRT's x86 kernel does: whole blocks of 8 values from the start take its
/// vector path, `Float(q) · scale + Float(−zero_point) · scale` (two roundings in single precision), the rest its
/// scalar one, `Float(Double(scale) · (q − zero_point))` (one rounding). The two differ by an ulp on about a third of
/// the values; checked against LiteRT's outputs at 15, 37 and 70 values.
///
/// When the input is a constant (float16 or int8 weights, or DENSIFY's dense form of sparse ones:
/// ``Tensor/hasFixedValues``), the float values are computed once while the plan is built and the op does nothing at
/// run time, as TFLite does for constant and persistent inputs; a variable it writes (a float16 LSTM's initial state)
/// gets its value once, at the first plan.
final class Dequantize: Kernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float16, .int8, .uint8, .int16)
        if input.type != .float16 {
            guard let q = input.quantization, !q.scale.isEmpty else { throw KernelError.invalid("quantized input \(input.index) has no scale") }
            // Zero points in the range every quantized kernel accepts (QuantizedTensorInfo): they are subtracted in 32 bits.
            if let z = q.zeroPoint.first(where: { $0.magnitude > 1 << 16 }) { throw KernelError.invalid("zero point \(z) out of range") }
            if q.isPerChannel {
                guard q.quantizedDimension < input.rank, input.shape[q.quantizedDimension] == q.scale.count else {
                    throw KernelError.invalid("per-channel scales do not fit \(input.shape)")
                }
            }
        }
        if output.isVariable {
            // The variable's bytes were allocated for the shape and type the file gives it: the value must have both.
            guard output.type == .float32, output.shape == input.shape else {
                throw KernelError.invalid("variable \(output.index) (\(output.type) \(output.shape)) does not hold a float32 \(input.shape)")
            }
        }
        output.type = .float32
        output.shape = input.shape
        if input.hasFixedValues && output.isVariable {
            guard !setVariable else { return }
            convert(input, output)
            setVariable = true
        } else if input.hasFixedValues && output.storage != .persistent {
            output.makePersistent(byteCount: output.byteCount)
            convert(input, output)
            output.isComputedConstant = true
        }
    }

    /// Whether this node's output is a constant computed while the plan is built (its input is a constant of the file,
    /// not a variable that the file gives a first value, and its output not a variable), so that it has its values
    /// before any node runs. Asked before the plan is built, when a variable with a buffer still reads as a constant.
    var computesAConstant: Bool {
        guard let input = node.inputs[0], let output = node.outputs.first else { return false }
        return input.storage == .constant && !input.isVariable && !output.isVariable
    }

    /// Whether this node has given the variable it writes its first value (the state `resetVariableTensors()` then
    /// sets to zero, as TFLite's does, where this node does not run again).
    private var setVariable = false

    override func run(_ context: RunContext) throws {
        if !node.inputs[0]!.hasFixedValues { convert(node.inputs[0]!, node.outputs[0], threads: context.threads) }
    }

    private func convert(_ input: Tensor, _ output: Tensor, threads: Int = 1) {
        let count = input.elementCount
        let out = output.floats
        let raw = input.data!
        if input.type == .float16 {
            for i in 0..<count { out[i] = Float(Float16(bitPattern: raw.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self))) }
            return
        }
        let q = input.quantization!
        if !q.isPerChannel, input.type == .int8 || input.type == .uint8 {
            let scale = q.scale[0], zeroPoint = Int32(truncatingIfNeeded: q.zeroPoint.first ?? 0)
            let offset = Float(-zeroPoint) * scale, vectorized = count / 8 * 8
            let signed = input.type == .int8
            // Blocks of 8 split over the threads; each share is one loop over a typed pointer, which vectorizes.
            parallelFor(vectorized / 8, threads: threads, workPerItem: 8) { blocks in
                let values = blocks.lowerBound * 8 ..< blocks.upperBound * 8
                if signed {
                    Self.scaleAndShift(raw.assumingMemoryBound(to: Int8.self), out, values, scale: scale, offset: offset)
                } else {
                    Self.scaleAndShift(raw.assumingMemoryBound(to: UInt8.self), out, values, scale: scale, offset: offset)
                }
            }
            for i in vectorized..<count { out[i] = Float(Double(scale) * Double(loadQuantized(raw, i, signed: signed) - zeroPoint)) }
            return
        }
        let channels = q.isPerChannel ? q.scale.count : 1
        let inner = q.isPerChannel ? input.shape[(q.quantizedDimension + 1)...].reduce(1, *) : count
        for i in 0..<count {
            let channel = q.isPerChannel ? (i / inner) % channels : 0
            let value: Int32
            switch input.type {
            case .int8: value = Int32(raw.load(fromByteOffset: i, as: Int8.self))
            case .uint8: value = Int32(raw.load(fromByteOffset: i, as: UInt8.self))
            default: value = Int32(raw.loadUnaligned(fromByteOffset: 2 * i, as: Int16.self))
            }
            out[i] = q.scale[channel] * Float(value - Int32(truncatingIfNeeded: q.zeroPoint[channel]))
        }
    }

    /// `out[i] = Float(q[i]) · scale + offset` over `range`: LiteRT's vector path, a multiply and an add each rounded
    /// (Swift does not fuse them into one fused multiply-add).
    /// With the configuration's elementwise kernels (avx2 and above) eight lanes at a time in AVX registers, where the
    /// Swift loop, compiled for the baseline, had SSE's four.
    @inline(__always)
    private static func scaleAndShift<Q: BinaryInteger>(_ q: UnsafePointer<Q>, _ out: UnsafeMutablePointer<Float>, _ range: Range<Int>,
                                                        scale: Float, offset: Float) {
        #if arch(x86_64)
        if let kernels = KernelConfiguration.current.elementwise, range.count % 8 == 0 {
            if Q.self == Int8.self {
                kernels.dequantizeS8(UnsafeRawPointer(q + range.lowerBound).assumingMemoryBound(to: Int8.self), out + range.lowerBound,
                                     range.count, scale, offset)
                return
            }
            if Q.self == UInt8.self {
                kernels.dequantizeU8(UnsafeRawPointer(q + range.lowerBound).assumingMemoryBound(to: UInt8.self), out + range.lowerBound,
                                     range.count, scale, offset)
                return
            }
        }
        #endif
        for i in range { out[i] = Float(q[i]) * scale + offset }
    }
}
