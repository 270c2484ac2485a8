/// The characters of a text network's classes: class 0 is the CTC blank, class k ≥ 1 the character `characters[k - 1]`.
///
/// A network with a `<model>.alphabet.txt` beside it has the characters of that file, one a line (UTF-8, "\n"
/// between lines, each line taken exactly as it is, so a line may be a single space; a final newline adds no class).
/// Without the file the classes are printable ASCII, 32...126, as the "en" network has them.
struct InkAlphabet: Equatable {
    /// The character of class k + 1.
    let characters: [Unicode.Scalar]
    /// The class of each ASCII character (0: not in the alphabet), so that an ASCII character is found without hashing.
    private let asciiClass: [Int32]
    /// The class of each other character.
    private let otherClass: [UInt32: Int32]

    /// Printable ASCII, the classes of a network without an alphabet file.
    static let printableASCII = InkAlphabet(checked: (32...126).map { Unicode.Scalar(UInt8($0)) })

    /// The number of classes: the blank and the characters.
    var classCount: Int { characters.count + 1 }

    private init(checked characters: [Unicode.Scalar]) {
        self.characters = characters
        var ascii = [Int32](repeating: 0, count: 128), other: [UInt32: Int32] = [:]
        for (k, character) in characters.enumerated() {
            if character.isASCII { ascii[Int(character.value)] = Int32(k + 1) } else { other[character.value] = Int32(k + 1) }
        }
        asciiClass = ascii
        otherClass = other
    }

    /// The alphabet file `text`; `name` names it in errors. Every line must be one character that stands on its own
    /// (one Unicode scalar, in NFC: not a control character, not a combining mark), and no character may repeat.
    init(parsing text: String, name: String) throws {
        // Split at every "\n" scalar: as Characters, "\r\n" is one that is not "\n".
        var lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { String(String.UnicodeScalarView($0)) }
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard !lines.isEmpty else { throw TaskError.model("the alphabet \(name) has no characters") }
        var characters: [Unicode.Scalar] = []
        var seen: [Unicode.Scalar: Int] = [:]
        for (n, line) in lines.enumerated() {
            let place = "the alphabet \(name) line \(n + 1) (\(line.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }.joined(separator: " ")))"
            guard line.count == 1 else {
                throw TaskError.model("\(place) is \(line.count) characters; each line is exactly one character")
            }
            guard line.unicodeScalars.count == 1, let scalar = line.unicodeScalars.first else {
                throw TaskError.model("\(place) is one character of \(line.unicodeScalars.count) Unicode scalars; each line is one scalar (NFC)")
            }
            guard scalar.properties.generalCategory != .control, !scalar.properties.isGraphemeExtend else {
                throw TaskError.model("\(place) is a control character or a combining mark, not a character that can be written on its own")
            }
            if let first = seen[scalar] {
                throw TaskError.model("\(place) repeats line \(first); each character is one class")
            }
            seen[scalar] = n + 1
            characters.append(scalar)
        }
        self.init(checked: characters)
    }

    /// The class of `character`, 0 when it is not in the alphabet.
    @inline(__always) func classIndex(of character: Unicode.Scalar) -> Int {
        character.isASCII ? Int(asciiClass[Int(character.value)]) : Int(otherClass[character.value] ?? 0)
    }

    /// Whether each class k ≥ 1 may be emitted when a language writes printable ASCII and `charset` (index k - 1).
    func allowed(byCharset charset: Set<Unicode.Scalar>) -> [Bool] {
        characters.map { (32...126).contains($0.value) || charset.contains($0) }
    }

    /// The characters of a `<language>.charset.txt` (`text`, UTF-8): the characters beyond printable ASCII a
    /// language writes, whitespace between them ignored. `name` names the file in errors.
    static func charset(parsing text: String, name: String) throws -> Set<Unicode.Scalar> {
        var charset = Set<Unicode.Scalar>()
        for character in text where !character.isWhitespace {
            guard character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first else {
                let scalars = character.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }.joined(separator: " ")
                throw TaskError.model("the character set \(name) holds \(scalars), one character of several Unicode scalars; each is one scalar (NFC)")
            }
            charset.insert(scalar)
        }
        return charset
    }

    /// Sets the log-probabilities of the classes that are not `allowed` ([frames, classes] row-major) to -infinity,
    /// so that the search never emits them.
    static func mask(_ logProbabilities: inout [Float], classes: Int, allowed: [Bool]) {
        let banned = allowed.indices.filter { !allowed[$0] }.map { $0 + 1 }
        guard !banned.isEmpty else { return }
        for row in stride(from: 0, to: logProbabilities.count, by: classes) {
            for c in banned { logProbabilities[row + c] = -.infinity }
        }
    }
}
