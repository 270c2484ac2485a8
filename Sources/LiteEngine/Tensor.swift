import LiteFormat

/// A tensor of a running model: its type, current shape and where its bytes live.
///
/// Constant tensors point into the model file; intermediate tensors into the interpreter's arena; variable
/// tensors (LSTM state) and tensors whose data an op materialises at load (dequantized or densified
/// weights) own their bytes.
///
/// Its mutable properties are read by every kernel on every run; they skip Swift's run-time exclusivity checks
/// (`@exclusivity(unchecked)`: an interpreter is used from one thread, and no kernel modifies a tensor's shape or bytes
/// while it is reading them through another access). In a WHILE body of small nodes the checks are a sizeable share
/// of the time.
public final class Tensor: @unchecked Sendable {
    /// Where a tensor's bytes live.
    public enum Storage: Sendable, Equatable {
        /// Bytes in the model file, read-only.
        case constant
        /// A slice of the interpreter's arena, placed by the planner.
        case arena
        /// Bytes owned by this tensor that live as long as the interpreter (variables, op-made constants).
        case persistent
    }

    /// The tensor's index in its subgraph (as in the file).
    public let index: Int
    /// The tensor's name in the file (may be empty).
    public let name: String
    /// The element type: the file's, or, for some op outputs, the type the op sets from its inputs when prepared.
    @exclusivity(unchecked) public internal(set) var type: TensorType
    /// The current shape: the file's, or the one set by ``Interpreter/resizeInput(at:to:strict:)`` and inferred when
    /// the plan is built.
    @exclusivity(unchecked) public internal(set) var shape: [Int] {
        didSet { if shape != oldValue { shapeVersion &+= 1 } }
    }
    /// Counts the changes of ``shape``: the interpreter compares it to skip preparing a node whose inputs kept theirs.
    @exclusivity(unchecked) private(set) var shapeVersion = 0
    /// The shape as the file declared it, with -1 for resizable dimensions.
    public let shapeSignature: [Int]
    /// The tensor's quantization parameters from the file (scales, zero points, quantized dimension), if any.
    public let quantization: Quantization?
    /// Where the tensor's bytes live: the file, the arena or memory of its own.
    @exclusivity(unchecked) public internal(set) var storage: Storage
    /// Whether the file marks the tensor as a variable (state that persists across runs, such as an LSTM's); see
    /// ``Interpreter/resetVariableTensors()``.
    public let isVariable: Bool

    /// Start of the tensor's bytes; valid after planning.
    @exclusivity(unchecked) public internal(set) var data: UnsafeMutableRawPointer?
    /// Offset in the arena for `.arena` tensors.
    @exclusivity(unchecked) var arenaOffset = 0
    var ownedBytes: UnsafeMutableRawBufferPointer?
    /// For a constant, its buffer in the model's bytes (which may be larger than the shape needs, or sparse).
    let constantBuffer: UnsafeRawBufferPointer?

    init(index: Int, description: TensorDescription, constant: UnsafeRawBufferPointer?) {
        self.index = index
        self.name = description.name
        self.type = description.type
        self.shape = description.shape
        self.shapeSignature = description.shapeSignature
        self.quantization = description.quantization
        self.isVariable = description.isVariable
        constantBuffer = constant.flatMap { $0.count > 0 ? $0 : nil }
        if let constant, constant.count > 0 {
            storage = .constant
            data = UnsafeMutableRawPointer(mutating: constant.baseAddress)
        } else {
            storage = .arena
        }
    }

    deinit { ownedBytes?.deallocate() }

    /// The number of elements at the current shape (1 for a scalar).
    public var elementCount: Int { shape.reduce(1, *) }

    /// The element count of `shape`, or nil when a dimension is negative or the count exceeds the model limit.
    static func checkedCount(_ shape: [Int]) -> Int? {
        var count = 1
        for d in shape {
            guard d >= 0 else { return nil }
            let (product, overflow) = count.multipliedReportingOverflow(by: d)
            guard !overflow, product <= TFLiteModel.Limits.maxElements else { return nil }
            count = product
        }
        return count
    }
    /// The number of dimensions of the current shape.
    public var rank: Int { shape.count }

    /// Bytes the tensor needs at its current shape (0 for types without a fixed size).
    public var byteCount: Int { elementCount * (type.byteSize ?? 0) }

    /// Whether the tensor's bytes were computed once, while the plan was built, from constants alone (DENSIFY's dense
    /// weights, a DEQUANTIZE of those), so that they never change: kernels treat it as they treat the file's constants
    /// (TFLite's `IsConstantOrPersistentTensor` test). Set by the kernel that computes the bytes, after it has.
    var isComputedConstant = false

    /// A constant of the file or a ``isComputedConstant`` tensor: values that no run changes.
    var hasFixedValues: Bool { storage == .constant || isComputedConstant }

    /// Gives the tensor bytes of its own, zeroed, that outlive any plan.
    func makePersistent(byteCount: Int) {
        isComputedConstant = false
        // Bytes it already owns are kept when large enough (a WHILE body planned every step folds its shape arithmetic
        // into the same tensors again).
        if let ownedBytes, ownedBytes.count >= max(byteCount, 1) {
            ownedBytes.baseAddress!.initializeMemory(as: UInt8.self, repeating: 0, count: max(byteCount, 1))
            data = ownedBytes.baseAddress
            storage = .persistent
            return
        }
        ownedBytes?.deallocate()
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(byteCount, 1), alignment: 64)
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
        ownedBytes = bytes
        data = bytes.baseAddress
        storage = .persistent
    }

    /// Sets a variable tensor to its initial value, as TFLite's `ResetVariableTensor`: zero, or for int8
    /// tensors the zero point (the quantized 0.0) in every byte.
    func resetVariable() {
        guard let ownedBytes else { return }
        var value: UInt8 = 0
        if type == .int8, let zeroPoint = quantization?.zeroPoint.first, let z = Int8(exactly: zeroPoint) {
            value = UInt8(bitPattern: z)
        }
        ownedBytes.initializeMemory(as: UInt8.self, repeating: value)
    }

    /// Typed access for kernels. The caller has checked `type`.
    @inline(__always)
    func pointer<T>(_: T.Type) -> UnsafeMutablePointer<T> {
        data!.assumingMemoryBound(to: T.self)
    }

    @inline(__always) var floats: UnsafeMutablePointer<Float> { pointer(Float.self) }

    /// Element `i` of an int32 or int64 tensor (an index, a bound, a length). The caller has checked `type`.
    @inline(__always)
    func integer(at i: Int) -> Int {
        type == .int32 ? Int(pointer(Int32.self)[i]) : Int(pointer(Int64.self)[i])
    }

    /// The tensor's contents as an array (copies).
    public func toArray<T>(of _: T.Type) -> [T] {
        guard let data else { return [] }
        return Array(UnsafeBufferPointer(start: data.assumingMemoryBound(to: T.self), count: elementCount))
    }

    /// Size of dimension `i`, counting negative `i` from the end.
    func dim(_ i: Int) -> Int { shape[i < 0 ? shape.count + i : i] }
}

extension Tensor: CustomStringConvertible {
    /// The tensor's name (or "tensor" and its index), type and shape, such as `input float32[1, 224, 224, 3]`.
    public var description: String { "\(name.isEmpty ? "tensor \(index)" : name) \(type)\(shape)" }
}
