import Benchmark
import Foundation
import LiteEngine
import LiteFormat

// Op-level benchmarks on the real shapes of MobileNetV2 (224x224) and the COCO SSD (1917 anchors, 91 classes).
// Each case is a one-op model built in memory; the custom metric is MFLOPS (millions of floating-point
// operations per second, multiply-add = 2) where the op has a FLOP count.
//
//   swift package --disable-sandbox benchmark --target OpBenchmarks

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

let quantizedCases: [OpCase] = [Numerics.exact, .fast].flatMap { numerics in [
    quantizedConvolution("conv 1x1 112x112x16 -> 96 (expand)", input: [1, 112, 112, 16], filters: 96, kernel: 1, stride: 1, numerics: numerics),
    quantizedConvolution("conv 3x3 19x19x512 -> 512 (SSD)", input: [1, 19, 19, 512], filters: 512, kernel: 3, stride: 1, numerics: numerics),
    quantizedConvolution("depthwise 3x3 s1 56x56x144", input: [1, 56, 56, 144], filters: 0, kernel: 3, stride: 1, depthwise: true, numerics: numerics),
    quantizedConvolution("conv 1x1 112x112x16 -> 96 (expand)", input: [1, 112, 112, 16], filters: 96, kernel: 1, stride: 1, signed: true,
                         numerics: numerics),
    quantizedConvolution("conv 1x1 7x7x320 -> 1280 (head)", input: [1, 7, 7, 320], filters: 1280, kernel: 1, stride: 1, signed: true,
                         numerics: numerics),
    quantizedConvolution("depthwise 3x3 s1 56x56x144", input: [1, 56, 56, 144], filters: 0, kernel: 3, stride: 1, depthwise: true, signed: true,
                         numerics: numerics),
] }

let cases: [OpCase] = quantizedCases + [
    convolution("conv 3x3 s2 224x224x3 -> 32 (MobileNetV2 stem)", input: [1, 224, 224, 3], filters: 32, kernel: 3, stride: 2),
    convolution("conv 1x1 112x112x16 -> 96 (expand)", input: [1, 112, 112, 16], filters: 96, kernel: 1, stride: 1),
    convolution("conv 1x1 56x56x144 -> 24 (project)", input: [1, 56, 56, 144], filters: 24, kernel: 1, stride: 1),
    convolution("conv 1x1 7x7x320 -> 1280 (head)", input: [1, 7, 7, 320], filters: 1280, kernel: 1, stride: 1),
    convolution("conv 3x3 19x19x512 -> 512 (SSD)", input: [1, 19, 19, 512], filters: 512, kernel: 3, stride: 1),
    convolution("depthwise 3x3 s1 56x56x144", input: [1, 56, 56, 144], filters: 0, kernel: 3, stride: 1, depthwise: true),
    convolution("depthwise 3x3 s2 112x112x96", input: [1, 112, 112, 96], filters: 0, kernel: 3, stride: 2, depthwise: true),
    OpCase("fully connected 1280 -> 1001", flops: 2 * 1280 * 1001) { b in
        let x = b.addTensor(name: "x", type: .float32, shape: [1, 1280])
        let w = b.addConstant(name: "w", shape: [1001, 1280], values: random(1001 * 1280))
        let bias = b.addConstant(name: "b", shape: [1001], values: random(1001))
        let y = b.addTensor(name: "y", type: .float32, shape: [1, 1001])
        b.addOperator(.fullyConnected, inputs: [x, w, bias], outputs: [y], optionsType: 8, options: FlatTableBuilder())
        b.inputs = [x]; b.outputs = [y]
    },
    OpCase("softmax 1001", flops: 0) { b in
        let x = b.addTensor(name: "x", type: .float32, shape: [1, 1001])
        let y = b.addTensor(name: "y", type: .float32, shape: [1, 1001])
        var options = FlatTableBuilder()
        options[0] = .float(1)
        b.addOperator(.softmax, inputs: [x], outputs: [y], optionsType: 9, options: options)
        b.inputs = [x]; b.outputs = [y]
    },
    OpCase("resize bilinear 480x640x3 -> 224x224", flops: 0) { b in
        let x = b.addTensor(name: "x", type: .float32, shape: [1, 480, 640, 3])
        let size = b.addConstant(name: "size", shape: [2], values: [Int32(224), 224])
        let y = b.addTensor(name: "y", type: .float32, shape: [1, 224, 224, 3])
        b.addOperator(.resizeBilinear, version: 3, inputs: [x, size], outputs: [y], optionsType: 15, options: FlatTableBuilder())
        b.inputs = [x]; b.outputs = [y]
    },
    OpCase("detection post-process (fast NMS) 1917 anchors x 91 classes", flops: 0) { b in
        // The real op options and anchors, taken from the float COCO SSD in ../shared/models.
        let ssd = try! TFLiteModel(path: "../shared/models/detection/coco_ssd_mobilenet_v1_1.0_dequant_float.tflite")
        let graph = ssd.subgraphs[0]
        let op = graph.operators.last!
        let anchorTensor = graph.tensors[op.inputs[2]]
        let anchorBytes = ssd.buffers[anchorTensor.buffer]
        let anchorValues = (0..<anchorTensor.shape.reduce(1, *)).map { anchorBytes.loadUnaligned(fromByteOffset: 4 * $0, as: Float.self) }
        let boxes = b.addTensor(name: "boxes", type: .float32, shape: [1, 1917, 4])
        let scores = b.addTensor(name: "scores", type: .float32, shape: [1, 1917, 91])
        let anchors = b.addConstant(name: "anchors", shape: anchorTensor.shape, values: anchorValues)
        let outputs = (0..<4).map { b.addTensor(name: "out\($0)", type: .float32, shape: [1]) }
        b.addOperator(.custom, customName: "TFLite_Detection_PostProcess", inputs: [boxes, scores, anchors], outputs: outputs,
                      customOptions: Array(op.customOptions!))
        b.inputs = [boxes, scores]; b.outputs = outputs
    },
]

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
