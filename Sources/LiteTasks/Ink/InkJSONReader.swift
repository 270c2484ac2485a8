import Foundation

/// The byte-level reader behind ``InkJSON``: a JSON scanner that builds strokes as it meets them and skips every
/// other value without keeping it.
struct InkJSONReader {
    typealias Failure = InkJSON.Failure

    let bytes: UnsafeBufferPointer<UInt8>
    let maximumPoints: Int
    let maximumStrokes: Int
    /// The next byte to read.
    private var at = 0
    /// Arrays and objects open around the reader.
    private var depth = 0
    private var points = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maximumPoints: Int, maximumStrokes: Int) {
        self.bytes = bytes
        self.maximumPoints = maximumPoints
        self.maximumStrokes = maximumStrokes
    }

    // MARK: The ink

    /// The top-level object, its `"strokes"` and `"label"`, then nothing but whitespace.
    mutating func document() throws(Failure) -> InkJSON.Document {
        skipSpace()
        guard peek() == UInt8(ascii: "{") else {
            try skipValue()
            try end()
            throw shape("the document is not a JSON object")
        }
        var strokes: [Stroke]?
        var label: String?
        try members { (reader: inout InkJSONReader, key: String) throws(Failure) in
            switch key {
            case "strokes":
                reader.skipSpace()
                if reader.peek() == UInt8(ascii: "[") {
                    strokes = try reader.strokes()
                } else {
                    try reader.skipValue()
                    strokes = nil
                }
            case "label":
                reader.skipSpace()
                label = reader.peek() == UInt8(ascii: "\"") ? try reader.string() : nil
                if label == nil { try reader.skipValue() }
            default:
                try reader.skipValue()
            }
        }
        try end()
        guard let strokes else { throw shape("the document has no \"strokes\" array") }
        return InkJSON.Document(ink: Ink(strokes: strokes), label: label)
    }

    /// Checks that the whole input is one JSON value, keeping nothing.
    mutating func wholeDocumentIsJSON() throws(Failure) {
        try skipValue()
        try end()
    }

    private mutating func strokes() throws(Failure) -> [Stroke] {
        var strokes: [Stroke] = []
        try elements { (reader: inout InkJSONReader, s: Int) throws(Failure) in
            guard s < reader.maximumStrokes else {
                throw Failure(kind: .tooLarge, message: "the ink has more than \(reader.maximumStrokes) strokes")
            }
            reader.skipSpace()
            guard reader.peek() == UInt8(ascii: "[") else { throw reader.shape("stroke \(s) is not an array of points") }
            var points: [StrokePoint] = []
            try reader.elements { (reader: inout InkJSONReader, p: Int) throws(Failure) in
                guard reader.points < reader.maximumPoints else {
                    throw Failure(kind: .tooLarge, message: "the ink has more than \(reader.maximumPoints) points")
                }
                reader.points += 1
                points.append(try reader.point(stroke: s, index: p))
            }
            strokes.append(Stroke(points: points))
        }
        return strokes
    }

    /// A number, a string, or another value's JSON text, for messages.
    private enum Scalar {
        case number(Double)
        case null
        case other(String)

        var text: String {
            switch self {
            case .number(let value): "\(value)"
            case .null: "null"
            case .other(let text): text
            }
        }
    }

    /// `{"x": .., "y": .., "t": ..}` (other members ignored) or `[x, y, t, ...]` (elements after t ignored).
    private mutating func point(stroke s: Int, index p: Int) throws(Failure) -> StrokePoint {
        var x: Scalar?, y: Scalar?, t: Scalar?
        skipSpace()
        switch peek() {
        case UInt8(ascii: "{"):
            try members { (reader: inout InkJSONReader, key: String) throws(Failure) in
                switch key {
                case "x": x = try reader.scalar()
                case "y": y = try reader.scalar()
                case "t": t = try reader.scalar()
                default: try reader.skipValue()
                }
            }
        case UInt8(ascii: "["):
            try elements { (reader: inout InkJSONReader, k: Int) throws(Failure) in
                switch k {
                case 0: x = try reader.scalar()
                case 1: y = try reader.scalar()
                case 2: t = try reader.scalar()
                default: try reader.skipValue()
                }
            }
        default:
            try skipValue()
        }
        guard case .number(let xValue) = x, case .number(let yValue) = y else {
            throw shape("stroke \(s) point \(p) is neither {\"x\", \"y\", \"t\"} nor [x, y, t]")
        }
        func coordinate(_ value: Double) throws(Failure) -> Float {
            guard value.magnitude <= Double(Float.greatestFiniteMagnitude) else {
                throw shape("stroke \(s) point \(p) has a coordinate (\(value)) beyond a 32-bit float's range")
            }
            return Float(value)
        }
        var time: Int64?
        switch t {
        case nil, .null?: time = nil
        case .number(let value)?:
            guard let milliseconds = InkJSON.milliseconds(value) else {
                throw shape("stroke \(s) point \(p) has a time (\(value)) that is not a number of milliseconds")
            }
            time = milliseconds
        case let other?:
            throw shape("stroke \(s) point \(p) has a time (\(other.text)) that is not a number of milliseconds")
        }
        return StrokePoint(x: try coordinate(xValue), y: try coordinate(yValue), t: time)
    }

    /// A number, null, a string's contents, or the skipped JSON text of anything else.
    private mutating func scalar() throws(Failure) -> Scalar {
        skipSpace()
        switch peek() {
        case UInt8(ascii: "\""): return .other(try string())
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-")?, (UInt8(ascii: "0")...UInt8(ascii: "9"))?: return .number(try number())
        default:
            let start = at
            try skipValue()
            return .other(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<min(at, start + 40)]), as: UTF8.self))
        }
    }

    // MARK: JSON

    /// Calls `body` with each key of the object at the reader, which must read that key's value.
    private mutating func members(_ body: (inout InkJSONReader, String) throws(Failure) -> Void) throws(Failure) {
        try open(UInt8(ascii: "{"))
        skipSpace()
        if peek() == UInt8(ascii: "}") {
            at += 1
            depth -= 1
            return
        }
        while true {
            skipSpace()
            guard peek() == UInt8(ascii: "\"") else { throw syntax("expected a string key") }
            let key = try string()
            skipSpace()
            try expect(UInt8(ascii: ":"))
            try body(&self, key)
            skipSpace()
            if peek() == UInt8(ascii: ",") {
                at += 1
            } else {
                try expect(UInt8(ascii: "}"))
                depth -= 1
                return
            }
        }
    }

    /// Calls `body` with the index of each element of the array at the reader, which must read that element.
    private mutating func elements(_ body: (inout InkJSONReader, Int) throws(Failure) -> Void) throws(Failure) {
        try open(UInt8(ascii: "["))
        skipSpace()
        if peek() == UInt8(ascii: "]") {
            at += 1
            depth -= 1
            return
        }
        var index = 0
        while true {
            try body(&self, index)
            index += 1
            skipSpace()
            if peek() == UInt8(ascii: ",") {
                at += 1
            } else {
                try expect(UInt8(ascii: "]"))
                depth -= 1
                return
            }
        }
    }

    private mutating func open(_ bracket: UInt8) throws(Failure) {
        skipSpace()
        try expect(bracket)
        depth += 1
        guard depth <= InkJSON.maximumDepth else { throw syntax("arrays and objects nest more than \(InkJSON.maximumDepth) deep") }
    }

    /// Reads one value of any kind without keeping it.
    private mutating func skipValue() throws(Failure) {
        skipSpace()
        switch peek() {
        case UInt8(ascii: "{"): try members { (reader: inout InkJSONReader, _: String) throws(Failure) in try reader.skipValue() }
        case UInt8(ascii: "["): try elements { (reader: inout InkJSONReader, _: Int) throws(Failure) in try reader.skipValue() }
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-")?, (UInt8(ascii: "0")...UInt8(ascii: "9"))?: _ = try numberText()
        case nil: throw syntax("unexpected end of input")
        default: throw syntax("unexpected character")
        }
    }

    /// Only whitespace is left.
    private mutating func end() throws(Failure) {
        skipSpace()
        guard at == bytes.count else { throw syntax("unexpected text after the document") }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - at >= count,
              (0..<count).allSatisfy({ bytes[at + $0] == word.utf8Start[$0] }) else { throw syntax("unexpected character") }
        at += count
    }

    private mutating func number() throws(Failure) -> Double {
        let range = try numberText()
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        guard let value = Double(text) else { throw syntax("bad number") }
        return value
    }

    /// The bytes of a number by JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func numberText() throws(Failure) -> Range<Int> {
        let start = at
        if peek() == UInt8(ascii: "-") { at += 1 }
        if peek() == UInt8(ascii: "0") {
            at += 1
        } else {
            guard digits() > 0 else { throw syntax("bad number") }
        }
        if peek() == UInt8(ascii: ".") {
            at += 1
            guard digits() > 0 else { throw syntax("bad number") }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            at += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { at += 1 }
            guard digits() > 0 else { throw syntax("bad number") }
        }
        return start..<at
    }

    private mutating func digits() -> Int {
        let start = at
        while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { at += 1 }
        return at - start
    }

    /// A string's contents, escapes decoded (an unpaired surrogate becomes U+FFFD).
    private mutating func string() throws(Failure) -> String {
        let start = at + 1
        try skipString()
        let body = UnsafeBufferPointer(rebasing: bytes[start..<(at - 1)])
        guard body.contains(UInt8(ascii: "\\")) else { return String(decoding: body, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        var plain: [UInt8] = []
        var i = 0
        func flush() {
            scalars.append(contentsOf: String(decoding: plain, as: UTF8.self).unicodeScalars)
            plain.removeAll(keepingCapacity: true)
        }
        func hex(_ at: Int) -> UInt32 {
            (0..<4).reduce(0) { value, k in
                let c = body[at + k]
                let digit: UInt8 = c <= UInt8(ascii: "9") ? c - UInt8(ascii: "0") : (c | 0x20) - UInt8(ascii: "a") + 10
                return value << 4 | UInt32(digit)
            }
        }
        while i < body.count {
            guard body[i] == UInt8(ascii: "\\") else {
                plain.append(body[i])
                i += 1
                continue
            }
            let escape = body[i + 1]
            i += 2
            switch escape {
            case UInt8(ascii: "b"): plain.append(8)
            case UInt8(ascii: "f"): plain.append(12)
            case UInt8(ascii: "n"): plain.append(10)
            case UInt8(ascii: "r"): plain.append(13)
            case UInt8(ascii: "t"): plain.append(9)
            case UInt8(ascii: "u"):
                flush()
                var code = hex(i)
                i += 4
                if (0xD800..<0xDC00).contains(code), i + 6 <= body.count, body[i] == UInt8(ascii: "\\"), body[i + 1] == UInt8(ascii: "u") {
                    let low = hex(i + 2)
                    if (0xDC00..<0xE000).contains(low) {
                        code = 0x10000 + (code - 0xD800) << 10 + (low - 0xDC00)
                        i += 6
                    }
                }
                scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
            default: plain.append(escape)  // \" \\ \/
            }
        }
        flush()
        return String(scalars)
    }

    /// Moves past a string, checking its escapes and that it has no raw control characters.
    private mutating func skipString() throws(Failure) {
        try expect(UInt8(ascii: "\""))
        while true {
            guard let byte = peek() else { throw syntax("unterminated string") }
            at += 1
            switch byte {
            case UInt8(ascii: "\""): return
            case UInt8(ascii: "\\"):
                guard let escape = peek() else { throw syntax("unterminated string") }
                at += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    break
                case UInt8(ascii: "u"):
                    guard bytes.count - at >= 4, (0..<4).allSatisfy({ bytes[at + $0].isHexDigit }) else { throw syntax("bad \\u escape") }
                    at += 4
                default: throw syntax("bad escape")
                }
            case 0..<0x20: throw syntax("control character in a string")
            default: break
            }
        }
    }

    private func peek() -> UInt8? { at < bytes.count ? bytes[at] : nil }

    private mutating func skipSpace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { at += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws(Failure) {
        guard peek() == byte else {
            throw syntax(peek() == nil ? "unexpected end of input" : "expected '\(Character(Unicode.Scalar(byte)))'")
        }
        at += 1
    }

    private func syntax(_ problem: String) -> Failure {
        Failure(kind: .notJSON, message: "not JSON: \(problem) at byte \(at)")
    }

    private func shape(_ problem: String) -> Failure { Failure(kind: .notAnInk, message: problem) }
}

private extension UInt8 {
    var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self | 0x20)
    }
}
