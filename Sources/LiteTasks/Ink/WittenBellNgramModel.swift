/// The character 4-gram model that spells out words outside the lexicon: interpolated Witten-Bell over the lexicon's
/// words weighted by their counts, each word with word boundaries (symbol 0) before and one after it. Below unigrams it
/// falls back to the uniform distribution over ``InkLanguageModel/symbolCount`` symbols.
struct WittenBellNgramModel {
    /// Counts keyed by ``key(extending:with:)`` of a history and the symbol after it, and per history (``key(_:)``)
    /// its total count and the number of distinct symbols seen after it.
    private let counts: KeyTable<Double>
    private let histories: KeyTable<(total: Double, types: Double)>

    /// The model of `lexicon`'s words, counted in `wordOrder` (lexicographic order keeps the counts of shared
    /// prefixes in cache; any order gives the same tables).
    init(_ lexicon: InkLanguageModel.Lexicon, order wordOrder: [Int32]) {
        // Counted in arrays indexed by the packed symbols (5 bits each), one region per history length, which is
        // cheaper than hashing every update; then the n-grams seen go into hash tables sized so they stay in cache
        // while decoding. Counts per 10^9 words become a corpus of about 10 million words, the scale Witten-Bell's
        // type counts are meaningful at. Every count adds its words' weights in the same order as a hash table
        // filled word by word would, so the sums are the same to the bit.
        let historyStart = (0...InkLanguageModel.order).map { length in (0..<length).reduce(0) { $0 + 1 << (5 * $1) } }
        let ngramStart = historyStart.map { $0 << 5 }
        var ngramCounts = [Double](repeating: 0, count: ngramStart[InkLanguageModel.order])
        var historyTotals = [Double](repeating: 0, count: historyStart[InkLanguageModel.order])
        var historyTypes = [Double](repeating: 0, count: historyStart[InkLanguageModel.order])
        var padded = [UInt8](repeating: 0, count: 64)
        ngramCounts.withUnsafeMutableBufferPointer { ngramCounts in
            historyTotals.withUnsafeMutableBufferPointer { historyTotals in
                historyTypes.withUnsafeMutableBufferPointer { historyTypes in
                    for w in wordOrder.lazy.map(Int.init) where Int(lexicon.length[w]) + InkLanguageModel.order < padded.count {
                        let weight = lexicon.count[w] / 100
                        let length = Int(lexicon.length[w]), first = Int(lexicon.start[w])
                        for k in 0..<(InkLanguageModel.order - 1) { padded[k] = 0 }
                        for k in 0..<length { padded[InkLanguageModel.order - 1 + k] = lexicon.symbols[first + k] }
                        padded[InkLanguageModel.order - 1 + length] = 0
                        for end in (InkLanguageModel.order - 1)...(InkLanguageModel.order - 1 + length) {
                            var history = 0
                            for historyLength in 0..<InkLanguageModel.order {
                                if historyLength > 0 { history |= Int(padded[end - historyLength]) << (5 * (historyLength - 1)) }
                                let n = ngramStart[historyLength] + (history << 5 | Int(padded[end]))
                                let h = historyStart[historyLength] + history
                                if ngramCounts[n] == 0 { historyTypes[h] += 1 }
                                ngramCounts[n] += weight
                                historyTotals[h] += weight
                            }
                        }
                    }
                }
            }
        }
        var counts = KeyTable<Double>(capacity: 1 << 17, empty: 0)
        var histories = KeyTable<(total: Double, types: Double)>(capacity: 1 << 14, empty: (0, 0))
        for length in 0..<InkLanguageModel.order {
            for index in 0..<(historyStart[length + 1] - historyStart[length]) {
                let total = historyTotals[historyStart[length] + index]
                guard total > 0 else { continue }
                histories.update(UInt32(length) << 28 | UInt32(index), default: (total, historyTypes[historyStart[length] + index])) { _ in }
                for symbol in 0..<32 {
                    let count = ngramCounts[ngramStart[length] + (index << 5 | symbol)]
                    if count > 0 { counts.update(UInt32(length + 1) << 28 | UInt32(index << 5 | symbol), default: count) { _ in } }
                }
            }
        }
        self.counts = counts
        self.histories = histories
    }

    /// A history of up to `order - 1` symbols (oldest first) packed 5 bits each, with its length in the top bits.
    @inline(__always) static func key(_ history: ArraySlice<UInt8>) -> UInt32 {
        var packed: UInt32 = 0
        for symbol in history { packed = packed << 5 | UInt32(symbol) }
        return UInt32(history.count) << 28 | packed
    }

    /// ``key(_:)`` of `history` followed by `symbol`, from the history's key.
    @inline(__always) static func key(extending historyKey: UInt32, with symbol: UInt8) -> UInt32 {
        ((historyKey >> 28) + 1) << 28 | (historyKey & 0x0FFF_FFFF) << 5 | UInt32(symbol)
    }

    /// P(symbol | history) under the interpolated Witten-Bell 4-gram (the uniform distribution below unigrams).
    func probability(_ symbol: UInt8, history: ArraySlice<UInt8>) -> Double {
        var p = 1.0 / Double(InkLanguageModel.symbolCount)
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
        var p = 1.0 / Double(InkLanguageModel.symbolCount)
        for length in 0...(InkLanguageModel.order - 1) {
            // The key of the history's last `length` symbols: its low 5·length bits, with the length on top.
            let hk = UInt32(length) << 28 | recentSymbols & ((1 << (5 * UInt32(length))) - 1)
            guard let history = histories[hk] else { break }
            let count = counts[Self.key(extending: hk, with: symbol)] ?? 0
            p = (count + history.types * p) / (history.total + history.types)
        }
        return p
    }
}
