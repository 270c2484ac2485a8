/// The character 4-gram model that spells out words outside the lexicon: interpolated Witten-Bell over the lexicon's
/// words weighted by their counts, each word with word boundaries (symbol 0) before and one after it. Below unigrams it
/// falls back to the uniform distribution over the lexicon's symbols (``InkLanguageModel/Letters/symbolCount``).
///
/// N-grams are keyed by their symbols packed 7 bits each (``key(_:)``), with the length in the top bits.
struct WittenBellNgramModel {
    /// Counts keyed by ``key(extending:with:)`` of a history and the symbol after it, and per history (``key(_:)``)
    /// its total count and the number of distinct symbols seen after it.
    private let counts: KeyTable<Double>
    private let histories: KeyTable<(total: Double, types: Double)>
    /// The probability of a symbol below unigrams: one over the number of symbols.
    private let uniform: Double
    private static let bits = InkLanguageModel.Letters.bitsPerSymbol

    /// The model of `lexicon`'s words, counted in `wordOrder` (lexicographic order keeps the counts of shared
    /// prefixes in cache; any order gives the same tables).
    init(_ lexicon: InkLanguageModel.Lexicon, order wordOrder: [Int32]) {
        uniform = 1.0 / Double(lexicon.letters.symbolCount)
        // Every count adds its words' weights in the order of the words and of their n-grams, whichever way it is
        // counted, so the sums are the same to the bit. Counts per 10^9 words become a corpus of about 10 million
        // words, the scale Witten-Bell's type counts are meaningful at.
        if lexicon.letters.symbolCount <= 32 {
            (counts, histories) = Self.countedDensely(lexicon, order: wordOrder)
        } else {
            (counts, histories) = Self.countedInTables(lexicon, order: wordOrder)
        }
    }

    /// Calls `body(history, historyLength, symbol, weight)` for every n-gram (orders 1...4) of every word in
    /// `wordOrder`, the history's symbols packed `bits` bits each, the word padded with boundaries.
    @inline(__always)
    private static func forEachNgram(_ lexicon: InkLanguageModel.Lexicon, order wordOrder: [Int32], bits: Int,
                                     _ body: (_ history: Int, _ historyLength: Int, _ symbol: Int, _ weight: Double) -> Void) {
        let order = InkLanguageModel.order
        var padded = [UInt8](repeating: 0, count: 64)
        for w in wordOrder.lazy.map(Int.init) where Int(lexicon.length[w]) + order < padded.count {
            let weight = lexicon.count[w] / 100
            let length = Int(lexicon.length[w]), first = Int(lexicon.start[w])
            for k in 0..<(order - 1) { padded[k] = 0 }
            for k in 0..<length { padded[order - 1 + k] = lexicon.symbols[first + k] }
            padded[order - 1 + length] = 0
            for end in (order - 1)...(order - 1 + length) {
                var history = 0
                for historyLength in 0..<order {
                    if historyLength > 0 { history |= Int(padded[end - historyLength]) << (bits * (historyLength - 1)) }
                    body(history, historyLength, Int(padded[end]), weight)
                }
            }
        }
    }

    /// The tables of a lexicon of at most 32 symbols: counted in arrays indexed by the symbols packed 5 bits each,
    /// one region per history length, which is cheaper than hashing every update; then the n-grams seen go into
    /// hash tables sized so they stay in cache while decoding.
    private static func countedDensely(_ lexicon: InkLanguageModel.Lexicon, order wordOrder: [Int32])
        -> (KeyTable<Double>, KeyTable<(total: Double, types: Double)>) {
        let order = InkLanguageModel.order
        let historyStart = (0...order).map { length in (0..<length).reduce(0) { $0 + 1 << (5 * $1) } }
        let ngramStart = historyStart.map { $0 << 5 }
        var ngramCounts = [Double](repeating: 0, count: ngramStart[order])
        var historyTotals = [Double](repeating: 0, count: historyStart[order])
        var historyTypes = [Double](repeating: 0, count: historyStart[order])
        ngramCounts.withUnsafeMutableBufferPointer { ngramCounts in
            historyTotals.withUnsafeMutableBufferPointer { historyTotals in
                historyTypes.withUnsafeMutableBufferPointer { historyTypes in
                    forEachNgram(lexicon, order: wordOrder, bits: 5) { history, historyLength, symbol, weight in
                        let n = ngramStart[historyLength] + (history << 5 | symbol)
                        let h = historyStart[historyLength] + history
                        if ngramCounts[n] == 0 { historyTypes[h] += 1 }
                        ngramCounts[n] += weight
                        historyTotals[h] += weight
                    }
                }
            }
        }
        /// The symbols packed 5 bits each, repacked 7 bits each.
        func repacked(_ packed: Int, length: Int) -> UInt32 {
            (0..<length).reduce(UInt32(0)) { $0 | UInt32(packed >> (5 * $1) & 31) << (UInt32(bits) * UInt32($1)) }
        }
        var counts = KeyTable<Double>(capacity: 1 << 17, empty: 0)
        var histories = KeyTable<(total: Double, types: Double)>(capacity: 1 << 14, empty: (0, 0))
        for length in 0..<order {
            for index in 0..<(historyStart[length + 1] - historyStart[length]) {
                let total = historyTotals[historyStart[length] + index]
                guard total > 0 else { continue }
                let historyKey = UInt32(length) << 28 | repacked(index, length: length)
                histories.update(historyKey, default: (total, historyTypes[historyStart[length] + index])) { _ in }
                for symbol in 0..<32 {
                    let count = ngramCounts[ngramStart[length] + (index << 5 | symbol)]
                    if count > 0 { counts.update(key(extending: historyKey, with: UInt8(symbol)), default: count) { _ in } }
                }
            }
        }
        return (counts, histories)
    }

    /// The tables of a lexicon of more symbols, counted in the hash tables directly (dense arrays of 7-bit keys
    /// would take gigabytes).
    private static func countedInTables(_ lexicon: InkLanguageModel.Lexicon, order wordOrder: [Int32])
        -> (KeyTable<Double>, KeyTable<(total: Double, types: Double)>) {
        var counts = KeyTable<Double>(capacity: 1 << 17, empty: 0)
        var histories = KeyTable<(total: Double, types: Double)>(capacity: 1 << 14, empty: (0, 0))
        forEachNgram(lexicon, order: wordOrder, bits: bits) { history, historyLength, symbol, weight in
            let historyKey = UInt32(historyLength) << 28 | UInt32(history)
            let isNew = counts.update(key(extending: historyKey, with: UInt8(symbol)), default: 0) { $0 += weight }
            histories.update(historyKey, default: (0, 0)) { entry in
                if isNew { entry.types += 1 }
                entry.total += weight
            }
        }
        return (counts, histories)
    }

    /// A history of up to `order - 1` symbols (oldest first) packed 7 bits each, with its length in the top bits.
    @inline(__always) static func key(_ history: ArraySlice<UInt8>) -> UInt32 {
        var packed: UInt32 = 0
        for symbol in history { packed = packed << UInt32(bits) | UInt32(symbol) }
        return UInt32(history.count) << 28 | packed
    }

    /// ``key(_:)`` of `history` followed by `symbol`, from the history's key.
    @inline(__always) static func key(extending historyKey: UInt32, with symbol: UInt8) -> UInt32 {
        ((historyKey >> 28) + 1) << 28 | (historyKey & 0x0FFF_FFFF) << UInt32(bits) | UInt32(symbol)
    }

    /// P(symbol | history) under the interpolated Witten-Bell 4-gram (the uniform distribution below unigrams).
    func probability(_ symbol: UInt8, history: ArraySlice<UInt8>) -> Double {
        var p = uniform
        for length in 0...min(history.count, InkLanguageModel.order - 1) {
            let h = history.suffix(length)
            let hk = Self.key(h)
            guard let history = histories[hk] else { break }
            let count = counts[Self.key(extending: hk, with: symbol)] ?? 0
            p = (count + history.types * p) / (history.total + history.types)
        }
        return p
    }

    /// ``probability(_:history:)`` of a full history given as ``InkLanguageModel/State/recentSymbols``.
    func probability(_ symbol: UInt8, recentSymbols: UInt32) -> Double {
        var p = uniform
        for length in 0...(InkLanguageModel.order - 1) {
            // The key of the history's last `length` symbols: its low 7·length bits, with the length on top.
            let hk = UInt32(length) << 28 | recentSymbols & ((1 << (UInt32(Self.bits) * UInt32(length))) - 1)
            guard let history = histories[hk] else { break }
            let count = counts[Self.key(extending: hk, with: symbol)] ?? 0
            p = (count + history.types * p) / (history.total + history.types)
        }
        return p
    }
}
