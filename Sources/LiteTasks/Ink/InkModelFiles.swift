import Foundation
import LiteEngine
import LiteFormat

/// Where a digital ink model and its sidecar files are (`<model>.labels.txt`, `.alphabet.txt`, `.lexicon.tsv`,
/// `.characters.tflite`, `.geometry.tflite`): compiled into the library (``BundledFiles``) for the models the project ships, else beside the
/// model's file in the cache. Files are named by path on disk and by their models/ name when bundled.
struct InkModelFiles {
    /// Whether the names are of ``BundledFiles`` rather than paths.
    let bundled: Bool
    /// The network's file.
    let model: String
    /// The model's name without its extension: sidecars are this plus a suffix.
    let base: String
    /// The base of the language's own sidecars (`.lm.arpa`, `.lexicon.tsv`, `.charset.txt`): the registry entry's
    /// name, beside the model's file. Several languages can share one network (zh-Hans and zh-Hant read
    /// `ink-zh.tflite`; es, de, fr... read `ink-latin.tflite`), each with its own language model
    /// (`ink-zh-Hans.lm.arpa`, `ink-es.lexicon.tsv`).
    let languageBase: String
    /// The language subtag of the model's identifier ("en", "tr"): how the language model pairs upper and lower case.
    let language: String

    init(_ model: DigitalInkRecognitionModel, manager: ModelManager) throws {
        if let entry = try? manager.registry.model(named: model.registryName), let name = entry.bundledName {
            guard BundledFiles.bytes(named: name) != nil else {
                throw TaskError.failedPrecondition("the digital ink model \(model.modelIdentifier) ships with the package as \(entry.bundled ?? name), but this build of LiteTasks does not contain it (Sources/CBundledFiles/bundled_files.S)")
            }
            bundled = true
            self.model = name
        } else {
            guard let path = manager.localPath(of: model) else {
                throw TaskError.failedPrecondition("the digital ink model \(model.modelIdentifier) is not downloaded; download it with ModelManager.download(_:conditions:)")
            }
            bundled = false
            self.model = path
        }
        base = (self.model as NSString).deletingPathExtension
        languageBase = ((self.model as NSString).deletingLastPathComponent as NSString).appendingPathComponent(model.registryName)
        language = model.modelIdentifier.languageSubtag
    }

    /// The name of the sidecar file with this suffix (".labels.txt").
    func sidecar(_ suffix: String) -> String { base + suffix }

    /// The name of the language's own sidecar file with this suffix (".lm.arpa"): ``languageBase`` plus the suffix.
    func languageSidecar(_ suffix: String) -> String { languageBase + suffix }

    func exists(_ name: String) -> Bool {
        bundled ? BundledFiles.bytes(named: name) != nil : FileManager.default.fileExists(atPath: name)
    }

    /// The network in file `name`: the binary's bytes as they are when bundled, else the file mapped.
    func tfliteModel(_ name: String) throws -> TFLiteModel {
        if bundled {
            guard let bytes = BundledFiles.bytes(named: name) else { throw TaskError.notFound("\(name) is not bundled") }
            return try TaskError.wrap { try TFLiteModel(storage: ModelBytes(unsafeBorrowing: bytes)) }
        }
        return try TaskError.wrap { try TFLiteModel(path: name) }
    }

    /// The UTF-8 text of file `name`, or nil when there is no such file; a file over `maximumBytes` is a model
    /// error, found before it is read.
    func text(_ name: String, maximumBytes: Int = 64 << 20) throws -> String? {
        guard exists(name) else { return nil }
        let size = bundled ? BundledFiles.bytes(named: name)?.count : (try? FileManager.default.attributesOfItem(atPath: name))?[.size] as? Int
        if let size, size > maximumBytes { throw TaskError.model("\(name) is \(size) bytes, over the \(maximumBytes) accepted") }
        let data: Data
        if bundled {
            data = BundledFiles.data(named: name) ?? Data()
        } else {
            guard let contents = FileManager.default.contents(atPath: name) else { throw TaskError.io("cannot read \(name)") }
            data = contents
        }
        guard let text = String(data: data, encoding: .utf8) else { throw TaskError.model("\(name) is not UTF-8 text") }
        return text
    }

    /// The lexicon of the language: its own (`ink-es.lexicon.tsv`) or else the network's (`ink-en.lexicon.tsv`,
    /// which for "en" is the same file); nil when there is neither.
    func lexicon() -> String? {
        [languageSidecar(".lexicon.tsv"), sidecar(".lexicon.tsv")].first(where: exists)
    }

    /// The language model of lexicon file `name` for ``language``, with `extraLetters` (the letters the network may
    /// write) given symbols too; loaded once per process.
    func languageModel(_ name: String, extraLetters: [Unicode.Scalar]) throws -> InkLanguageModel {
        bundled ? try InkLanguageModel.shared(bundled: name, language: language, extraLetters: extraLetters)
            : try InkLanguageModel.shared(path: name, language: language, extraLetters: extraLetters)
    }
}
