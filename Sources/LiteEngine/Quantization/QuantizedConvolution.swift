import LiteFormat

/// The integer CONV_2D of TFLite (reference/conv.h for uint8, reference/integer_ops/conv.h for int8):
/// `acc = bias[c] + Σ (x - x_zero) · (w - w_zero[c])` in int32, then the per-channel requantization with the
/// rounding of TFLite's GEMM path (`multiplyByQuantizedMultiplierRoundingUp`).
///
/// In `exact` numerics the sum is a double-precision GEMM over im2col'd `x - x_zero` and `w - w_zero`: products
/// of 8-bit values and their sums stay far below 2^53, so every double is the exact integer TFLite's int32 loop
/// produces, in any summation order. In `fast` numerics it is a single-precision GEMM (twice the throughput):
/// every partial sum is an integer, exact while it stays below 2^24 in magnitude (≥ 258 maximal products of one
/// sign would be needed to leave that range); beyond it a sum is off by its float rounding, which moves an output
/// by at most one step only when it lands next to a rounding boundary. Padding contributes nothing, like TFLite's
/// skipped taps.
final class QuantizedConvolution {
    let signed: Bool
    let inputZeroPoint: Int32
    let requantization: ChannelRequantization
    /// [Cout, KH*KW*Cin] filter minus its zero point, computed once (double for exact, float for fast numerics).
    let filter: UnsafeMutableBufferPointer<Double>
    let filterSingle: UnsafeMutableBufferPointer<Float>
    let single: Bool
    /// The bias as doubles for `fast` numerics (empty without bias).
    let biasFloats: [Double]
    /// `fast` numerics on CPUs with AVX-512 VNNI: the 8-bit GEMM with exact int32 accumulators.
    let integerGEMM: QuantizedGEMM?
    /// `fast` numerics on other CPUs with AVX2: the GEMM of int16 multiply-adds, also exact.
    let widenedGEMM: QuantizedGEMMAVX2?

    init(input: Tensor, filter filterTensor: Tensor, bias: Tensor?, output: Tensor, activation: FusedActivation, outputShape: [Int],
         numerics: Numerics, existing: QuantizedConvolution?) throws {
        guard filterTensor.type == input.type || (input.type == .int8 && filterTensor.type == .int8) else {
            throw KernelError.unsupported("\(input.type) input with \(filterTensor.type) filter")
        }
        guard input.rank == 4, filterTensor.rank == 4, filterTensor.dim(3) == input.dim(3) else {
            throw KernelError.invalid("filter \(filterTensor.shape) does not fit input \(input.shape)")
        }
        guard output.type == input.type else { throw KernelError.unsupported("output type \(output.type) for \(input.type) input") }
        guard filterTensor.storage != .arena, filterTensor.data != nil else {
            throw KernelError.unsupported("quantized filters must be constant (tensor \(filterTensor.index) is not)")
        }
        let channels = filterTensor.dim(0)
        if let bias {
            guard bias.type == .int32, bias.elementCount == channels else { throw KernelError.unsupported("bias must be int32 [\(channels)], is \(bias)") }
            // Read (and packed) while planning, as the filter is.
            guard bias.storage != .arena, bias.data != nil else { throw KernelError.unsupported("quantized biases must be constant (tensor \(bias.index) is not)") }
        }
        let inputInfo = try QuantizedTensorInfo(input), filterInfo = try QuantizedTensorInfo(filterTensor), outputInfo = try QuantizedTensorInfo(output)
        signed = input.type == .int8
        inputZeroPoint = inputInfo.zeroPoint
        requantization = try ChannelRequantization(input: inputInfo, filter: filterInfo, output: outputInfo, channels: channels,
                                                   activation: activation, outputType: output.type)
        output.shape = outputShape
        single = numerics == .fast
        let depth = filterTensor.elementCount / max(channels, 1)
        integerGEMM = single && QuantizedGEMM.isUsed
            ? try existing?.integerGEMM
                ?? QuantizedGEMM(filter: filterTensor, filterZeroPoints: filterInfo.zeroPoints, bias: bias, inputZeroPoint: inputInfo.zeroPoint,
                                 signed: signed, requantization: requantization)
            : nil
        widenedGEMM = single && QuantizedGEMMAVX2.isUsed
            && QuantizedGEMMAVX2.supports(depth: depth, signed: signed, inputZeroPoint: inputInfo.zeroPoint, filterZeroPoints: filterInfo.zeroPoints,
                                          requantization: requantization)
            ? existing?.widenedGEMM
                ?? QuantizedGEMMAVX2(filter: filterTensor, filterZeroPoints: filterInfo.zeroPoints, bias: bias, inputZeroPoint: inputInfo.zeroPoint,
                                     signed: signed, requantization: requantization)
            : nil
        if integerGEMM != nil || widenedGEMM != nil {
            filter = .allocate(capacity: 0)
            filterSingle = .allocate(capacity: 0)
            biasFloats = []
            return
        }
        biasFloats = bias.map { b in (0..<channels).map { Double(b.pointer(Int32.self)[$0]) } } ?? []
        if let existing, existing.single == single, existing.filter.count + existing.filterSingle.count == filterTensor.elementCount {
            filter = existing.filter
            filterSingle = existing.filterSingle
            existing.ownsFilter = false
        } else {
            filter = .allocate(capacity: single ? 0 : filterTensor.elementCount)
            filterSingle = .allocate(capacity: single ? filterTensor.elementCount : 0)
            let raw = UnsafeRawPointer(filterTensor.data!)
            let signedFilter = filterTensor.type == .int8
            for c in 0..<channels {
                let zero = filterInfo.zeroPoints.count == 1 ? filterInfo.zeroPoints[0] : filterInfo.zeroPoints[c]
                for k in 0..<depth {
                    let value = loadQuantized(raw, c * depth + k, signed: signedFilter) - zero
                    if single { filterSingle[c * depth + k] = Float(value) } else { filter[c * depth + k] = Double(value) }
                }
            }
        }
    }

    var ownsFilter = true

    deinit {
        if ownsFilter {
            filter.deallocate()
            filterSingle.deallocate()
        }
    }

    /// Scratch: the input as double offsets, the im2col matrix (unless 1x1 stride 1) and the accumulators.
    static func scratchBytes(input: Tensor, filter: Tensor, rows: Int) -> Int {
        let depth = filter.dim(1) * filter.dim(2) * filter.dim(3)
        return saturatingProduct(input.elementCount + rows * depth + rows * filter.dim(0), 8)
    }

    func run(input: Tensor, filter filterTensor: Tensor, bias biasTensor: Tensor?, output: Tensor, geometryH: SpatialGeometry, geometryW: SpatialGeometry,
             options: Conv2DOptions, scratch: UnsafeMutableRawPointer, threads: Int) {
        let (batches, inC) = (input.dim(0), input.dim(3))
        let (outC, kh, kw) = (filterTensor.dim(0), filterTensor.dim(1), filterTensor.dim(2))
        let (outH, outW) = (geometryH.output, geometryW.output)
        let rows = batches * outH * outW, depth = kh * kw * inC
        let pointwise = kh == 1 && kw == 1 && options.strideH == 1 && options.strideW == 1 && geometryH.padBefore == 0 && geometryW.padBefore == 0
        if let gemm = integerGEMM {
            if gemm.readsInPlace(pointwise: pointwise) {
                gemm.run(rows: UnsafePointer(OpaquePointer(input.data!)), rowCount: rows, rowStride: depth, output: output.data!, threads: threads)
            } else {
                let packed = scratch.assumingMemoryBound(to: Int8.self)
                gemm.pack(input: input, kernelH: kh, kernelW: kw, geometryH: geometryH, geometryW: geometryW, options: options, into: packed, threads: threads)
                gemm.run(rows: packed, rowCount: rows, rowStride: gemm.paddedDepth, output: output.data!, threads: threads)
            }
            return
        }
        if let gemm = widenedGEMM {
            let source = pointwise
                ? QuantizedGEMMAVX2.Rows(contiguous: UnsafePointer(OpaquePointer(input.data!)), depth: depth, signed: signed, zero: inputZeroPoint)
                : QuantizedGEMMAVX2.Rows(input: input, kernelH: kh, kernelW: kw, geometryH: geometryH, geometryW: geometryW, options: options,
                                         zero: inputZeroPoint)
            gemm.run(rows: source, rowCount: rows, output: output.data!, threads: threads)
            return
        }
        if single {
            multiply(Float.self, filter: UnsafePointer(filterSingle.baseAddress!), input: input, filterTensor: filterTensor, rows: rows, depth: depth,
                     outC: outC, pointwise: pointwise, geometryH: geometryH, geometryW: geometryW, options: options, scratch: scratch, threads: threads,
                     bias: biasTensor, output: output) { m, n, k, a, b, c, threads in
                BLAS.sgemm(transposeB: true, m: m, n: n, k: k, a: a, lda: k, b: b, ldb: k, c: c, ldc: n, threads: threads)
            }
        } else {
            multiply(Double.self, filter: UnsafePointer(filter.baseAddress!), input: input, filterTensor: filterTensor, rows: rows, depth: depth,
                     outC: outC, pointwise: pointwise, geometryH: geometryH, geometryW: geometryW, options: options, scratch: scratch, threads: threads,
                     bias: biasTensor, output: output) { m, n, k, a, b, c, threads in
                BLAS.dgemmTransposedB(m: m, n: n, k: k, a: a, b: b, c: c, threads: threads)
            }
        }
    }

    @inline(__always)
    private func multiply<Value: ExactAccumulator>(_: Value.Type, filter: UnsafePointer<Value>, input: Tensor, filterTensor: Tensor, rows: Int, depth: Int,
                                                   outC: Int, pointwise: Bool, geometryH: SpatialGeometry, geometryW: SpatialGeometry,
                                                   options: Conv2DOptions, scratch: UnsafeMutableRawPointer, threads: Int, bias biasTensor: Tensor?,
                                                   output: Tensor,
                                                   gemm: (Int, Int, Int, UnsafePointer<Value>, UnsafePointer<Value>, UnsafeMutablePointer<Value>, Int) -> Void) {
        let offsets = scratch.assumingMemoryBound(to: Value.self)
        convertQuantized(input, zeroPoint: inputZeroPoint, into: offsets)
        let columns = pointwise ? offsets : offsets + input.elementCount
        let products = offsets + input.elementCount + (pointwise ? 0 : rows * depth)
        if !pointwise {
            // Taps outside the input contribute 0, as TFLite skips them.
            im2col(UnsafePointer(offsets), input: input, filter: filterTensor, geometryH: geometryH, geometryW: geometryW, options: options,
                   into: columns, threads: threads)
        }
        gemm(rows, outC, depth, UnsafePointer(columns), filter, products, threads)
        let bias = biasTensor.map { UnsafePointer($0.pointer(Int32.self)) }
        let out = output.data!, signed = self.signed, requantization = self.requantization
        if Value.self == Float.self {
            let floats = UnsafePointer<Float>(OpaquePointer(products))
            let floatBias = biasFloats
            parallelFor(rows, threads: threads, minimumChunk: 64, workPerItem: 4 * outC) { range in
                floatBias.withUnsafeBufferPointer { b in
                    requantization.requantizeFast(floats, rows: range, channels: outC, bias: b.isEmpty ? nil : b.baseAddress, into: out, signed: signed,
                                                  roundingUp: true)
                }
            }
            return
        }
        parallelFor(rows, threads: threads, minimumChunk: 64, workPerItem: 4 * outC) { range in
            requantization.requantize(UnsafePointer(products), rows: range, channels: outC, bias: bias, into: out, signed: signed, roundingUp: true)
        }
    }
}
