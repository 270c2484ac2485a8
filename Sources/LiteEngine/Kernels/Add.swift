import CLiteKernels
import LiteFormat

/// ADD: a + b with broadcasting and a fused activation; float32, or uint8/int8 with TFLite's integer
/// arithmetic (add.cc, optimized_ops AddElementwise): both inputs are shifted left by 20 bits, rescaled to
/// twice the larger input scale, summed, and the sum rescaled to the output.
///
/// The input rescale ends with a *truncating* right shift, not a rounding one: LiteRT's builds run the NEON
/// version of AddElementwise (emulated with SSE on x86), which uses `vshlq_s32` there and rounds only the
/// output. The reference kernel rounds both; on real photos the two disagree on exact ties (MobileNetV2
/// birds on pets.jpg: one value of 75,264), and LiteRT's results are the ones to match.
///
/// SUB (a subclass) is the same kernel with the second input's multiplier negated, as TFLite's sub.cc does.
///
/// int32 and int64 (a loop counter in a WHILE body, index arithmetic) add as TFLite's reference kernel does: in the
/// type, wrapping, then clamped to the fused activation's integer range.
class Add: BinaryElementwise {
    override class var hasFusedActivation: Bool { true }
    /// SUB: the second input's rescale multiplier is negated.
    class var subtracts: Bool { false }

    struct QuantizedParameters {
        let offset1: Int32, offset2: Int32, outputOffset: Int32
        let multiplier1: Int32, shift1: Int
        let multiplier2: Int32, shift2: Int
        let outputMultiplier: Int32, outputShift: Int
        let leftShift: Int32
        let low: Int32, high: Int32
        /// `fast` numerics: the multipliers as doubles and the shifts as factors.
        let fast: (m1: Double, r1: Double, m2: Double, r2: Double, mo: Double, lo: Double, ro: Double)
    }

    /// The path `run` takes, chosen by `prepare` (nil before it).
    private(set) var plan: AddPlan?
    enum Sum: FloatBinaryOperation { @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a + b } }
    enum Difference: FloatBinaryOperation { @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a - b } }

    override func prepare() throws {
        plan = try makePlan()
    }

    private func makePlan() throws -> AddPlan {
        let a = try input(0), b = try input(1), output = try self.output(0)
        if try prepareIntegers() { return .integers }
        // The float sum with its activation's clamp (``KernelConfiguration/FloatKernels/addMinMax``): nil for SUB, at
        // baseline (the portable Swift loops) and on other architectures.
        let floatSum = !Self.subtracts && a.type == .float32 ? KernelConfiguration.current.float?.addMinMax : nil
        switch a.type {
        case .uint8, .int8, .int16: break
        default:
            try super.prepare()
            if let (pad, operand) = channelPad {
                let paddedSum = floatSum != nil ? KernelConfiguration.current.float?.addChannelPadded : nil
                return .floatChannelPadded(pad: pad, operand: operand, kernel: paddedSum)
            }
            if let floatSum, a.shape == b.shape || (a.elementCount == b.elementCount && a.elementCount == output.elementCount) {
                return .floatSameShape(floatSum)
            }
            return .float
        }
        guard b.type == a.type, output.type == a.type else { throw KernelError.unsupported("\(node.code) of \(a.type) and \(b.type) into \(output.type)") }
        let qa = try QuantizedTensorInfo(a), qb = try QuantizedTensorInfo(b), qo = try QuantizedTensorInfo(output)
        if a.type == .int16 {
            try Int16Activations.expectSymmetric(a, b, output)
            let powersOfTwo = [qa.scale, qb.scale, qo.scale].allSatisfy { $0.significand == 1 }
            if try ArithmeticOptions(node.options).potScaleInt16 && powersOfTwo {
                throw KernelError.unsupported("int16 \(node.code) on power-of-two scales (TFLite's shift-only LSTM path)")
            }
        }
        // int16 shifts by 15: 65535 << 15 still fits the int32 sum.
        let leftShift: Int32 = a.type == .int16 ? 15 : 20
        let twiceMaxInputScale = 2 * Double(max(qa.scale, qb.scale))
        let (m1, s1) = IntegerArithmetic.quantizeMultiplier(Double(qa.scale) / twiceMaxInputScale)
        var (m2, s2) = IntegerArithmetic.quantizeMultiplier(Double(qb.scale) / twiceMaxInputScale)
        if Self.subtracts { m2 = -m2 }
        let (mo, so) = IntegerArithmetic.quantizeMultiplier(twiceMaxInputScale / (Double(1 << leftShift) * Double(qo.scale)))
        guard s1 <= 0, s2 <= 0, so <= 0 else { throw KernelError.unsupported("\(node.code) rescaling multipliers above 1") }
        let (typeMin, typeMax) = try quantizedRange(output.type)
        let (low, high) = try IntegerArithmetic.activationRange(try ArithmeticOptions(node.options).activation, scale: qo.scale,
                                                                zeroPoint: qo.zeroPoint, typeMin: typeMin, typeMax: typeMax)
        let quantized = QuantizedParameters(offset1: -qa.zeroPoint, offset2: -qb.zeroPoint, outputOffset: qo.zeroPoint,
                                            multiplier1: m1, shift1: s1, multiplier2: m2, shift2: s2, outputMultiplier: mo, outputShift: so,
                                            leftShift: leftShift, low: low, high: high,
                                            fast: (Double(m1), Double(sign: .plus, exponent: s1, significand: 1),
                                                   Double(m2), Double(sign: .plus, exponent: s2, significand: 1),
                                                   Double(mo), so > 0 ? Double(sign: .plus, exponent: so, significand: 1) : 1,
                                                   so > 0 ? 1 : Double(sign: .plus, exponent: so, significand: 1)))
        output.shape = try broadcastShape(a.shape, b.shape)
        if a.type == .int16 { return .int16(quantized) }
        guard node.numerics == .fast && a.shape == b.shape else { return .quantizedReference(quantized) }
        #if arch(x86_64)
        if let kernels = Self.exactKernels(for: quantized, KernelConfiguration.current) { return .quantizedExactKernels(quantized, kernels) }
        #endif
        return .quantizedFast(quantized)
    }

    /// The folded PAD whose input this ADD reads in place of its operand `operand` (``takeChannelPad(_:of:)``).
    private var channelPad: (kernel: Kernel, operand: Int)?

    func takeChannelPad(_ pad: Kernel, of operand: Int) -> Bool {
        guard !Self.subtracts, channelPad == nil, node.inputs.allSatisfy({ $0?.type == .float32 }), node.outputs[0].type == .float32 else { return false }
        channelPad = (pad, operand)
        return true
    }

    /// `other + pad(x)` with the padding read as zeros, one output row (the last axis) at a time: the row's first
    /// channels are sums, the rest `other + 0` (so −0 reads +0, as after a real PAD). Shapes this loop does not take
    /// (a broadcast after a resize) run the PAD and the ordinary sum.
    private func addChannelPadded(_ pad: Kernel, operand: Int, kernel: lite_f32_vadd_channel_padded_fn?, _ context: RunContext) throws {
        let source = pad.node.inputs[0]!, other = node.inputs[1 - operand]!, output = node.outputs[0]
        let channels = output.shape.last ?? 0, sourceChannels = source.shape.last ?? 0
        guard other.shape == output.shape, source.rank == output.rank, source.shape.dropLast() == output.shape.dropLast(),
              sourceChannels <= channels, channels > 0 else {
            try pad.run(context)
            return compute(context.threads, Sum.self)
        }
        let x = source.floats, y = other.floats, out = output.floats, (low, high) = activation
        // Addition is commutative bit for bit (one NaN operand: that NaN; two: the first's payload, which the order
        // keeps).
        let (first, second, firstStride) = operand == 0 ? (UnsafePointer(x), UnsafePointer(y), sourceChannels) : (UnsafePointer(y), UnsafePointer(x), channels)
        let secondStride = operand == 0 ? channels : sourceChannels
        parallelFor(output.elementCount / channels, threads: context.threads, minimumChunk: 16, workPerItem: 4 * channels) { rows in
            if let kernel {
                let r = rows.lowerBound
                return kernel(first + r * firstStride, firstStride, second + r * secondStride, secondStride, y + r * channels, out + r * channels,
                              rows.count, sourceChannels, channels, low, high)
            }
            for r in rows {
                Self.addRow(first + r * firstStride, second + r * secondStride, out + r * channels, count: sourceChannels, low: low, high: high)
                Self.addRow(y + r * channels + sourceChannels, nil, out + r * channels + sourceChannels, count: channels - sourceChannels,
                            low: low, high: high)
            }
        }
    }

    /// A float ADD of operands of one shape through the configuration's kernel, split over `threads`.
    private func addSameShape(_ kernel: lite_f32_vadd_minmax_fn, _ context: RunContext) {
        let a = node.inputs[0]!.floats, b = node.inputs[1]!.floats, out = node.outputs[0].floats, (low, high) = activation
        parallelFor(node.outputs[0].elementCount, threads: context.threads, minimumChunk: 4096, workPerItem: 4) { range in
            kernel(a + range.lowerBound, b + range.lowerBound, out + range.lowerBound, range.count, low, high)
        }
    }

    /// `clamp(a[i] + b[i])`, or `clamp(a[i] + 0)` without `b`, for `i < count` (the portable path of
    /// `lite_f32_vadd_channel_padded`): eight lanes at a time, since rows of 24-96 channels are too short for the
    /// compiler's vector loop (which takes 32 at a time, leaving them scalar).
    @inline(__always)
    private static func addRow(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>?, _ out: UnsafeMutablePointer<Float>, count: Int,
                               low: Float, high: Float) {
        var i = 0
        let low8 = SIMD8<Float>(repeating: low), high8 = SIMD8<Float>(repeating: high)
        while i + 8 <= count {
            let x = UnsafeRawPointer(a + i).loadUnaligned(as: SIMD8<Float>.self)
            let y = b.map { UnsafeRawPointer($0 + i).loadUnaligned(as: SIMD8<Float>.self) } ?? SIMD8<Float>(repeating: 0)
            UnsafeMutableRawPointer(out + i).storeBytes(of: SIMD8<Float>.clamp(x + y, low8, high8), as: SIMD8<Float>.self)
            i += 8
        }
        while i < count {
            out[i] = Float.clamp(a[i] + (b?[i] ?? 0), low, high)
            i += 1
        }
    }

    override func run(_ context: RunContext) throws {
        guard let plan else { throw KernelError.invalid("\(node.code) ran before it was prepared") }
        switch plan {
        case .floatChannelPadded(let pad, let operand, let kernel): try addChannelPadded(pad, operand: operand, kernel: kernel, context)
        case .floatSameShape(let kernel): addSameShape(kernel, context)
        case .float: Self.subtracts ? compute(context.threads, Difference.self) : compute(context.threads, Sum.self)
        case .integers: Self.subtracts ? computeIntegers { $0 &- $1 } : computeIntegers { $0 &+ $1 }
        case .int16(let q): addInt16(node.inputs[0]!, node.inputs[1]!, node.outputs[0], q)
        #if arch(x86_64)
        case .quantizedExactKernels(let q, let kernels): addExactly(q, kernels, context)
        #endif
        case .quantizedFast(let q): addFast(q, context)
        case .quantizedReference(let q): addReference(q)
        }
    }

    #if arch(x86_64)
    /// uint8/int8 operands of one shape through the configuration's exact kernels, split over the threads.
    private func addExactly(_ q: QuantizedParameters, _ kernels: ElementwiseKernels, _ context: RunContext) {
        let a = node.inputs[0]!, signed = a.type == .int8
        let pa = UnsafeRawPointer(a.data!), pb = UnsafeRawPointer(node.inputs[1]!.data!), out = node.outputs[0].data!
        var parameters = Self.kernelParameters(q)
        withUnsafePointer(to: &parameters) { parameters in
            parallelFor(a.elementCount, threads: context.threads, minimumChunk: 64, workPerItem: 4) { range in
                let (start, count) = (range.lowerBound, range.count)
                if signed {
                    kernels.addS8((pa + start).assumingMemoryBound(to: Int8.self), (pb + start).assumingMemoryBound(to: Int8.self),
                                  (out + start).assumingMemoryBound(to: Int8.self), count, parameters)
                } else {
                    kernels.addU8((pa + start).assumingMemoryBound(to: UInt8.self), (pb + start).assumingMemoryBound(to: UInt8.self),
                                  (out + start).assumingMemoryBound(to: UInt8.self), count, parameters)
                }
            }
        }
    }
    #endif

    /// uint8/int8 operands of one shape in `fast` numerics (``addFast(_:_:_:_:_:)``), split over the threads.
    private func addFast(_ q: QuantizedParameters, _ context: RunContext) {
        let a = node.inputs[0]!, signed = a.type == .int8
        let pa = UnsafeRawPointer(a.data!), pb = UnsafeRawPointer(node.inputs[1]!.data!), out = node.outputs[0].data!
        parallelFor(a.elementCount, threads: context.threads, minimumChunk: 64, workPerItem: 8) { range in
            let (start, count) = (range.lowerBound, range.count)
            if signed {
                Self.addFast(pa.assumingMemoryBound(to: Int8.self) + start, pb.assumingMemoryBound(to: Int8.self) + start,
                             out.assumingMemoryBound(to: Int8.self) + start, count, q)
            } else {
                Self.addFast(pa.assumingMemoryBound(to: UInt8.self) + start, pb.assumingMemoryBound(to: UInt8.self) + start,
                             out.assumingMemoryBound(to: UInt8.self) + start, count, q)
            }
        }
    }

    /// uint8/int8 with broadcasting: TFLite's integer arithmetic, element by element.
    private func addReference(_ q: QuantizedParameters) {
        let a = node.inputs[0]!, b = node.inputs[1]!, output = node.outputs[0], signed = a.type == .int8
        let pa = UnsafeRawPointer(a.data!), pb = UnsafeRawPointer(b.data!), out = output.data!
        forEachBroadcastPair(aShape: a.shape, bShape: b.shape, outShape: output.shape) { i, ia, ib in
            let x = (loadQuantized(pa, ia, signed: signed) + q.offset1) << q.leftShift
            let y = (loadQuantized(pb, ib, signed: signed) + q.offset2) << q.leftShift
            let sum = (IntegerArithmetic.saturatingRoundingDoublingHighMul(x, q.multiplier1) >> Int32(-q.shift1))
                &+ (IntegerArithmetic.saturatingRoundingDoublingHighMul(y, q.multiplier2) >> Int32(-q.shift2))
            let value = IntegerArithmetic.multiplyByQuantizedMultiplier(sum, q.outputMultiplier, q.outputShift) + q.outputOffset
            storeQuantized(out, i, min(max(value, q.low), q.high), signed: signed)
        }
    }
}

extension Add {
    /// int16 (16x8 models, general scales): TFLite's AddElementwise with a left shift of 15. Inputs of one shape take
    /// LiteRT's NEON loop (emulated on x86) in whole groups of 16: each input shifted left by `15 + shift` and rescaled by
    /// one rounding high multiply (`vqrdmulh`, ties up); the elements left over, and broadcasts, take the reference
    /// arithmetic, where the input rescale rounds twice (`MultiplyByQuantizedMultiplierSmallerThanOneExp` of `x << 15`).
    /// The two differ by one in an input's rescale on about a quarter of the values and in the output only next to its
    /// rounding ties (`q16_add_large`: 1 of 65,536). SUB keeps the reference arithmetic throughout, as LiteRT's outputs
    /// show (`q16_sub_large`).
    func addInt16(_ a: Tensor, _ b: Tensor, _ output: Tensor, _ q: QuantizedParameters) {
        let pa = a.pointer(Int16.self), pb = b.pointer(Int16.self), out = output.pointer(Int16.self)
        var start = 0
        if a.shape == b.shape && !Self.subtracts {
            start = a.elementCount / 16 * 16
            let shift1 = Int32(q.leftShift) + Int32(q.shift1), shift2 = Int32(q.leftShift) + Int32(q.shift2)
            for i in 0..<start {
                let x = Self.roundingHighMultiply(Self.neonShift(Int32(pa[i]) + q.offset1, shift1), q.multiplier1)
                let y = Self.roundingHighMultiply(Self.neonShift(Int32(pb[i]) + q.offset2, shift2), q.multiplier2)
                let sum = Self.roundingHighMultiply(x &+ y, q.outputMultiplier)
                let value = IntegerArithmetic.roundingDivideByPOT(sum, -q.outputShift) + q.outputOffset
                out[i] = Int16(truncatingIfNeeded: min(max(value, q.low), q.high))
            }
        }
        forEachBroadcastPair(aShape: a.shape, bShape: b.shape, outShape: output.shape) { i, ia, ib in
            guard i >= start else { return }
            let x = (Int32(pa[ia]) + q.offset1) << q.leftShift
            let y = (Int32(pb[ib]) + q.offset2) << q.leftShift
            let sum = IntegerArithmetic.multiplyByQuantizedMultiplier(x, q.multiplier1, q.shift1)
                &+ IntegerArithmetic.multiplyByQuantizedMultiplier(y, q.multiplier2, q.shift2)
            let value = IntegerArithmetic.multiplyByQuantizedMultiplier(sum, q.outputMultiplier, q.outputShift) + q.outputOffset
            out[i] = Int16(truncatingIfNeeded: min(max(value, q.low), q.high))
        }
    }

    /// NEON's `vshlq_s32`: a left shift, or for a negative count a truncating arithmetic right shift (wrapping like the
    /// 32-bit lane).
    @inline(__always)
    static func neonShift(_ x: Int32, _ count: Int32) -> Int32 {
        count >= 0 ? x &<< count : x >> min(-count, 31)
    }

    /// NEON's `vqrdmulhq_s32`: `(2·x·m + 2^31) >> 32`, ties up, saturating the one overflow (both operands INT32_MIN).
    @inline(__always)
    static func roundingHighMultiply(_ x: Int32, _ m: Int32) -> Int32 {
        if x == .min && m == .min { return .max }
        return Int32(truncatingIfNeeded: (Int64(x) * Int64(m) + (1 << 30)) >> 31)
    }
}

extension Add {
    /// `fast` numerics for inputs of one shape: the integer ADD above (inputs shifted left 20 bits, each rescaled,
    /// summed, the sum rescaled) replayed in double in a plain loop the compiler vectorizes; see
    /// `ChannelRequantization.requantizeFast` for why it equals the integer result except within 2^-21 of a tie.
    @inline(__always)
    static func addFast<Element: FixedWidthInteger>(_ a: UnsafePointer<Element>, _ b: UnsafePointer<Element>, _ out: UnsafeMutablePointer<Element>,
                                                     _ count: Int, _ q: QuantizedParameters) {
        let f = q.fast
        let shift = Double(sign: .plus, exponent: Int(q.leftShift), significand: 1)
        let offset1 = Double(q.offset1), offset2 = Double(q.offset2)
        let zero = Double(q.outputOffset), lowest = Double(q.low), highest = Double(q.high)
        let magic: Double = 6_755_399_441_055_744
        let magicBits = Int64(bitPattern: magic.bitPattern)
        for i in 0..<count {
            let x = (Double(Int32(truncatingIfNeeded: a[i])) + offset1) * shift
            let y = (Double(Int32(truncatingIfNeeded: b[i])) + offset2) * shift
            // The inputs' rescale ends in a plain arithmetic shift (floor), as the integer kernel above.
            let sum = (highMultiplyInDouble(x, f.m1) * f.r1).rounded(.down) + (highMultiplyInDouble(y, f.m2) * f.r2).rounded(.down)
            var v = divideByPowerOfTwoInDouble(highMultiplyInDouble(sum * f.lo, f.mo), scale: f.ro) + zero
            v = v < lowest ? lowest : v
            v = v > highest ? highest : v
            out[i] = Element(truncatingIfNeeded: Int64(bitPattern: (v + magic).bitPattern) &- magicBits)
        }
    }
}

#if arch(x86_64)
extension Add {
    /// The kernels that add exactly in registers (`lite_q8_vadd`), or nil: a configuration that has them, and an output
    /// rescale whose right shift keeps its rounding inside 32-bit lanes; the AVX2 kernel also needs the inputs' total
    /// shifts at most 62. The kernels compute the integer ADD above exactly: see lite_elementwise.h.
    static func exactKernels(for q: QuantizedParameters, _ configuration: KernelConfiguration) -> ElementwiseKernels? {
        guard q.outputShift >= -22, let kernels = configuration.elementwise,
              q.shift1 >= kernels.addMinimumInputShift, q.shift2 >= kernels.addMinimumInputShift else { return nil }
        return kernels
    }

    /// `q` as the kernels' parameters (the left shift is 20, the 8-bit types').
    static func kernelParameters(_ q: QuantizedParameters) -> lite_q8_add_params {
        lite_q8_add_params(input1_offset: q.offset1, input2_offset: q.offset2, output_offset: q.outputOffset,
                           input1_multiplier: q.multiplier1, input2_multiplier: q.multiplier2, output_multiplier: q.outputMultiplier,
                           input1_shift: Int32(q.shift1), input2_shift: Int32(q.shift2), output_shift: Int32(q.outputShift),
                           output_min: q.low, output_max: q.high)
    }
}
#endif


/// Calls `body(outputIndex, aIndex, bIndex)` for every output element of a numpy broadcast.
@inline(__always)
func forEachBroadcastPair(aShape: [Int], bShape: [Int], outShape: [Int], _ body: (Int, Int, Int) -> Void) {
    forEachBroadcastRun(aShape: aShape, bShape: bShape, outShape: outShape) { o, ia, stepA, ib, stepB, count in
        for k in 0..<count { body(o + k, ia + k * stepA, ib + k * stepB) }
    }
}

extension Add: ChannelPadAbsorbing {}

extension Add: FoldableIntoStore {
    func canRunOnRows(of operand: Int) -> Bool {
        guard !Self.subtracts, node.inputs.count == 2, node.inputs.allSatisfy({ $0?.type == .float32 }), node.outputs[0].type == .float32
        else { return false }
        // With a folded channel PAD, the convolution's output must be the operand that is not padded.
        return channelPad.map { operand == 1 - $0.operand } ?? true
    }

    func tensorsRead(besides operand: Int) -> [Tensor] {
        if let channelPad { return channelPad.kernel.node.inputs[0].map { [$0] } ?? [] }
        return node.inputs[1 - operand].map { [$0] } ?? []
    }

    /// The sum as `addSameShape` or `addChannelPadded` computes it, on any range of rows: the operand of the output's
    /// shape, and the other of that shape too or a channel-padded one whose rows the shape's.
    func storeStep(operand: Int, channels: Int) -> StoreStep? {
        guard let kernels = KernelConfiguration.current.float, let output = node.outputs.first, output.shape.last == channels, channels > 0,
              node.inputs[operand]?.shape == output.shape else { return nil }
        let (low, high) = activation
        if let (pad, padded) = channelPad {
            guard let source = pad.node.inputs[0], source.rank == output.rank, source.shape.dropLast() == output.shape.dropLast(),
                  let sourceChannels = source.shape.last, sourceChannels <= channels else { return nil }
            return .addChannelPadded(source: UnsafePointer(source.floats), sourceChannels: sourceChannels, sourceFirst: padded == 0,
                                     kernel: kernels.addChannelPadded, low: low, high: high)
        }
        guard let other = node.inputs[1 - operand], other.shape == output.shape else { return nil }
        return .add(other: UnsafePointer(other.floats), otherFirst: operand == 1, kernel: kernels.addMinMax, low: low, high: high)
    }
}
