import Foundation

/// The language model of a text recognizer ("en", and the Latin-script languages): a word list with frequencies
/// (models/ink-en.lexicon.tsv, made by tools/ink/make_lexicon.py; `ink-es.lexicon.tsv` and so on) seen two ways at once.
///
/// A word is either in the lexicon (probability `inVocabularyWeight`, then its relative frequency) or spelled out
/// by a character 4-gram model trained on the same frequency-weighted words (Witten-Bell interpolation); the two
/// are added per word prefix, so an unknown name pays the out-of-vocabulary cost once, not per letter. Letters are
/// scored in lower case; a small case model gives "word", "Word" and "WORD" their probabilities, and the first
/// letter's case depends on the word: names (lexicon words the dictionary writes only capitalized, marked `N`) are
/// written "Friday" far more often than "friday", other words the other way round. Characters other
/// than letters and the apostrophe (digits, punctuation, symbols) end the current word and cost a flat probability
/// by kind (`symbolLogProbability(_:)`), but for a clause's end right after a word, which costs less
/// (`markAfterWordLogProbability(_:)`). Words are letters of any script (a-z, the apostrophe and up to 99 more,
/// such as "ñ", "ß", "ı" or "ế"), their upper and lower case by Unicode, or Turkish and Azerbaijani's for i and ı.
public final class InkLanguageModel: @unchecked Sendable {
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
    /// Log P(a digit after a digit and a space): "0123 4" against "01234". A number's digits written a little apart
    /// are far more common than two numbers side by side (validation writers' lines: 66 spaces read inside numbers,
    /// 29 between them missed, with no cost; 1/20 chosen over 1/5 and 1/150 on the same lines).
    public static let spaceBetweenDigitsLogProbability = log(1.0 / 20)
    /// Log P(a space right after a space): written text has none, but a network that drops a mark between two
    /// spaces ("similar-sized" read as "similar  sized") writes two; at this cost the decoder keeps the mark or
    /// one space.
    public static let doubleSpaceLogProbability = log(1e-6)
    /// Log P(a full stop or comma right after a word's last letter), and of "?", "!", ";" or ":" there: a word ends a
    /// clause far more often than such a mark turns up elsewhere (``punctuationLogProbability``). At 1/100 the
    /// decoder dropped the final "." of 36 of the validation writers' 94 lines that end in one, where the network
    /// wrote it; 1/3 and 1/10 were chosen over 1/20 ... 1/1.6 on those lines.
    public static let stopOrCommaAfterWordLogProbability = log(1.0 / 3)
    /// See ``stopOrCommaAfterWordLogProbability``.
    public static let clauseMarkAfterWordLogProbability = log(1.0 / 10)

    /// The log-probability of `character` right after a word's last letter: a clause's or sentence's end costs
    /// less there; everything else its ``symbolLogProbability(_:)``.
    static func markAfterWordLogProbability(_ character: Unicode.Scalar) -> Double {
        switch character {
        case ".", ",": stopOrCommaAfterWordLogProbability
        case "?", "!", ";", ":": clauseMarkAfterWordLogProbability
        default: symbolLogProbability(character)
        }
    }

    /// The flat log-probability of a character that is not part of a word: a digit, common punctuation (with the
    /// quotes and marks of the Latin-script languages: « » ‹ › „ “ ” ‘ ’ ¿ ¡), or a rare symbol.
    static func symbolLogProbability(_ character: Unicode.Scalar) -> Double {
        switch character {
        case "0"..."9": return digitLogProbability
        case ".", ",", "\"", "!", "?", "-", ":", ";", "(", ")",
             "\u{AB}", "\u{BB}", "\u{2039}", "\u{203A}", "\u{201E}", "\u{201C}", "\u{201D}", "\u{2018}", "\u{2019}", "\u{BF}", "\u{A1}":
            return punctuationLogProbability
        default: return rareSymbolLogProbability
        }
    }

    /// Log P(an ink that is one character on its own is `character`): a lone glyph is a letter far more often than
    /// the word model's odds for one-letter words ("s" ~ e^-7) say. Letters 70% (lower case 60:40 upper; each
    /// letter beyond ASCII the share of an ASCII letter), digits 20%, the common punctuation 8%, the rest 2%: the
    /// mix the "en" model's synthetic single characters are drawn from.
    static func loneCharacterLogProbability(_ character: Unicode.Scalar) -> Double {
        switch character {
        case "a"..."z": return log(0.7 * 0.6 / 26)
        case "A"..."Z": return log(0.7 * 0.4 / 26)
        case "0"..."9": return log(0.2 / 10)
        case _ where !character.isASCII && Character(character).isLetter:
            return Character(character).isUppercase ? log(0.7 * 0.4 / 26) : log(0.7 * 0.6 / 26)
        default: return symbolLogProbability(character) == punctuationLogProbability ? log(0.08 / 10) : log(0.02 / 22)
        }
    }

    /// The symbols of the letters and the apostrophe.
    let letters: Letters
    /// The lexicon's words and their counts.
    let trie: LexiconTrie
    /// The character model that spells out words outside the lexicon.
    private let ngrams: WittenBellNgramModel
    /// The number of words in the lexicon.
    public let wordCount: Int

    private static let cacheLock = NSLock()
    nonisolated(unsafe) private static var cache: [String: InkLanguageModel] = [:]

    /// The model of the lexicon file at `path` for `language` (a BCP-47 language subtag, "en", "tr": it decides
    /// the case pairs of i and ı), loaded once per process.
    public static func shared(path: String, language: String? = nil) throws -> InkLanguageModel {
        try shared(path: path, language: language, extraLetters: [])
    }

    /// ``shared(path:language:)`` with `extraLetters` (the letters a network writes) given symbols too.
    static func shared(path: String, language: String?, extraLetters: [Unicode.Scalar]) throws -> InkLanguageModel {
        try shared(key: cacheKey(path, language, extraLetters)) {
            guard let data = FileManager.default.contents(atPath: path) else { throw TaskError.notFound("language model \(path) does not exist") }
            return try InkLanguageModel(data: data, name: path, language: language, extraLetters: extraLetters)
        }
    }

    /// The model of the lexicon compiled into the library as `name` (``BundledFiles``, "ink-en.lexicon.tsv") for
    /// `language`, loaded once per process.
    public static func shared(bundled name: String, language: String? = nil) throws -> InkLanguageModel {
        try shared(bundled: name, language: language, extraLetters: [])
    }

    /// ``shared(bundled:language:)`` with `extraLetters` given symbols too.
    static func shared(bundled name: String, language: String?, extraLetters: [Unicode.Scalar]) throws -> InkLanguageModel {
        try shared(key: "bundled:" + cacheKey(name, language, extraLetters)) {
            guard let data = BundledFiles.data(named: name) else { throw TaskError.notFound("language model \(name) is not bundled") }
            return try InkLanguageModel(data: data, name: name, language: language, extraLetters: extraLetters)
        }
    }

    /// The cache's key of a lexicon read for a language with extra letters: every part that changes the model.
    private static func cacheKey(_ name: String, _ language: String?, _ extraLetters: [Unicode.Scalar]) -> String {
        "\(name)\u{0}\(language?.lowercased() ?? "")\u{0}" + String(String.UnicodeScalarView(extraLetters.sorted { $0.value < $1.value }))
    }

    private static func shared(key: String, load: () throws -> InkLanguageModel) throws -> InkLanguageModel {
        cacheLock.lock()
        defer { cacheLock.unlock() }
        if let model = cache[key] { return model }
        let model = try load()
        cache[key] = model
        return model
    }

    /// Reads `word<TAB>count` or `word<TAB>count<TAB>N` (a name) lines of UTF-8 text; words are lower-case
    /// letters of any script with optional apostrophes, at most 255 of them and at most 126 distinct letters (a-z
    /// and the apostrophe included), and counts positive numbers up to 10^15. `language` (a BCP-47 language
    /// subtag) decides the case pairs of i and ı.
    public convenience init(path: String, language: String? = nil) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw TaskError.notFound("language model \(path) does not exist") }
        try self.init(data: data, name: path, language: language)
    }

    /// The lexicon in `data` (the format of ``init(path:language:)``); `name` names it in errors.
    public convenience init(data: Data, name: String, language: String? = nil) throws {
        try self.init(data: data, name: name, language: language, extraLetters: [])
    }

    /// ``init(data:name:language:)`` with `extraLetters` (the letters a network writes, whether or not a word has
    /// them) given symbols too: the character model gives those outside the lexicon their back-off probability.
    convenience init(data: Data, name: String, language: String?, extraLetters: [Unicode.Scalar]) throws {
        let lexicon = try data.withUnsafeBytes { try Lexicon(parsing: $0, path: name, language: language, extraLetters: extraLetters) }
        try self.init(lexicon: lexicon)
    }

    init(lexicon: Lexicon) throws {
        guard lexicon.wordCount > 0 else { throw TaskError.model("the language model has no words") }
        wordCount = lexicon.wordCount
        letters = lexicon.letters
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

    /// The trie/n-gram symbol of a letter (either case) or the apostrophe; nil for other characters.
    @inline(__always) func symbol(of character: Unicode.Scalar) -> UInt8? { letters.symbol(of: character)?.symbol }

    /// The number of symbols, word boundary included (28 for a-z and the apostrophe).
    var symbolCount: Int { letters.symbolCount }

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
        /// The last `order - 1` symbols (0 before the text), oldest first, packed 7 bits each as ``WittenBellNgramModel/key(_:)`` packs
        /// them: a number, not an array, so that a step of the beam search allocates nothing.
        var recentSymbols: UInt32 = 0
        var history: [UInt8] {
            let bits = UInt32(Letters.bitsPerSymbol)
            return (0..<(InkLanguageModel.order - 1)).reversed().map { UInt8(recentSymbols >> (bits * UInt32($0)) & (1 << bits - 1)) }
        }
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
        /// quote or bracket, or "¿" or "¡"), so its first letter is upper case at ``capitalizedAtSentenceStart``.
        var sentenceStart = false
        /// Whether the text so far ends in a digit and one space ("12 "): the next digit pays
        /// ``spaceBetweenDigitsLogProbability``.
        var digitThenSpace = false
        /// Whether the text so far ends in a space: another pays ``doubleSpaceLogProbability``.
        var afterSpace = false
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
    func extend(_ state: State, with character: Unicode.Scalar) -> (Double, State) {
        guard let (symbol, upper) = letters.symbol(of: character) else {
            // A space or a symbol ends the word; a symbol also costs its probability (less for a clause's end
            // right after a word, more for a digit after a digit and a space), and a space after a joiner the
            // odds of "9- 4" against "9-4".
            if character == " " {
                var next = State()
                next.sentenceStart = state.endsSentence || (state.sentenceStart && !state.inWord)
                next.digitThenSpace = state.afterDigit
                next.afterSpace = true
                let joinerCost = state.endsInJoiner ? Self.spaceAfterJoinerLogProbability : 0
                return (endOfWord(state) + joinerCost + (state.afterSpace ? Self.doubleSpaceLogProbability : 0), next)
            }
            var next = State()
            switch character {
            case ".", "?", "!": next.endsSentence = true
            case ")", "\u{BB}", "\u{203A}": next.endsSentence = state.endsSentence  // ) » ›
            case "(", "\u{AB}", "\u{2039}", "\u{201E}", "\u{BF}", "\u{A1}":  // ( « ‹ „ ¿ ¡
                next.sentenceStart = state.sentenceStart && !state.inWord
            case "\"", "\u{201C}", "\u{201D}", "\u{2018}", "\u{2019}":  // closes a sentence's end or opens a sentence's start
                next.endsSentence = state.endsSentence
                next.sentenceStart = state.sentenceStart && !state.inWord
            default: break
            }
            next.endsInJoiner = switch character {
            case "-", "/": state.inWord || state.afterDigit
            case ":": state.afterDigit
            default: false
            }
            next.afterDigit = ("0"..."9").contains(character)
            let digitsApart = next.afterDigit && state.digitThenSpace ? Self.spaceBetweenDigitsLogProbability : 0
            let characterCost = state.inWord ? Self.markAfterWordLogProbability(character) : Self.symbolLogProbability(character)
            return (endOfWord(state) + characterCost + digitsApart, next)
        }
        var next = state
        next.inWord = true
        next.endsSentence = false
        next.afterSpace = false
        let isLetter = symbol != Letters.apostrophe
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
        let bits = UInt32(Letters.bitsPerSymbol)
        next.recentSymbols = (state.recentSymbols << bits | UInt32(symbol)) & ((1 << (bits * UInt32(Self.order - 1))) - 1)
        var caseCost = 0.0
        if isLetter {
            (caseCost, next.casing) = Self.casing(state.casing, upper: upper)
        }
        return (logAdd(next.inVocabulary, next.outOfVocabulary) - before + caseCost, next)
    }

    /// The state after reading `text` (ML Kit's pre-context), and whether it ends inside a word.
    func state(after text: String) -> State {
        var state = State()
        for character in text.unicodeScalars { state = extend(state, with: character).1 }
        return state
    }
}
