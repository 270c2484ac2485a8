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

    init(path: String) throws {
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
                           inputs: graph.inputs.map { report(graph, $0) }, outputs: graph.outputs.map { report(graph, $0) })
        }
        var counts: [OperatorCode: Int] = [:]
        for graph in model.subgraphs { for op in graph.operators { counts[model.operatorCodes[op.opcodeIndex], default: 0] += 1 } }
        ops = counts.map { OpReport(op: $0.key.description, version: $0.key.version, count: $0.value, supported: Interpreter.supports($0.key)) }
            .sorted { ($0.count, $1.op) > ($1.count, $0.op) }
        let opsKnown = ops.allSatisfy(\.supported)
        metadata = model.metadata.map { MetadataReport(name: $0.name, bytes: model.buffers[$0.bufferIndex].count) }
        signatures = model.signatureDefs.map(\.key)
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

    var text: String {
        var lines: [String] = []
        lines.append("model: \(path) (\(fileBytes) bytes)\(description.isEmpty ? "" : ", \"\(description)\"")")
        func describe(_ t: TensorReport) -> String {
            var line = "    [\(t.index)] \(t.name.isEmpty ? "-" : t.name)  \(t.dtype) \(t.shape)"
            if t.shapeSignature != t.shape { line += " signature \(t.shapeSignature)" }
            if let q = t.quantization {
                if q.scale.count == 1 {
                    line += "  quantized scale \(q.scale[0]) zero point \(q.zeroPoint[0])"
                } else {
                    line += "  quantized per channel (dimension \(q.quantizedDimension), \(q.scale.count) scales)"
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
        return lines.joined(separator: "\n")
    }
}
