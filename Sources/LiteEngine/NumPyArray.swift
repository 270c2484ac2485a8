import Foundation
import LiteFormat

/// A NumPy `.npy` array (format versions 1-3, little-endian, C order): the exchange format of
/// `vision-cli run` and of the golden tests.
public struct NumPyArray: Equatable, Sendable {
    /// The element type, from the header's `descr`.
    public var type: TensorType
    /// The array's shape (empty for a scalar).
    public var shape: [Int]
    /// Raw little-endian element bytes.
    public var bytes: [UInt8]

    /// An array of `type` and `shape` over raw little-endian element bytes (not checked against the shape).
    public init(type: TensorType, shape: [Int], bytes: [UInt8]) {
        self.type = type
        self.shape = shape
        self.bytes = bytes
    }

    /// The number of elements of ``shape``.
    public var elementCount: Int { shape.reduce(1, *) }

    static let descriptors: [(String, TensorType)] = [
        ("<f4", .float32), ("<f2", .float16), ("<f8", .float64), ("<i4", .int32), ("<i8", .int64), ("<i2", .int16),
        ("|u1", .uint8), ("|i1", .int8), ("|b1", .bool), ("<u2", .uint16), ("<u4", .uint32), ("<u8", .uint64), ("<c8", .complex64),
    ]

    /// Why bytes or a file could not be read as a `.npy` array.
    public struct ParseError: Error, CustomStringConvertible {
        /// What is wrong, such as `not a readable .npy file: ...`.
        public let description: String
    }

    /// Parses `.npy` file bytes; throws ``ParseError`` for a bad magic string, header, unsupported dtype, Fortran order
    /// or a data size that does not match the shape.
    public init(data: [UInt8]) throws {
        func fail(_ message: String) -> ParseError { ParseError(description: "not a readable .npy file: \(message)") }
        guard data.count >= 10, data[0] == 0x93, Array(data[1..<6]) == Array("NUMPY".utf8) else { throw fail("bad magic") }
        let major = data[6]
        let headerLength: Int, headerStart: Int
        switch major {
        case 1: headerLength = Int(data[8]) | Int(data[9]) << 8; headerStart = 10
        case 2, 3:
            guard data.count >= 12 else { throw fail("truncated header") }
            headerLength = (0..<4).reduce(0) { $0 | Int(data[8 + $1]) << (8 * $1) }; headerStart = 12
        default: throw fail("format version \(major)")
        }
        guard headerLength <= data.count - headerStart else { throw fail("header of \(headerLength) bytes runs past the file") }
        let header = String(decoding: data[headerStart..<(headerStart + headerLength)], as: UTF8.self)
        func value(_ key: String) -> Substring? {
            guard let range = header.range(of: "'\(key)':") else { return nil }
            return header[range.upperBound...].drop(while: { $0 == " " })
        }
        guard let descr = value("descr"), let quoteEnd = descr.dropFirst().firstIndex(of: "'") else { throw fail("no descr") }
        let code = String(descr[descr.index(after: descr.startIndex)..<quoteEnd])
        guard let type = Self.descriptors.first(where: { $0.0 == code || ($0.0.hasPrefix("|") && "<" + $0.0.dropFirst() == code) })?.1 else {
            throw fail("unsupported dtype \(code)")
        }
        if let fortran = value("fortran_order"), fortran.hasPrefix("True") { throw fail("Fortran order is not supported") }
        guard let shapeText = value("shape"), shapeText.first == "(", let close = shapeText.firstIndex(of: ")") else { throw fail("no shape") }
        let dims = try shapeText[shapeText.index(after: shapeText.startIndex)..<close].split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .map { text -> Int in
                guard let d = Int(text), d >= 0 else { throw fail("bad dimension \(text)") }
                return d
            }
        var count = 1
        for d in dims {
            let (product, overflow) = count.multipliedReportingOverflow(by: d)
            guard !overflow, product <= TFLiteModel.Limits.maxElements else { throw fail("shape \(dims) too large") }
            count = product
        }
        let byteCount = count * type.byteSize!
        let start = headerStart + headerLength
        guard data.count - start == byteCount else { throw fail("\(data.count - start) data bytes for shape \(dims) of \(type) (\(byteCount) expected)") }
        self.init(type: type, shape: dims, bytes: Array(data[start...]))
    }

    /// Reads a `.npy` file; throws ``ParseError`` when it cannot be read or parsed.
    public init(contentsOf path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw ParseError(description: "\(path): cannot read") }
        try self.init(data: [UInt8](data))
    }

    /// The array as .npy bytes (format version 1.0).
    public func encoded() -> [UInt8] {
        let descr = Self.descriptors.first { $0.1 == type }?.0 ?? "|u1"
        let shapeText = shape.count == 1 ? "(\(shape[0]),)" : "(" + shape.map(String.init).joined(separator: ", ") + ")"
        var header = "{'descr': '\(descr)', 'fortran_order': False, 'shape': \(shapeText), }"
        let unpadded = 10 + header.utf8.count + 1
        header += String(repeating: " ", count: (64 - unpadded % 64) % 64) + "\n"
        let length = header.utf8.count
        return [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(length & 0xff), UInt8(length >> 8)] + Array(header.utf8) + bytes
    }

    /// The bytes read as float32 values (meaningful for `float32` arrays).
    public func floats() -> [Float] {
        bytes.withUnsafeBytes { raw in (0..<raw.count / 4).map { raw.loadUnaligned(fromByteOffset: 4 * $0, as: Float.self) } }
    }
}

extension Tensor {
    /// The tensor's current contents as a NumPy array.
    public func numpy() -> NumPyArray {
        let bytes = data.map { Array(UnsafeRawBufferPointer(start: $0, count: byteCount)) } ?? []
        return NumPyArray(type: type, shape: shape, bytes: bytes)
    }
}
