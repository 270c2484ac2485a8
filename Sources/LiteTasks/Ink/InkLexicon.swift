import Foundation

extension InkLanguageModel {
    /// The longest word a lexicon may hold (the trie is built depth-first, one call per letter).
    static let maximumWordLength = 255

    /// The lexicon's words in one buffer: word w is `symbols[start[w] ..< start[w] + length[w]]`, in file order.
    /// One allocation for all of them: an array per word would make sorting and the trie build retain and release
    /// an array per word. `letters` gives the symbols of its letters.
    struct Lexicon {
        var symbols: [UInt8] = []
        var start: [Int32] = []
        var length: [UInt8] = []
        var count: [Double] = []
        var isName: [Bool] = []
        var letters: Letters

        /// The lines of `bytes`; `language` (a BCP-47 language subtag) decides the case pairs of its letters,
        /// and `extraLetters` (the letters a network can write) get symbols as the words' letters do.
        init(parsing bytes: UnsafeRawBufferPointer, path: String, language: String? = nil, extraLetters: [Unicode.Scalar] = []) throws {
            letters = Letters(language: language)
            defer { renumberLetters() }
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
            let tab = UInt8(ascii: "\t"), newline = UInt8(ascii: "\n")
            symbols.reserveCapacity(bytes.count)
            let lines = bytes.count / 10 + 16
            start.reserveCapacity(lines)
            length.reserveCapacity(lines)
            count.reserveCapacity(lines)
            isName.reserveCapacity(lines)
            /// The offset of the first `byte` in `from ..< to`, or `to`.
            func find(_ byte: UInt8, from: Int, to: Int) -> Int {
                guard from < to, let found = memchr(base + from, Int32(byte), to - from) else { return to }
                return UnsafeRawPointer(found) - base
            }
            let tooLong = " holds a word longer than \(InkLanguageModel.maximumWordLength) characters"
            var lineNumber = 0
            var lineStart = 0
            while lineStart < bytes.count {
                let lineEnd = find(newline, from: lineStart, to: bytes.count)
                defer { lineStart = lineEnd + 1 }
                if lineEnd == lineStart { continue }
                lineNumber += 1
                func malformed(_ why: String = " is not `word<TAB>count[<TAB>N]`") -> TaskError {
                    TaskError.model("language model \(path) line \(lineNumber)\(why)")
                }
                let wordEnd = find(tab, from: lineStart, to: lineEnd)
                guard wordEnd < lineEnd else { throw malformed() }
                let countEnd = find(tab, from: wordEnd + 1, to: lineEnd)
                let isName = countEnd < lineEnd
                if isName {
                    guard lineEnd - countEnd == 2, bytes[countEnd + 1] == UInt8(ascii: "N") else { throw malformed() }
                }
                // count / 100 is the n-gram weight, which must stay above zero; the cap keeps every sum of counts
                // finite (a file cannot hold 10^293 lines), so no probability is inf / inf.
                guard let count = Self.number(UnsafeRawBufferPointer(rebasing: bytes[(wordEnd + 1)..<countEnd])),
                      count / 100 > 0, count <= 1e15 else { throw malformed() }
                // A letter is at most four bytes: a word of more bytes than 4 times the limit is too long whatever it holds.
                guard wordEnd - lineStart <= 4 * InkLanguageModel.maximumWordLength else { throw malformed(tooLong) }
                let first = symbols.count
                func append(_ character: Unicode.Scalar) throws {
                    if let known = letters.symbol(of: character) {
                        symbols.append(known.symbol)
                        return
                    }
                    let symbol: UInt8?
                    do { symbol = try letters.add(character)?.symbol } catch { throw malformed(": the lexicon has \(Letters.Exhausted.message)") }
                    guard let symbol else { throw malformed(": a word may hold only letters and '") }
                    symbols.append(symbol)
                }
                let word = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<wordEnd])
                if word.allSatisfy({ $0 < 0x80 }) {
                    for byte in word { try append(Unicode.Scalar(byte)) }
                } else {
                    guard let text = String(validating: word, as: UTF8.self) else { throw malformed(": the word is not UTF-8 text") }
                    for character in text.unicodeScalars { try append(character) }
                }
                guard symbols.count - first <= InkLanguageModel.maximumWordLength else { throw malformed(tooLong) }
                guard symbols.count > first else { continue }
                start.append(Int32(first))
                length.append(UInt8(symbols.count - first))
                self.count.append(count)
                self.isName.append(isName)
            }
            for letter in extraLetters {
                do { _ = try letters.add(letter) } catch {
                    throw TaskError.model("language model \(path) and the network's letters together have \(Letters.Exhausted.message)")
                }
            }
        }

        /// Gives the letters beyond ASCII their symbols in scalar order (``Letters/sort()``), in the words too.
        private mutating func renumberLetters() {
            let renumber = letters.sort()
            guard renumber.indices.contains(where: { renumber[$0] != $0 }) else { return }
            for i in symbols.indices { symbols[i] = renumber[Int(symbols[i])] }
        }

        /// The number in `field`: up to 15 digits read directly (exact, as `Double(String)` reads them), anything
        /// else by `Double(String)`.
        static func number(_ field: UnsafeRawBufferPointer) -> Double? {
            if (1...15).contains(field.count) {
                var value: UInt64 = 0
                for byte in field {
                    let digit = byte &- UInt8(ascii: "0")
                    guard digit < 10 else { return Double(String(decoding: field, as: UTF8.self)) }
                    value = value * 10 + UInt64(digit)
                }
                return Double(value)
            }
            return Double(String(decoding: field, as: UTF8.self))
        }

        var wordCount: Int { start.count }

        /// The word indices in lexicographic order of their symbols, a word before the words it begins (the
        /// order of `[UInt8].lexicographicallyPrecedes`); equal words keep their file order. Most comparisons are
        /// decided by the first 9 symbols packed in a number (7 bits each, 0 past the word's end, below every
        /// symbol); only words that share those are compared further.
        func sortedOrder() -> [Int32] {
            let prefixLength = 9
            var order = (0..<Int32(wordCount)).map { $0 }
            let prefixes = (0..<wordCount).map { w in
                (0..<prefixLength).reduce(UInt64(0)) { key, i in
                    key << UInt64(Letters.bitsPerSymbol) | UInt64(i < Int(length[w]) ? symbols[Int(start[w]) + i] : 0)
                }
            }
            symbols.withUnsafeBufferPointer { symbols in
                start.withUnsafeBufferPointer { start in
                    length.withUnsafeBufferPointer { length in
                        prefixes.withUnsafeBufferPointer { prefixes in
                            order.sort { a, b in
                                let ka = prefixes[Int(a)], kb = prefixes[Int(b)]
                                if ka != kb { return ka < kb }
                                let la = Int(length[Int(a)]), lb = Int(length[Int(b)])
                                let shared = min(la, lb)
                                if shared > prefixLength {
                                    let c = memcmp(symbols.baseAddress! + Int(start[Int(a)]) + prefixLength,
                                                   symbols.baseAddress! + Int(start[Int(b)]) + prefixLength, shared - prefixLength)
                                    if c != 0 { return c < 0 }
                                }
                                return la < lb
                            }
                        }
                    }
                }
            }
            return order
        }
    }
}
