import LiteFormat

/// The resource variables of one model (TensorFlow's `tf.Variable`s converted with resource variables enabled), shared
/// by the interpreters of all its subgraphs: VAR_HANDLE names one by container and shared name, ASSIGN_VARIABLE
/// stores a value in it, READ_VARIABLE copies it out. They keep their values from one run to the next.
final class ResourceVariables: @unchecked Sendable {
    struct Value {
        var type: TensorType
        var shape: [Int]
        var bytes: [UInt8]
    }

    /// The most variables one model may name, and the most bytes they may hold in all (a hostile model must not
    /// ask for unbounded memory).
    static let maximumCount = 4096
    static let maximumBytes = 1 << 30

    private var identities: [String: Int] = [:]
    private(set) var values: [Value?] = []
    /// The init subgraphs CALL_ONCE has run: once per interpreter and the signature runners it made, which share
    /// the variables those subgraphs initialize (TFLite's initialization status map).
    var initializedSubgraphs: Set<Int> = []

    /// The variable named `container`/`sharedName`, created (without a value) the first time.
    func identity(container: String, sharedName: String) throws -> Int {
        let key = container + "\u{0}" + sharedName
        if let known = identities[key] { return known }
        guard values.count < Self.maximumCount else { throw KernelError.unsupported("more than \(Self.maximumCount) resource variables") }
        identities[key] = values.count
        values.append(nil)
        return values.count - 1
    }

    func value(_ identity: Int) -> Value? { values.indices.contains(identity) ? values[identity] : nil }

    func assign(_ identity: Int, _ tensor: Tensor) throws {
        guard values.indices.contains(identity), let size = tensor.type.byteSize else { throw KernelError.invalid("no resource variable \(identity)") }
        let others = values.enumerated().reduce(0) { $0 + ($1.offset == identity ? 0 : ($1.element?.bytes.count ?? 0)) }
        guard others + tensor.elementCount * size <= Self.maximumBytes else { throw KernelError.unsupported("resource variables over \(Self.maximumBytes) bytes") }
        let bytes = tensor.data.map { Array(UnsafeRawBufferPointer(start: $0, count: tensor.byteCount)) } ?? []
        values[identity] = Value(type: tensor.type, shape: tensor.shape, bytes: bytes)
    }
}
