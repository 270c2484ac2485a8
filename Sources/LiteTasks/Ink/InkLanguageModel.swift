import Foundation

/// The English language model of the "en" recognizer: a word list with frequencies (models/ink-en.lexicon.tsv,
/// made by tools/ink/make_lexicon.py) seen two ways at once.
///
/// A word is either in the lexicon (probability `inVocabularyWeight`, then its relative frequency) or spelled out
/// by a character 4-gram model trained on the same frequency-weighted words (Witten-Bell interpolation); the two
/// are added per word prefix, so an unknown name pays the out-of-vocabulary cost once, not per letter. Letters are
/// scored in lower case; a small case model gives "word", "Word" and "WORD" their probabilities, and the first
/// letter's case depends on the word: names (lexicon words the dictionary writes only capitalized, marked `N`) are
/// written "Friday" far more often than "friday", other words the other way round. Characters other
/// than letters and the apostrophe (digits, punctuation, symbols) end the current word and cost a flat probability
/// by kind (`symbolLogProbability(_:)`).
public final class InkLanguageModel: @unchecked Sendable {
    /// Letter symbols: 1...26 are a...z, 27 the apostrophe; 0 is the word boundary.
    static let symbolCount = 28
    static let order = 4
    /// The probability that a word is a lexicon word rather than spelled out by the character model.
    public static let inVocabularyWeight = 0.95
    /// P(a word's first letter is upper case): for names, for the other lexicon words, and for words spelled out
    /// by the character model (mostly names: UNIPEN's writers were given many). With P(an upper-case letter after
    /// lower-case ones) and P(either case) once a word mixes them, chosen on the validation writers
    /// (tools/ink/evaluate.py; the case model is word-independent below the first letter).
    static let capitalizedName = 0.9
    static let capitalizedWord = 0.15
    static let capitalizedUnknown = 0.4
    static let upperAfterLower = 0.005
    static let mixedCase = 0.2
    /// Flat log-probabilities of characters outside words: digits, common punctuation, and the rare symbols
    /// (# $ % & * + / < = > @ [ \ ] ^ _ ` { | } ~), which a handwritten "a" or "k" must not easily become.
    public static let digitLogProbability = log(1.0 / 50)
    /// The log-probability of a common punctuation mark.
    public static let punctuationLogProbability = log(1.0 / 100)
    /// The log-probability of a rare symbol.
    public static let rareSymbolLogProbability = log(1.0 / 3000)
    /// Log P(a space after a joiner): hyphens, slashes and a time's colon are written between their neighbours.
    public static let spaceAfterJoinerLogProbability = log(1.0 / 100)

    static func symbolLogProbability(_ byte: UInt8) -> Double {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digitLogProbability
        case UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: "\""), UInt8(ascii: "!"), UInt8(ascii: "?"), UInt8(ascii: "-"),
             UInt8(ascii: ":"), UInt8(ascii: ";"), UInt8(ascii: "("), UInt8(ascii: ")"):
            return punctuationLogProbability
        default: return rareSymbolLogProbability
        }
    }

    /// Log P(an ink that is one character on its own is `byte`): a lone glyph is a letter far more often than the
    /// word model's odds for one-letter words ("s" ~ e^-7) say. Letters 70% (lower case 60:40 upper), digits 20%,
    /// the common punctuation 8%, the rest 2%: the mix the "en" model's synthetic single characters are drawn from.
    static func loneCharacterLogProbability(_ byte: UInt8) -> Double {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return log(0.7 * 0.6 / 26)
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return log(0.7 * 0.4 / 26)
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return log(0.2 / 10)
        default: return symbolLogProbability(byte) == punctuationLogProbability ? log(0.08 / 10) : log(0.02 / 22)
        }
    }

    // The trie, flattened: node n has children edgeSymbol/edgeTarget[childStart[n] ..< childStart[n] + childCount[n]].
    private var childStart: [Int32] = []
    private var childCount: [UInt8] = []
    private var edgeSymbol: [UInt8] = []
    private var edgeTarget: [Int32] = []
    /// Total count of the words under the node (those ending at it included), and of those ending at it; and
    /// the same counts of names only.
    private var mass: [Double] = []
    private var ends: [Double] = []
    private var nameMass: [Double] = []
    private var nameEnds: [Double] = []
    /// Character n-gram tables keyed by ``key(_:)`` of a history (totals and distinct followers) or history+symbol.
    private var ngramCounts = KeyTable<Double>(capacity: 16, empty: 0)
    private var histories = KeyTable<(total: Double, types: Double)>(capacity: 16, empty: (0, 0))
    /// The number of words in the lexicon.
    public let wordCount: Int

    private static let cacheLock = NSLock()
    nonisolated(unsafe) private static var cache: [String: InkLanguageModel] = [:]

    /// The model of the lexicon file at `path`, loaded once per process.
    public static func shared(path: String) throws -> InkLanguageModel {
        try shared(key: path) { try InkLanguageModel(path: path) }
    }

    /// The model of the lexicon compiled into the library as `name` (``BundledFiles``, "ink-en.lexicon.tsv"),
    /// loaded once per process.
    public static func shared(bundled name: String) throws -> InkLanguageModel {
        try shared(key: "bundled:" + name) {
            guard let data = BundledFiles.data(named: name) else { throw TaskError.notFound("language model \(name) is not bundled") }
            return try InkLanguageModel(data: data, name: name)
        }
    }

    private static func shared(key: String, load: () throws -> InkLanguageModel) throws -> InkLanguageModel {
        cacheLock.lock()
        defer { cacheLock.unlock() }
        if let model = cache[key] { return model }
        let model = try load()
        cache[key] = model
        return model
    }

    /// Reads `word<TAB>count` or `word<TAB>count<TAB>N` (a name) lines; words are lower-case letters with
    /// optional apostrophes, at most 255 of them, and counts positive numbers up to 10^15.
    public convenience init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw TaskError.notFound("language model \(path) does not exist") }
        try self.init(data: data, name: path)
    }

    /// The lexicon in `data` (the format of ``init(path:)``); `name` names it in errors.
    public convenience init(data: Data, name: String) throws {
        let lexicon = try data.withUnsafeBytes { try Lexicon(parsing: $0, path: name) }
        try self.init(lexicon: lexicon)
    }

    /// The longest word a lexicon may hold (the trie is built depth-first, one call per letter).
    static let maximumWordLength = 255

    /// The lexicon's words in one buffer: word w is `symbols[start[w] ..< start[w] + length[w]]`, in file order.
    /// One allocation for all of them, where an array per word made sorting and the trie build retain and
    /// release 163,325 arrays.
    struct Lexicon {
        var symbols: [UInt8] = []
        var start: [Int32] = []
        var length: [UInt8] = []
        var count: [Double] = []
        var isName: [Bool] = []

        init() {}

        init(parsing bytes: UnsafeRawBufferPointer, path: String) throws {
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
                guard wordEnd - lineStart <= InkLanguageModel.maximumWordLength else {
                    throw malformed(" holds a word longer than \(InkLanguageModel.maximumWordLength) characters")
                }
                let first = symbols.count
                for offset in lineStart..<wordEnd {
                    guard let symbol = InkLanguageModel.symbol(of: bytes[offset]) else { throw malformed(": a word may hold only a-z and '") }
                    symbols.append(symbol)
                }
                guard symbols.count > first else { continue }
                start.append(Int32(first))
                length.append(UInt8(symbols.count - first))
                self.count.append(count)
                self.isName.append(isName)
            }
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
        /// decided by the first 12 symbols packed in a number (5 bits each, 0 past the word's end, below every
        /// symbol); only words that share those are compared further.
        func sortedOrder() -> [Int32] {
            let prefixLength = 12
            var order = (0..<Int32(wordCount)).map { $0 }
            let prefixes = (0..<wordCount).map { w in
                (0..<prefixLength).reduce(UInt64(0)) { key, i in
                    key << 5 | UInt64(i < Int(length[w]) ? symbols[Int(start[w]) + i] : 0)
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

    init(lexicon: Lexicon) throws {
        guard lexicon.wordCount > 0 else { throw TaskError.model("the language model has no words") }
        wordCount = lexicon.wordCount
        // Sorted words put every trie node's subtree in one contiguous run, and give the n-gram counting runs of
        // shared prefixes (the same slots, still in cache).
        let order = lexicon.sortedOrder()
        // The n-gram counting runs on a second thread beside the trie build; a recognizer's `threads` option is
        // about recognition, and this happens once per process.
        let ngrams = LoadResult<NgramTables>()
        let counting = DispatchGroup()
        DispatchQueue.global(qos: .userInitiated).async(group: counting) { ngrams.value = Self.ngramTables(lexicon, order: order) }
        buildTrie(lexicon, order: order)
        counting.wait()
        (ngramCounts, histories) = (ngrams.value!.counts, ngrams.value!.histories)
    }

    typealias NgramTables = (counts: KeyTable<Double>, histories: KeyTable<(total: Double, types: Double)>)

    /// What the counting thread hands back; read only after its group is waited for.
    private final class LoadResult<Value>: @unchecked Sendable {
        var value: Value?
    }

    /// The trie/n-gram symbol of a lower-case letter or apostrophe.
    @inline(__always) static func symbol(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 1
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A") + 1
        case UInt8(ascii: "'"): return 27
        default: return nil
        }
    }

    /// Builds the trie of the words in `order` (lexicographic order) and stores it.
    private func buildTrie(_ lexicon: Lexicon, order: [Int32]) {
        let trie = lexicon.symbols.withUnsafeBufferPointer { symbols in
            lexicon.start.withUnsafeBufferPointer { start in
                lexicon.length.withUnsafeBufferPointer { length in
                    lexicon.count.withUnsafeBufferPointer { count in
                        lexicon.isName.withUnsafeBufferPointer { isName in
                            order.withUnsafeBufferPointer { order in
                                var builder = TrieBuilder(symbols: symbols, start: start, length: length, count: count, isName: isName, order: order)
                                _ = builder.build(0..<order.count, depth: 0)
                                return builder.finish()
                            }
                        }
                    }
                }
            }
        }
        (mass, ends, nameMass, nameEnds) = (trie.mass, trie.ends, trie.nameMass, trie.nameEnds)
        (childStart, childCount, edgeSymbol, edgeTarget) = (trie.childStart, trie.childCount, trie.edgeSymbol, trie.edgeTarget)
    }

    /// The trie under construction, depth-first: a node's edges are reserved before its children are built. The
    /// node count is known beforehand (one node per distinct prefix), so every array is allocated once and written
    /// in place, and the children still to build wait on one stack (each call's groups above its caller's): where
    /// appending to arrays captured by a local recursive function checked exclusive access at run time on every
    /// append, and took half of a load.
    private struct TrieBuilder {
        let symbols: UnsafeBufferPointer<UInt8>, start: UnsafeBufferPointer<Int32>, length: UnsafeBufferPointer<UInt8>
        let count: UnsafeBufferPointer<Double>, isName: UnsafeBufferPointer<Bool>, order: UnsafeBufferPointer<Int32>
        let mass, ends, nameMass, nameEnds: UnsafeMutableBufferPointer<Double>
        let childStart: UnsafeMutableBufferPointer<Int32>, childCount: UnsafeMutableBufferPointer<UInt8>
        let edgeSymbol: UnsafeMutableBufferPointer<UInt8>, edgeTarget: UnsafeMutableBufferPointer<Int32>
        let groupSymbol: UnsafeMutableBufferPointer<UInt8>, groupRange: UnsafeMutableBufferPointer<Range<Int>>
        var nodes = 0, edges = 0, groups = 0

        init(symbols: UnsafeBufferPointer<UInt8>, start: UnsafeBufferPointer<Int32>, length: UnsafeBufferPointer<UInt8>,
             count: UnsafeBufferPointer<Double>, isName: UnsafeBufferPointer<Bool>, order: UnsafeBufferPointer<Int32>) {
            (self.symbols, self.start, self.length, self.count, self.isName, self.order) = (symbols, start, length, count, isName, order)
            // Distinct prefixes: each word's length past what it shares with the word before it in order.
            var nodeCount = 1
            for i in order.indices {
                let w = Int(order[i]), wordLength = Int(length[w])
                var shared = 0
                if i > 0 {
                    let p = Int(order[i - 1])
                    let limit = min(wordLength, Int(length[p]))
                    while shared < limit, symbols[Int(start[w]) + shared] == symbols[Int(start[p]) + shared] { shared += 1 }
                }
                nodeCount += wordLength - shared
            }
            mass = .allocate(capacity: nodeCount); ends = .allocate(capacity: nodeCount)
            nameMass = .allocate(capacity: nodeCount); nameEnds = .allocate(capacity: nodeCount)
            childStart = .allocate(capacity: nodeCount); childCount = .allocate(capacity: nodeCount)
            edgeSymbol = .allocate(capacity: nodeCount - 1); edgeTarget = .allocate(capacity: nodeCount - 1)
            // At most 28 children wait at each depth of the current path.
            let groupCapacity = InkLanguageModel.symbolCount * (InkLanguageModel.maximumWordLength + 1)
            groupSymbol = .allocate(capacity: groupCapacity); groupRange = .allocate(capacity: groupCapacity)
        }

        /// The node of the words `order[range]`, which share their first `depth` symbols.
        mutating func build(_ range: Range<Int>, depth: Int) -> Int32 {
            let node = nodes
            nodes += 1
            precondition(node < mass.count, "the trie has one node per distinct prefix")
            var total = 0.0, ending = 0.0, names = 0.0, namesEnding = 0.0
            let base = groups
            var i = range.lowerBound
            while i < range.upperBound {
                let w = Int(order[i])
                if Int(length[w]) == depth {
                    ending += count[w]
                    if isName[w] { namesEnding += count[w] }
                    i += 1
                    continue
                }
                let symbol = symbols[Int(start[w]) + depth]
                var j = i + 1
                while j < range.upperBound {
                    let v = Int(order[j])
                    guard Int(length[v]) > depth, symbols[Int(start[v]) + depth] == symbol else { break }
                    j += 1
                }
                groupSymbol[groups] = symbol
                groupRange[groups] = i..<j
                groups += 1
                i = j
            }
            for k in range {
                let w = Int(order[k])
                total += count[w]
                if isName[w] { names += count[w] }
            }
            (mass[node], ends[node], nameMass[node], nameEnds[node]) = (total, ending, names, namesEnding)
            let first = edges, children = groups - base
            edges += children
            precondition(edges <= edgeSymbol.count, "the trie has one edge per node but the root")
            childStart[node] = Int32(first)
            childCount[node] = UInt8(children)
            for k in 0..<children {
                edgeSymbol[first + k] = groupSymbol[base + k]
                edgeTarget[first + k] = build(groupRange[base + k], depth: depth + 1)
            }
            groups = base
            return Int32(node)
        }

        /// The arrays, and the memory built in freed.
        func finish() -> (mass: [Double], ends: [Double], nameMass: [Double], nameEnds: [Double], childStart: [Int32],
                          childCount: [UInt8], edgeSymbol: [UInt8], edgeTarget: [Int32]) {
            precondition(nodes == mass.count && edges == edgeSymbol.count, "the trie's node count was foreseen")
            defer {
                for buffer in [mass, ends, nameMass, nameEnds] { buffer.deallocate() }
                childStart.deallocate(); childCount.deallocate(); edgeSymbol.deallocate(); edgeTarget.deallocate()
                groupSymbol.deallocate(); groupRange.deallocate()
            }
            return (Array(mass), Array(ends), Array(nameMass), Array(nameEnds), Array(childStart), Array(childCount),
                    Array(edgeSymbol), Array(edgeTarget))
        }
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

    private static func ngramTables(_ lexicon: Lexicon, order wordOrder: [Int32]) -> NgramTables {
        // Counted in arrays indexed by the packed symbols (5 bits each), one region per history length: 8.7 MB for
        // a moment, where hashing every one of the ~5 million updates took most of a load. Then the n-grams seen
        // (93,107 of the 163,325-word lexicon, 13,477 histories) go into hash tables sized so they stay in cache
        // while decoding. Counts per 10^9 words become a corpus of about 10 million words, the scale Witten-Bell's
        // type counts are meaningful at. Every count adds its words' weights in the same order as a hash table
        // filled word by word would, so the sums are the same to the bit.
        let historyStart = (0...Self.order).map { length in (0..<length).reduce(0) { $0 + 1 << (5 * $1) } }
        let ngramStart = historyStart.map { $0 << 5 }
        var ngramCounts = [Double](repeating: 0, count: ngramStart[Self.order])
        var historyTotals = [Double](repeating: 0, count: historyStart[Self.order])
        var historyTypes = [Double](repeating: 0, count: historyStart[Self.order])
        var padded = [UInt8](repeating: 0, count: 64)
        ngramCounts.withUnsafeMutableBufferPointer { ngramCounts in
            historyTotals.withUnsafeMutableBufferPointer { historyTotals in
                historyTypes.withUnsafeMutableBufferPointer { historyTypes in
                    for w in wordOrder.lazy.map(Int.init) where Int(lexicon.length[w]) + Self.order < padded.count {
                        let weight = lexicon.count[w] / 100
                        let length = Int(lexicon.length[w]), first = Int(lexicon.start[w])
                        for k in 0..<(Self.order - 1) { padded[k] = 0 }
                        for k in 0..<length { padded[Self.order - 1 + k] = lexicon.symbols[first + k] }
                        padded[Self.order - 1 + length] = 0
                        for end in (Self.order - 1)...(Self.order - 1 + length) {
                            var history = 0
                            for historyLength in 0..<Self.order {
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
        for length in 0..<Self.order {
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
        return (counts, histories)
    }

    /// P(symbol | history) under the interpolated Witten-Bell 4-gram (the uniform distribution below unigrams).
    func ngramProbability(_ symbol: UInt8, history: ArraySlice<UInt8>) -> Double {
        var p = 1.0 / Double(Self.symbolCount)
        for length in 0...min(history.count, Self.order - 1) {
            let h = history.suffix(length)
            let hk = Self.key(h)
            guard let history = histories[hk] else { break }
            let count = ngramCounts[Self.key(extending: hk, with: symbol)] ?? 0
            p = (count + history.types * p) / (history.total + history.types)
        }
        return p
    }

    /// ``ngramProbability(_:history:)`` of a full history given as ``State/recentSymbols``.
    func ngramProbability(_ symbol: UInt8, recentSymbols: UInt32) -> Double {
        var p = 1.0 / Double(Self.symbolCount)
        for length in 0...(Self.order - 1) {
            // The key of the history's last `length` symbols: its low 5·length bits, with the length on top.
            let hk = UInt32(length) << 28 | recentSymbols & ((1 << (5 * UInt32(length))) - 1)
            guard let history = histories[hk] else { break }
            let count = ngramCounts[Self.key(extending: hk, with: symbol)] ?? 0
            p = (count + history.types * p) / (history.total + history.types)
        }
        return p
    }

    @inline(__always) func child(of node: Int32, _ symbol: UInt8) -> Int32? {
        let start = Int(childStart[Int(node)])
        for e in start..<(start + Int(childCount[Int(node)])) where edgeSymbol[e] == symbol { return edgeTarget[e] }
        return nil
    }

    // MARK: - Scoring a text one character at a time

    /// Where the model is inside a text: the current word's trie node (nil once it left the lexicon), the
    /// log-probabilities of the word prefix in and out of the lexicon, the last symbols, and the word's casing.
    struct State: Hashable {
        var node: Int32? = 0
        var inVocabulary = log(InkLanguageModel.inVocabularyWeight)
        var outOfVocabulary = log(1 - InkLanguageModel.inVocabularyWeight)
        /// The last `order - 1` symbols (0 before the text), oldest first, packed 5 bits each as ``key(_:)`` packs
        /// them: a number, not an array, so that a step of the beam search allocates nothing.
        var recentSymbols: UInt32 = 0
        var history: [UInt8] { (0..<(InkLanguageModel.order - 1)).reversed().map { UInt8(recentSymbols >> (5 * UInt32($0)) & 31) } }
        var casing = Casing.start
        var upperFirst = false
        var inWord = false
        /// Whether the text so far ends in a character that joins what is around it without spaces: a hyphen or
        /// slash right after a letter or digit ("9-4", "and/or"), or a colon right after a digit ("10:30").
        var endsInJoiner = false
        var afterDigit = false
    }

    enum Casing: Hashable { case start, firstUpper, lower, upper, mixed }

    /// Log P(case of this letter | casing so far) and the next casing, for every letter after a word's first
    /// (whose case the word decides: ``capitalizedName``, ``capitalizedWord``, ``capitalizedUnknown``).
    @inline(__always) static func casing(_ casing: Casing, upper: Bool) -> (Double, Casing) {
        switch casing {
        case .start: return (0, upper ? .firstUpper : .lower)
        case .firstUpper: return upper ? (log(0.3), .upper) : (log(0.7), .lower)
        case .lower: return upper ? (log(upperAfterLower), .mixed) : (log(1 - upperAfterLower), .lower)
        case .upper: return upper ? (log(0.95), .upper) : (log(0.05), .mixed)
        case .mixed: return (log(mixedCase), .mixed)
        }
    }

    /// The count of the words under (or, with `ending`, at) `node` weighted by P(their first letter has the
    /// word's case): names and other words capitalize at different rates.
    @inline(__always) private func weightedCount(_ node: Int32, ending: Bool, upperFirst: Bool) -> Double {
        let (all, names) = ending ? (ends[Int(node)], nameEnds[Int(node)]) : (mass[Int(node)], nameMass[Int(node)])
        return upperFirst ? (all - names) * Self.capitalizedWord + names * Self.capitalizedName
                          : (all - names) * (1 - Self.capitalizedWord) + names * (1 - Self.capitalizedName)
    }

    /// Log(numerator / denominator) of two counts, -infinity when either is empty.
    @inline(__always) private static func logRatio(_ numerator: Double, _ denominator: Double) -> Double {
        numerator > 0 && denominator > 0 ? log(numerator / denominator) : -.infinity
    }

    /// The log-probability of the word so far ending here (before a space, a symbol or the end of the text).
    func endOfWord(_ state: State) -> Double {
        guard state.inWord else { return 0 }
        var inVocabulary = -Double.infinity
        if let node = state.node, ends[Int(node)] > 0 {
            inVocabulary = state.inVocabulary + (state.casing == .start
                ? Self.logRatio(ends[Int(node)], mass[Int(node)])
                : Self.logRatio(weightedCount(node, ending: true, upperFirst: state.upperFirst), weightedCount(node, ending: false, upperFirst: state.upperFirst)))
        }
        let outOfVocabulary = state.outOfVocabulary + log(ngramProbability(0, recentSymbols: state.recentSymbols))
        return logAdd(inVocabulary, outOfVocabulary) - logAdd(state.inVocabulary, state.outOfVocabulary)
    }

    /// The log-probability of `character` after `state`, and the state after it.
    func extend(_ state: State, with character: UInt8) -> (Double, State) {
        guard let symbol = Self.symbol(of: character) else {
            // A space or a symbol ends the word; a symbol also costs its flat probability, and a space after a
            // joiner the odds of "9- 4" against "9-4".
            if character == UInt8(ascii: " ") {
                return (endOfWord(state) + (state.endsInJoiner ? Self.spaceAfterJoinerLogProbability : 0), State())
            }
            var next = State()
            next.endsInJoiner = switch character {
            case UInt8(ascii: "-"), UInt8(ascii: "/"): state.inWord || state.afterDigit
            case UInt8(ascii: ":"): state.afterDigit
            default: false
            }
            next.afterDigit = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(character)
            return (endOfWord(state) + Self.symbolLogProbability(character), next)
        }
        var next = state
        next.inWord = true
        let isLetter = character != UInt8(ascii: "'")
        let upper = character < UInt8(ascii: "a")
        // The first letter chooses the word's case: from here on the lexicon counts are weighted by it.
        let isFirstLetter = isLetter && state.casing == .start
        if isFirstLetter { next.upperFirst = upper }
        let caseKnown = state.casing != .start || isLetter
        let before = logAdd(state.inVocabulary, state.outOfVocabulary)
        if let node = state.node, let child = child(of: node, symbol) {
            let numerator = caseKnown ? weightedCount(child, ending: false, upperFirst: next.upperFirst) : mass[Int(child)]
            let denominator = state.casing == .start ? mass[Int(node)] : weightedCount(node, ending: false, upperFirst: next.upperFirst)
            next.inVocabulary = state.inVocabulary + Self.logRatio(numerator, denominator)
            next.node = child
        } else {
            next.inVocabulary = -.infinity
            next.node = nil
        }
        next.outOfVocabulary = state.outOfVocabulary + log(ngramProbability(symbol, recentSymbols: state.recentSymbols))
        if isFirstLetter { next.outOfVocabulary += log(upper ? Self.capitalizedUnknown : 1 - Self.capitalizedUnknown) }
        next.recentSymbols = (state.recentSymbols << 5 | UInt32(symbol)) & ((1 << (5 * UInt32(Self.order - 1))) - 1)
        var caseCost = 0.0
        if isLetter {
            (caseCost, next.casing) = Self.casing(state.casing, upper: upper)
        }
        return (logAdd(next.inVocabulary, next.outOfVocabulary) - before + caseCost, next)
    }

    /// The state after reading `text` (ML Kit's pre-context), and whether it ends inside a word.
    func state(after text: String) -> State {
        var state = State()
        for byte in text.utf8 { state = extend(state, with: byte).1 }
        return state
    }
}

/// An open-addressing hash table from n-gram keys (never 0xFFFF_FFFF) to values: the language model's tables,
/// several times faster to build and probe than Dictionary.
struct KeyTable<Value> {
    private var keys: [UInt32]
    private var values: [Value]
    private let empty: Value
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int, empty: Value) {
        let size = max(16, 1 << (Int.bitWidth - (capacity * 2 - 1).leadingZeroBitCount))
        keys = Array(repeating: .max, count: size)
        values = Array(repeating: empty, count: size)
        self.empty = empty
        mask = size - 1
    }

    @inline(__always) private func slot(_ key: UInt32) -> Int {
        var i = Int(truncatingIfNeeded: (UInt64(key) &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
        while keys[i] != key && keys[i] != .max { i = (i + 1) & mask }
        return i
    }

    subscript(key: UInt32) -> Value? {
        let i = slot(key)
        return keys[i] == key ? values[i] : nil
    }

    /// Applies `change` to the key's value (`initial` when absent); returns whether the key was new.
    @discardableResult
    mutating func update(_ key: UInt32, default initial: Value, _ change: (inout Value) -> Void) -> Bool {
        if count * 2 >= keys.count { grow() }
        let i = slot(key)
        let isNew = keys[i] != key
        if isNew {
            keys[i] = key
            values[i] = initial
        }
        change(&values[i])
        if isNew { count += 1 }
        return isNew
    }

    private mutating func grow() {
        var bigger = KeyTable(capacity: keys.count, empty: empty)
        for (key, value) in zip(keys, values) where key != .max { bigger.update(key, default: value) { _ in } }
        self = bigger
    }
}

@inline(__always) func logAdd(_ a: Double, _ b: Double) -> Double {
    if a == -.infinity { return b }
    if b == -.infinity { return a }
    return max(a, b) + log1p(exp(-abs(a - b)))
}
