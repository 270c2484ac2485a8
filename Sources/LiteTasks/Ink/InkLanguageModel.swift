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

    /// The lexicon's words and their counts.
    let trie: LexiconTrie
    /// The character model that spells out words outside the lexicon.
    private let ngrams: WittenBellNgramModel
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

    init(lexicon: Lexicon) throws {
        guard lexicon.wordCount > 0 else { throw TaskError.model("the language model has no words") }
        wordCount = lexicon.wordCount
        // Sorted words put every trie node's subtree in one contiguous run, and give the n-gram counting runs of
        // shared prefixes (the same slots, still in cache).
        let order = lexicon.sortedOrder()
        // The n-gram counting runs on a second thread beside the trie build; a recognizer's `threads` option is
        // about recognition, and this happens once per process.
        let counted = LoadResult<WittenBellNgramModel>()
        let counting = DispatchGroup()
        DispatchQueue.global(qos: .userInitiated).async(group: counting) { counted.value = WittenBellNgramModel(lexicon, order: order) }
        trie = LexiconTrie(lexicon, order: order)
        counting.wait()
        ngrams = counted.value!
    }

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

    /// P(symbol | history) under the character model (``WittenBellNgramModel``).
    func ngramProbability(_ symbol: UInt8, history: ArraySlice<UInt8>) -> Double {
        ngrams.probability(symbol, history: history)
    }

    /// ``ngramProbability(_:history:)`` of a full history given as ``State/recentSymbols``.
    @inline(__always) func ngramProbability(_ symbol: UInt8, recentSymbols: UInt32) -> Double {
        ngrams.probability(symbol, recentSymbols: recentSymbols)
    }

    // MARK: - Scoring a text one character at a time

    /// Where the model is inside a text: the current word's trie node (nil once it left the lexicon), the
    /// log-probabilities of the word prefix in and out of the lexicon, the last symbols, and the word's casing.
    struct State: Hashable {
        var node: Int32? = 0
        var inVocabulary = log(InkLanguageModel.inVocabularyWeight)
        var outOfVocabulary = log(1 - InkLanguageModel.inVocabularyWeight)
        /// The last `order - 1` symbols (0 before the text), oldest first, packed 5 bits each as ``WittenBellNgramModel/key(_:)`` packs
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
        /// Whether the text so far ends in a sentence's end: ".", "?" or "!", then any closing quote or bracket.
        var endsSentence = false
        /// Whether the current word begins a sentence: it follows a sentence's end and a space (and any opening
        /// quote or bracket), so its first letter is upper case at ``capitalizedAtSentenceStart``.
        var sentenceStart = false
    }

    /// Log(numerator / denominator) of two counts, -infinity when either is empty.
    @inline(__always) private static func logRatio(_ numerator: Double, _ denominator: Double) -> Double {
        numerator > 0 && denominator > 0 ? log(numerator / denominator) : -.infinity
    }

    /// The log-probability of the word so far ending here (before a space, a symbol or the end of the text).
    func endOfWord(_ state: State) -> Double {
        guard state.inWord else { return 0 }
        var inVocabulary = -Double.infinity
        if let node = state.node, trie.ends[Int(node)] > 0 {
            inVocabulary = state.inVocabulary + (state.casing == .start
                ? Self.logRatio(trie.ends[Int(node)], trie.mass[Int(node)])
                : Self.logRatio(weightedCount(node, ending: true, upperFirst: state.upperFirst, sentenceStart: state.sentenceStart),
                                weightedCount(node, ending: false, upperFirst: state.upperFirst, sentenceStart: state.sentenceStart)))
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
                var next = State()
                next.sentenceStart = state.endsSentence || (state.sentenceStart && !state.inWord)
                return (endOfWord(state) + (state.endsInJoiner ? Self.spaceAfterJoinerLogProbability : 0), next)
            }
            var next = State()
            switch character {
            case UInt8(ascii: "."), UInt8(ascii: "?"), UInt8(ascii: "!"): next.endsSentence = true
            case UInt8(ascii: ")"): next.endsSentence = state.endsSentence
            case UInt8(ascii: "("): next.sentenceStart = state.sentenceStart && !state.inWord
            case UInt8(ascii: "\""):  // closes a sentence's end or opens a sentence's start
                next.endsSentence = state.endsSentence
                next.sentenceStart = state.sentenceStart && !state.inWord
            default: break
            }
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
        next.endsSentence = false
        let isLetter = character != UInt8(ascii: "'")
        let upper = character < UInt8(ascii: "a")
        // The first letter chooses the word's case: from here on the lexicon counts are weighted by it.
        let isFirstLetter = isLetter && state.casing == .start
        if isFirstLetter { next.upperFirst = upper }
        let caseKnown = state.casing != .start || isLetter
        let before = logAdd(state.inVocabulary, state.outOfVocabulary)
        if let node = state.node, let child = trie.child(of: node, symbol) {
            let numerator = caseKnown ? weightedCount(child, ending: false, upperFirst: next.upperFirst, sentenceStart: state.sentenceStart) : trie.mass[Int(child)]
            let denominator = state.casing == .start ? trie.mass[Int(node)]
                : weightedCount(node, ending: false, upperFirst: next.upperFirst, sentenceStart: state.sentenceStart)
            next.inVocabulary = state.inVocabulary + Self.logRatio(numerator, denominator)
            next.node = child
        } else {
            next.inVocabulary = -.infinity
            next.node = nil
        }
        next.outOfVocabulary = state.outOfVocabulary + log(ngramProbability(symbol, recentSymbols: state.recentSymbols))
        if isFirstLetter {
            let capitalized = state.sentenceStart ? Self.capitalizedAtSentenceStart : Self.capitalizedUnknown
            next.outOfVocabulary += log(upper ? capitalized : 1 - capitalized)
        }
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
