extension InkLanguageModel {
    /// The symbols the lexicon trie and the character n-gram model read: 0 is the word boundary, 1...26 are a...z
    /// and 27 the apostrophe (fixed, so that English has the symbols and probabilities it always had), and 28 on
    /// the other letters, lower case, in order of their Unicode scalar values. Upper and lower case share a symbol.
    ///
    /// A letter's other case is Unicode's (`Character.uppercased()`, `lowercased()`) where that is one scalar ("ẞ"
    /// and "ß" are a pair, as "ẞ" lower-cases to "ß"), except that Turkish and Azerbaijani pair i with İ and ı with I.
    struct Letters {
        /// The most symbols, word boundary included: 7 bits each in the packed n-gram keys.
        static let maximumSymbols = 127
        static let bitsPerSymbol = 7
        static let apostrophe: UInt8 = 27
        /// The entry of each ASCII character: its symbol, plus `upperFlag` when upper case; 0 for other characters.
        private var ascii: [UInt8]
        /// The same for the letters beyond ASCII.
        private var other: [UInt32: UInt8] = [:]
        private static let upperFlag: UInt8 = 0x80
        /// The lower-case letter of each symbol 28 and up (index symbol - 28).
        private(set) var nonASCII: [Unicode.Scalar] = []
        /// Whether i and I are different letters (ı and I, i and İ), as in Turkish and Azerbaijani.
        let dotlessI: Bool

        /// The ASCII letters and the apostrophe, with the case pairs of `language` (a BCP-47 language subtag).
        init(language: String?) {
            dotlessI = ["tr", "az"].contains(language?.lowercased() ?? "")
            ascii = [UInt8](repeating: 0, count: 128)
            for (k, letter) in (UInt8(ascii: "a")...UInt8(ascii: "z")).enumerated() {
                ascii[Int(letter)] = UInt8(k + 1)
                ascii[Int(letter) - 32] = UInt8(k + 1) | Self.upperFlag
            }
            ascii[Int(UInt8(ascii: "'"))] = Self.apostrophe
            if dotlessI {
                // ı is a letter of its own, whose upper case is I; İ is i's.
                nonASCII = ["\u{131}"]
                other[0x131] = 28
                ascii[Int(UInt8(ascii: "I"))] = 28 | Self.upperFlag
                other[0x130] = ascii[Int(UInt8(ascii: "i"))] | Self.upperFlag
            }
        }

        /// The number of symbols, word boundary included.
        var symbolCount: Int { 28 + nonASCII.count }

        /// The symbol of a letter or the apostrophe, and whether it is upper case; nil for other characters.
        @inline(__always) func symbol(of character: Unicode.Scalar) -> (symbol: UInt8, upper: Bool)? {
            let entry = character.isASCII ? ascii[Int(character.value)] : other[character.value] ?? 0
            guard entry != 0 else { return nil }
            return (entry & ~Self.upperFlag, entry & Self.upperFlag != 0)
        }

        /// The lower-case letter of `letter` (itself when it is lower case or has no single-scalar lower case).
        func lowerCase(of letter: Unicode.Scalar) -> Unicode.Scalar {
            if dotlessI, letter == "I" { return "\u{131}" }
            if dotlessI, letter == "\u{130}" { return "i" }
            let lower = String(letter).lowercased().unicodeScalars
            return lower.count == 1 ? lower.first! : letter
        }

        /// The upper-case letter of lower-case `letter`, if it has one of one scalar. "ß" upper-cases to "SS" by
        /// Unicode, but "ẞ" lower-cases to "ß": the pair is taken from that side.
        func upperCase(of letter: Unicode.Scalar) -> Unicode.Scalar? {
            if dotlessI, letter == "i" { return "\u{130}" }
            if dotlessI, letter == "\u{131}" { return "I" }
            if letter == "\u{DF}" { return "\u{1E9E}" }
            let upper = String(letter).uppercased().unicodeScalars
            guard upper.count == 1, let scalar = upper.first, scalar != letter else { return nil }
            return scalar
        }

        /// The symbol of `character` (a letter in either case, or the apostrophe), added when it is a letter not
        /// yet known; nil when it is not a letter. Throws when there is no symbol left for a new letter.
        mutating func add(_ character: Unicode.Scalar) throws -> (symbol: UInt8, upper: Bool)? {
            if let known = symbol(of: character) { return known }
            guard Character(character).isLetter else { return nil }
            let lower = lowerCase(of: character)
            if let known = symbol(of: lower) {
                // An upper-case form that is not the lower case's own upper case (a title-case letter): the
                // lower case's symbol.
                set(character, known.symbol | Self.upperFlag)
                return (known.symbol, true)
            }
            guard symbolCount < Self.maximumSymbols else { throw Exhausted() }
            let new = UInt8(symbolCount)
            nonASCII.append(lower)
            set(lower, new)
            if let upper = upperCase(of: lower), symbol(of: upper) == nil { set(upper, new | Self.upperFlag) }
            if character != lower, character != upperCase(of: lower) { set(character, new | Self.upperFlag) }
            return (new, character != lower)
        }

        /// Thrown by ``add(_:)`` when every symbol is taken.
        struct Exhausted: Error {
            static let message = "more than \(Letters.maximumSymbols - 1) distinct letters (a-z and the apostrophe included), the most a language model reads"
        }

        private mutating func set(_ character: Unicode.Scalar, _ entry: UInt8) {
            if character.isASCII { ascii[Int(character.value)] = entry } else { other[character.value] = entry }
        }

        /// Renumbers the letters beyond ASCII in order of their scalar values, so that the symbols do not depend on
        /// the order the letters were met in; returns the old symbol → new symbol table.
        mutating func sort() -> [UInt8] {
            let order = nonASCII.indices.sorted { nonASCII[$0].value < nonASCII[$1].value }
            var renumber = (0..<UInt8(symbolCount)).map { $0 }
            for (new, old) in order.enumerated() { renumber[28 + old] = UInt8(28 + new) }
            guard renumber.indices.contains(where: { renumber[$0] != $0 }) else { return renumber }
            for (key, entry) in other { other[key] = renumber[Int(entry & ~Self.upperFlag)] | (entry & Self.upperFlag) }
            for (k, entry) in ascii.enumerated() where entry & ~Self.upperFlag >= 28 {
                ascii[k] = renumber[Int(entry & ~Self.upperFlag)] | (entry & Self.upperFlag)
            }
            nonASCII = order.map { nonASCII[$0] }
            return renumber
        }
    }
}
