import Foundation

/// A character bigram model of a language written without spaces (Chinese, Japanese), read from an ARPA file made by
/// tools/ink/make_cjk_language_model.py: how likely a character is after another, for ranking the readings of a
/// line of handwriting and for `preContext`.
///
/// The file's words are `<s> c1 ... cn </s>`, so text of several words is scored as words one after another without
/// knowing where they end: P(b | a) = P(b | a within a word) + P(</s> | a) · P(b | <s>), each term an ARPA backoff
/// probability (a listed bigram's own, or a's backoff weight times b's unigram). A character the file does not
/// list gets the smallest unigram probability it has, and the character after it is scored as at the start.
struct CharacterBigramModel: Sendable {
    /// The largest file accepted, and the most n-grams of each order it may declare (the shipped models have at most
    /// 8,000 unigrams and 360,000 bigrams).
    static let maximumBytes = 64 << 20
    static let maximumNGrams = 4_000_000
    /// The smallest log10 probability or backoff weight accepted: ARPA's -99 for "never".
    static let smallestLog10: Float = -99
    static let begin = "<s>", end = "</s>"

    /// Symbol ids: `ids[symbol]`, with ``beginID`` and ``endID`` among them.
    private let ids: [String: Int32]
    /// Natural-log unigram probability and backoff weight by id.
    private let unigram: [Float]
    private let backoff: [Float]
    /// Natural-log bigram probabilities keyed by `a << 32 | b`.
    private let bigram: [Int64: Float]
    private let beginID: Int32, endID: Int32
    /// The probability of a character the file does not list.
    private let unknown: Float

    /// The model in the ARPA text `text`; `path` names it in errors.
    init(arpa text: String, path: String) throws {
        var text = text
        self = try text.withUTF8 { try Self(arpa: $0, path: path) }
    }

    /// The model in ARPA text given as UTF-8 bytes. Lines are split and trimmed of ASCII white space, and fields
    /// split at tabs, byte by byte: the shipped models have about 100,000 lines, which String and Foundation
    /// methods took half a second to split. Numbers are read by `Float(_:)` (no locale, no leading blanks).
    private init(arpa bytes: UnsafeBufferPointer<UInt8>, path: String) throws {
        func malformed(_ line: Int, _ why: String) -> TaskError { TaskError.model("language model \(path) line \(line): \(why)") }
        let ln10 = Float(M_LN10)
        var ids: [String: Int32] = [:], unigram: [Float] = [], backoff: [Float] = [], bigram: [Int64: Float] = [:]
        var declared: [Int: Int] = [:]
        var section = 0  // 0: header; 1, 2: the n-gram sections; 3: after \end\
        let tab = UInt8(ascii: "\t"), space = UInt8(ascii: " ")
        func isBlank(_ byte: UInt8) -> Bool { byte == space || byte == tab || byte == 13 || byte == 10 || byte == 11 || byte == 12 }
        func string(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
        /// The number that is exactly the bytes of `range`, or nil.
        func number(_ range: Range<Int>) -> Float? { Float(string(range)) }
        /// The fields of `line` between tabs.
        func fields(_ line: Range<Int>) -> [Range<Int>] {
            var out: [Range<Int>] = [], start = line.lowerBound
            for i in line where bytes[i] == tab {
                out.append(start..<i)
                start = i + 1
            }
            out.append(start..<line.upperBound)
            return out
        }
        func equals(_ range: Range<Int>, _ literal: StaticString) -> Bool {
            range.count == literal.utf8CodeUnitCount && zip(range, UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)).allSatisfy { bytes[$0] == $1 }
        }

        var lineStart = 0, lineNumber = 0
        while lineStart < bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count, bytes[lineEnd] != 10 { lineEnd += 1 }
            defer { lineStart = lineEnd + 1 }
            lineNumber += 1
            var first = lineStart, last = lineEnd
            while first < last, isBlank(bytes[first]) { first += 1 }
            while last > first, isBlank(bytes[last - 1]) { last -= 1 }
            let line = first..<last
            if line.isEmpty { continue }
            if equals(line, "\\data\\") { section = 0; continue }
            if equals(line, "\\1-grams:") { section = 1; continue }
            if equals(line, "\\2-grams:") { section = 2; continue }
            if equals(line, "\\end\\") { section = 3; continue }
            if bytes[first] == UInt8(ascii: "\\") {
                throw malformed(lineNumber, "section \(string(line)) is not one of \\data\\, \\1-grams:, \\2-grams:, \\end\\")
            }
            let parts = fields(line)
            switch section {
            case 0:
                // ngram N=COUNT
                let text = string(line)
                guard text.hasPrefix("ngram "), let equals = text.firstIndex(of: "="),
                      let order = Int(text[text.index(text.startIndex, offsetBy: 6)..<equals]),
                      let count = Int(text[text.index(after: equals)...]), (1...2).contains(order),
                      (0...Self.maximumNGrams).contains(count) else {
                    throw malformed(lineNumber, "expected `ngram 1=N` or `ngram 2=N` with N at most \(Self.maximumNGrams)")
                }
                declared[order] = count
            case 1:
                guard parts.count == 2 || parts.count == 3, let p = number(parts[0]), p <= 0, p >= Self.smallestLog10,
                      !parts[1].isEmpty, !parts[1].contains(where: { bytes[$0] == space }) else {
                    throw malformed(lineNumber, "a unigram is `log10p<TAB>symbol[<TAB>log10backoff]`")
                }
                let weight = parts.count == 3 ? number(parts[2]) : 0
                guard let weight, weight <= 0, weight >= Self.smallestLog10 else {
                    throw malformed(lineNumber, "backoff weight \(string(parts[2]))")
                }
                let symbol = string(parts[1])
                guard ids[symbol] == nil else { throw malformed(lineNumber, "\(symbol) is listed twice") }
                guard unigram.count < declared[1, default: 0] else { throw malformed(lineNumber, "more unigrams than the header's \(declared[1, default: 0])") }
                ids[symbol] = Int32(unigram.count)
                unigram.append(p * ln10)
                backoff.append(weight * ln10)
            case 2:
                let spaces = parts.count == 2 ? parts[1].filter { bytes[$0] == space } : []
                guard spaces.count == 1, let p = number(parts[0]), p <= 0, p >= Self.smallestLog10 else {
                    throw malformed(lineNumber, "a bigram is `log10p<TAB>a b`")
                }
                let pair = parts[1]
                guard let a = ids[string(pair.lowerBound..<spaces[0])], let b = ids[string((spaces[0] + 1)..<pair.upperBound)] else {
                    throw malformed(lineNumber, "the bigram \(string(pair)) names a symbol that is not a unigram")
                }
                guard bigram.count < declared[2, default: 0] else { throw malformed(lineNumber, "more bigrams than the header's \(declared[2, default: 0])") }
                bigram[Int64(a) << 32 | Int64(b)] = p * ln10
            default:
                throw malformed(lineNumber, "text after \\end\\")
            }
        }
        guard section == 3 else { throw TaskError.model("language model \(path) does not end with \\end\\") }
        guard let beginID = ids[Self.begin], let endID = ids[Self.end] else {
            throw TaskError.model("language model \(path) has no \(Self.begin) or no \(Self.end)")
        }
        let listed = unigram.enumerated().filter { $0.offset != Int(beginID) && $0.offset != Int(endID) }.map(\.element)
        guard let smallest = listed.min() else { throw TaskError.model("language model \(path) lists no characters") }
        (self.ids, self.unigram, self.backoff, self.bigram) = (ids, unigram, backoff, bigram)
        (self.beginID, self.endID, self.unknown) = (beginID, endID, smallest)
    }

    /// The model in the ARPA file at `path`.
    init(path: String) throws {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let size = attributes?[.size] as? Int else { throw TaskError.notFound(path) }
        guard size <= Self.maximumBytes else { throw TaskError.model("language model \(path) is \(size) bytes, over \(Self.maximumBytes)") }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw TaskError.model("language model \(path) is not UTF-8 text")
        }
        try self.init(arpa: text, path: path)
    }

    /// The characters the model lists (not the word boundaries).
    var characters: [String] { ids.keys.filter { $0 != Self.begin && $0 != Self.end }.sorted() }

    /// Natural-log P(b | a) of the backoff model, for symbol ids.
    private func backedOff(_ b: Int32, after a: Int32) -> Float {
        bigram[Int64(a) << 32 | Int64(b)] ?? backoff[Int(a)] + unigram[Int(b)]
    }

    /// Natural-log probability of `character` after `previous` (nil: at the start of the text), over both ways the
    /// text can go on: within the word, or after the word ends.
    func logProbability(of character: String, after previous: String?) -> Float {
        guard let b = ids[character], b != beginID, b != endID else { return unknown }
        let a = previous.flatMap { ids[$0] }.flatMap { $0 == beginID || $0 == endID ? nil : $0 }
        guard let a else { return backedOff(b, after: beginID) }
        let within = backedOff(b, after: a)
        let across = backedOff(endID, after: a) + backedOff(b, after: beginID)
        // log(e^x + e^y), stable.
        let high = max(within, across)
        return high + log1p(exp(min(within, across) - high))
    }
}
