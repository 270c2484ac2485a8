/// TensorFlow Lite Metadata (`metadata_schema.fbs`, file identifier "M001"): what a model's inputs and outputs
/// mean, how to normalize them, and which associated files (labels, calibration) go with them.
///
/// The metadata lives in the model buffer named by the `TFLITE_METADATA` metadata entry; the associated files
/// live in a zip archive appended to the model file (see ``AssociatedFiles``).
public struct ModelMetadata: Sendable, Equatable {
    /// The newest metadata parser version this reader understands; models that require a newer one are rejected.
    public static let parserVersion = "1.5.0"

    /// The model's name, if given.
    public var name: String?
    /// The model's description, if given.
    public var description: String?
    /// The model's version, if given.
    public var version: String?
    /// The model's author, if given.
    public var author: String?
    /// The model's license, if given.
    public var license: String?
    /// `min_parser_version`: the oldest metadata parser that can read this metadata.
    public var minParserVersion: String?
    /// The subgraphs' metadata, in the model's subgraph order.
    public var subgraphs: [SubgraphMetadata]
    /// Files that go with the whole model.
    public var associatedFiles: [AssociatedFileMetadata]

    /// Reads the metadata of `model`, or returns nil when it has no `TFLITE_METADATA` entry.
    public init?(model: TFLiteModel) throws {
        guard let bytes = model.metadataBuffer(named: "TFLITE_METADATA") else { return nil }
        try self.init(bytes: bytes)
    }

    /// Parses a `ModelMetadata` FlatBuffer.
    public init(bytes: UnsafeRawBufferPointer) throws {
        let buffer = FlatBuffer(bytes: bytes)
        guard buffer.fileIdentifier == "M001" else {
            throw FormatError.malformed(path: "TFLITE_METADATA", reason: "file identifier is \(buffer.fileIdentifier.map { "\"\($0)\"" } ?? "missing"), expected \"M001\"")
        }
        let root = try buffer.rootTable()
        name = try root.string(0, "name")
        description = try root.string(1, "description")
        version = try root.string(2, "version")
        subgraphs = try root.tables(3, "subgraph_metadata").map(SubgraphMetadata.init)
        author = try root.string(4, "author")
        license = try root.string(5, "license")
        associatedFiles = try root.tables(6, "associated_files").map(AssociatedFileMetadata.init)
        minParserVersion = try root.string(7, "min_parser_version")
        if let required = minParserVersion, Self.compareVersions(required, Self.parserVersion) > 0 {
            throw FormatError.malformed(path: "TFLITE_METADATA", reason: "requires metadata parser \(required), this reader understands up to \(Self.parserVersion)")
        }
    }

    /// Compares dotted version strings numerically ("1.10" > "1.9"); missing components count as 0.
    public static func compareVersions(_ a: String, _ b: String) -> Int {
        let left = a.split(separator: ".").map { Int($0) ?? 0 }
        let right = b.split(separator: ".").map { Int($0) ?? 0 }
        for i in 0..<max(left.count, right.count) {
            let l = i < left.count ? left[i] : 0
            let r = i < right.count ? right[i] : 0
            if l != r { return l < r ? -1 : 1 }
        }
        return 0
    }
}

/// `SubGraphMetadata`: the metadata of one subgraph and of its inputs and outputs.
public struct SubgraphMetadata: Sendable, Equatable {
    /// The subgraph's name, if given.
    public var name: String?
    /// The subgraph's description, if given.
    public var description: String?
    /// One entry per input tensor, in the subgraph's input order.
    public var inputTensors: [TensorMetadata]
    /// One entry per output tensor, in the subgraph's output order.
    public var outputTensors: [TensorMetadata]
    /// Files that go with the subgraph.
    public var associatedFiles: [AssociatedFileMetadata]
    /// Process units for all inputs together (such as a tokenizer).
    public var inputProcessUnits: [ProcessUnit]
    /// Process units for all outputs together.
    public var outputProcessUnits: [ProcessUnit]

    init(_ table: FlatTable) throws {
        name = try table.string(0, "name")
        description = try table.string(1, "description")
        inputTensors = try table.tables(2, "input_tensor_metadata").map(TensorMetadata.init)
        outputTensors = try table.tables(3, "output_tensor_metadata").map(TensorMetadata.init)
        associatedFiles = try table.tables(4, "associated_files").map(AssociatedFileMetadata.init)
        inputProcessUnits = try table.tables(5, "input_process_units").map(ProcessUnit.init)
        outputProcessUnits = try table.tables(6, "output_process_units").map(ProcessUnit.init)
    }
}

/// `TensorMetadata`: what a tensor means and how to pre- or post-process it.
public struct TensorMetadata: Sendable, Equatable {
    /// The tensor's name, if given.
    public var name: String?
    /// The tensor's description, if given.
    public var description: String?
    /// `dimension_names`, one per dimension when given.
    public var dimensionNames: [String]
    /// `Content.content_properties`: a feature vector, an image or bounding boxes.
    public var content: ContentProperties?
    /// `Content.range`: the dimensions the content spans, when not all of them.
    public var contentRange: ClosedRange<Int>?
    /// Process units of this tensor (normalization, score calibration, score thresholding).
    public var processUnits: [ProcessUnit]
    /// `stats.max`: the largest values, one or per channel.
    public var statsMax: [Float]
    /// `stats.min`: the smallest values, one or per channel.
    public var statsMin: [Float]
    /// Files that go with the tensor (labels, calibration).
    public var associatedFiles: [AssociatedFileMetadata]

    init(_ table: FlatTable) throws {
        name = try table.string(0, "name")
        description = try table.string(1, "description")
        if let vector = try table.vector(2, "dimension_names", elementSize: 4) {
            dimensionNames = try (0..<vector.count).map { i in
                let slot = vector.start + 4 * i
                let target = slot + Int(try table.buffer.load(UInt32.self, at: slot, "dimension_names[\(i)]"))
                return try table.buffer.string(at: target, "dimension_names[\(i)]")
            }
        } else {
            dimensionNames = []
        }
        content = nil
        contentRange = nil
        if let contentTable = try table.table(3, "content") {
            let kind: UInt8 = try contentTable.scalar(0, default: 0)
            if let properties = try contentTable.table(1, "content_properties") {
                switch kind {
                case 1: content = .feature
                case 2:
                    let colorSpace: Int8 = try properties.scalar(0, default: 0)
                    var size: (width: Int, height: Int)?
                    if let sizeTable = try properties.table(1, "default_size") {
                        let w: UInt32 = try sizeTable.scalar(0, default: 0)
                        let h: UInt32 = try sizeTable.scalar(1, default: 0)
                        size = (Int(w), Int(h))
                    }
                    content = .image(ImagePropertiesMetadata(colorSpace: ColorSpace(rawValue: colorSpace) ?? .unknown, defaultWidth: size?.width, defaultHeight: size?.height))
                case 3:
                    let index = try properties.scalars(0, "index", as: UInt32.self) ?? []
                    let type: Int8 = try properties.scalar(1, default: 0)
                    let coordinates: Int8 = try properties.scalar(2, default: 0)
                    content = .boundingBox(index: index.map(Int.init), type: Int(type), pixelCoordinates: coordinates == 1)
                default: content = nil
                }
            }
            if let range = try contentTable.table(2, "range") {
                let low: Int32 = try range.scalar(0, default: 0)
                let high: Int32 = try range.scalar(1, default: 0)
                if low <= high { contentRange = Int(low)...Int(high) }
            }
        }
        processUnits = try table.tables(4, "process_units").map(ProcessUnit.init)
        if let stats = try table.table(5, "stats") {
            statsMax = try stats.floats(0, "max") ?? []
            statsMin = try stats.floats(1, "min") ?? []
        } else {
            statsMax = []
            statsMin = []
        }
        associatedFiles = try table.tables(6, "associated_files").map(AssociatedFileMetadata.init)
    }

    /// The normalization options among the process units, if any.
    public var normalization: NormalizationOptions? {
        for unit in processUnits { if case let .normalization(options) = unit { return options } }
        return nil
    }

    /// The global score threshold among the process units, if any.
    public var scoreThreshold: Float? {
        for unit in processUnits { if case let .scoreThresholding(threshold) = unit { return threshold } }
        return nil
    }

    /// The score calibration options among the process units, if any.
    public var scoreCalibration: ScoreCalibrationOptions? {
        for unit in processUnits { if case let .scoreCalibration(options) = unit { return options } }
        return nil
    }

    /// The image properties of this tensor's content, if it is an image.
    public var imageProperties: ImagePropertiesMetadata? {
        if case let .image(properties) = content { return properties }
        return nil
    }

    /// The name of the first associated file of `type` whose locale is `locale` (any locale when `locale` is
    /// empty), the rule of MediaPipe's `ModelMetadataExtractor::FindFirstAssociatedFileName`.
    public func firstAssociatedFile(ofType type: AssociatedFileType, locale: String = "") -> String? {
        associatedFiles.first { $0.type == type && (locale.isEmpty || $0.locale == locale) }?.name
    }
}

/// `ColorSpaceType` of an image input.
public enum ColorSpace: Int8, Sendable, Equatable {
    /// `UNKNOWN` (0), `RGB` (1), `GRAYSCALE` (2).
    case unknown = 0, rgb = 1, grayscale = 2
}

/// `ImageProperties`: an image tensor's colour space and default size.
public struct ImagePropertiesMetadata: Sendable, Equatable {
    /// `color_space`.
    public var colorSpace: ColorSpace
    /// `default_size.width`, when given.
    public var defaultWidth: Int?
    /// `default_size.height`, when given.
    public var defaultHeight: Int?
}

/// `ContentProperties`: what kind of value a tensor holds.
public enum ContentProperties: Sendable, Equatable {
    /// `FeatureProperties`: a feature vector.
    case feature
    /// `ImageProperties`: an image.
    case image(ImagePropertiesMetadata)
    /// `type`: 1 boundaries, 2 upper-left, 3 center.
    case boundingBox(index: [Int], type: Int, pixelCoordinates: Bool)
}

/// `NormalizationOptions`: an input is normalized as `(x - mean) / std`, per channel or with one value for all.
public struct NormalizationOptions: Sendable, Equatable {
    /// `mean`: one value, or one per channel.
    public var mean: [Float]
    /// `std`: one value, or one per channel.
    public var std: [Float]

    /// Options from their values.
    public init(mean: [Float], std: [Float]) {
        self.mean = mean
        self.std = std
    }
}

/// `ScoreTransformationType`: applied to a score before calibration.
public enum ScoreTransformation: Int8, Sendable, Equatable {
    /// `IDENTITY` (0), `LOG` (1), `INVERSE_LOGISTIC` (2).
    case identity = 0, log = 1, inverseLogistic = 2
}

/// `ScoreCalibrationOptions`: how to calibrate scores with the `TENSOR_AXIS_SCORE_CALIBRATION` file's parameters.
public struct ScoreCalibrationOptions: Sendable, Equatable {
    /// `score_transformation`.
    public var transformation: ScoreTransformation
    /// `default_score`: the score of classes without calibration parameters.
    public var defaultScore: Float

    /// Options from their values.
    public init(transformation: ScoreTransformation, defaultScore: Float) {
        self.transformation = transformation
        self.defaultScore = defaultScore
    }
}

/// `ProcessUnit`: an out-of-graph step to apply to a tensor.
public enum ProcessUnit: Sendable, Equatable {
    /// `NormalizationOptions`.
    case normalization(NormalizationOptions)
    /// `ScoreCalibrationOptions`.
    case scoreCalibration(ScoreCalibrationOptions)
    /// `ScoreThresholdingOptions`: the global score threshold.
    case scoreThresholding(Float)
    /// A tokenizer or any process unit type this reader does not interpret (the union type is kept).
    case other(type: Int)

    init(_ table: FlatTable) throws {
        let type: UInt8 = try table.scalar(0, default: 0)
        guard let options = try table.table(1, "options") else {
            self = .other(type: Int(type))
            return
        }
        switch type {
        case 1:
            self = .normalization(NormalizationOptions(mean: try options.floats(0, "mean") ?? [], std: try options.floats(1, "std") ?? []))
        case 2:
            let transformation: Int8 = try options.scalar(0, default: 0)
            guard let kind = ScoreTransformation(rawValue: transformation) else {
                throw FormatError.malformed(path: options.path, reason: "unknown score transformation \(transformation)")
            }
            self = .scoreCalibration(ScoreCalibrationOptions(transformation: kind, defaultScore: try options.float(1, default: 0)))
        case 3:
            self = .scoreThresholding(try options.float(0, default: 0))
        default:
            self = .other(type: Int(type))
        }
    }
}

/// `AssociatedFileType`: what an associated file holds.
public enum AssociatedFileType: Int8, Sendable, Equatable {
    /// `UNKNOWN`.
    case unknown = 0
    /// `DESCRIPTIONS`: a description of the model or tensor.
    case descriptions = 1
    /// `TENSOR_AXIS_LABELS`: one label per line, for the tensor's last axis (class names).
    case tensorAxisLabels = 2
    /// `TENSOR_VALUE_LABELS`: labels for the tensor's values (such as a detector's class output).
    case tensorValueLabels = 3
    /// `TENSOR_AXIS_SCORE_CALIBRATION`: one line of calibration parameters per class.
    case tensorAxisScoreCalibration = 4
    /// `VOCABULARY`: a tokenizer's vocabulary.
    case vocabulary = 5
    /// `SCANN_INDEX_FILE`: a ScaNN index.
    case scannIndexFile = 6
}

/// `AssociatedFile`: a file of the appended zip archive that goes with the model or a tensor.
public struct AssociatedFileMetadata: Sendable, Equatable {
    /// The file's name in the archive.
    public var name: String
    /// The file's description, if any.
    public var description: String?
    /// What the file holds.
    public var type: AssociatedFileType
    /// The language of a labels file's names (such as `en`), if given.
    public var locale: String?

    init(_ table: FlatTable) throws {
        name = try table.string(0, "name") ?? ""
        description = try table.string(1, "description")
        let raw: Int8 = try table.scalar(2, default: 0)
        type = AssociatedFileType(rawValue: raw) ?? .unknown
        locale = try table.string(3, "locale")
    }
}
