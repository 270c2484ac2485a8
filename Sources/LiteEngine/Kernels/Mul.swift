import CLiteKernels
import LiteFormat

/// MUL: a * b with broadcasting and a fused activation; float32, or uint8/int8 with TFLite's integer arithmetic
/// (mul.cc, MulElementwise): `clamp(zp_out + MultiplyByQuantizedMultiplier((x - zp_a)·(y - zp_b), M))` with
/// `M = scale_a · scale_b / scale_out` computed in single precision; int16 (16x8 models, zero points 0) the same way, whose
/// products of at most 2^30 still fit int32; int32 and int64 as ADD does (wrapping, then the activation's range).
final class Mul: BinaryElementwise, FloatBinaryOperation {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a * b }

    override class var hasFusedActivation: Bool { true }

    /// `x · sigmoid(x)` with the LOGISTIC kernel's sigmoid, then the activation: the products the two nodes compute.
    private func swish(_ input: Tensor, _ threads: Int) {
        let x = input.floats, out = node.outputs[0].floats
        let (low, high) = activation
        parallelFor(input.elementCount, threads: threads, minimumChunk: 4096, workPerItem: 8) { range in
            applySigmoid(x + range.lowerBound, into: out + range.lowerBound, range.count, multiplyingByInput: true)
            if low > -.infinity || high < .infinity { clamp(out + range.lowerBound, count: range.count, low, high) }
        }
    }

    /// The code path `run` takes, chosen once by `prepare` from the operand types.
    enum Plan {
        /// A folded LOGISTIC (``takeSigmoid(of:)``): `x · sigmoid(x)` of input `operand`.
        case swish(operand: Int)
        /// Float, with broadcasting.
        case float
        /// int32 or int64: in the type, wrapping, then clamped to the activation's range.
        case integers
        /// uint8, int8 or int16: TFLite's integer arithmetic. On x86-64 the vector kernels (`fast` numerics) chosen from
        /// ``KernelConfiguration/current`` take runs of eight; nil where the configuration has none or the rescale's
        /// shift is outside what a 32-bit lane takes (hostile scales).
        case quantized(QuantizedBinaryParameters, vectorKernels: VectorKernels?)
    }

    #if arch(x86_64)
    typealias VectorKernels = ElementwiseKernels
    #else
    /// No vector kernels outside x86-64.
    typealias VectorKernels = Never
    #endif

    /// The path `run` takes, chosen by `prepare` (nil before it).
    private(set) var plan: Plan?

    override func prepare() throws {
        plan = try makePlan()
    }

    private func makePlan() throws -> Plan {
        if try prepareIntegers() { return .integers }
        let a = try input(0), b = try input(1), output = try self.output(0)
        guard a.type == .uint8 || a.type == .int8 || a.type == .int16 else {
            try super.prepare()
            if let sigmoidOf { return .swish(operand: sigmoidOf) }
            return .float
        }
        guard b.type == a.type, output.type == a.type else { throw KernelError.unsupported("MUL of \(a.type) and \(b.type) into \(output.type)") }
        try Int16Activations.expectSymmetric(a, b, output)
        let qa = try QuantizedTensorInfo(a), qb = try QuantizedTensorInfo(b), qo = try QuantizedTensorInfo(output)
        // LiteRT's mul.cc multiplies and divides the float scales in single precision before QuantizeMultiplier: with
        // the product taken in double, 23 of 802,816 outputs of DenseNet121 16x8's first batch-norm MUL (and 1 of
        // EfficientNetB0 16x8's first swish) land on the other side of a rounding tie.
        let (multiplier, shift) = IntegerArithmetic.quantizeMultiplier(Double(qa.scale * qb.scale / qo.scale))
        guard shift <= 30 else { throw KernelError.unsupported("MUL rescaling multiplier out of range") }
        let (typeMin, typeMax) = try quantizedRange(output.type)
        let (low, high) = try IntegerArithmetic.activationRange(try ArithmeticOptions(node.options).activation, scale: qo.scale,
                                                                zeroPoint: qo.zeroPoint, typeMin: typeMin, typeMax: typeMax)
        let quantized = QuantizedBinaryParameters(offset1: -qa.zeroPoint, offset2: -qb.zeroPoint, outputOffset: qo.zeroPoint,
                                                  multiplier: multiplier, shift: shift, low: low, high: high)
        output.shape = try broadcastShape(a.shape, b.shape)
        #if arch(x86_64)
        let kernels = multiplier >= 0 && (-31...30).contains(shift) && node.numerics == .fast ? KernelConfiguration.current.elementwise : nil
        return .quantized(quantized, vectorKernels: kernels)
        #else
        return .quantized(quantized, vectorKernels: nil)
        #endif
    }

    /// The input whose sigmoid takes the other input's place (a swish whose LOGISTIC node the interpreter folded).
    var sigmoidOf: Int?

    override func run(_ context: RunContext) throws {
        guard let plan else { throw KernelError.invalid("MUL ran before it was prepared") }
        switch plan {
        case .swish(let operand): swish(node.inputs[operand]!, context.threads)
        case .float: compute(context.threads, Mul.self)
        case .integers: computeIntegers { $0 &* $1 }
        case .quantized(let q, let kernels): multiplyQuantized(q, kernels)
        }
    }

    /// uint8, int8 or int16 with broadcasting; runs of eight through `kernels` when there are some.
    private func multiplyQuantized(_ q: QuantizedBinaryParameters, _ kernels: VectorKernels?) {
        let a = node.inputs[0]!, b = node.inputs[1]!, output = node.outputs[0]
        @inline(__always) func run<Element: FixedWidthInteger>(_: Element.Type) {
            let x = UnsafePointer<Element>(OpaquePointer(a.data!)), y = UnsafePointer<Element>(OpaquePointer(b.data!))
            let out = output.data!.assumingMemoryBound(to: Element.self)
            #if arch(x86_64)
            var parameters = lite_q_mul_params(input1_offset: q.offset1, input2_offset: q.offset2, output_offset: q.outputOffset,
                                               multiplier: q.multiplier, shift: Int32(q.shift), output_min: q.low, output_max: q.high)
            #endif
            forEachBroadcastRun(aShape: a.shape, bShape: b.shape, outShape: output.shape) { o, ia, stepA, ib, stepB, count in
                var k = 0
                #if arch(x86_64)
                if let kernels {
                    k = Mul.multiplyEight(x + ia, stepA, y + ib, stepB, out + o, count, &parameters, kernels)
                }
                #endif
                while k < count {
                    // (x - zp) is at most 9 bits (int16: 16 bits, zero point 0), so the product fits in int32.
                    let product = (Int32(x[ia + k * stepA]) &+ q.offset1) &* (Int32(y[ib + k * stepB]) &+ q.offset2)
                    let value = IntegerArithmetic.multiplyByQuantizedMultiplier(product, q.multiplier, q.shift) &+ q.outputOffset
                    out[o + k] = Element(truncatingIfNeeded: min(max(value, q.low), q.high))
                    k += 1
                }
            }
        }
        switch a.type {
        case .int8: run(Int8.self)
        case .int16: run(Int16.self)
        default: run(UInt8.self)
        }
    }

    #if arch(x86_64)
    /// The products of the whole groups of eight in a run, exactly as the scalar loop; returns how many it wrote. A
    /// step of 0 repeats the operand's one value in every lane.
    @inline(__always)
    static func multiplyEight<Element: FixedWidthInteger>(_ x: UnsafePointer<Element>, _ stepA: Int, _ y: UnsafePointer<Element>, _ stepB: Int,
                                                          _ out: UnsafeMutablePointer<Element>, _ count: Int,
                                                          _ parameters: UnsafePointer<lite_q_mul_params>, _ kernels: ElementwiseKernels) -> Int {
        @inline(__always) func cast<T>(_ p: UnsafePointer<Element>, _: T.Type) -> UnsafePointer<T> { UnsafeRawPointer(p).assumingMemoryBound(to: T.self) }
        @inline(__always) func cast<T>(_ p: UnsafeMutablePointer<Element>, _: T.Type) -> UnsafeMutablePointer<T> {
            UnsafeMutableRawPointer(p).assumingMemoryBound(to: T.self)
        }
        if Element.self == Int8.self {
            return kernels.mulS8(cast(x, Int8.self), stepA, cast(y, Int8.self), stepB, cast(out, Int8.self), count, parameters)
        }
        if Element.self == UInt8.self {
            return kernels.mulU8(cast(x, UInt8.self), stepA, cast(y, UInt8.self), stepB, cast(out, UInt8.self), count, parameters)
        }
        return kernels.mulS16(cast(x, Int16.self), stepA, cast(y, Int16.self), stepB, cast(out, Int16.self), count, parameters)
    }
    #endif
}

extension Mul: SigmoidAbsorbing {
    func takeSigmoid(of operand: Int) -> Bool {
        guard node.inputs.allSatisfy({ $0?.type == .float32 }), node.inputs[0]?.shape == node.inputs[1]?.shape else { return false }
        sigmoidOf = operand
        return true
    }
}
