#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes of a model: a read-only memory map of a file, or a copy of caller-provided bytes.
///
/// Constant tensors point into these bytes for the lifetime of the object; nothing is copied at load.
public final class ModelBytes: @unchecked Sendable {
    /// The model's bytes, valid as long as this object lives.
    public let bytes: UnsafeRawBufferPointer
    /// Whether `bytes` map a file, so that their pages can be dropped from memory and read again (see
    /// ``releaseResidentPages(_:)``); false for copied and borrowed bytes.
    public let isFileMapping: Bool
    private let unmap: () -> Void

    /// Maps `path` read-only.
    public init(contentsOfFile path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw FormatError.io(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FormatError.io(path: path, reason: String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw FormatError.io(path: path, reason: "not a regular file") }
        let size = Int(info.st_size)
        guard size > 0 else { throw FormatError.notAModel(reason: "\(path) is empty") }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            throw FormatError.io(path: path, reason: "mmap failed: \(String(cString: strerror(errno)))")
        }
        bytes = UnsafeRawBufferPointer(start: base, count: size)
        isFileMapping = true
        unmap = { munmap(base, size) }
    }

    /// Refers to `bytes` without copying or owning them; the caller keeps them alive and unchanged while
    /// any model made from this object is in use (the fuzzer mutates one buffer in place this way).
    public init(unsafeBorrowing bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        isFileMapping = false
        unmap = {}
    }

    /// Copies `data` into memory aligned for any tensor type.
    public init<Bytes: Collection>(copying data: Bytes) where Bytes.Element == UInt8 {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 64)
        _ = storage.initializeMemory(as: UInt8.self, from: data)
        bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(storage)[0..<data.count])
        isFileMapping = false
        unmap = { storage.deallocate() }
    }

    /// Drops from the process's resident memory the whole pages of a file mapping that lie inside `range` (a part of
    /// ``bytes``), as `madvise(MADV_DONTNEED)` does: the bytes stay valid and unchanged, and a later read of them
    /// brings the pages back from the page cache or the file. An interpreter calls this for weights a kernel has
    /// copied into a layout of its own, so the file's copy does not stay resident beside it. Does nothing for
    /// copied or borrowed bytes, whose pages hold the only copy.
    public func releaseResidentPages(_ range: UnsafeRawBufferPointer) {
        guard isFileMapping, let base = range.baseAddress, range.count > 0,
              base >= bytes.baseAddress!, base + range.count <= bytes.baseAddress! + bytes.count else { return }
        let page = UInt(ModelBytes.pageSize)
        // Only pages wholly inside the range: the neighbours' bytes on a shared page stay resident.
        let start = (UInt(bitPattern: base) + page - 1) / page * page
        let end = (UInt(bitPattern: base) + UInt(range.count)) / page * page
        guard end > start else { return }
        _ = madvise(UnsafeMutableRawPointer(bitPattern: start), Int(end - start), Int32(MADV_DONTNEED))
    }

    private static let pageSize = max(Int(sysconf(Int32(_SC_PAGESIZE))), 4096)

    deinit { unmap() }
}

/// A parsed TensorFlow Lite model: the schema's tables as Swift values, with buffers referring to the file.
///
/// ```swift
/// let model = try TFLiteModel(path: "mobilenet.tflite")
/// print(model.subgraphs[0].operators.count)
/// ```
public struct TFLiteModel: @unchecked Sendable {
    /// The bytes the model was read from; every buffer and option table points into them.
    public let storage: ModelBytes
    /// The schema version the file declares (3 for current files).
    public let version: Int
    /// The file's description string (the converter's name, such as `MLIR Converted.`).
    public let description: String
    /// The operator codes the nodes refer to by index.
    public let operatorCodes: [OperatorCode]
    /// The subgraphs; the first is the main graph, the others are control-flow bodies and signature entry points.
    public let subgraphs: [SubGraphDescription]
    /// Each buffer's bytes in place in the file (empty for buffer 0 and for tensors without data).
    public let buffers: [UnsafeRawBufferPointer]
    /// The named metadata entries (such as `TFLITE_METADATA`).
    public let metadata: [MetadataEntry]
    /// The signatures, in the file's order.
    public let signatureDefs: [SignatureDef]

    /// Upper bounds that keep a hostile file from asking for unbounded work before anything runs.
    public enum Limits {
        /// The most dimensions a tensor may have.
        public static let maxRank = 16
        /// The most elements a tensor may have (2^34).
        public static let maxElements = 1 << 34
        /// Tensors or operators in one subgraph; real models have a few thousand at most.
        public static let maxGraphItems = 1 << 16
    }

    /// Maps the file at `path` read-only and reads it; throws ``FormatError`` when it cannot be read or is not a valid
    /// model.
    public init(path: String) throws {
        try self.init(storage: ModelBytes(contentsOfFile: path))
    }

    /// Reads a copy of `bytes`; throws ``FormatError`` when they are not a valid model.
    public init(bytes: [UInt8]) throws {
        try self.init(storage: ModelBytes(copying: bytes))
    }

    /// Reads the model in `storage` (kept alive by the model); throws ``FormatError`` when it is not a valid model, with
    /// the path to what is wrong.
    public init(storage: ModelBytes) throws {
        self.storage = storage
        let fb = FlatBuffer(bytes: storage.bytes)
        guard fb.count >= 8 else { throw FormatError.notAModel(reason: "only \(fb.count) bytes") }
        if let id = fb.fileIdentifier, id != "TFL3" {
            throw FormatError.notAModel(reason: "file identifier is \"\(id)\", expected \"TFL3\"")
        }
        let root = try fb.rootTable()
        version = Int(try root.scalar(0, default: UInt32(0)))
        guard version == 3 else { throw FormatError.notAModel(reason: "schema version \(version), expected 3") }
        description = try root.string(3, "description") ?? ""

        operatorCodes = try root.tables(1, "operator_codes").map { table in
            let deprecated = Int32(try table.scalar(0, default: Int8(0)))
            let extended = try table.scalar(3, default: Int32(0))
            let version = Int(try table.scalar(2, default: Int32(1)))
            return OperatorCode(
                builtin: BuiltinOperator(rawValue: max(deprecated, extended)),
                customName: try table.string(1, "custom_code"),
                version: version
            )
        }

        let bufferTables = try root.tables(4, "buffers")
        buffers = try bufferTables.enumerated().map { index, table in
            if let data = try table.vector(0, "data", elementSize: 1) {
                return data.raw
            }
            let offset = try table.scalar(1, default: UInt64(0))
            let size = try table.scalar(2, default: UInt64(0))
            guard offset > 1 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
            guard let start = Int(exactly: offset), let count = Int(exactly: size) else {
                throw FormatError.malformed(path: "buffers[\(index)]", reason: "offset \(offset) / size \(size) out of range")
            }
            try fb.check(start, count, "buffers[\(index)] (offset/size form)")
            return UnsafeRawBufferPointer(rebasing: fb.bytes[start..<(start + count)])
        }

        let subgraphTables = try root.tables(2, "subgraphs")
        guard !subgraphTables.isEmpty else { throw FormatError.malformed(path: "root", reason: "model has no subgraphs") }
        let bufferCount = buffers.count
        let opcodeCount = operatorCodes.count
        subgraphs = try subgraphTables.map { try Self.parseSubgraph($0, bufferCount: bufferCount, opcodeCount: opcodeCount) }

        metadata = try root.tables(6, "metadata").map { table in
            let name = try table.string(0, "name") ?? ""
            let buffer = Int(try table.scalar(1, default: UInt32(0)))
            guard buffer < bufferCount else {
                throw FormatError.malformed(path: table.path, reason: "metadata \"\(name)\" refers to buffer \(buffer) of \(bufferCount)")
            }
            return MetadataEntry(name: name, bufferIndex: buffer)
        }

        let subgraphCount = subgraphs.count
        let graphs = subgraphs
        signatureDefs = try root.tables(7, "signature_defs").map { table in
            let index = Int(try table.scalar(4, default: UInt32(0)))
            guard index < subgraphCount else {
                throw FormatError.malformed(path: table.path, reason: "subgraph index \(index) of \(subgraphCount)")
            }
            func maps(_ field: Int, _ name: String) throws -> [(String, Int)] {
                try table.tables(field, name).map { entry in
                    let tensor = Int(try entry.scalar(1, default: UInt32(0)))
                    guard tensor < graphs[index].tensors.count else {
                        throw FormatError.malformed(path: entry.path, reason: "tensor index \(tensor) out of range")
                    }
                    return (try entry.string(0, "name") ?? "", tensor)
                }
            }
            return SignatureDef(key: try table.string(2, "signature_key") ?? "", subgraphIndex: index,
                                inputs: try maps(0, "inputs"), outputs: try maps(1, "outputs"))
        }
    }

    /// The bytes of the metadata entry named `name` (for example `TFLITE_METADATA`), if present.
    public func metadataBuffer(named name: String) -> UnsafeRawBufferPointer? {
        metadata.first { $0.name == name }.map { buffers[$0.bufferIndex] }
    }

    private static func parseSubgraph(_ table: FlatTable, bufferCount: Int, opcodeCount: Int) throws -> SubGraphDescription {
        let tensorTables = try table.tables(0, "tensors")
        guard tensorTables.count <= Limits.maxGraphItems else {
            throw FormatError.malformed(path: table.path, reason: "\(tensorTables.count) tensors exceed the limit of \(Limits.maxGraphItems)")
        }
        let tensors = try tensorTables.map { try parseTensor($0, bufferCount: bufferCount) }
        let count = tensors.count
        func indices(_ list: [Int32]?, _ what: String, optional: Bool) throws -> [Int] {
            try (list ?? []).map { value in
                let index = Int(value)
                if optional && index == -1 { return -1 }
                guard index >= 0 && index < count else {
                    throw FormatError.malformed(path: table.path, reason: "\(what) refers to tensor \(index) of \(count)")
                }
                return index
            }
        }
        let inputs = try indices(table.scalars(1, "inputs", as: Int32.self), "inputs", optional: false)
        let outputs = try indices(table.scalars(2, "outputs", as: Int32.self), "outputs", optional: false)
        let operatorTables = try table.tables(3, "operators")
        guard operatorTables.count <= Limits.maxGraphItems else {
            throw FormatError.malformed(path: table.path, reason: "\(operatorTables.count) operators exceed the limit of \(Limits.maxGraphItems)")
        }
        let operators = try operatorTables.map { op -> OperatorDescription in
            let opcode = Int(try op.scalar(0, default: UInt32(0)))
            guard opcode < opcodeCount else {
                throw FormatError.malformed(path: op.path, reason: "opcode index \(opcode) of \(opcodeCount)")
            }
            let optionsType = try op.scalar(3, default: UInt8(0))
            return OperatorDescription(
                opcodeIndex: opcode,
                inputs: try indices(op.scalars(1, "inputs", as: Int32.self), "\(op.path).inputs", optional: true),
                outputs: try indices(op.scalars(2, "outputs", as: Int32.self), "\(op.path).outputs", optional: true),
                intermediates: try indices(op.scalars(8, "intermediates", as: Int32.self), "\(op.path).intermediates", optional: true),
                builtinOptionsType: optionsType,
                builtinOptions: optionsType == 0 ? nil : try op.table(4, "builtin_options"),
                customOptions: try op.vector(5, "custom_options", elementSize: 1)?.raw
            )
        }
        return SubGraphDescription(name: try table.string(4, "name") ?? "", tensors: tensors,
                                   inputs: inputs, outputs: outputs, operators: operators)
    }

    private static func parseTensor(_ table: FlatTable, bufferCount: Int) throws -> TensorDescription {
        let rawType = try table.scalar(1, default: Int8(0))
        guard let type = TensorType(rawValue: rawType) else {
            throw FormatError.malformed(path: table.path, reason: "unknown tensor type \(rawType)")
        }
        let shape = (try table.scalars(0, "shape", as: Int32.self) ?? []).map(Int.init)
        let signature = (try table.scalars(7, "shape_signature", as: Int32.self))?.map(Int.init) ?? shape
        guard shape.count <= Limits.maxRank else {
            throw FormatError.malformed(path: table.path, reason: "rank \(shape.count) exceeds \(Limits.maxRank)")
        }
        guard shape.allSatisfy({ $0 >= 0 }) else {
            throw FormatError.malformed(path: table.path, reason: "negative dimension in shape \(shape)")
        }
        var elements = 1
        for d in shape {
            let (product, overflow) = elements.multipliedReportingOverflow(by: d)
            guard !overflow, product <= Limits.maxElements else {
                throw FormatError.malformed(path: table.path, reason: "shape \(shape) has too many elements")
            }
            elements = product
        }
        guard signature.count == shape.count, zip(signature, shape).allSatisfy({ $0 == $1 || $0 == -1 }) else {
            throw FormatError.malformed(path: table.path, reason: "shape_signature \(signature) does not fit shape \(shape)")
        }
        let buffer = Int(try table.scalar(2, default: UInt32(0)))
        guard buffer < max(bufferCount, 1) else {
            throw FormatError.malformed(path: table.path, reason: "buffer index \(buffer) of \(bufferCount)")
        }
        var quantization: Quantization?
        if let q = try table.table(4, "quantization") {
            let scale = try q.floats(2, "scale") ?? []
            let zeroPoint = try q.scalars(3, "zero_point", as: Int64.self) ?? []
            if !scale.isEmpty {
                let dimension = Int(try q.scalar(6, default: Int32(0)))
                guard zeroPoint.count == scale.count || zeroPoint.isEmpty else {
                    throw FormatError.malformed(path: q.path, reason: "\(scale.count) scales but \(zeroPoint.count) zero points")
                }
                if scale.count > 1 {
                    guard dimension >= 0, dimension < shape.count, shape[dimension] == scale.count else {
                        throw FormatError.malformed(path: q.path, reason: "\(scale.count) per-channel scales do not fit dimension \(dimension) of \(shape)")
                    }
                }
                quantization = Quantization(scale: scale, zeroPoint: zeroPoint.isEmpty ? Array(repeating: 0, count: scale.count) : zeroPoint,
                                            quantizedDimension: dimension,
                                            min: try q.floats(0, "min") ?? [], max: try q.floats(1, "max") ?? [])
            }
        }
        var sparsity: Sparsity?
        if let s = try table.table(6, "sparsity") {
            sparsity = try parseSparsity(s)
        }
        return TensorDescription(name: try table.string(3, "name") ?? "", type: type, shape: shape, shapeSignature: signature,
                                 buffer: buffer, quantization: quantization, isVariable: try table.bool(5), sparsity: sparsity)
    }

    private static func parseSparsity(_ table: FlatTable) throws -> Sparsity {
        func indexVector(_ typeField: Int, _ field: Int, _ name: String, in dim: FlatTable) throws -> [Int] {
            let kind = try dim.scalar(typeField, default: UInt8(0))
            guard kind != 0, let values = try dim.table(field, name) else { return [] }
            switch kind {
            case 1: return (try values.scalars(0, "values", as: Int32.self) ?? []).map(Int.init)
            case 2: return (try values.scalars(0, "values", as: UInt16.self) ?? []).map(Int.init)
            case 3: return (try values.scalars(0, "values", as: UInt8.self) ?? []).map(Int.init)
            default: throw FormatError.malformed(path: dim.path, reason: "unknown sparse index vector type \(kind)")
            }
        }
        let dims = try table.tables(2, "dim_metadata").map { dim -> SparseDimension in
            let rawFormat = try dim.scalar(0, default: Int8(0))
            guard let format = SparseDimension.Format(rawValue: rawFormat) else {
                throw FormatError.malformed(path: dim.path, reason: "unknown dimension format \(rawFormat)")
            }
            return SparseDimension(format: format, denseSize: Int(try dim.scalar(1, default: Int32(0))),
                                   arraySegments: try indexVector(2, 3, "array_segments", in: dim),
                                   arrayIndices: try indexVector(4, 5, "array_indices", in: dim))
        }
        return Sparsity(traversalOrder: (try table.scalars(0, "traversal_order", as: Int32.self) ?? []).map(Int.init),
                        blockMap: (try table.scalars(1, "block_map", as: Int32.self) ?? []).map(Int.init),
                        dimensions: dims)
    }
}
