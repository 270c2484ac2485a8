import Foundation
import LiteFormat

/// Broadcasting binary float kernel (numpy rules, any rank up to the model limit). Each op is a final
/// subclass whose `run` calls ``compute(_:_:)`` with its operation as a ``FloatBinaryOperation`` type, so the
/// operation is inlined into the specialized loops (a generic class dispatched through the registry would call it
/// through a protocol witness per element).
///
/// The loop runs over the output's last dimension with each operand's stride there 0 (broadcast) or 1, and
/// over the leading dimensions with an index counter, so the common cases (same shape, per-channel
/// vector, scalar) are all plain loops that LLVM vectorizes.
class BinaryElementwise: Kernel {
    /// Whether the op's options table starts with a fused activation (ADD, SUB, MUL, DIV).
    class var hasFusedActivation: Bool { false }
    var activation: (Float, Float) = (-.infinity, .infinity)

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
        if Self.hasFusedActivation {
            // LiteRT's built-in ADD, SUB, MUL and DIV clamp every float result to the activation's range, which for none
            // is ±FLT_MAX: an infinite sum reads ±3.4e38 there, and Keras' softplus (LOG of ADD(EXP(x), 1)) gives
            // 88.72 for large x where an infinite sum would give inf and then NaN downstream. The loops clamp anyway.
            activation = try builtinActivationRange(try ArithmeticOptions(node.options).activation)
        }
    }

    /// Prepares float32 inputs; ops that take other types handle them in their own `prepare` first.
    override func prepare() throws {
        let a = try input(0), b = try input(1), output = try self.output(0)
        try expectType(a, .float32)
        try expectType(b, .float32)
        output.type = .float32
        output.shape = try broadcastShape(a.shape, b.shape)
    }

    /// For int32/int64 inputs of ADD, SUB, MUL, MINIMUM and MAXIMUM: the fused activation's range in the type.
    var integerRange: ClosedRange<Int64>?

    /// Integer arithmetic is index arithmetic (a loop counter plus one, a tile offset) that may fold while planning.
    override var foldsAtPlanning: Bool { integerRange != nil }

    /// Prepares int32/int64 inputs (true), as TFLite's reference kernels compute them: in the type, wrapping, then
    /// clamped to the fused activation's integer range; false for other types.
    func prepareIntegers() throws -> Bool {
        let a = try input(0), b = try input(1), output = try self.output(0)
        guard a.type == .int32 || a.type == .int64 else { return false }
        guard b.type == a.type else { throw KernelError.unsupported("\(node.code) of \(a.type) and \(b.type)") }
        let (typeMin, typeMax): (Int64, Int64) = a.type == .int32 ? (Int64(Int32.min), Int64(Int32.max)) : (.min, .max)
        let activation = Self.hasFusedActivation ? try ArithmeticOptions(node.options).activation : .none
        integerRange = switch activation {
        case .none: typeMin...typeMax
        case .relu: 0...typeMax
        case .relu6: 0...6
        case .reluN1To1: -1...1
        case .tanh, .signBit: throw KernelError.unsupported("fused activation on \(a.type)")
        }
        output.type = a.type
        output.shape = try broadcastShape(a.shape, b.shape)
        return true
    }

    /// `operation(a, b)` on every broadcast pair of int32/int64 inputs, clamped to ``integerRange``.
    func computeIntegers(_ operation: (Int64, Int64) -> Int64) {
        if node.inputs[0]!.type == .int32 {
            computeIntegers(Int32.self) { Int32(truncatingIfNeeded: operation(Int64($0), Int64($1))) }
        } else {
            computeIntegers(Int64.self) { operation($0, $1) }
        }
    }

    private func computeIntegers<T: FixedWidthInteger & SignedInteger>(_: T.Type, _ operation: (T, T) -> T) {
        let a = node.inputs[0]!, b = node.inputs[1]!, output = node.outputs[0]
        guard output.elementCount > 0, let pa = a.data, let pb = b.data, let po = output.data, let range = integerRange else { return }
        let x = pa.assumingMemoryBound(to: T.self), y = pb.assumingMemoryBound(to: T.self), out = po.assumingMemoryBound(to: T.self)
        let low = T(range.lowerBound), high = T(range.upperBound)
        forEachBroadcastPair(aShape: a.shape, bShape: b.shape, outShape: output.shape) { o, i, j in
            out[o] = Swift.min(high, Swift.max(low, operation(x[i], y[j])))
        }
    }

    /// The scratch ``computeStoredValues(_:zeroPoints:_:)`` needs: both inputs and the output as floats.
    final var storedValueScratchBytes: Int {
        guard let a = node.inputs[0], let b = node.inputs[1] else { return 0 }
        return saturatingProduct(a.elementCount + b.elementCount + node.outputs[0].elementCount, 4)
    }

    /// uint8/int8/int16 stored values, less `zeroPoints`, through the float broadcast loop: every such offset is exact
    /// as a float, and `operation` must return an integer already clamped to the output type (a comparison returns
    /// one of its operands), so the result converts back exactly.
    final func computeStoredValues(_ context: RunContext, zeroPoints: (Int32, Int32) = (0, 0), _ operation: (Float, Float) -> Float) {
        let a = node.inputs[0]!, b = node.inputs[1]!, output = node.outputs[0]
        let type = a.type, signed = type == .int8
        @inline(__always) func load(_ p: UnsafeRawPointer, _ i: Int) -> Int32 {
            type == .int16 ? Int32(p.load(fromByteOffset: 2 * i, as: Int16.self)) : loadQuantized(p, i, signed: signed)
        }
        let fa = context.scratch.assumingMemoryBound(to: Float.self), fb = fa + a.elementCount, fo = fb + b.elementCount
        let (pa, pb) = (UnsafeRawPointer(a.data!), UnsafeRawPointer(b.data!))
        for i in 0..<a.elementCount { fa[i] = Float(load(pa, i) - zeroPoints.0) }
        for i in 0..<b.elementCount { fb[i] = Float(load(pb, i) - zeroPoints.1) }
        broadcastBinary(a: fa, aShape: a.shape, b: fb, bShape: b.shape, out: fo, outShape: output.shape, activation: (-.infinity, .infinity),
                        operation)
        let out = output.data!
        if type == .int16 {
            for i in 0..<output.elementCount { out.storeBytes(of: Int16(truncatingIfNeeded: Int32(fo[i])), toByteOffset: 2 * i, as: Int16.self) }
        } else {
            for i in 0..<output.elementCount { storeQuantized(out, i, Int32(fo[i]), signed: signed) }
        }
    }

    /// Operands of the same shape (a residual ADD) are one flat loop with the activation in it, split over
    /// `threads`; anything else goes through ``broadcastBinary``.
    @inline(__always)
    final func compute<Operation: FloatBinaryOperation>(_ threads: Int, _: Operation.Type) {
        let a = node.inputs[0]!, b = node.inputs[1]!, output = node.outputs[0]
        // Shapes that differ only in dimensions of 1 ([1, 256] and [256], an LSTM gate's bias) pair elements in order.
        let total = output.elementCount
        guard a.shape == b.shape || (a.elementCount == total && b.elementCount == total) else {
            let (pa, pb, out) = (a.floats, b.floats, output.floats)
            // A large broadcast (a squeeze-and-excitation block's per-channel gate on its image) splits its rows.
            guard threads > 1, total >= 1 << 15 else {
                return broadcastBinary(a: pa, aShape: a.shape, b: pb, bShape: b.shape, out: out, outShape: output.shape, activation: activation,
                                       Operation.apply)
            }
            let rowCount = broadcastRowCount(aShape: a.shape, bShape: b.shape, outShape: output.shape)
            parallelFor(rowCount, threads: threads, workPerItem: 4 * total / max(rowCount, 1)) { rows in
                broadcastBinary(a: pa, aShape: a.shape, b: pb, bShape: b.shape, out: out, outShape: output.shape, activation: activation,
                                rows: rows, Operation.apply)
            }
            return
        }
        let pa = a.floats, pb = b.floats, out = output.floats
        let (low, high) = activation
        parallelFor(total, threads: threads, minimumChunk: 4096, workPerItem: 4) { range in
            for i in range {
                let v = Operation.apply(pa[i], pb[i])
                let x = v < low ? low : v
                out[i] = x > high ? high : x
            }
        }
    }
}

/// An elementwise float function as a type, not a closure: the loops of ``BinaryElementwise`` and
/// ``UnaryElementwise`` may run on the worker pool's threads, and a closure captured by the closure handed to
/// the pool is called once per element there instead of being inlined and vectorized, which is far slower than
/// inline code on one thread.
protocol FloatBinaryOperation {
    static func apply(_ a: Float, _ b: Float) -> Float
}

/// See ``FloatBinaryOperation``.
protocol FloatUnaryOperation {
    static func apply(_ x: Float) -> Float
}

/// The output's dimensions and each operand's strides in them (0 where it is broadcast), with size-1 dimensions left
/// out and adjacent dimensions that both operands walk as one merged (each contiguous across them, or broadcast
/// across both): a scalar operand then makes one long inner loop, not one loop of three values per pixel of a
/// [1, H, W, 3] image (the short loops cost a Keras rescaling layer's MUL and ADD far more than the arithmetic). At
/// least one dimension.
func mergedBroadcastDimensions(aShape: [Int], bShape: [Int], outShape: [Int]) -> (shape: [Int], a: [Int], b: [Int]) {
    let rank = outShape.count, padA = rank - aShape.count, padB = rank - bShape.count
    var shape: [Int] = [], stridesA: [Int] = [], stridesB: [Int] = []
    shape.reserveCapacity(rank)
    stridesA.reserveCapacity(rank)
    stridesB.reserveCapacity(rank)
    var naturalA = 1, naturalB = 1
    // From the innermost dimension out; the last one appended is the one just inside d.
    for d in stride(from: rank - 1, through: 0, by: -1) {
        let sizeA = d >= padA ? aShape[d - padA] : 1, sizeB = d >= padB ? bShape[d - padB] : 1
        let strideA = sizeA == 1 ? 0 : naturalA, strideB = sizeB == 1 ? 0 : naturalB
        naturalA *= sizeA
        naturalB *= sizeB
        if outShape[d] == 1 { continue }
        if let inner = shape.last, strideA == stridesA[stridesA.count - 1] * inner, strideB == stridesB[stridesB.count - 1] * inner {
            shape[shape.count - 1] = inner * outShape[d]
        } else {
            shape.append(outShape[d])
            stridesA.append(strideA)
            stridesB.append(strideB)
        }
    }
    if shape.isEmpty { return ([1], [0], [0]) }
    return (shape.reversed(), stridesA.reversed(), stridesB.reversed())
}

func broadcastShape(_ a: [Int], _ b: [Int]) throws -> [Int] {
    let rank = max(a.count, b.count)
    let pa = Array(repeating: 1, count: rank - a.count) + a
    let pb = Array(repeating: 1, count: rank - b.count) + b
    return try zip(pa, pb).map { x, y in
        guard x == y || x == 1 || y == 1 else { throw KernelError.invalid("shapes \(a) and \(b) do not broadcast") }
        return x == 1 ? y : x
    }
}

/// `out = clamp(operation(a, b))` with numpy broadcasting, over the rows `rows` of the merged dimensions' last axis
/// (``broadcastRowCount(aShape:bShape:outShape:)`` of them; all when nil), so threads can split a large one.
@inline(__always)
func broadcastBinary(a: UnsafePointer<Float>, aShape: [Int], b: UnsafePointer<Float>, bShape: [Int],
                     out: UnsafeMutablePointer<Float>, outShape: [Int], activation: (Float, Float), rows: Range<Int>? = nil,
                     _ operation: (Float, Float) -> Float) {
    let total = outShape.reduce(1, *)
    guard total > 0 else { return }
    let (low, high) = activation

    let (shape, sa, sb) = mergedBroadcastDimensions(aShape: aShape, bShape: bShape, outShape: outShape)
    let mergedRank = shape.count
    let inner = shape[mergedRank - 1], ia = sa[mergedRank - 1], ib = sb[mergedRank - 1]
    let outer = total / inner
    let rows = rows ?? 0..<outer
    // A short vector along every row of a contiguous operand ([rows, c] against [c] with c < 16: a normalization
    // layer's per-channel mean on an RGB image): the vector tiled over a block of whole rows, the rows taken a block
    // at a time.
    if mergedRank == 2, inner < 16, ia == 1, ib == 1, (sa[0] == inner && sb[0] == 0) || (sa[0] == 0 && sb[0] == inner) {
        let vectorIsB = sb[0] == 0, rowsPerBlock = max(1, min(1024 / inner, rows.count)), blockLength = rowsPerBlock * inner
        withUnsafeTemporaryAllocation(of: Float.self, capacity: blockLength) { tiled in
            let vector = vectorIsB ? b : a
            for i in 0..<blockLength { tiled[i] = vector[i % inner] }
            var row = rows.lowerBound
            while row < rows.upperBound {
                let count = min(rowsPerBlock, rows.upperBound - row) * inner, start = row * inner
                let o = out + start
                if vectorIsB {
                    for i in 0..<count { o[i] = operation(a[start + i], tiled[i]) }
                } else {
                    for i in 0..<count { o[i] = operation(tiled[i], b[start + i]) }
                }
                clamp(o, count: count, low, high)
                row += rowsPerBlock
            }
        }
        return
    }
    var index = Array(repeating: 0, count: mergedRank - 1)
    var offA = 0, offB = 0
    var first = rows.lowerBound
    for d in stride(from: mergedRank - 2, through: 0, by: -1) {
        index[d] = first % shape[d]
        first /= shape[d]
        offA += index[d] * sa[d]
        offB += index[d] * sb[d]
    }
    for row in rows {
        let o = out + row * inner
        let pa = a + offA, pb = b + offB
        if ia == 1 && ib == 1 {
            for i in 0..<inner { o[i] = operation(pa[i], pb[i]) }
        } else if ia == 1 {
            let y = pb[0]
            for i in 0..<inner { o[i] = operation(pa[i], y) }
        } else if ib == 1 {
            let x = pa[0]
            for i in 0..<inner { o[i] = operation(x, pb[i]) }
        } else {
            let v = operation(pa[0], pb[0])
            for i in 0..<inner { o[i] = v }
        }
        clamp(o, count: inner, low, high)
        // Advance the index over the leading dimensions.
        var d = mergedRank - 2
        while d >= 0 {
            index[d] += 1
            offA += sa[d]
            offB += sb[d]
            if index[d] < shape[d] { break }
            offA -= sa[d] * shape[d]
            offB -= sb[d] * shape[d]
            index[d] = 0
            d -= 1
        }
    }
}

/// The rows ``broadcastBinary`` walks for these shapes.
func broadcastRowCount(aShape: [Int], bShape: [Int], outShape: [Int]) -> Int {
    let total = outShape.reduce(1, *)
    return total == 0 ? 0 : total / mergedBroadcastDimensions(aShape: aShape, bShape: bShape, outShape: outShape).shape.last!
}

/// Base class of the binary ops that take float32 and int32 alike (POW, FLOOR_DIV, FLOOR_MOD, which also takes int64): both inputs of one
/// type, the output of that type and of their broadcast shape.
class NumericBinaryElementwise: Kernel {
    /// int32 results (FLOOR_DIV of a shape dimension by a tile size) are shape arithmetic that may fold while planning.
    override var foldsAtPlanning: Bool { true }

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    /// Whether the op also takes int64 (FLOOR_MOD; LiteRT's FLOOR_DIV and POW do not).
    class var takesInt64: Bool { false }

    override func prepare() throws {
        let a = try input(0), b = try input(1), output = try self.output(0)
        if Self.takesInt64 { try expectType(a, .float32, .int32, .int64) } else { try expectType(a, .float32, .int32) }
        guard b.type == a.type else { throw KernelError.unsupported("inputs of types \(a.type) and \(b.type)") }
        output.type = a.type
        output.shape = try broadcastShape(a.shape, b.shape)
    }

    /// `out[i] = operation(a[i], b[i])` over the broadcast; `operation` may throw for a value (an integer division
    /// by zero), which ends the run.
    @inline(__always)
    final func compute<T>(_: T.Type, _ operation: (T, T) throws -> T) throws {
        let a = node.inputs[0]!, b = node.inputs[1]!, output = node.outputs[0]
        let x = a.pointer(T.self), y = b.pointer(T.self), out = output.pointer(T.self)
        var failure: Error?
        forEachBroadcastPair(aShape: a.shape, bShape: b.shape, outShape: output.shape) { o, i, j in
            guard failure == nil else { return }
            do { out[o] = try operation(x[i], y[j]) } catch { failure = error }
        }
        if let failure { throw failure }
    }
}

/// Base class of the binary ops on integers of any width (BITWISE_XOR, RIGHT_SHIFT): int8, int16, int32, uint8,
/// uint16 or uint32 inputs of one type, broadcast, the output of that type.
class IntegerBinaryElementwise: Kernel {
    class func apply<T: FixedWidthInteger>(_ a: T, _ b: T) -> T { fatalError("subclass") }

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let a = try input(0), b = try input(1), output = try self.output(0)
        try expectType(a, .int8, .int16, .int32, .uint8, .uint16, .uint32)
        guard b.type == a.type else { throw KernelError.unsupported("inputs of types \(a.type) and \(b.type)") }
        output.type = a.type
        output.shape = try broadcastShape(a.shape, b.shape)
    }

    override func run(_ context: RunContext) throws {
        switch node.outputs[0].type {
        case .int8: compute(Int8.self)
        case .int16: compute(Int16.self)
        case .int32: compute(Int32.self)
        case .uint8: compute(UInt8.self)
        case .uint16: compute(UInt16.self)
        default: compute(UInt32.self)
        }
    }

    private func compute<T: FixedWidthInteger>(_: T.Type) {
        let a = node.inputs[0]!, b = node.inputs[1]!, output = node.outputs[0]
        let x = a.pointer(T.self), y = b.pointer(T.self), out = output.pointer(T.self)
        forEachBroadcastPair(aShape: a.shape, bShape: b.shape, outShape: output.shape) { o, i, j in out[o] = Self.apply(x[i], y[j]) }
    }
}

extension BinaryElementwise: ClampAbsorbing {
    func takeClamp(_ range: (Float, Float)) -> Bool {
        Self.hasFusedActivation && node.inputs.allSatisfy { $0?.type == .float32 } && narrowActivation(&activation, to: range, output: node.outputs[0])
    }
}
