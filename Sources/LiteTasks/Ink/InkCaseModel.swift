import Foundation

/// The case model: a word's first letter is upper case at a rate that depends on the word (names, other lexicon
/// words, words spelled out by the character model), and every later letter's case depends only on the cases so far
/// (``Casing``).
extension InkLanguageModel {
    /// P(a word's first letter is upper case): for names, for the other lexicon words, and for words spelled out
    /// by the character model (mostly names: UNIPEN's writers were given many). With P(an upper-case letter after
    /// lower-case ones) and P(either case) once a word mixes them (the case model is word-independent below the
    /// first letter). The values were chosen on the validation writers (Docs/digital-ink.md, "Tuning").
    static let capitalizedName = 0.9
    static let capitalizedWord = 0.15
    static let capitalizedUnknown = 0.4
    /// P(a word's first letter is upper case) for every word that begins a sentence: after ".", "?" or "!" and a
    /// space, in the text or its pre-context. In the validation writers' free-text lines 73 of the 82 words there
    /// are capitalized.
    static let capitalizedAtSentenceStart = 0.9
    static let upperAfterLower = 0.005
    static let mixedCase = 0.2

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
    /// word's case): names and other words capitalize at different rates, but at a sentence's start all alike.
    @inline(__always) func weightedCount(_ node: Int32, ending: Bool, upperFirst: Bool, sentenceStart: Bool) -> Double {
        let (all, names) = ending ? (trie.ends[Int(node)], trie.nameEnds[Int(node)]) : (trie.mass[Int(node)], trie.nameMass[Int(node)])
        if sentenceStart { return all * (upperFirst ? Self.capitalizedAtSentenceStart : 1 - Self.capitalizedAtSentenceStart) }
        return upperFirst ? (all - names) * Self.capitalizedWord + names * Self.capitalizedName
                          : (all - names) * (1 - Self.capitalizedWord) + names * (1 - Self.capitalizedName)
    }
}
