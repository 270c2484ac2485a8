/// A bounds-checked reader for FlexBuffers, the self-describing format of custom-op options.
///
/// Layout (flatbuffers/flexbuffers.h): the last byte is the root's byte width, the one before it the root's
/// packed type (`type << 2 | bit width`), and the root value sits just before those two bytes. Maps and
/// vectors store their length one element-width before their first element; map keys are a separate
/// vector reached through an offset stored three widths before the values.
public struct FlexValue: @unchecked Sendable {
    /// The value's FlexBuffer type (`flexbuffers::Type`); the raw values are the format's.
    public enum Kind: UInt8, Sendable {
        /// Scalars, strings, keys, indirect scalars, maps and untyped vectors, in the format's order (0...10).
        case null = 0, int, uint, float, key, string, indirectInt, indirectUInt, indirectFloat, map, vector
        /// Typed vectors of ints, uints, floats and keys (11...14).
        case vectorInt, vectorUInt, vectorFloat, vectorKey
        /// Blobs, bools and typed vectors of bools.
        case blob = 25, bool = 26, vectorBool = 36
    }

    let buffer: FlatBuffer
    /// Where the value (or, for offset types, the offset to it) is stored.
    let position: Int
    /// Width of the slot at `position`.
    let parentWidth: Int
    let rawType: UInt8
    /// Element width of the pointed-to data for offset types.
    let byteWidth: Int

    /// The value's type, or nil for a type this reader does not know.
    public var kind: Kind? { Kind(rawValue: rawType) }

    /// Parses the root of a FlexBuffer.
    public init(root bytes: UnsafeRawBufferPointer) throws {
        let buffer = FlatBuffer(bytes: bytes)
        guard bytes.count >= 3 else { throw FormatError.malformed(path: "flexbuffer", reason: "only \(bytes.count) bytes") }
        let width = Int(bytes[bytes.count - 1])
        let packed = bytes[bytes.count - 2]
        guard [1, 2, 4, 8].contains(width) else {
            throw FormatError.malformed(path: "flexbuffer", reason: "root byte width \(width)")
        }
        try self.init(buffer: buffer, position: bytes.count - 2 - width, parentWidth: width, packed: packed)
    }

    init(buffer: FlatBuffer, position: Int, parentWidth: Int, packed: UInt8) throws {
        try buffer.check(position, parentWidth, "flexbuffer value")
        self.buffer = buffer
        self.position = position
        self.parentWidth = parentWidth
        self.rawType = packed >> 2
        self.byteWidth = 1 << Int(packed & 3)
    }

    func readUInt(at offset: Int, width: Int) throws -> UInt64 {
        switch width {
        case 1: return UInt64(try buffer.load(UInt8.self, at: offset, "flexbuffer"))
        case 2: return UInt64(try buffer.load(UInt16.self, at: offset, "flexbuffer"))
        case 4: return UInt64(try buffer.load(UInt32.self, at: offset, "flexbuffer"))
        case 8: return try buffer.load(UInt64.self, at: offset, "flexbuffer")
        default: throw FormatError.malformed(path: "flexbuffer", reason: "byte width \(width)")
        }
    }

    func readInt(at offset: Int, width: Int) throws -> Int64 {
        switch width {
        case 1: return Int64(try buffer.load(Int8.self, at: offset, "flexbuffer"))
        case 2: return Int64(try buffer.load(Int16.self, at: offset, "flexbuffer"))
        case 4: return Int64(try buffer.load(Int32.self, at: offset, "flexbuffer"))
        case 8: return try buffer.load(Int64.self, at: offset, "flexbuffer")
        default: throw FormatError.malformed(path: "flexbuffer", reason: "byte width \(width)")
        }
    }

    func readFloat(at offset: Int, width: Int) throws -> Double {
        switch width {
        case 4: return Double(try buffer.loadFloat(at: offset, "flexbuffer"))
        case 8: return try buffer.loadDouble(at: offset, "flexbuffer")
        default: throw FormatError.malformed(path: "flexbuffer", reason: "float width \(width)")
        }
    }

    /// Follows the offset stored in this slot (offsets point backwards).
    func target() throws -> Int {
        let offset = try readUInt(at: position, width: parentWidth)
        guard offset <= UInt64(position) else {
            throw FormatError.malformed(path: "flexbuffer", reason: "offset \(offset) at \(position) points before the buffer")
        }
        return position - Int(offset)
    }

    /// The value as an integer: ints, uints and bools (direct or indirect), and floats with an integral value; nil for
    /// other kinds or an unreadable value.
    public var intValue: Int64? {
        switch kind {
        case .int: return try? readInt(at: position, width: parentWidth)
        case .uint, .bool: return (try? readUInt(at: position, width: parentWidth)).map { Int64(truncatingIfNeeded: $0) }
        case .float: return (try? readFloat(at: position, width: parentWidth)).flatMap { Int64(exactly: $0.rounded(.towardZero)) }
        case .indirectInt: return try? readInt(at: target(), width: byteWidth)
        case .indirectUInt: return (try? readUInt(at: target(), width: byteWidth)).map { Int64(truncatingIfNeeded: $0) }
        default: return nil
        }
    }

    /// The value as a double: floats, and ints, uints and bools converted; nil for other kinds or an unreadable value.
    public var doubleValue: Double? {
        switch kind {
        case .float: return try? readFloat(at: position, width: parentWidth)
        case .indirectFloat: return try? readFloat(at: target(), width: byteWidth)
        case .int, .uint, .bool, .indirectInt, .indirectUInt: return intValue.map(Double.init)
        default: return nil
        }
    }

    /// Whether ``intValue`` is non-zero; nil when the value is not a number or a bool.
    public var boolValue: Bool? { intValue.map { $0 != 0 } }

    /// A string or key value, decoded as UTF-8; nil for other kinds or an unreadable value.
    public var stringValue: String? {
        guard kind == .string || kind == .key, let start = try? target() else { return nil }
        if kind == .key {
            var end = start
            while end < buffer.count, buffer.bytes[end] != 0 { end += 1 }
            guard end < buffer.count else { return nil }
            return String(decoding: UnsafeRawBufferPointer(rebasing: buffer.bytes[start..<end]), as: UTF8.self)
        }
        guard let length = try? readUInt(at: start - byteWidth, width: byteWidth),
              let count = Int(exactly: length), (try? buffer.check(start, count, "flexbuffer string")) != nil
        else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: buffer.bytes[start..<(start + count)]), as: UTF8.self)
    }

    /// The elements of a vector of numbers as integers: typed vectors of ints or uints (of any length, or the fixed
    /// lengths 2, 3 and 4), and untyped vectors whose elements all read as integers (``intValue``); nil for other
    /// kinds, an unreadable vector or a non-integral element.
    public var integerVector: [Int64]? {
        guard let start = try? target() else { return nil }
        let w = byteWidth
        // Fixed-length typed vectors (types 16...24): int, uint, float triples for lengths 2, 3 and 4, no length field.
        if (16...24).contains(rawType) {
            let count = Int(rawType - 16) / 3 + 2, element = Int(rawType - 16) % 3
            guard element < 2, (try? buffer.check(start, count * w, "flexbuffer vector")) != nil else { return nil }
            return try? (0..<count).map { element == 0 ? try readInt(at: start + $0 * w, width: w) : Int64(bitPattern: try readUInt(at: start + $0 * w, width: w)) }
        }
        guard let length = try? readUInt(at: start - w, width: w), length <= UInt64(buffer.count) else { return nil }
        let count = Int(length)
        guard (try? buffer.check(start, count * w, "flexbuffer vector")) != nil else { return nil }
        switch kind {
        case .vectorInt: return try? (0..<count).map { try readInt(at: start + $0 * w, width: w) }
        case .vectorUInt: return try? (0..<count).map { Int64(bitPattern: try readUInt(at: start + $0 * w, width: w)) }
        case .vector:
            // Untyped: each element's packed type follows the elements, one byte each.
            guard (try? buffer.check(start + count * w, count, "flexbuffer vector types")) != nil else { return nil }
            var values: [Int64] = []
            for i in 0..<count {
                guard let element = try? FlexValue(buffer: buffer, position: start + i * w, parentWidth: w, packed: buffer.bytes[start + count * w + i]),
                      let value = element.intValue, element.doubleValue == Double(value) else { return nil }
                values.append(value)
            }
            return values
        default: return nil
        }
    }

    /// The entries of a map, in key order, with their values.
    public func mapEntries() throws -> [(key: String, value: FlexValue)] {
        guard kind == .map else { throw FormatError.malformed(path: "flexbuffer", reason: "root is not a map (type \(rawType))") }
        let values = try target()
        let w = byteWidth
        let count = Int(try readUInt(at: values - w, width: w))
        guard count <= buffer.count else { throw FormatError.malformed(path: "flexbuffer", reason: "map of \(count) entries") }
        let keysSlot = values - 3 * w
        let keysOffset = try readUInt(at: keysSlot, width: w)
        guard keysOffset <= UInt64(keysSlot) else { throw FormatError.malformed(path: "flexbuffer", reason: "bad key vector offset") }
        let keys = keysSlot - Int(keysOffset)
        let keyWidth = Int(try readUInt(at: values - 2 * w, width: w))
        guard [1, 2, 4, 8].contains(keyWidth) else { throw FormatError.malformed(path: "flexbuffer", reason: "key width \(keyWidth)") }
        try buffer.check(values, count * w + count, "flexbuffer map values")
        try buffer.check(keys, count * keyWidth, "flexbuffer map keys")
        return try (0..<count).map { i in
            let key = try FlexValue(buffer: buffer, position: keys + i * keyWidth, parentWidth: keyWidth, packed: FlexValue.Kind.key.rawValue << 2)
            let packed = buffer.bytes[values + count * w + i]
            let value = try FlexValue(buffer: buffer, position: values + i * w, parentWidth: w, packed: packed)
            guard let name = key.stringValue else { throw FormatError.malformed(path: "flexbuffer", reason: "map key \(i) is not a string") }
            return (name, value)
        }
    }

    /// The map as a dictionary, for option lookups.
    public func map() throws -> [String: FlexValue] {
        Dictionary(try mapEntries().map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }
}
