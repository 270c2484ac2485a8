import Foundation
import LiteEngine
import LiteFormat

/// What `vision-cli inspect` prints, as text or JSON.
struct ModelReport: Encodable {
    struct TensorReport: Encodable {
        let index: Int
        let name: String
        let shape: [Int]
        let shapeSignature: [Int]
        let dtype: String
        let quantization: QuantizationReport?
    }

    struct QuantizationReport: Encodable {
        let scale: [Float]
        let zeroPoint: [Int64]
        let quantizedDimension: Int
    }

    struct OpReport: Encodable {
        let op: String
        let version: Int
        let count: Int
        let supported: Bool
    }

    struct SubgraphReport: Encodable {
        let name: String
        let tensorCount: Int
        let operatorCount: Int
        let inputs: [TensorReport]
        let outputs: [TensorReport]
        /// Every tensor, with `inspect --tensors`.
        let tensors: [TensorReport]?
    }

    struct MetadataReport: Encodable {
        let name: String
        let bytes: Int
    }

    let path: String
    let fileBytes: Int
    let description: String
    let subgraphs: [SubgraphReport]
    let ops: [OpReport]
    let allOpsSupported: Bool
    let metadata: [MetadataReport]
    let signatures: [String]
    let arenaBytes: Int?
    let planError: String?
    /// The TFLite Metadata (M001) and associated files, when the model has them.
    let tfliteMetadata: TFLiteMetadataReport?

    struct TFLiteMetadataReport: Encodable {
        struct TensorInfo: Encodable {
            let name: String?
            let description: String?
            let content: String?
            let normalizationMean: [Float]?
            let normalizationStd: [Float]?
            let scoreThreshold: Float?
            let scoreCalibration: String?
            let associatedFiles: [String]
        }
        let name: String?
        let description: String?
        let version: String?
        let author: String?
        let license: String?
        let minParserVersion: String?
        let inputs: [TensorInfo]
        let outputs: [TensorInfo]
        let associatedFiles: [String]
        let packedFiles: [String: Int]
        let error: String?
    }

    init(path: String, allTensors: Bool = false) throws {
        let model = try TFLiteModel(path: path)
        self.path = path
        fileBytes = model.storage.bytes.count
        description = model.description
        func report(_ graph: SubGraphDescription, _ index: Int) -> TensorReport {
            let t = graph.tensors[index]
            return TensorReport(index: index, name: t.name, shape: t.shape, shapeSignature: t.shapeSignature, dtype: t.type.description,
                                quantization: t.quantization.map { QuantizationReport(scale: $0.scale, zeroPoint: $0.zeroPoint, quantizedDimension: $0.quantizedDimension) })
        }
        subgraphs = model.subgraphs.map { graph in
            SubgraphReport(name: graph.name, tensorCount: graph.tensors.count, operatorCount: graph.operators.count,
                           inputs: graph.inputs.map { report(graph, $0) }, outputs: graph.outputs.map { report(graph, $0) },
                           tensors: allTensors ? graph.tensors.indices.map { report(graph, $0) } : nil)
        }
        var counts: [OperatorCode: Int] = [:]
        for graph in model.subgraphs { for op in graph.operators { counts[model.operatorCodes[op.opcodeIndex], default: 0] += 1 } }
        ops = counts.map { OpReport(op: $0.key.description, version: $0.key.version, count: $0.value, supported: Interpreter.supports($0.key)) }
            .sorted { ($0.count, $1.op) > ($1.count, $0.op) }
        let opsKnown = ops.allSatisfy(\.supported)
        metadata = model.metadata.map { MetadataReport(name: $0.name, bytes: model.buffers[$0.bufferIndex].count) }
        signatures = model.signatureDefs.map(\.key)
        tfliteMetadata = Self.readMetadata(model)
        do {
            let interpreter = try Interpreter(model: model)
            arenaBytes = interpreter.arenaBytes
            planError = nil
        } catch {
            arenaBytes = nil
            planError = "\(error)"
        }
        // Supported means every op, version and tensor type has a kernel: the plan was built.
        allOpsSupported = opsKnown && planError == nil
    }

    static func readMetadata(_ model: TFLiteModel) -> TFLiteMetadataReport? {
        func file(_ f: AssociatedFileMetadata) -> String {
            "\(f.name) (\(f.type)\(f.locale.map { ", locale \($0)" } ?? ""))"
        }
        func info(_ t: TensorMetadata) -> TFLiteMetadataReport.TensorInfo {
            let content: String?
            switch t.content {
            case .image(let p)?: content = "image (\(p.colorSpace))"
            case .feature?: content = "feature"
            case .boundingBox?: content = "bounding box"
            case nil: content = nil
            }
            return .init(name: t.name, description: t.description, content: content, normalizationMean: t.normalization?.mean,
                         normalizationStd: t.normalization?.std, scoreThreshold: t.scoreThreshold,
                         scoreCalibration: t.scoreCalibration.map { "\($0.transformation), default \($0.defaultScore)" },
                         associatedFiles: t.associatedFiles.map(file))
        }
        let packed = (try? AssociatedFiles(model: model))?.entries.mapValues(\.count) ?? [:]
        do {
            guard let m = try ModelMetadata(model: model) else {
                return packed.isEmpty ? nil : .init(name: nil, description: nil, version: nil, author: nil, license: nil, minParserVersion: nil,
                                                    inputs: [], outputs: [], associatedFiles: [], packedFiles: packed, error: nil)
            }
            let graph = m.subgraphs.first
            return .init(name: m.name, description: m.description, version: m.version, author: m.author, license: m.license,
                         minParserVersion: m.minParserVersion, inputs: graph?.inputTensors.map(info) ?? [],
                         outputs: graph?.outputTensors.map(info) ?? [], associatedFiles: m.associatedFiles.map(file),
                         packedFiles: packed, error: nil)
        } catch {
            return .init(name: nil, description: nil, version: nil, author: nil, license: nil, minParserVersion: nil,
                         inputs: [], outputs: [], associatedFiles: [], packedFiles: packed, error: "\(error)")
        }
    }

    var metadataText: [String] {
        guard let m = tfliteMetadata else { return [] }
        var lines = ["TFLite metadata:"]
        if let error = m.error { lines.append("  unreadable: \(error)") }
        for (key, value) in [("name", m.name), ("description", m.description), ("version", m.version), ("author", m.author),
                             ("license", m.license), ("min parser version", m.minParserVersion)] {
            if let value, !value.isEmpty { lines.append("  \(key): \(value.replacingOccurrences(of: "\n", with: " "))") }
        }
        for (kind, tensors) in [("input", m.inputs), ("output", m.outputs)] {
            for (i, t) in tensors.enumerated() {
                var parts = ["  \(kind) \(i): \(t.name ?? "")"]
                if let c = t.content { parts.append(c) }
                if let mean = t.normalizationMean, let std = t.normalizationStd { parts.append("normalization mean \(mean) std \(std)") }
                if let threshold = t.scoreThreshold { parts.append("score threshold \(threshold)") }
                if let calibration = t.scoreCalibration { parts.append("score calibration \(calibration)") }
                if !t.associatedFiles.isEmpty { parts.append("files: " + t.associatedFiles.joined(separator: ", ")) }
                lines.append(parts.joined(separator: "; "))
            }
        }
        if !m.associatedFiles.isEmpty { lines.append("  model files: " + m.associatedFiles.joined(separator: ", ")) }
        if !m.packedFiles.isEmpty {
            lines.append("  packed (zip): " + m.packedFiles.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value) bytes" }.joined(separator: ", "))
        }
        return lines
    }

    var text: String {
        var lines: [String] = []
        lines.append("model: \(path) (\(fileBytes) bytes)\(description.isEmpty ? "" : ", \"\(description)\"")")
        func describe(_ t: TensorReport) -> String {
            var line = "    [\(t.index)] \(t.name.isEmpty ? "-" : t.name)  \(t.dtype) \(t.shape)"
            if t.shapeSignature != t.shape { line += " signature \(t.shapeSignature)" }
            if let q = t.quantization {
                if q.scale.count == 1 {
                    line += "  quantized per tensor: scale \(q.scale[0]) zero point \(q.zeroPoint.first ?? 0)"
                } else if !q.scale.isEmpty {
                    let zeros = Set(q.zeroPoint)
                    line += "  quantized per channel: dimension \(q.quantizedDimension), \(q.scale.count) scales in [\(q.scale.min()!), \(q.scale.max()!)]"
                    line += zeros.count == 1 ? ", zero point \(zeros.first!)" : ", \(q.zeroPoint.count) zero points"
                }
            }
            return line
        }
        for (i, graph) in subgraphs.enumerated() {
            lines.append("subgraph \(i)\(graph.name.isEmpty ? "" : " \"\(graph.name)\""): \(graph.tensorCount) tensors, \(graph.operatorCount) operators")
            lines.append("  inputs:")
            lines += graph.inputs.map(describe)
            lines.append("  outputs:")
            lines += graph.outputs.map(describe)
            if let tensors = graph.tensors {
                lines.append("  tensors:")
                lines += tensors.map(describe)
            }
        }
        lines.append("ops:")
        for op in ops {
            lines.append("  \(op.op.padding(toLength: 32, withPad: " ", startingAt: 0)) v\(op.version)  x\(op.count)\(op.supported ? "" : "  UNSUPPORTED")")
        }
        lines.append("all ops supported: \(allOpsSupported ? "yes" : "no")")
        if !signatures.isEmpty { lines.append("signatures: \(signatures.joined(separator: ", "))") }
        lines.append("metadata: " + (metadata.isEmpty ? "none" : metadata.map { "\($0.name) (\($0.bytes) bytes)" }.joined(separator: ", ")))
        if let arenaBytes {
            lines.append("planned arena: \(arenaBytes) bytes (\(String(format: "%.2f", Double(arenaBytes) / 1_048_576)) MiB)")
        } else if let planError {
            lines.append("plan: \(planError)")
        }
        lines += metadataText
        return lines.joined(separator: "\n")
    }
}
