/// UNSORTED_SEGMENT_SUM, _PROD, _MAX and _MIN: rows of `data` (float32 or int32) combined into the output row their
/// segment id names, in row order, starting from the identity (0, 1, the lowest or the highest value), which rows
/// no id names keep; negative ids are skipped, as in TFLite. `num_segments` (an int32 scalar) and the ids (int32,
/// one per row) must be known when planning; an id at or past `num_segments` is an error.
class UnsortedSegment: Kernel {
    /// Integer results (a product of shape dimensions: Keras' MultiHeadAttention on a sequence of resizable length
    /// reshapes by an UNSORTED_SEGMENT_PROD of a SHAPE) are shape arithmetic that may fold while planning.
    override var foldsAtPlanning: Bool { node.outputs.allSatisfy { $0.type == .int32 || $0.type == .int64 } }

    class func combine(_ a: Float, _ b: Float) -> Float { fatalError("subclass") }
    class func combine(_ a: Int32, _ b: Int32) -> Int32 { fatalError("subclass") }
    class var floatIdentity: Float { fatalError("subclass") }
    class var integerIdentity: Int32 { fatalError("subclass") }

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 3...3, outputs: 1)
    }

    override func prepare() throws {
        let data = try input(0), ids = try input(1), output = try self.output(0)
        try expectType(data, .float32, .int32)
        try expectType(ids, .int32)
        guard data.rank >= 1, ids.shape == [data.dim(0)] else { throw KernelError.invalid("segment ids \(ids.shape) for data \(data.shape)") }
        let segments = try integers(try input(2))
        guard segments.count == 1, segments[0] >= 0, segments[0] < 1 << 24 else { throw KernelError.invalid("num_segments \(segments)") }
        guard try integers(ids).allSatisfy({ $0 < segments[0] }) else { throw KernelError.invalid("a segment id at or past num_segments \(segments[0])") }
        output.type = data.type
        output.shape = [segments[0]] + data.shape.dropFirst()
    }

    override func run(_ context: RunContext) throws {
        let data = node.inputs[0]!, output = node.outputs[0]
        let ids = node.inputs[1]!.pointer(Int32.self), rows = data.dim(0)
        let width = rows == 0 ? 0 : data.elementCount / rows
        if data.type == .float32 {
            accumulate(data.floats, output.floats, ids, rows, width, Self.floatIdentity, Self.combine)
        } else {
            accumulate(data.pointer(Int32.self), output.pointer(Int32.self), ids, rows, width, Self.integerIdentity, Self.combine)
        }
    }

    private func accumulate<T>(_ source: UnsafeMutablePointer<T>, _ destination: UnsafeMutablePointer<T>, _ ids: UnsafeMutablePointer<Int32>,
                               _ rows: Int, _ width: Int, _ identity: T, _ combine: (T, T) -> T) {
        destination.update(repeating: identity, count: node.outputs[0].elementCount)
        for r in 0..<rows where ids[r] >= 0 {
            let to = destination + Int(ids[r]) * width, from = source + r * width
            for j in 0..<width { to[j] = combine(to[j], from[j]) }
        }
    }
}

final class UnsortedSegmentSum: UnsortedSegment {
    override class func combine(_ a: Float, _ b: Float) -> Float { a + b }
    override class func combine(_ a: Int32, _ b: Int32) -> Int32 { a &+ b }
    override class var floatIdentity: Float { 0 }
    override class var integerIdentity: Int32 { 0 }
}

final class UnsortedSegmentProd: UnsortedSegment {
    override class func combine(_ a: Float, _ b: Float) -> Float { a * b }
    override class func combine(_ a: Int32, _ b: Int32) -> Int32 { a &* b }
    override class var floatIdentity: Float { 1 }
    override class var integerIdentity: Int32 { 1 }
}

/// `std::max(a, b)`: `a < b ? b : a`.
final class UnsortedSegmentMax: UnsortedSegment {
    override class func combine(_ a: Float, _ b: Float) -> Float { a < b ? b : a }
    override class func combine(_ a: Int32, _ b: Int32) -> Int32 { Swift.max(a, b) }
    override class var floatIdentity: Float { -.greatestFiniteMagnitude }
    override class var integerIdentity: Int32 { .min }
}

/// `std::min(a, b)`: `b < a ? b : a`.
final class UnsortedSegmentMin: UnsortedSegment {
    override class func combine(_ a: Float, _ b: Float) -> Float { b < a ? b : a }
    override class func combine(_ a: Int32, _ b: Int32) -> Int32 { Swift.min(a, b) }
    override class var floatIdentity: Float { .greatestFiniteMagnitude }
    override class var integerIdentity: Int32 { .max }
}
