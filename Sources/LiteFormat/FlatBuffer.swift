/// A bounds-checked, zero-copy view of FlatBuffer bytes.
///
/// Every read checks its range against the buffer and throws ``FormatError`` instead of trapping, so a
/// corrupt or hostile file can never read outside the bytes it came in. The view does not own its memory:
/// whoever made it (``ModelBytes``) keeps the bytes alive.
///
/// The reader follows only the structure the caller asks for (a schema is a tree), so a cyclic offset can
/// at worst make two fields share bytes; it cannot make the reader loop. Vector lengths are checked against
/// the bytes that remain before anything is allocated from them.
public struct FlatBuffer: @unchecked Sendable {
    /// The buffer's bytes (not owned).
    public let bytes: UnsafeRawBufferPointer

    /// A view of `bytes`, which the caller keeps alive.
    public init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The buffer's size in bytes.
    public var count: Int { bytes.count }

    /// Throws unless `count` bytes starting at `offset` lie inside the buffer.
    @inlinable
    public func check(_ offset: Int, _ count: Int, _ what: @autoclosure () -> String) throws {
        guard offset >= 0, count >= 0, offset <= bytes.count, count <= bytes.count - offset else {
            throw FormatError.outOfBounds(what: what(), offset: offset, length: count, fileSize: bytes.count)
        }
    }

    /// The little-endian integer at `offset`; throws ``FormatError/outOfBounds(what:offset:length:fileSize:)``, naming
    /// `what`, when it does not lie inside the buffer.
    @inlinable
    public func load<T: FixedWidthInteger>(_ type: T.Type, at offset: Int, _ what: @autoclosure () -> String) throws -> T {
        try check(offset, MemoryLayout<T>.size, what())
        return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// The little-endian float32 at `offset`, bounds-checked as ``load(_:at:_:)``.
    @inlinable
    public func loadFloat(at offset: Int, _ what: @autoclosure () -> String) throws -> Float {
        Float(bitPattern: try load(UInt32.self, at: offset, what()))
    }

    /// The little-endian float64 at `offset`, bounds-checked as ``load(_:at:_:)``.
    @inlinable
    public func loadDouble(at offset: Int, _ what: @autoclosure () -> String) throws -> Double {
        Double(bitPattern: try load(UInt64.self, at: offset, what()))
    }

    /// The root table: a little-endian `uoffset` at byte 0.
    /// The string whose length prefix is at `position`.
    public func string(at position: Int, _ what: String) throws -> String {
        let vector = try FlatVector(buffer: self, position: position, elementSize: 1, path: what)
        return String(decoding: vector.raw, as: UTF8.self)
    }

    /// The root table, which the `uoffset` at byte 0 points to, with its vtable validated.
    public func rootTable() throws -> FlatTable {
        let offset = Int(try load(UInt32.self, at: 0, "root offset"))
        return try FlatTable(buffer: self, position: offset, path: "root")
    }

    /// The four-byte file identifier after the root offset (`"TFL3"` for TensorFlow Lite models).
    public var fileIdentifier: String? {
        guard bytes.count >= 8 else { return nil }
        let id = (4..<8).map { bytes[$0] }
        guard id.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) else { return nil }
        return String(decoding: id, as: UTF8.self)
    }
}

/// One FlatBuffer table: a position in the buffer plus its validated vtable.
public struct FlatTable: @unchecked Sendable {
    /// The buffer the table is in.
    public let buffer: FlatBuffer
    /// The table's byte position in the buffer.
    public let position: Int
    /// Where this table sits in the schema tree, for error messages ("subgraphs[0].tensors[3]").
    public let path: String
    let vtable: Int
    let vtableSize: Int
    let inlineSize: Int

    init(buffer: FlatBuffer, position: Int, path: String) throws {
        let soffset = Int(try buffer.load(Int32.self, at: position, "\(path): table header"))
        let vtable = position - soffset
        let vtableSize = Int(try buffer.load(UInt16.self, at: vtable, "\(path): vtable size"))
        let inlineSize = Int(try buffer.load(UInt16.self, at: vtable + 2, "\(path): table size"))
        guard vtableSize >= 4, vtableSize % 2 == 0 else {
            throw FormatError.malformed(path: path, reason: "vtable size \(vtableSize) is not an even number >= 4")
        }
        try buffer.check(vtable, vtableSize, "\(path): vtable")
        try buffer.check(position, max(inlineSize, 4), "\(path): table body")
        self.buffer = buffer
        self.position = position
        self.path = path
        self.vtable = vtable
        self.vtableSize = vtableSize
        self.inlineSize = inlineSize
    }

    /// The absolute position of field `index`, or nil when the field is absent (default value).
    func fieldPosition(_ index: Int, size: Int) throws -> Int? {
        let slot = 4 + 2 * index
        guard slot + 2 <= vtableSize else { return nil }
        let offset = Int(try buffer.load(UInt16.self, at: vtable + slot, "\(path): vtable slot \(index)"))
        if offset == 0 { return nil }
        guard offset + size <= inlineSize else {
            throw FormatError.malformed(path: path, reason: "field \(index) at \(offset)+\(size) lies outside the table's \(inlineSize) bytes")
        }
        return position + offset
    }

    /// Whether field `index` is present (absent fields take the schema's default).
    public func has(_ index: Int) throws -> Bool {
        try fieldPosition(index, size: 0) != nil
    }

    /// Integer field `index`, or `value` when the field is absent.
    public func scalar<T: FixedWidthInteger>(_ index: Int, default value: T) throws -> T {
        guard let at = try fieldPosition(index, size: MemoryLayout<T>.size) else { return value }
        return try buffer.load(T.self, at: at, "\(path).field\(index)")
    }

    /// Float field `index`, or `value` when the field is absent.
    public func float(_ index: Int, default value: Float) throws -> Float {
        guard let at = try fieldPosition(index, size: 4) else { return value }
        return try buffer.loadFloat(at: at, "\(path).field\(index)")
    }

    /// Bool field `index` (any non-zero byte is true), or `value` when the field is absent.
    public func bool(_ index: Int, default value: Bool = false) throws -> Bool {
        try scalar(index, default: UInt8(value ? 1 : 0)) != 0
    }

    /// Follows the `uoffset` stored in field `index`.
    func indirect(_ index: Int) throws -> Int? {
        guard let at = try fieldPosition(index, size: 4) else { return nil }
        let target = at + Int(try buffer.load(UInt32.self, at: at, "\(path).field\(index) offset"))
        try buffer.check(target, 4, "\(path).field\(index) target")
        return target
    }

    /// The table in field `index` (named `name` in error paths), or nil when the field is absent.
    public func table(_ index: Int, _ name: String) throws -> FlatTable? {
        guard let target = try indirect(index) else { return nil }
        return try FlatTable(buffer: buffer, position: target, path: "\(path).\(name)")
    }

    /// The vector in field `index` with elements of `elementSize` bytes, its length checked against the buffer, or
    /// nil when the field is absent.
    public func vector(_ index: Int, _ name: String, elementSize: Int) throws -> FlatVector? {
        guard let target = try indirect(index) else { return nil }
        return try FlatVector(buffer: buffer, position: target, elementSize: elementSize, path: "\(path).\(name)")
    }

    /// The string in field `index` (decoded as UTF-8), or nil when the field is absent.
    public func string(_ index: Int, _ name: String) throws -> String? {
        guard let vector = try vector(index, name, elementSize: 1) else { return nil }
        return String(decoding: vector.raw, as: UTF8.self)
    }

    /// The vector of little-endian integers in field `index`, or nil when the field is absent.
    public func scalars<T: FixedWidthInteger>(_ index: Int, _ name: String, as type: T.Type) throws -> [T]? {
        guard let vector = try vector(index, name, elementSize: MemoryLayout<T>.size) else { return nil }
        return (0..<vector.count).map { T(littleEndian: vector.raw.loadUnaligned(fromByteOffset: $0 * MemoryLayout<T>.size, as: T.self)) }
    }

    /// The vector of float32 values in field `index`, or nil when the field is absent.
    public func floats(_ index: Int, _ name: String) throws -> [Float]? {
        try scalars(index, name, as: UInt32.self)?.map(Float.init(bitPattern:))
    }

    /// A vector of tables: each element is a `uoffset` relative to its own slot.
    public func tables(_ index: Int, _ name: String) throws -> [FlatTable] {
        guard let vector = try vector(index, name, elementSize: 4) else { return [] }
        return try (0..<vector.count).map { i in
            let slot = vector.start + 4 * i
            let target = slot + Int(try buffer.load(UInt32.self, at: slot, "\(path).\(name)[\(i)] offset"))
            return try FlatTable(buffer: buffer, position: target, path: "\(path).\(name)[\(i)]")
        }
    }
}

/// A FlatBuffer vector: a 32-bit length followed by the elements.
public struct FlatVector: @unchecked Sendable {
    /// The number of elements.
    public let count: Int
    /// Byte position of the first element.
    public let start: Int
    /// The element bytes, in place in the file.
    public let raw: UnsafeRawBufferPointer

    init(buffer: FlatBuffer, position: Int, elementSize: Int, path: String) throws {
        let count = Int(try buffer.load(UInt32.self, at: position, "\(path): vector length"))
        let (bytes, overflow) = count.multipliedReportingOverflow(by: elementSize)
        guard !overflow else {
            throw FormatError.malformed(path: path, reason: "vector length \(count) overflows")
        }
        try buffer.check(position + 4, bytes, "\(path): \(count) elements of \(elementSize) bytes")
        self.count = count
        self.start = position + 4
        self.raw = UnsafeRawBufferPointer(rebasing: buffer.bytes[(position + 4)..<(position + 4 + bytes)])
    }
}
