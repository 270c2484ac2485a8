/// A minimal FlatBuffer writer: a tree of tables serialized front to back (each table preceded by its
/// vtable, children after their parent so every `uoffset` points forward).
public struct FlatTableBuilder {
    /// A field's value.
    public indirect enum Value {
        /// Scalars, stored inline in the table at their own size.
        case int8(Int8), uint8(UInt8), int32(Int32), uint32(UInt32), int64(Int64), uint64(UInt64), float(Float), bool(Bool)
        /// A child table.
        case table(FlatTableBuilder)
        /// A vector of tables.
        case tables([FlatTableBuilder])
        /// A UTF-8 string.
        case string(String)
        /// Raw little-endian element bytes with the element size and the alignment of the first element.
        case vector(bytes: [UInt8], elementSize: Int, alignment: Int)
    }

    /// The table's fields by field index; absent fields are left out of the vtable.
    public var fields: [Int: Value] = [:]

    /// An empty table.
    public init() {}

    /// Field `field`'s value; nil removes it.
    public subscript(field: Int) -> Value? {
        get { fields[field] }
        set { fields[field] = newValue }
    }

    /// A vector of int32 values (each truncated to 32 bits).
    public static func int32s(_ values: [Int]) -> Value {
        .vector(bytes: values.flatMap { withUnsafeBytes(of: Int32(truncatingIfNeeded: $0).littleEndian, Array.init) }, elementSize: 4, alignment: 4)
    }

    /// A vector of float32 values.
    public static func floats(_ values: [Float]) -> Value {
        .vector(bytes: values.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) }, elementSize: 4, alignment: 4)
    }

    /// A vector of int64 values.
    public static func int64s(_ values: [Int64]) -> Value {
        .vector(bytes: values.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) }, elementSize: 8, alignment: 8)
    }

    /// Serializes `root` with a 4-byte file identifier.
    public static func serialize(root: FlatTableBuilder, identifier: String) -> [UInt8] {
        var writer = Writer()
        writer.bytes = [0, 0, 0, 0] + Array(identifier.utf8.prefix(4))
        let position = writer.write(root)
        writer.patch(at: 0, target: position)
        return writer.bytes
    }

    struct Writer {
        var bytes: [UInt8] = []

        mutating func align(_ alignment: Int) {
            while bytes.count % alignment != 0 { bytes.append(0) }
        }

        mutating func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }

        /// Writes the uoffset from `slot` to `target` (target after slot).
        mutating func patch(at slot: Int, target: Int) {
            let value = UInt32(target - slot).littleEndian
            withUnsafeBytes(of: value) { for i in 0..<4 { bytes[slot + i] = $0[i] } }
        }

        mutating func write(_ table: FlatTableBuilder) -> Int {
            let maxField = table.fields.keys.max() ?? -1
            align(8)
            let vtable = bytes.count
            bytes.append(contentsOf: [UInt8](repeating: 0, count: 4 + 2 * (maxField + 1)))
            align(4)
            let start = bytes.count
            append(Int32(start - vtable))
            var offsets: [Int: Int] = [:]
            var children: [(slot: Int, value: Value)] = []
            for field in table.fields.keys.sorted() {
                let value = table.fields[field]!
                func scalar<T: FixedWidthInteger>(_ v: T) {
                    align(MemoryLayout<T>.size)
                    offsets[field] = bytes.count - start
                    append(v)
                }
                switch value {
                case .int8(let v): scalar(v)
                case .uint8(let v): scalar(v)
                case .bool(let v): scalar(UInt8(v ? 1 : 0))
                case .int32(let v): scalar(v)
                case .uint32(let v): scalar(v)
                case .int64(let v): scalar(v)
                case .uint64(let v): scalar(v)
                case .float(let v): scalar(v.bitPattern)
                case .table, .tables, .string, .vector:
                    align(4)
                    offsets[field] = bytes.count - start
                    children.append((bytes.count, value))
                    append(UInt32(0))
                }
            }
            let size = bytes.count - start
            func put16(_ value: Int, at position: Int) {
                bytes[position] = UInt8(value & 0xff)
                bytes[position + 1] = UInt8(value >> 8)
            }
            put16(4 + 2 * (maxField + 1), at: vtable)
            put16(size, at: vtable + 2)
            for (field, offset) in offsets { put16(offset, at: vtable + 4 + 2 * field) }
            for (slot, value) in children {
                patch(at: slot, target: writeChild(value))
            }
            return start
        }

        mutating func writeChild(_ value: Value) -> Int {
            switch value {
            case .table(let child):
                return write(child)
            case .tables(let list):
                align(4)
                let start = bytes.count
                append(UInt32(list.count))
                let slots = list.indices.map { start + 4 + 4 * $0 }
                for _ in list { append(UInt32(0)) }
                for (slot, child) in zip(slots, list) { patch(at: slot, target: write(child)) }
                return start
            case .string(let text):
                align(4)
                let start = bytes.count
                append(UInt32(text.utf8.count))
                bytes.append(contentsOf: text.utf8)
                bytes.append(0)
                return start
            case let .vector(data, elementSize, alignment):
                // The length word sits just before the first element, which must be `alignment`-aligned.
                while (bytes.count + 4) % max(alignment, 4) != 0 { bytes.append(0) }
                let start = bytes.count
                append(UInt32(data.count / max(elementSize, 1)))
                bytes.append(contentsOf: data)
                return start
            default:
                fatalError("scalar values are written inline")
            }
        }
    }
}

/// Builds a TensorFlow Lite model in memory: for tests, benchmarks and tools that need a model of a given
/// op and shape without TensorFlow.
///
/// ```swift
/// var builder = ModelBuilder()
/// let x = builder.addTensor(name: "x", type: .float32, shape: [1, 4])
/// let y = builder.addTensor(name: "y", type: .float32, shape: [1, 4])
/// builder.addOperator(.relu, inputs: [x], outputs: [y])
/// builder.inputs = [x]; builder.outputs = [y]
/// let model = try TFLiteModel(bytes: builder.build())
/// ```
public struct ModelBuilder {
    var buffers: [[UInt8]] = [[]]
    var tensors: [FlatTableBuilder] = []
    var operators: [FlatTableBuilder] = []
    var codes: [OperatorCode] = []
    /// Tensor indices of the current subgraph's inputs.
    public var inputs: [Int] = []
    /// Tensor indices of the current subgraph's outputs.
    public var outputs: [Int] = []
    /// The subgraphs finished by ``addSubgraph()``, in order; the one being built comes after them.
    var finishedSubgraphs: [FlatTableBuilder] = []

    /// An empty model: no tensors, no operators, the empty buffer 0.
    public init() {}

    /// Finishes the subgraph being built (its tensors, operators, inputs and outputs) and starts the next one, for
    /// control flow (a WHILE's condition and body); returns the new subgraph's index. Buffers are shared.
    public mutating func addSubgraph() -> Int {
        finishedSubgraphs.append(currentSubgraph())
        (tensors, operators, inputs, outputs) = ([], [], [], [])
        return finishedSubgraphs.count
    }

    func currentSubgraph() -> FlatTableBuilder {
        var subgraph = FlatTableBuilder()
        subgraph[0] = .tables(tensors)
        subgraph[1] = FlatTableBuilder.int32s(inputs)
        subgraph[2] = FlatTableBuilder.int32s(outputs)
        subgraph[3] = .tables(operators)
        return subgraph
    }

    /// Adds a constant buffer and returns its index (buffer 0 is the empty sentinel).
    public mutating func addBuffer(_ bytes: [UInt8]) -> Int {
        buffers.append(bytes)
        return buffers.count - 1
    }

    /// Adds a tensor to the current subgraph and returns its index; `buffer` 0 means no constant data, and
    /// `shapeSignature` (-1 for resizable dimensions) is written only when given.
    public mutating func addTensor(name: String, type: TensorType, shape: [Int], buffer: Int = 0, quantization: Quantization? = nil,
                                   shapeSignature: [Int]? = nil, isVariable: Bool = false) -> Int {
        var table = FlatTableBuilder()
        table[0] = FlatTableBuilder.int32s(shape)
        table[1] = .int8(type.rawValue)
        table[2] = .uint32(UInt32(buffer))
        table[3] = .string(name)
        if let quantization {
            var q = FlatTableBuilder()
            q[2] = FlatTableBuilder.floats(quantization.scale)
            q[3] = FlatTableBuilder.int64s(quantization.zeroPoint)
            q[6] = .int32(Int32(quantization.quantizedDimension))
            table[4] = .table(q)
        }
        if isVariable { table[5] = .bool(true) }
        if let shapeSignature { table[7] = FlatTableBuilder.int32s(shapeSignature) }
        tensors.append(table)
        return tensors.count - 1
    }

    /// Adds a constant float32 tensor with its own buffer.
    public mutating func addConstant(name: String, shape: [Int], values: [Float]) -> Int {
        let buffer = addBuffer(values.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) })
        return addTensor(name: name, type: .float32, shape: shape, buffer: buffer)
    }

    /// Adds a constant int32 tensor with its own buffer.
    public mutating func addConstant(name: String, shape: [Int], values: [Int32]) -> Int {
        let buffer = addBuffer(values.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) })
        return addTensor(name: name, type: .int32, shape: shape, buffer: buffer)
    }

    /// Adds a node. `optionsType` is the `BuiltinOptions` union index of `options` (schema.fbs order).
    public mutating func addOperator(_ op: BuiltinOperator, customName: String? = nil, version: Int = 1, inputs: [Int], outputs: [Int],
                                     optionsType: UInt8 = 0, options: FlatTableBuilder? = nil, customOptions: [UInt8]? = nil) {
        let code = OperatorCode(builtin: op, customName: customName, version: version)
        let index = codes.firstIndex(of: code) ?? { codes.append(code); return codes.count - 1 }()
        var table = FlatTableBuilder()
        table[0] = .uint32(UInt32(index))
        table[1] = FlatTableBuilder.int32s(inputs)
        table[2] = FlatTableBuilder.int32s(outputs)
        if let options {
            table[3] = .uint8(optionsType)
            table[4] = .table(options)
        }
        if let customOptions { table[5] = .vector(bytes: customOptions, elementSize: 1, alignment: 4) }
        operators.append(table)
    }

    /// The model as `.tflite` bytes (schema version 3, file identifier `TFL3`).
    public func build() -> [UInt8] {
        var model = FlatTableBuilder()
        model[0] = .uint32(3)
        model[1] = .tables(codes.map { code in
            var table = FlatTableBuilder()
            table[0] = .int8(Int8(clamping: code.builtin.rawValue))
            if let name = code.customName { table[1] = .string(name) }
            table[2] = .int32(Int32(code.version))
            table[3] = .int32(code.builtin.rawValue)
            return table
        })
        model[2] = .tables(finishedSubgraphs + [currentSubgraph()])
        model[4] = .tables(buffers.map { data in
            var table = FlatTableBuilder()
            if !data.isEmpty { table[0] = .vector(bytes: data, elementSize: 1, alignment: 16) }
            return table
        })
        return FlatTableBuilder.serialize(root: model, identifier: "TFL3")
    }
}
