import LiteFormat

/// BATCH_MATMUL: lhs [..., m, k] ([..., k, m] with adj_x) times rhs [..., k, n] ([..., n, k] with adj_y) for every
/// matrix of the batch dimensions, which broadcast (numpy rules, ranks 2 to 5) -> [..., m, n]. float32: one sgemm per
/// matrix with the adjoints as its transpose flags. int8: exact sums of (lhs − lhs_zp)(rhs − rhs_zp) (dgemm),
/// requantized by lhs_scale·rhs_scale/output_scale with `MultiplyByQuantizedMultiplier` (ties away from zero, where
/// LiteRT's FULLY_CONNECTED rounds them up: the `q_batch_matmul_int8_ties` goldens), clamped to the int8 range (the op
/// has no fused activation). int16 (16x8 models): the same sums, in int64 in TFLite, rescaled by the int64 form of
/// `MultiplyByQuantizedMultiplier`. Hybrid (dynamic-range models: float lhs, constant int8 rhs with one scale): each
/// lhs row quantized on its own (symmetric, or asymmetric with the `asymmetric_quantize_inputs` option), exact int32
/// sums with the rhs by ``HybridMatrixProduct``, `float(sum) · (row_scale · rhs_scale)`, as TFLite's EvalHybrid.
final class BatchMatMul: Kernel {
    var options: BatchMatMulOptions
    /// Matrix dimensions of the product, and for each output matrix the element offset of its lhs and rhs matrix.
    private(set) var m = 0, n = 0, k = 0
    private var lhsOffsets: [Int] = [], rhsOffsets: [Int] = []

    /// The code path `run` takes, chosen once by `prepare` from the operand types.
    enum Plan {
        /// float32: one sgemm per output matrix.
        case float
        /// Float lhs, constant int8 rhs: the product with each distinct rhs matrix (keyed by its offset), and the rhs
        /// scale.
        case hybrid(products: [Int: HybridMatrixProduct], scale: Float)
        /// int8 (`Int8`) or int16 (`Int16`): exact sums by dgemm, requantized.
        case int8(ChannelRequantization)
        case int16(ChannelRequantization)
    }

    /// The path `run` takes, chosen by `prepare` (nil before it).
    private(set) var plan: Plan?

    required init(_ node: NodeContext) throws {
        options = try BatchMatMulOptions(node.options)
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let lhs = try input(0), rhs = try input(1), output = try self.output(0), previous = plan
        if lhs.type == .int8 || lhs.type == .int16 {
            try expectType(rhs, lhs.type)
            guard output.type == lhs.type else { throw KernelError.unsupported("\(lhs.type) BATCH_MATMUL into \(output.type)") }
            try Int16Activations.expectSymmetric(lhs, rhs, output)
            let l = try QuantizedTensorInfo(lhs), r = try QuantizedTensorInfo(rhs)
            guard l.scales.count == 1, r.scales.count == 1 else { throw KernelError.unsupported("per-channel BATCH_MATMUL operands") }
            let requantization = try ChannelRequantization(input: l, filter: r, output: try QuantizedTensorInfo(output), channels: 1,
                                                           activation: .none, outputType: lhs.type)
            if lhs.type == .int16 { try requantization.checkWideShifts("BATCH_MATMUL") }
            plan = lhs.type == .int16 ? .int16(requantization) : .int8(requantization)
        } else {
            try expectType(lhs, .float32)
            try expectType(rhs, .float32, .int8)
            output.type = .float32
            plan = .float
        }
        let geometry = try Self.geometry(lhs: lhs.shape, rhs: rhs.shape, adjointLHS: options.adjointLHS, adjointRHS: options.adjointRHS)
        (m, n, k) = (geometry.m, geometry.n, geometry.k)
        if lhs.type == .float32 && rhs.type == .int8 {
            guard isLoadTimeConstant(rhs), let data = rhs.data else { throw KernelError.unsupported("hybrid BATCH_MATMUL needs a constant int8 rhs") }
            let info = try QuantizedTensorInfo(rhs)
            guard info.scales.count == 1, info.zeroPoint == 0 else { throw KernelError.unsupported("hybrid BATCH_MATMUL rhs must have one scale and zero point 0") }
            var products: [Int: HybridMatrixProduct] = [:]
            if case .hybrid(let existing, _) = previous { products = existing }
            let weights = data.assumingMemoryBound(to: Int8.self)
            for offset in Set(geometry.rhsOffsets) where products[offset] == nil {
                // Rows of n weights each k deep: the rhs matrix itself with adj_y, else its transpose.
                let rows = (0..<n).flatMap { c in (0..<k).map { d in weights[offset + (options.adjointRHS ? c * k + d : d * n + c)] } }
                products[offset] = HybridMatrixProduct(values: rows, channels: n, depth: k)
            }
            // No output matrices (an empty batch dimension): nothing to multiply, as on the float path.
            plan = products.isEmpty ? .float : .hybrid(products: products, scale: info.scale)
        }
        // int16 products reach 2^30: sums of fewer than 2^23 of them are exact doubles.
        guard lhs.type != .int16 || k < 1 << 23 else { throw KernelError.unsupported("int16 BATCH_MATMUL over \(k) products") }
        (lhsOffsets, rhsOffsets) = (geometry.lhsOffsets, geometry.rhsOffsets)
        output.shape = geometry.outputShape
    }

    /// At most this many output matrices (broadcast batch entries).
    static let maximumMatrices = 1 << 24

    struct Geometry {
        var m: Int, n: Int, k: Int
        var outputShape: [Int]
        var lhsOffsets: [Int], rhsOffsets: [Int]
    }

    /// The product's shape and, for each output matrix in order, where its two operand matrices start.
    static func geometry(lhs: [Int], rhs: [Int], adjointLHS: Bool, adjointRHS: Bool) throws -> Geometry {
        guard (2...5).contains(lhs.count), (2...5).contains(rhs.count) else {
            throw KernelError.unsupported("BATCH_MATMUL of ranks \(lhs.count) and \(rhs.count) (2 to 5 supported)")
        }
        let rank = max(lhs.count, rhs.count)
        let l = Array(repeating: 1, count: rank - lhs.count) + lhs, r = Array(repeating: 1, count: rank - rhs.count) + rhs
        let m = adjointLHS ? l[rank - 1] : l[rank - 2], lhsDepth = adjointLHS ? l[rank - 2] : l[rank - 1]
        let n = adjointRHS ? r[rank - 2] : r[rank - 1], rhsDepth = adjointRHS ? r[rank - 1] : r[rank - 2]
        guard lhsDepth == rhsDepth else {
            throw KernelError.invalid("BATCH_MATMUL of \(lhs) and \(rhs): inner dimensions \(lhsDepth) and \(rhsDepth) differ")
        }
        let batchShape = try broadcastShape(Array(l.prefix(rank - 2)), Array(r.prefix(rank - 2)))
        // Operand sizes are bounded by the model's buffers, but broadcasting multiplies them: a hostile pair of
        // shapes must not make the offset tables below (one entry per output matrix) unbounded.
        let batches = saturatingProduct(batchShape.reduce(1) { saturatingProduct($0, $1) })
        guard batches <= maximumMatrices, saturatingProduct(batches, m, n) < Int.max / 2 else {
            throw KernelError.invalid("BATCH_MATMUL of \(lhs) and \(rhs) makes too large an output")
        }
        let lhsMatrix = l[rank - 2] * l[rank - 1], rhsMatrix = r[rank - 2] * r[rank - 1]
        var lhsOffsets = [Int](repeating: 0, count: batches), rhsOffsets = [Int](repeating: 0, count: batches)
        // Strides of each operand's batch dimensions in matrices, 0 along a broadcast dimension.
        var lhsStrides = [Int](repeating: 0, count: rank - 2), rhsStrides = lhsStrides
        var lhsStride = 1, rhsStride = 1
        for d in stride(from: rank - 3, through: 0, by: -1) {
            lhsStrides[d] = l[d] == 1 ? 0 : lhsStride
            rhsStrides[d] = r[d] == 1 ? 0 : rhsStride
            lhsStride *= l[d]
            rhsStride *= r[d]
        }
        for b in 0..<batches {
            var rest = b, lo = 0, ro = 0
            for d in stride(from: rank - 3, through: 0, by: -1) {
                let index = rest % batchShape[d]
                rest /= batchShape[d]
                lo += index * lhsStrides[d]
                ro += index * rhsStrides[d]
            }
            lhsOffsets[b] = lo * lhsMatrix
            rhsOffsets[b] = ro * rhsMatrix
        }
        return Geometry(m: m, n: n, k: lhsDepth, outputShape: batchShape + [m, n], lhsOffsets: lhsOffsets, rhsOffsets: rhsOffsets)
    }

    override var scratchBytes: Int {
        switch plan {
        case .hybrid(let products, _)?:
            // The lhs rows (transposed first with adj_x) and their quantized values, then the product's scratch.
            guard let product = products.values.first, let lhs = node.inputs[0] else { return 0 }
            return saturatingProduct(2 * lhs.elementCount, 4) + product.scratchBytes(rows: m)
        case .int8?, .int16?:
            // lhs, rhs and sums as doubles.
            return saturatingProduct(saturatingProduct(m, k) + saturatingProduct(k, n) + saturatingProduct(m, n), 8)
        case .float?, nil: return 0
        }
    }

    override func run(_ context: RunContext) throws {
        guard let plan else { throw KernelError.invalid("BATCH_MATMUL ran before it was prepared") }
        switch plan {
        case .int8(let requantization): return runInteger(Int8.self, context, requantization)
        case .int16(let requantization): return runInteger(Int16.self, context, requantization)
        case .hybrid(let products, let scale): return runHybrid(context, products: products, scale: scale)
        case .float: break
        }
        let lhs = node.inputs[0]!.floats, rhs = node.inputs[1]!.floats, out = node.outputs[0].floats
        let (m, n, k) = (self.m, self.n, self.k)
        guard m > 0, n > 0 else { return }
        for b in lhsOffsets.indices {
            let c = out + b * m * n
            if k == 0 {
                c.update(repeating: 0, count: m * n)
                continue
            }
            BLAS.sgemm(transposeA: options.adjointLHS, transposeB: options.adjointRHS, m: m, n: n, k: k,
                       a: lhs + lhsOffsets[b], lda: options.adjointLHS ? m : k, b: rhs + rhsOffsets[b], ldb: options.adjointRHS ? k : n,
                       c: c, ldc: n, threads: context.threads)
        }
    }

    private func runHybrid(_ context: RunContext, products: [Int: HybridMatrixProduct], scale: Float) {
        let lhs = node.inputs[0]!, out = node.outputs[0].floats
        let (m, n, k) = (self.m, self.n, self.k)
        guard m > 0, n > 0 else { return }
        guard k > 0 else { return out.update(repeating: 0, count: node.outputs[0].elementCount) }
        let rows = context.scratch.assumingMemoryBound(to: Float.self), values = rows + lhs.elementCount
        let productScratch = UnsafeMutableRawPointer(values + lhs.elementCount)
        var source = UnsafePointer(lhs.floats)
        if options.adjointLHS {
            // Each [k, m] lhs matrix as m rows of k.
            for matrix in 0..<(lhs.elementCount / max(m * k, 1)) {
                let from = lhs.floats + matrix * m * k, to = rows + matrix * m * k
                for r in 0..<m { for d in 0..<k { to[r * k + d] = from[d * m + r] } }
            }
            source = UnsafePointer(rows)
        }
        let rowCount = lhs.elementCount / max(k, 1)
        let scales = HybridQuantization.quantizeRows(source, rows: rowCount, length: k, asymmetric: options.asymmetricQuantizeInputs,
                                                     offsets: values, threads: context.threads)
        for b in lhsOffsets.indices {
            let c = out + b * m * n, firstRow = lhsOffsets[b] / max(k, 1)
            products[rhsOffsets[b]]!.run(values + lhsOffsets[b], rows: m, into: c, scratch: productScratch, threads: context.threads)
            HybridQuantization.rescale(c, images: m, rows: 1, channels: n, imageScales: Array(scales[firstRow..<(firstRow + m)]),
                                       weightScales: [Float](repeating: scale, count: n), bias: nil, activation: (-.infinity, .infinity),
                                       threads: context.threads)
        }
    }

    /// Each operand matrix less its zero point as doubles, multiplied by dgemm: every product of two 9-bit values and
    /// every partial sum below 2^53 is exact, so the sums equal TFLite's int32 accumulation (as FULLY_CONNECTED's
    /// `exact` path). A broadcast rhs matrix is widened once for the matrices that share it.
    private func runInteger<Element: FixedWidthInteger>(_: Element.Type, _ context: RunContext, _ requantization: ChannelRequantization) {
        let lhsTensor = node.inputs[0]!, rhsTensor = node.inputs[1]!
        let lhs = UnsafePointer<Element>(OpaquePointer(lhsTensor.data!)), rhs = UnsafePointer<Element>(OpaquePointer(rhsTensor.data!))
        let out = node.outputs[0].data!.assumingMemoryBound(to: Element.self)
        let wide = Element.self == Int16.self
        let lhsZero = Double((try? QuantizedTensorInfo(lhsTensor).zeroPoint) ?? 0), rhsZero = Double((try? QuantizedTensorInfo(rhsTensor).zeroPoint) ?? 0)
        let (m, n, k) = (self.m, self.n, self.k)
        let left = context.scratch.assumingMemoryBound(to: Double.self), right = left + m * k, sums = right + k * n
        var widenedRHS = -1
        for b in lhsOffsets.indices {
            if k == 0 {
                sums.update(repeating: 0, count: m * n)
            } else {
                for i in 0..<(m * k) { left[i] = Double(lhs[lhsOffsets[b] + i]) - lhsZero }
                if rhsOffsets[b] != widenedRHS {
                    for i in 0..<(k * n) { right[i] = Double(rhs[rhsOffsets[b] + i]) - rhsZero }
                    widenedRHS = rhsOffsets[b]
                }
                BLAS.dgemm(transposeA: options.adjointLHS, transposeB: options.adjointRHS, m: m, n: n, k: k, a: left, lda: options.adjointLHS ? m : k,
                           b: right, ldb: options.adjointRHS ? k : n, c: sums, ldc: n, threads: context.threads)
            }
            let matrix = out + b * m * n
            if wide {
                for j in 0..<(m * n) { matrix[j] = Element(truncatingIfNeeded: requantization.applyWide(Int64(sums[j]), channel: 0)) }
                continue
            }
            for i in 0..<(m * n) { matrix[i] = Element(truncatingIfNeeded: requantization.apply(Int32(sums[i]), channel: 0)) }
        }
    }
}

extension BatchMatMul {
    /// The definition, for tests, written apart from ``geometry(lhs:rhs:adjointLHS:adjointRHS:)``: out[b, i, j] =
    /// Σ_d lhs[b, i, d] · rhs[b, d, j] with the operands' adjoints applied and each batch index taken modulo the
    /// operand's own dimension (1 broadcasts).
    static func reference(lhs: [Float], lhsShape: [Int], rhs: [Float], rhsShape: [Int], adjointLHS: Bool, adjointRHS: Bool) throws -> (values: [Float], shape: [Int]) {
        let rank = max(lhsShape.count, rhsShape.count)
        let l = Array(repeating: 1, count: rank - lhsShape.count) + lhsShape, r = Array(repeating: 1, count: rank - rhsShape.count) + rhsShape
        let m = adjointLHS ? l[rank - 1] : l[rank - 2], k = adjointLHS ? l[rank - 2] : l[rank - 1]
        let n = adjointRHS ? r[rank - 2] : r[rank - 1]
        let batchShape = (0..<(rank - 2)).map { max(l[$0], r[$0]) }
        let batches = batchShape.reduce(1, *)
        var out = [Float](repeating: 0, count: batches * m * n)
        for b in 0..<batches {
            var rest = b, lhsMatrix = 0, rhsMatrix = 0, lhsStride = 1, rhsStride = 1
            for d in stride(from: rank - 3, through: 0, by: -1) {
                let index = rest % batchShape[d]
                rest /= batchShape[d]
                lhsMatrix += (index % l[d]) * lhsStride
                rhsMatrix += (index % r[d]) * rhsStride
                lhsStride *= l[d]
                rhsStride *= r[d]
            }
            for i in 0..<m {
                for j in 0..<n {
                    var sum: Float = 0
                    for d in 0..<k {
                        sum += lhs[lhsMatrix * m * k + (adjointLHS ? d * m + i : i * k + d)] * rhs[rhsMatrix * k * n + (adjointRHS ? j * k + d : d * n + j)]
                    }
                    out[(b * m + i) * n + j] = sum
                }
            }
        }
        return (out, batchShape + [m, n])
    }
}
