import Foundation

/// CTC prefix beam search (Graves 2006; Hannun et al. 2014) with a character-level language model.
///
/// Every hypothesis is a text prefix with two probabilities, of the network's paths that spell it and end in a
/// blank or in its last character (so "ll" needs a blank between the two l's while a repeated "l" frame extends
/// one l). A new character adds `languageModelWeight` times the language model's log-probability and
/// `characterBonus`; hypotheses are ranked by the sum and the best `beamWidth` kept after every frame.
struct CTCBeamSearch {
    struct Hypothesis {
        /// The text's characters (the alphabet's) and, for each, the frame it was first emitted at (-1 for text
        /// that came from the pre-context, such as a leading space).
        var text: [Unicode.Scalar]
        var emittedAt: [Int]
        /// The total log-score: network + weighted language model + bonus.
        var score: Double
    }

    var beamWidth = 64
    var languageModelWeight = 0.9
    var characterBonus = 2.0
    /// A character is tried at a frame only if its log-probability is above this, and only the
    /// `maximumCharactersPerFrame` likeliest: the pruning bounds the work per frame while keeping the characters a
    /// reading could need (the values tried and what they gave: Docs/digital-ink.md, "Tuning").
    var pruneLogProbability: Float = -10.5
    var maximumCharactersPerFrame = 16
    /// Whether a reading of exactly one character (from a start with no text and no pre-context) is scored by
    /// ``InkLanguageModel/loneCharacterLogProbability(_:)`` instead of as a one-letter word.
    var scoresLoneCharacters = false

    private struct Beam {
        var text: [Unicode.Scalar]
        var emittedAt: [Int]
        var blank = -Double.infinity
        var nonBlank = -Double.infinity
        var languageModel: Double
        var state: InkLanguageModel.State?
        var network: Double { logAdd(blank, nonBlank) }
        var total: Double { network + languageModel }
    }

    /// Decodes `logProbabilities` ([frames, classes], row-major; class 0 is the blank, class k the character
    /// `alphabet.characters[k - 1]`). `starts` are the hypotheses to begin from (text already there, language model state and
    /// score); with no language model give one start with a nil state.
    ///
    /// Gives what ``decodeReference(logProbabilities:classes:alphabet:languageModel:starts:results:)`` gives, score
    /// for score, faster: a hypothesis is a node of a prefix tree rather than an array of characters (no copies, no
    /// hashing of texts), the frames its characters were emitted at a linked list, and the language model is asked
    /// once per tree edge, not once per frame that extends a prefix by the same character. That reuse is exact
    /// because the language model's state is a function of the text alone: the start " " holds the state that ""
    /// extended by " " has.
    func decode(logProbabilities: [Float], classes: Int, alphabet: InkAlphabet, languageModel: InkLanguageModel?,
                starts: [(text: [Unicode.Scalar], state: InkLanguageModel.State?, score: Double)], results: Int) -> [Hypothesis] {
        let frames = logProbabilities.count / classes
        var tree = PrefixTree()
        var emissions = EmissionList()
        var beams: [TreeBeam] = []
        for start in starts {
            var node: Int32 = -1, emitted: Int32 = -1
            for character in start.text {
                node = tree.child(of: node, character)
                emitted = emissions.append(frame: -1, after: emitted)
            }
            tree.setStateIfUnknown(node, start.state)
            beams.append(TreeBeam(node: node, emitted: emitted, blank: 0, languageModel: start.score))
        }
        var candidates: [(Int, Float)] = []
        var next: [TreeBeam] = []
        // The slot in `next` of a tree node at this frame, valid where `slotFrame` is the frame.
        var slot: [Int32] = [], slotFrame: [Int32] = []
        var totals: [Double] = [], order: [Int] = []
        func slotOf(_ node: Int32, frame: Int32) -> Int? {
            let i = Int(node) + 1
            return i < slot.count && slotFrame[i] == frame ? Int(slot[i]) : nil
        }
        func setSlot(_ node: Int32, frame: Int32, _ value: Int) {
            let i = Int(node) + 1
            while slot.count <= i { slot.append(0); slotFrame.append(-1) }
            slot[i] = Int32(value); slotFrame[i] = frame
        }
        for t in 0..<frames {
            let row = t * classes, frame = Int32(t)
            let blankLog = Double(logProbabilities[row])
            frameCandidates(logProbabilities, row: row, classes: classes, into: &candidates)
            next.removeAll(keepingCapacity: true)
            for beam in beams {
                let network = beam.network
                let lastEmitted = emissions.frame(of: beam.emitted)
                let last = beam.node >= 0 ? alphabet.classIndex(of: tree.character[Int(beam.node)]) : -1
                var stayNonBlank = -Double.infinity
                if last > 0, lastEmitted >= 0 { stayNonBlank = beam.nonBlank + Double(logProbabilities[row + last]) }
                let stay = TreeBeam(node: beam.node, emitted: beam.emitted, blank: network + blankLog, nonBlank: stayNonBlank,
                                    languageModel: beam.languageModel)
                if let existing = slotOf(beam.node, frame: frame) {
                    if logAdd(stay.blank, stay.nonBlank) > next[existing].network { next[existing].emitted = stay.emitted }
                    next[existing].blank = logAdd(next[existing].blank, stay.blank)
                    next[existing].nonBlank = logAdd(next[existing].nonBlank, stay.nonBlank)
                } else {
                    setSlot(beam.node, frame: frame, next.count)
                    next.append(stay)
                }
                for (c, logP) in candidates {
                    let character = alphabet.characters[c - 1]
                    let path = (c == last && lastEmitted >= 0 ? beam.blank : network) + Double(logP)
                    if path == -.infinity { continue }
                    let child = tree.child(of: beam.node, character)
                    if let existing = slotOf(child, frame: frame) {
                        if path > next[existing].nonBlank { next[existing].emitted = emissions.append(frame: frame, after: beam.emitted) }
                        next[existing].nonBlank = logAdd(next[existing].nonBlank, path)
                        continue
                    }
                    var languageScore = beam.languageModel + characterBonus
                    if let languageModel {
                        languageScore += languageModelWeight * tree.languageLogProbability(of: child, languageModel)
                    } else {
                        tree.inheritState(child)
                    }
                    setSlot(child, frame: frame, next.count)
                    next.append(TreeBeam(node: child, emitted: emissions.append(frame: frame, after: beam.emitted), nonBlank: path,
                                         languageModel: languageScore))
                }
            }
            totals.removeAll(keepingCapacity: true)
            for beam in next { totals.append(beam.total) }
            order.removeAll(keepingCapacity: true)
            order.append(contentsOf: next.indices)
            order.sort { totals[$0] != totals[$1] ? totals[$0] > totals[$1] : tree.precedes(next[$0].node, next[$1].node) }
            beams.removeAll(keepingCapacity: true)
            for i in order.prefix(beamWidth) { beams.append(next[i]) }
        }
        var finished: [Hypothesis] = beams.map { beam in
            let text = tree.text(beam.node), emittedAt = emissions.frames(beam.emitted, count: text.count)
            var score = beam.total
            if scoresLoneCharacters, languageModel != nil, text.count == 1, emittedAt[0] >= 0, text[0] != " " {
                score = beam.network + characterBonus + languageModelWeight * InkLanguageModel.loneCharacterLogProbability(text[0])
            } else if let languageModel, let state = tree.state(beam.node) {
                score += languageModelWeight * languageModel.endOfWord(state)
            }
            return Hypothesis(text: text, emittedAt: emittedAt, score: score)
        }
        finished.sort { $0.score != $1.score ? $0.score > $1.score : $0.text.lexicographicallyPrecedes($1.text) }
        return Array(finished.prefix(results))
    }

    /// The characters (class, log-probability) tried at the frame starting at `row`: above
    /// `pruneLogProbability`, at most `maximumCharactersPerFrame` of them, the likeliest.
    private func frameCandidates(_ logProbabilities: [Float], row: Int, classes: Int, into candidates: inout [(Int, Float)]) {
        candidates.removeAll(keepingCapacity: true)
        for c in 1..<classes where logProbabilities[row + c] > pruneLogProbability {
            candidates.append((c, logProbabilities[row + c]))
        }
        if candidates.count > maximumCharactersPerFrame {
            candidates.sort { $0.1 > $1.1 }
            candidates.removeLast(candidates.count - maximumCharactersPerFrame)
        }
    }

    private struct TreeBeam {
        var node: Int32
        var emitted: Int32
        var blank = -Double.infinity
        var nonBlank = -Double.infinity
        var languageModel: Double
        var network: Double { logAdd(blank, nonBlank) }
        var total: Double { network + languageModel }
    }

    /// Every text the search has made, as a tree: node -1 is the empty text, a node is its parent's text plus one
    /// character. A node also keeps the language model's state after its text and the log-probability of its last
    /// character given its parent's text, computed the first time a hypothesis reaches it.
    private struct PrefixTree {
        var parent: [Int32] = [], character: [Unicode.Scalar] = []
        private var states: [InkLanguageModel.State?] = []
        private var stateKnown: [Bool] = []
        private var edgeLogProbability: [Double] = []
        private var children: [Int: Int32] = [:]
        private var rootState: InkLanguageModel.State?
        private var rootStateKnown = false

        mutating func child(of node: Int32, _ character: Unicode.Scalar) -> Int32 {
            // A scalar value has 21 bits.
            let key = (Int(node) + 1) << 21 | Int(character.value)
            if let existing = children[key] { return existing }
            let new = Int32(parent.count)
            parent.append(node); self.character.append(character)
            states.append(nil); stateKnown.append(false); edgeLogProbability.append(.nan)
            children[key] = new
            return new
        }

        func state(_ node: Int32) -> InkLanguageModel.State? { node < 0 ? rootState : states[Int(node)] }

        mutating func setStateIfUnknown(_ node: Int32, _ state: InkLanguageModel.State?) {
            if node < 0 {
                if !rootStateKnown { rootState = state; rootStateKnown = true }
            } else if !stateKnown[Int(node)] {
                states[Int(node)] = state; stateKnown[Int(node)] = true
            }
        }

        /// The language model's log-probability of the node's last character after its parent's text (0 where the
        /// parent has no state: no language model there), computed once.
        mutating func languageLogProbability(of node: Int32, _ languageModel: InkLanguageModel) -> Double {
            let i = Int(node)
            if !edgeLogProbability[i].isNaN { return edgeLogProbability[i] }
            guard let before = state(parent[i]) else {
                edgeLogProbability[i] = 0
                setStateIfUnknown(node, nil)
                return 0
            }
            let (logP, after) = languageModel.extend(before, with: character[i])
            edgeLogProbability[i] = logP
            setStateIfUnknown(node, after)
            return logP
        }

        /// Without a language model a node's state is its parent's (nil).
        mutating func inheritState(_ node: Int32) { setStateIfUnknown(node, state(parent[Int(node)])) }

        func text(_ node: Int32) -> [Unicode.Scalar] {
            var characters: [Unicode.Scalar] = []
            var n = node
            while n >= 0 { characters.append(character[Int(n)]); n = parent[Int(n)] }
            return characters.reversed()
        }

        /// Whether the node's text sorts before the other's (only for ties in score, which are rare).
        func precedes(_ a: Int32, _ b: Int32) -> Bool { text(a).lexicographicallyPrecedes(text(b)) }
    }

    /// The frames at which a hypothesis's characters were emitted, as linked lists sharing their beginnings: entry
    /// -1 is the empty list, an entry is a frame after an earlier entry.
    private struct EmissionList {
        private var frame: [Int32] = [], previous: [Int32] = []

        mutating func append(frame value: Int32, after list: Int32) -> Int32 {
            frame.append(value); previous.append(list)
            return Int32(frame.count - 1)
        }

        /// The last frame of the list (-1 for text from a start, and for the empty list).
        func frame(of list: Int32) -> Int { list < 0 ? -1 : Int(frame[Int(list)]) }

        func frames(_ list: Int32, count: Int) -> [Int] {
            var out: [Int] = []
            out.reserveCapacity(count)
            var n = list
            while n >= 0 { out.append(Int(frame[Int(n)])); n = previous[Int(n)] }
            return out.reversed()
        }
    }

    /// The search as first written, over arrays of characters: the definition ``decode(logProbabilities:classes:alphabet:languageModel:starts:results:)``
    /// is tested against.
    func decodeReference(logProbabilities: [Float], classes: Int, alphabet: InkAlphabet, languageModel: InkLanguageModel?,
                         starts: [(text: [Unicode.Scalar], state: InkLanguageModel.State?, score: Double)], results: Int) -> [Hypothesis] {
        let frames = logProbabilities.count / classes
        // Beams live in arrays in a fixed order (a dictionary only finds them by text), so that the search is
        // deterministic: the same ink gives the same candidates and segments every time.
        var beams: [Beam] = []
        for start in starts {
            beams.append(Beam(text: start.text, emittedAt: Array(repeating: -1, count: start.text.count), blank: 0,
                              languageModel: start.score, state: start.state))
        }
        var candidates: [(Int, Float)] = []
        var next: [Beam] = []
        var index: [[Unicode.Scalar]: Int] = [:]
        var totals: [Double] = [], order: [Int] = []
        for t in 0..<frames {
            let row = t * classes
            let blankLog = Double(logProbabilities[row])
            frameCandidates(logProbabilities, row: row, classes: classes, into: &candidates)
            next.removeAll(keepingCapacity: true)
            index.removeAll(keepingCapacity: true)
            for beam in beams {
                let network = beam.network
                // Stay: a blank, or the last character once more without a blank between.
                let last = beam.text.last.map { alphabet.classIndex(of: $0) } ?? -1
                var stayNonBlank = -Double.infinity
                if last > 0, beam.emittedAt.last ?? -1 >= 0 { stayNonBlank = beam.nonBlank + Double(logProbabilities[row + last]) }
                merge(Beam(text: beam.text, emittedAt: beam.emittedAt, blank: network + blankLog, nonBlank: stayNonBlank,
                           languageModel: beam.languageModel, state: beam.state), into: &next, index: &index)
                for (c, logP) in candidates {
                    let character = alphabet.characters[c - 1]
                    // The same character again needs a blank between; from a non-blank path it is the "stay" above.
                    let path = (c == last && beam.emittedAt.last ?? -1 >= 0 ? beam.blank : network) + Double(logP)
                    if path == -.infinity { continue }
                    var text = beam.text
                    text.append(character)
                    if let existing = index[text] {
                        if path > next[existing].nonBlank { next[existing].emittedAt = beam.emittedAt + [t] }
                        next[existing].nonBlank = logAdd(next[existing].nonBlank, path)
                        continue
                    }
                    var languageScore = beam.languageModel + characterBonus
                    var state = beam.state
                    if let languageModel, let current = beam.state {
                        let (logP, after) = languageModel.extend(current, with: character)
                        languageScore += languageModelWeight * logP
                        state = after
                    }
                    index[text] = next.count
                    next.append(Beam(text: text, emittedAt: beam.emittedAt + [t], nonBlank: path, languageModel: languageScore, state: state))
                }
            }
            // Best first; equal scores in text order. The totals (a logAdd each) are computed once, not per comparison.
            totals.removeAll(keepingCapacity: true)
            for beam in next { totals.append(beam.total) }
            order.removeAll(keepingCapacity: true)
            order.append(contentsOf: next.indices)
            order.sort { totals[$0] != totals[$1] ? totals[$0] > totals[$1] : next[$0].text.lexicographicallyPrecedes(next[$1].text) }
            beams.removeAll(keepingCapacity: true)
            for i in order.prefix(beamWidth) { beams.append(next[i]) }
        }
        var finished: [Hypothesis] = beams.map { beam in
            var score = beam.total
            if scoresLoneCharacters, languageModel != nil, beam.text.count == 1, beam.emittedAt[0] >= 0, beam.text[0] != " " {
                score = beam.network + characterBonus + languageModelWeight * InkLanguageModel.loneCharacterLogProbability(beam.text[0])
            } else if let languageModel, let state = beam.state {
                score += languageModelWeight * languageModel.endOfWord(state)
            }
            return Hypothesis(text: beam.text, emittedAt: beam.emittedAt, score: score)
        }
        finished.sort { $0.score != $1.score ? $0.score > $1.score : $0.text.lexicographicallyPrecedes($1.text) }
        return Array(finished.prefix(results))
    }

    /// Adds a "stay" hypothesis to the frame's beams, summing its probabilities with the same text's.
    private func merge(_ beam: Beam, into next: inout [Beam], index: inout [[Unicode.Scalar]: Int]) {
        guard let existing = index[beam.text] else {
            index[beam.text] = next.count
            next.append(beam)
            return
        }
        if logAdd(beam.blank, beam.nonBlank) > next[existing].network { next[existing].emittedAt = beam.emittedAt }
        next[existing].blank = logAdd(next[existing].blank, beam.blank)
        next[existing].nonBlank = logAdd(next[existing].nonBlank, beam.nonBlank)
    }

    /// For every class k ≥ 1, the log-probability of all the network's paths that spell exactly the one character
    /// k (blanks, one or more frames of k, blanks), and the frame where k is likeliest: the reading of an ink as a
    /// lone character, for each character, without a search. `[frames, classes]` row-major, class 0 the blank.
    static func singleCharacterReadings(logProbabilities: [Float], classes: Int) -> [(logProbability: Double, frame: Int)] {
        let frames = logProbabilities.count / classes
        guard frames > 0, classes > 1 else { return [] }
        // Three states per character: only blanks so far (shared), inside the character, blanks after it.
        var blanksBefore = 0.0
        var inside = [Double](repeating: -.infinity, count: classes), after = inside
        var best = [(Float, Int)](repeating: (-.infinity, 0), count: classes)
        for t in 0..<frames {
            let row = t * classes
            let blank = Double(logProbabilities[row])
            for k in 1..<classes {
                let p = logProbabilities[row + k]
                if p > best[k].0 { best[k] = (p, t) }
                let nextInside = logAdd(inside[k], blanksBefore) + Double(p)
                after[k] = logAdd(after[k], inside[k]) + blank
                inside[k] = nextInside
            }
            blanksBefore += blank
        }
        return (1..<classes).map { (logAdd(inside[$0], after[$0]), best[$0].1) }
    }
}
