import LiteFormat

/// MEAN and SUM over the axes given by the second (constant) input, with keep_dims (also int32 and int64, in Int64).
/// Float sums accumulate in float in input order, as TFLite's reference reducer, except along a contiguous last
/// axis (8 lanes, see ``sumBlocks``). uint8/int8: LiteRT's optimized
/// mean for a kept-dims mean over height and width of a 4D tensor, its generic quantized reduction otherwise.
class Reduce: Kernel {
    let keepDims: Bool
    var axes: Set<Int> = []
    var isMean: Bool { false }

    required init(_ node: NodeContext) throws {
        keepDims = try ReducerOptions(node.options).keepDims
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    /// The path `run` takes, chosen by `prepare` from the input's type, the op and the axes.
    enum Plan {
        /// float32: float sums (``sumBlocks``), divided by the count for MEAN.
        case float
        /// uint8/int8 MEAN over height and width of a 4D tensor (TFLite's optimized integer Mean): the raw sum,
        /// rescaled by `input_scale / (count * output_scale)` and shifted by a rounded float bias. The rescale's
        /// final shift rounds ties up (the vector code of LiteRT's kernel); with TFLite's reference rounding,
        /// 22 of the 1,280 means of tf2 MobileNetV2 on bird.png are one step off. int8 means take the vector code in
        /// whole groups of 16 channels only: the channels left over round ties away from zero
        /// (`MultiplyByQuantizedMultiplier`), as LiteRT's outputs on power-of-two scales show (`q_mean_int8_ties`).
        case quantizedKeptDimsMean((multiplier: Int32, shift: Int, bias: Int32))
        /// Every other uint8/int8 MEAN (TFLite's generic `QuantizedMeanOrSum`): the int32 sum over the axes, minus
        /// `zero_point_in · count`, rescaled by `input_scale / output_scale` with `1 / count` folded into the
        /// multiplier (shifted left by up to 32 bits, integer-divided by the count), plus the output zero point.
        case quantizedMean((multiplier: Int32, shift: Int, count: Int, inputZeroPoint: Int32, outputZeroPoint: Int32))
        /// uint8/int8 SUM: LiteRT still rescales it in single precision, `round(Float(sum) · scale + bias) + zero_point`
        /// with `scale = Float(input_scale) / Float(output_scale)`, `bias = (-zero_point_in · scale) · count` and ties
        /// away from zero, then clamps. Its float errors decide near-ties (with scales 0.05 -> 0.3 a sum of 15 reads 3,
        /// one of 135 reads 22: `q_sum_int8_rescaled`); the integer rescale MEAN uses differs there.
        case quantizedSum((scale: Float, bias: Float, outputZeroPoint: Int32))
        /// int32 and int64 SUM and MEAN: totals in Int64, wrapping; MEAN then divides each by the count of reduced
        /// elements, truncating toward zero (C++ `/`, TFLite's `Mean<T, int64_t>`), and an empty reduction gives 0.
        /// Stored wrapping into the type.
        case integer
    }

    /// The path `run` takes (nil before `prepare`).
    var plan: Plan?

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32, .uint8, .int8, .int16)
        axes = try reducedAxes(of: input)
        // int16 (16x8 models) takes the generic reduction for every axis set, as LiteRT's outputs show (`q16_mean_*`).
        if input.type != .float32, input.type == .int16 || !(isMean && keepDims && input.rank == 4 && axes == [1, 2]) {
            guard output.type == input.type else { throw KernelError.unsupported("quantized \(isMean ? "MEAN" : "SUM") into \(output.type)") }
            // int16 SUM (16x8 models) is rescaled as the 8-bit SUM is (`q16_sum_built`).
            if input.type == .int16 { try Int16Activations.expectSymmetric(input, output) }
            let qi = try QuantizedTensorInfo(input), qo = try QuantizedTensorInfo(output)
            let count = axes.reduce(1) { $0 * input.dim($1) }
            guard count > 0, count < 1 << 23 else { throw KernelError.unsupported("quantized reduction over \(count) elements") }
            if isMean {
                var (multiplier, shift) = IntegerArithmetic.quantizeMultiplier(Double(qi.scale) / Double(qo.scale))
                // 63 - CountLeadingZeros(count): floor(log2(count)), limited as TFLite limits it.
                var extra = Int.bitWidth - 1 - count.leadingZeroBitCount
                extra = min(extra, 32, 31 + shift)
                multiplier = Int32(truncatingIfNeeded: (Int64(multiplier) << Int64(extra)) / Int64(count))
                shift -= extra
                plan = .quantizedMean((multiplier, shift, count, qi.zeroPoint, qo.zeroPoint))
            } else {
                let scale = qi.scale / qo.scale
                plan = .quantizedSum((scale, Float(-qi.zeroPoint) * scale * Float(count), qo.zeroPoint))
            }
        } else if input.type != .float32 {
            let qi = try QuantizedTensorInfo(input), qo = try QuantizedTensorInfo(output)
            let count = Float(input.dim(1) * input.dim(2))
            // Float arithmetic throughout, as TFLite's kernel (the rounding of these floats decides the result).
            var temp = Float(qi.zeroPoint) * qi.scale / qo.scale
            temp = temp > 0 ? temp + 0.5 : temp - 0.5
            guard temp.magnitude < 16_777_216 else { throw KernelError.unsupported("quantized MEAN with scales \(qi.scale) and \(qo.scale)") }
            let bias = qo.zeroPoint - Int32(temp)
            let (m, s) = IntegerArithmetic.quantizeMultiplier(Double(qi.scale / (count * qo.scale)))
            plan = .quantizedKeptDimsMean((m, s, bias))
        } else {
            plan = .float
            output.type = .float32
        }
        output.shape = reducedShape(of: input)
    }

    /// The second input's axes (negative ones counted from the end), each checked against `input`'s rank.
    final func reducedAxes(of input: Tensor) throws -> Set<Int> {
        try Set(integers(try self.input(1)).map { a -> Int in
            let axis = a < 0 ? a + input.rank : a
            guard axis >= 0, axis < input.rank else { throw KernelError.invalid("axis \(a) out of range for \(input.shape)") }
            return axis
        })
    }

    /// `input`'s shape without the reduced ``axes`` (as 1 with keep_dims).
    final func reducedShape(of input: Tensor) -> [Int] {
        input.shape.enumerated().compactMap { axes.contains($0.offset) ? (keepDims ? 1 : nil) : $0.element }
    }

    func runQuantizedMean(_ input: Tensor, _ output: Tensor, _ q: (multiplier: Int32, shift: Int, bias: Int32)) {
        let (batches, h, w, depth) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let signed = input.type == .int8
        let (low, high): (Int32, Int32) = signed ? (-128, 127) : (0, 255)
        let src = UnsafeRawPointer(input.data!), dst = output.data!
        // Pixel by pixel, all channels at once (contiguous, vectorized); the int32 sums are the same in any order.
        var sums = [Int32](repeating: 0, count: depth)
        sums.withUnsafeMutableBufferPointer { acc in
            for b in 0..<batches {
                acc.update(repeating: 0)
                accumulatePixels(src + b * h * w * depth, pixels: h * w, depth: depth, signed: signed, into: acc.baseAddress!)
                let upward = signed ? depth / 16 * 16 : depth
                for d in 0..<depth {
                    let scaled = d < upward
                        ? IntegerArithmetic.multiplyByQuantizedMultiplierRoundingUp(acc[d], q.multiplier, q.shift)
                        : IntegerArithmetic.multiplyByQuantizedMultiplier(acc[d], q.multiplier, q.shift)
                    storeQuantized(dst, b * depth + d, min(max(scaled + q.bias, low), high), signed: signed)
                }
            }
        }
    }

    /// Calls `body(inputIndex, outputOffset)` for every input element in order, where the output offset drops the
    /// reduced axes (output strides seen from input coordinates, 0 on reduced axes).
    @inline(__always)
    final func forEachInputElement(_ shape: [Int], _ body: (Int, Int) -> Void) {
        let rank = shape.count
        var strides = Array(repeating: 0, count: rank)
        var running = 1
        for d in stride(from: rank - 1, through: 0, by: -1) where !axes.contains(d) {
            strides[d] = running
            running *= shape[d]
        }
        var index = Array(repeating: 0, count: rank)
        var offset = 0
        for i in 0..<shape.reduce(1, *) {
            body(i, offset)
            var d = rank - 1
            while d >= 0 {
                index[d] += 1
                offset += strides[d]
                if index[d] < shape[d] { break }
                offset -= strides[d] * shape[d]
                index[d] = 0
                d -= 1
            }
        }
    }

    /// The input as [outer, reduced, inner] when the reduced axes are adjacent (a layer norm's last axis, a pooling
    /// mean's height and width), else nil.
    final func contiguousBlock(_ shape: [Int]) -> (outer: Int, reduced: Int, inner: Int)? {
        guard let first = axes.min(), let last = axes.max(), last - first + 1 == axes.count else { return nil }
        return (shape[..<first].reduce(1, *), shape[first...last].reduce(1, *), shape[(last + 1)...].reduce(1, *))
    }

    /// `dst[o, i] = Σ_r src[o, r, i]`. Across rows (inner > 1) each output adds its values in input order, as the
    /// reference reducer; along a contiguous last axis the sum runs in 8 lanes added together at the end (the
    /// order differs from the reference's by float rounding only).
    final func sumBlocks(_ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Float>, outer: Int, reduced: Int, inner: Int) {
        for o in 0..<outer {
            let block = src + o * reduced * inner
            if inner == 1 {
                var lanes = SIMD8<Float>(), r = 0
                while r + 8 <= reduced {
                    lanes += UnsafeRawPointer(block + r).loadUnaligned(as: SIMD8<Float>.self)
                    r += 8
                }
                var sum = lanes.sum()
                while r < reduced {
                    sum += block[r]
                    r += 1
                }
                dst[o] = sum
            } else {
                let out = dst + o * inner
                for r in 0..<reduced {
                    let row = block + r * inner
                    for i in 0..<inner { out[i] += row[i] }
                }
            }
        }
    }

    /// The int32 sums of a uint8/int8 input's stored values over the reduced axes, one per output element.
    func storedSums(_ input: Tensor, _ output: Tensor) -> [Int32] {
        let signed = input.type == .int8
        var sums = [Int32](repeating: 0, count: output.elementCount)
        let src = UnsafeRawPointer(input.data!)
        if input.type == .int16 {
            let values = input.pointer(Int16.self)
            forEachInputElement(input.shape) { i, offset in sums[offset] &+= Int32(values[i]) }
            return sums
        }
        guard let (outer, reduced, inner) = contiguousBlock(input.shape) else {
            forEachInputElement(input.shape) { i, offset in sums[offset] &+= loadQuantized(src, i, signed: signed) }
            return sums
        }
        // Integer sums are the same in any order: each block's rows are added in one contiguous pass.
        sums.withUnsafeMutableBufferPointer { sums in
            for o in 0..<outer {
                if inner == 1 {
                    @inline(__always) func total<Element: FixedWidthInteger>(_ values: UnsafePointer<Element>) -> Int32 {
                        var sum: Int32 = 0
                        for r in 0..<reduced { sum &+= Int32(truncatingIfNeeded: values[r]) }
                        return sum
                    }
                    let block = src + o * reduced
                    sums[o] = signed ? total(block.assumingMemoryBound(to: Int8.self)) : total(block.assumingMemoryBound(to: UInt8.self))
                } else {
                    accumulatePixels(src + o * reduced * inner, pixels: reduced, depth: inner, signed: signed, into: sums.baseAddress! + o * inner)
                }
            }
        }
        return sums
    }

    func runQuantizedReduction(_ input: Tensor, _ output: Tensor,
                               _ q: (multiplier: Int32, shift: Int, count: Int, inputZeroPoint: Int32, outputZeroPoint: Int32)) {
        let signed = input.type == .int8
        let (low, high) = (try? quantizedRange(input.type)) ?? (0, 255)
        let sums = storedSums(input, output), dst = output.data!
        for o in sums.indices {
            let shifted = sums[o] &- q.inputZeroPoint &* Int32(q.count)
            let value = min(max(IntegerArithmetic.multiplyByQuantizedMultiplier(shifted, q.multiplier, q.shift) &+ q.outputZeroPoint, low), high)
            if input.type == .int16 {
                output.pointer(Int16.self)[o] = Int16(truncatingIfNeeded: value)
            } else {
                storeQuantized(dst, o, value, signed: signed)
            }
        }
    }

    func runQuantizedSum(_ input: Tensor, _ output: Tensor, _ q: (scale: Float, bias: Float, outputZeroPoint: Int32)) {
        let signed = input.type == .int8
        let (low, high) = (try? quantizedRange(input.type)) ?? (0, 255)
        let sums = storedSums(input, output), dst = output.data!
        for o in sums.indices {
            // Two roundings in single precision (the product, then the sum), as LiteRT's kernel does them.
            let product = Float(sums[o]) * q.scale
            let value = (product + q.bias).rounded(.toNearestOrAwayFromZero) + Float(q.outputZeroPoint)
            let clamped = clampedToRange(value, low, high)
            if input.type == .int16 {
                output.pointer(Int16.self)[o] = Int16(truncatingIfNeeded: clamped)
            } else {
                storeQuantized(dst, o, clamped, signed: signed)
            }
        }
    }

    override func run(_ context: RunContext) throws {
        // An empty output (a dimension of 0) has nothing to compute, however large the other dimensions are.
        guard node.outputs[0].elementCount > 0 else { return }
        let input = node.inputs[0]!, output = node.outputs[0]
        switch plan {
        case .quantizedKeptDimsMean(let q)?: runQuantizedMean(input, output, q)
        case .quantizedMean(let q)?: runQuantizedReduction(input, output, q)
        case .quantizedSum(let q)?: runQuantizedSum(input, output, q)
        case .integer?: runInteger(input, output)
        case .float?: runFloat(input, output)
        case nil: throw KernelError.invalid("\(node.code) ran before it was prepared")
        }
    }

    /// float32: the sums in float, then the mean's division.
    private func runFloat(_ input: Tensor, _ output: Tensor) {
        let src = input.floats, dst = output.floats
        let outCount = output.elementCount
        dst.update(repeating: 0, count: outCount)
        if let (outer, reduced, inner) = contiguousBlock(input.shape) {
            sumBlocks(src, dst, outer: outer, reduced: reduced, inner: inner)
        } else {
            forEachInputElement(input.shape) { i, offset in dst[offset] += src[i] }
        }
        if isMean {
            let count = Float(input.elementCount / max(outCount, 1))
            for i in 0..<outCount { dst[i] /= count }
        }
    }
}

/// MEAN: the average over the reduced axes.
final class Mean: Reduce {
    override var isMean: Bool { true }

    override func prepare() throws {
        let input = try self.input(0)
        switch input.type {
        case .int32, .int64: try prepareInteger(input)
        default: try super.prepare()
        }
    }
}

/// SUM: the total over the reduced axes; int32 and int64 sum in their type, wrapping (index arithmetic, counts of
/// boxes kept in TensorFlow's padded NMS loop); uint8, int8 and int16 rescaled (``Reduce``).
final class Sum: Reduce {
    override var foldsAtPlanning: Bool {
        if case .integer? = plan { return true }
        return false
    }

    override func prepare() throws {
        let input = try self.input(0)
        switch input.type {
        case .int32, .int64: try prepareInteger(input)
        default: try super.prepare()
        }
    }
}

extension Reduce {
    /// The int32/int64 plan of SUM and MEAN: the output of the input's type.
    func prepareInteger(_ input: Tensor) throws {
        let output = try self.output(0)
        plan = .integer
        axes = try reducedAxes(of: input)
        output.type = input.type
        output.shape = reducedShape(of: input)
    }

    /// int32/int64 SUM and MEAN: every total in Int64, wrapping; MEAN's divided by the count of reduced elements,
    /// truncating toward zero (0 for an empty reduction). Stored wrapping into the type.
    func runInteger(_ input: Tensor, _ output: Tensor) {
        var totals = [Int64](repeating: 0, count: output.elementCount)
        if input.type == .int32 {
            let src = input.pointer(Int32.self)
            forEachInputElement(input.shape) { i, o in totals[o] &+= Int64(src[i]) }
        } else {
            let src = input.pointer(Int64.self)
            forEachInputElement(input.shape) { i, o in totals[o] &+= src[i] }
        }
        if isMean {
            let count = Int64(axes.reduce(1) { $0 * input.dim($1) })
            // Int64.min / -1 cannot arise: the count is positive.
            for o in totals.indices { totals[o] = count > 0 ? totals[o] / count : 0 }
        }
        if output.type == .int32 {
            let dst = output.pointer(Int32.self)
            for o in totals.indices { dst[o] = Int32(truncatingIfNeeded: totals[o]) }
        } else {
            let dst = output.pointer(Int64.self)
            for o in totals.indices { dst[o] = totals[o] }
        }
    }
}
