import Benchmark
import Foundation
import LiteEngine
import LiteFormat

// Op-level benchmarks on real layer shapes (MobileNetV2 at 224x224, the COCO SSD with 1917 anchors and 91 classes),
// read from the op table, Tests/LiteEngineTests/Goldens/op_cases.json (its "benchmarks", registered with `benchmark(...)`
// in tools/op_cases/ and written by tools/make_op_goldens.py). Each case is a one-op model built in memory; the custom
// metric is MFLOPS (millions of floating-point operations per second, multiply-add = 2) where the op has a FLOP count.
//
//   swift package --disable-sandbox benchmark --target OpBenchmarks
//   LITEVISION_OPS=CONV_2D swift package --disable-sandbox benchmark --target OpBenchmarks     (one op)

/// One single-op model, ready to run.
struct OpCase {
    let name: String
    let flops: Double
    let interpreter: Interpreter

    init(_ name: String, flops: Double, threads: Int = 1, numerics: Numerics = .fast, build: (inout ModelBuilder) -> Void) {
        var builder = ModelBuilder()
        build(&builder)
        self.name = name
        self.flops = flops
        interpreter = try! Interpreter(model: TFLiteModel(bytes: builder.build()), options: .init(threads: threads, numerics: numerics))
        var generator = SystemRandomNumberGenerator()
        for i in 0..<interpreter.inputCount {
            let tensor = try! interpreter.input(at: i)
            if tensor.type == .uint8 {
                try! interpreter.copy((0..<tensor.elementCount).map { _ in UInt8.random(in: 0...255, using: &generator) }, toInputAt: i)
                continue
            }
            if tensor.type == .int8 {
                try! interpreter.copy((0..<tensor.elementCount).map { _ in Int8.random(in: -128...127, using: &generator) }, toInputAt: i)
                continue
            }
            let values = (0..<tensor.elementCount).map { _ in Float.random(in: 0...1, using: &generator) }
            try! interpreter.copy(values, toInputAt: i)
        }
    }
}

func random(_ count: Int, scale: Float = 0.1) -> [Float] {
    (0..<count).map { _ in Float.random(in: -scale...scale) }
}

/// A SAME-padded CONV_2D or DEPTHWISE_CONV_2D (multiplier 1) with a fused ReLU6, as the graph's only op.
func addConvolution(_ b: inout ModelBuilder, x: Int, w: Int, bias: Int, y: Int, stride: Int, depthwise: Bool) {
    var options = FlatTableBuilder()
    options[0] = .int8(Padding.same.rawValue)
    options[1] = .int32(Int32(stride))
    options[2] = .int32(Int32(stride))
    if depthwise {
        options[3] = .int32(1)
        options[4] = .int8(FusedActivation.relu6.rawValue)
        b.addOperator(.depthwiseConv2d, version: 1, inputs: [x, w, bias], outputs: [y], optionsType: 2, options: options)
    } else {
        options[3] = .int8(FusedActivation.relu6.rawValue)
        b.addOperator(.conv2d, version: 1, inputs: [x, w, bias], outputs: [y], optionsType: 1, options: options)
    }
    b.inputs = [x]
    b.outputs = [y]
}

func convolution(_ name: String, input: [Int], filters: Int, kernel: Int, stride: Int, depthwise: Bool = false) -> OpCase {
    let outH = (input[1] + stride - 1) / stride, outW = (input[2] + stride - 1) / stride
    let channels = input[3]
    let outC = depthwise ? channels : filters
    let macs = Double(outH * outW * outC * kernel * kernel * (depthwise ? 1 : channels))
    return OpCase(name, flops: 2 * macs) { b in
        let x = b.addTensor(name: "x", type: .float32, shape: input)
        let filterShape = depthwise ? [1, kernel, kernel, channels] : [filters, kernel, kernel, channels]
        let w = b.addConstant(name: "w", shape: filterShape, values: random(filterShape.reduce(1, *)))
        let bias = b.addConstant(name: "b", shape: [outC], values: random(outC))
        let y = b.addTensor(name: "y", type: .float32, shape: [1, outH, outW, outC])
        addConvolution(&b, x: x, w: w, bias: bias, y: y, stride: stride, depthwise: depthwise)
    }
}

/// The same convolutions quantized, in one numerics mode: uint8 per-tensor (MobileNetV2-quant-like scales) or int8
/// with per-channel filter scales (the TF2 converter's form).
func quantizedConvolution(_ name: String, input: [Int], filters: Int, kernel: Int, stride: Int, depthwise: Bool = false,
                          signed: Bool = false, numerics: Numerics) -> OpCase {
    let outH = (input[1] + stride - 1) / stride, outW = (input[2] + stride - 1) / stride
    let channels = input[3]
    let outC = depthwise ? channels : filters
    let macs = Double(outH * outW * outC * kernel * kernel * (depthwise ? 1 : channels))
    return OpCase("\(name), \(signed ? "int8" : "uint8") \(numerics)", flops: 2 * macs, numerics: numerics) { b in
        let type: TensorType = signed ? .int8 : .uint8
        let activation = Quantization(scale: [0.0235], zeroPoint: [signed ? -128 : 0])
        let x = b.addTensor(name: "x", type: type, shape: input, quantization: activation)
        let filterShape = depthwise ? [1, kernel, kernel, channels] : [filters, kernel, kernel, channels]
        let count = filterShape.reduce(1, *)
        let weights = b.addBuffer(signed ? (0..<count).map { _ in UInt8(bitPattern: Int8.random(in: -127...127)) } : (0..<count).map { _ in UInt8.random(in: 90...170) })
        let filterScales = signed ? (0..<outC).map { _ in Float.random(in: 0.002...0.006) } : [0.004]
        let filterQuantization = Quantization(scale: filterScales, zeroPoint: [Int64](repeating: signed ? 0 : 130, count: filterScales.count),
                                              quantizedDimension: depthwise ? 3 : 0)
        let w = b.addTensor(name: "w", type: type, shape: filterShape, buffer: weights, quantization: filterQuantization)
        let biasBuffer = b.addBuffer((0..<outC).flatMap { _ in withUnsafeBytes(of: Int32.random(in: -5000...5000).littleEndian, Array.init) })
        let bias = b.addTensor(name: "b", type: .int32, shape: [outC], buffer: biasBuffer,
                               quantization: Quantization(scale: filterScales.map { 0.0235 * $0 }, zeroPoint: [Int64](repeating: 0, count: filterScales.count)))
        let y = b.addTensor(name: "y", type: type, shape: [1, outH, outW, outC], quantization: activation)
        addConvolution(&b, x: x, w: w, bias: bias, y: y, stride: stride, depthwise: depthwise)
    }
}

/// A benchmark row of the op table: the op and the shape its builder below reads.
struct TableBenchmark: Decodable {
    let name: String
    let op: String
    let family: String
    let input: [Int]?
    let filters: Int?
    let kernel: Int?
    let stride: Int?
    let units: Int?
    let size: [Int]?
    /// float32 (the default), uint8 or int8.
    let type: String?
    /// The numerics modes a quantized case runs in, each its own benchmark.
    let numerics: [String]?
    let model: String?
    let boxes: [Int]?
    let scores: [Int]?
}

struct TableFile: Decodable {
    let benchmarks: [TableBenchmark]
}

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// `LITEVISION_OPS=CONV_2D,SOFTMAX`: only the benchmarks of these ops (as OpGoldenTests' filter).
let opFilter: Set<String>? = ProcessInfo.processInfo.environment["LITEVISION_OPS"].flatMap { value in
    value.isEmpty ? nil : Set(value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).uppercased() })
}

/// The one-op models of one table row (one per numerics mode for a quantized row).
func opCases(_ row: TableBenchmark) -> [OpCase] {
    switch row.op {
    case "CONV_2D", "DEPTHWISE_CONV_2D":
        let depthwise = row.op == "DEPTHWISE_CONV_2D"
        guard let type = row.type, type != "float32" else {
            return [convolution(row.name, input: row.input!, filters: row.filters ?? 0, kernel: row.kernel!, stride: row.stride!, depthwise: depthwise)]
        }
        return (row.numerics ?? ["fast"]).map { mode in
            quantizedConvolution(row.name, input: row.input!, filters: row.filters ?? 0, kernel: row.kernel!, stride: row.stride!, depthwise: depthwise,
                                 signed: type == "int8", numerics: Numerics(rawValue: mode)!)
        }
    case "FULLY_CONNECTED":
        let inputs = row.input!.last!, units = row.units!
        return [OpCase(row.name, flops: Double(2 * inputs * units)) { b in
            let x = b.addTensor(name: "x", type: .float32, shape: row.input!)
            let w = b.addConstant(name: "w", shape: [units, inputs], values: random(units * inputs))
            let bias = b.addConstant(name: "b", shape: [units], values: random(units))
            let y = b.addTensor(name: "y", type: .float32, shape: [row.input!.dropLast().reduce(1, *), units])
            b.addOperator(.fullyConnected, inputs: [x, w, bias], outputs: [y], optionsType: 8, options: FlatTableBuilder())
            b.inputs = [x]; b.outputs = [y]
        }]
    case "SOFTMAX":
        return [OpCase(row.name, flops: 0) { b in
            let x = b.addTensor(name: "x", type: .float32, shape: row.input!)
            let y = b.addTensor(name: "y", type: .float32, shape: row.input!)
            var options = FlatTableBuilder()
            options[0] = .float(1)
            b.addOperator(.softmax, inputs: [x], outputs: [y], optionsType: 9, options: options)
            b.inputs = [x]; b.outputs = [y]
        }]
    case "RESIZE_BILINEAR":
        return [OpCase(row.name, flops: 0) { b in
            let input = row.input!, size = row.size!
            let x = b.addTensor(name: "x", type: .float32, shape: input)
            let sizeTensor = b.addConstant(name: "size", shape: [2], values: size.map { Int32($0) })
            let y = b.addTensor(name: "y", type: .float32, shape: [input[0], size[0], size[1], input[3]])
            b.addOperator(.resizeBilinear, version: 3, inputs: [x, sizeTensor], outputs: [y], optionsType: 15, options: FlatTableBuilder())
            b.inputs = [x]; b.outputs = [y]
        }]
    case "TFLite_Detection_PostProcess":
        return [OpCase(row.name, flops: 0) { b in
            // The real op options and anchors, taken from the model in ../shared/models.
            let ssd = try! TFLiteModel(path: packageRoot.appendingPathComponent("../shared/models/\(row.model!)").standardized.path)
            let graph = ssd.subgraphs[0]
            let op = graph.operators.last!
            let anchorTensor = graph.tensors[op.inputs[2]]
            let anchorBytes = ssd.buffers[anchorTensor.buffer]
            let anchorValues = (0..<anchorTensor.shape.reduce(1, *)).map { anchorBytes.loadUnaligned(fromByteOffset: 4 * $0, as: Float.self) }
            let boxes = b.addTensor(name: "boxes", type: .float32, shape: row.boxes!)
            let scores = b.addTensor(name: "scores", type: .float32, shape: row.scores!)
            let anchors = b.addConstant(name: "anchors", shape: anchorTensor.shape, values: anchorValues)
            let outputs = (0..<4).map { b.addTensor(name: "out\($0)", type: .float32, shape: [1]) }
            b.addOperator(.custom, customName: "TFLite_Detection_PostProcess", inputs: [boxes, scores, anchors], outputs: outputs,
                          customOptions: Array(op.customOptions!))
            b.inputs = [boxes, scores]; b.outputs = outputs
        }]
    default:
        fatalError("Benchmarks/OpBenchmarks has no builder for \(row.op) (op table row \(row.name))")
    }
}

let table = try! JSONDecoder().decode(TableFile.self, from: Data(contentsOf: packageRoot.appendingPathComponent("Tests/LiteEngineTests/Goldens/op_cases.json")))
let cases: [OpCase] = table.benchmarks.filter { opFilter?.contains($0.op.uppercased()) ?? true }.flatMap(opCases)

let benchmarks: @Sendable () -> Void = {
    let metrics: [BenchmarkMetric] = [.wallClock, .custom("MFLOPS", polarity: .prefersLarger, useScalingFactor: false)]
    for op in cases {
        Benchmark(op.name, configuration: .init(metrics: metrics, maxDuration: .seconds(2), maxIterations: 2000)) { benchmark in
            for _ in benchmark.scaledIterations {
                let start = DispatchTime.now().uptimeNanoseconds
                try op.interpreter.invoke()
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                if op.flops > 0 { benchmark.measurement(.custom("MFLOPS", polarity: .prefersLarger, useScalingFactor: false), Int(op.flops / seconds / 1e6)) }
            }
        }
    }
}
