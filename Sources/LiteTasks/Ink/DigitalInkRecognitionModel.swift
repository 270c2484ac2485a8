import Foundation

/// Names a recognition model by language: ML Kit's `DigitalInkRecognitionModelIdentifier`.
///
/// The project trains these models (models/README.md): "en", English text, for every BCP-47 tag whose language is
/// English (en, en-US, en-GB, en-Latn-IN, ...); the Latin-script languages "es" Spanish, "tr" Turkish, "de" German,
/// "fr" French, "pt" Portuguese, "it" Italian and "vi" Vietnamese, each for its language with any region and the
/// script Latn or none (es-419, es-MX, pt-BR, de-CH, fr-CA, vi-VN, ...), which share one network and read with
/// their own word lists; "ja", Japanese (ja, ja-JP, ja-Jpan); "zh-Hans", Simplified Chinese (zh, zh-CN, zh-SG,
/// zh-Hani-CN, ...); "zh-Hant", Traditional Chinese (zh-TW, zh-HK, zh-MO, zh-Hani-TW, ...); and "zxx-Zsym-x-shapes",
/// hand-drawn shapes.
public struct DigitalInkRecognitionModelIdentifier: Sendable, Hashable, CustomStringConvertible {
    /// The tag of the model ("en", "zxx-Zsym-x-shapes").
    public let languageTag: String
    /// Its language subtag ("en", "zxx").
    public let languageSubtag: String
    /// Its script subtag, if any ("Zsym").
    public let scriptSubtag: String?
    /// Its region subtag, if any.
    public let regionSubtag: String?
    /// The registry entry of the model file.
    public let registryName: String

    /// The model's language tag.
    public var description: String { languageTag }

    /// English text, "en" (registry entry `ink-en`); every English tag maps to it.
    public static let english = DigitalInkRecognitionModelIdentifier(languageTag: "en", languageSubtag: "en", scriptSubtag: nil, regionSubtag: nil, registryName: "ink-en")
    /// Japanese, "ja" (registry entry `ink-ja`): kanji and kana, one character or a short line; "ja" with any region
    /// and the script Jpan (ja-JP, ja-Jpan-JP) map to it.
    public static let japanese = DigitalInkRecognitionModelIdentifier(languageTag: "ja", languageSubtag: "ja", scriptSubtag: nil, regionSubtag: nil, registryName: "ink-ja")
    /// Simplified Chinese, "zh-Hans" (registry entry `ink-zh-Hans`): one character or a short line. "zh" alone, the
    /// script Hans, and the script Hani or none with a region that writes Simplified (CN, SG, MY) map to it.
    public static let chineseSimplified = DigitalInkRecognitionModelIdentifier(languageTag: "zh-Hans", languageSubtag: "zh", scriptSubtag: "Hans", regionSubtag: nil, registryName: "ink-zh-Hans")
    /// Traditional Chinese, "zh-Hant" (registry entry `ink-zh-Hant`): one character or a short line. The script Hant,
    /// and the script Hani or none with a region that writes Traditional (TW, HK, MO), map to it.
    public static let chineseTraditional = DigitalInkRecognitionModelIdentifier(languageTag: "zh-Hant", languageSubtag: "zh", scriptSubtag: "Hant", regionSubtag: nil, registryName: "ink-zh-Hant")
    /// Hand-drawn shapes, "zxx-Zsym-x-shapes" (registry entry `ink-shapes`).
    public static let shapes = DigitalInkRecognitionModelIdentifier(languageTag: "zxx-Zsym-x-shapes", languageSubtag: "zxx", scriptSubtag: "Zsym", regionSubtag: nil, registryName: "ink-shapes")
    /// Spanish text, "es" (registry entry `ink-es`); "es" with any region (es-419, es-ES, es-MX) and the script
    /// Latn map to it.
    public static let spanish = latin("es")
    /// Turkish text, "tr" (registry entry `ink-tr`); "tr" with any region (tr-TR) and the script Latn map to it.
    public static let turkish = latin("tr")
    /// German text, "de" (registry entry `ink-de`); "de" with any region (de-DE, de-AT, de-CH) and the script Latn
    /// map to it.
    public static let german = latin("de")
    /// French text, "fr" (registry entry `ink-fr`); "fr" with any region (fr-FR, fr-CA) and the script Latn map to it.
    public static let french = latin("fr")
    /// Portuguese text, "pt" (registry entry `ink-pt`); "pt" with any region (pt-BR, pt-PT) and the script Latn map
    /// to it.
    public static let portuguese = latin("pt")
    /// Italian text, "it" (registry entry `ink-it`); "it" with any region (it-IT) and the script Latn map to it.
    public static let italian = latin("it")
    /// Vietnamese text, "vi" (registry entry `ink-vi`); "vi" with any region (vi-VN) and the script Latn map to it.
    public static let vietnamese = latin("vi")

    /// Every identifier a model exists for: ML Kit's `allModelIdentifiers()`.
    public static func allModelIdentifiers() -> Set<DigitalInkRecognitionModelIdentifier> {
        [english, japanese, chineseSimplified, chineseTraditional, shapes, spanish, turkish, german, french, portuguese, italian, vietnamese]
    }

    /// The Latin-script languages besides English: each reads the shared Latin network with its own word list
    /// (registry entry `ink-<language>`).
    private static let latinLanguages: Set<String> = ["es", "tr", "de", "fr", "pt", "it", "vi"]

    private static func latin(_ language: String) -> DigitalInkRecognitionModelIdentifier {
        DigitalInkRecognitionModelIdentifier(languageTag: language, languageSubtag: language, scriptSubtag: nil, regionSubtag: nil, registryName: "ink-" + language)
    }

    /// The regions whose Chinese is written in Traditional characters when a tag names no script.
    private static let traditionalChineseRegions: Set<String> = ["tw", "hk", "mo"]

    private init(languageTag: String, languageSubtag: String, scriptSubtag: String?, regionSubtag: String?, registryName: String) {
        self.languageTag = languageTag
        self.languageSubtag = languageSubtag
        self.scriptSubtag = scriptSubtag
        self.regionSubtag = regionSubtag
        self.registryName = registryName
    }

    /// The model for a BCP-47 tag, or nil when the tag is not well formed or no model covers it. ML Kit's
    /// `init(forLanguageTag:)`, which also answers nil rather than throwing.
    public init?(forLanguageTag tag: String) {
        guard let parsed = Self.parse(tag) else { return nil }
        if parsed.language == "zxx", parsed.script == "zsym", parsed.privateUse == ["shapes"] {
            self = .shapes
            return
        }
        if parsed.language == "ja", parsed.privateUse.isEmpty, parsed.script == nil || parsed.script == "jpan" {
            self.init(languageTag: tag, languageSubtag: "ja", scriptSubtag: parsed.script.map { _ in "Jpan" },
                      regionSubtag: parsed.region?.uppercased(), registryName: "ink-ja")
            return
        }
        if parsed.language == "zh", parsed.privateUse.isEmpty, ["hans", "hant", "hani"].contains(parsed.script ?? "hani") {
            let traditional = parsed.script == "hant"
                || (parsed.script != "hans" && parsed.region.map(Self.traditionalChineseRegions.contains) == true)
            self.init(languageTag: tag, languageSubtag: "zh", scriptSubtag: traditional ? "Hant" : "Hans",
                      regionSubtag: parsed.region?.uppercased(), registryName: traditional ? "ink-zh-Hant" : "ink-zh-Hans")
            return
        }
        guard parsed.language == "en" || Self.latinLanguages.contains(parsed.language), parsed.privateUse.isEmpty,
              parsed.script == nil || parsed.script == "latn" else { return nil }
        self.init(languageTag: tag, languageSubtag: parsed.language, scriptSubtag: parsed.script.map { _ in "Latn" },
                  regionSubtag: parsed.region?.uppercased(), registryName: "ink-" + parsed.language)
    }

    /// BCP-47 (RFC 5646) language tag syntax, lower-cased: language, optional script, region, variants and
    /// extensions, and private use after "x". Grandfathered tags are not models and are rejected.
    static func parse(_ tag: String) -> (language: String, script: String?, region: String?, privateUse: [String])? {
        guard !tag.isEmpty, tag.count <= 64 else { return nil }
        let parts = tag.lowercased().split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        func alpha(_ s: String) -> Bool { s.allSatisfy { $0.isASCII && $0.isLetter } }
        func alnum(_ s: String) -> Bool { s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
        guard let language = parts.first, (2...3).contains(language.count) || (5...8).contains(language.count), alpha(language) else { return nil }
        var script: String?, region: String?
        var i = 1
        if i < parts.count, parts[i].count == 4, alpha(parts[i]) { script = parts[i]; i += 1 }
        if i < parts.count, (parts[i].count == 2 && alpha(parts[i])) || (parts[i].count == 3 && parts[i].allSatisfy(\.isNumber)) { region = parts[i]; i += 1 }
        while i < parts.count, parts[i] != "x" {
            let part = parts[i]
            if part.count == 1, alnum(part) {
                // An extension: a singleton and at least one 2-8 character subtag.
                i += 1
                let first = i
                while i < parts.count, (2...8).contains(parts[i].count), alnum(parts[i]) { i += 1 }
                if i == first { return nil }
            } else if ((5...8).contains(part.count) && alnum(part)) || (part.count == 4 && part.first!.isNumber && alnum(part)) {
                i += 1
            } else {
                return nil
            }
        }
        var privateUse: [String] = []
        if i < parts.count {
            i += 1
            guard i < parts.count else { return nil }
            while i < parts.count {
                guard (1...8).contains(parts[i].count), alnum(parts[i]) else { return nil }
                privateUse.append(parts[i]); i += 1
            }
        }
        return (language, script, region, privateUse)
    }
}

/// A digital ink model to download and recognize with: ML Kit's `DigitalInkRecognitionModel`, a ``RemoteModel``
/// of the project's registry. The project's own models ship inside the package and are always downloaded.
public struct DigitalInkRecognitionModel: RemoteModel, Hashable {
    /// The language the model recognizes.
    public let modelIdentifier: DigitalInkRecognitionModelIdentifier
    /// The registry entry of the model file (``DigitalInkRecognitionModelIdentifier/registryName``).
    public var registryName: String { modelIdentifier.registryName }

    /// The model for `modelIdentifier`.
    public init(modelIdentifier: DigitalInkRecognitionModelIdentifier) {
        self.modelIdentifier = modelIdentifier
    }
}

extension ModelManager {
    /// The downloaded digital ink models: ML Kit's `downloadedModels` filtered to ink models.
    public var downloadedInkModels: Set<DigitalInkRecognitionModel> {
        Set(DigitalInkRecognitionModelIdentifier.allModelIdentifiers()
            .map(DigitalInkRecognitionModel.init(modelIdentifier:))
            .filter(isModelDownloaded))
    }
}
