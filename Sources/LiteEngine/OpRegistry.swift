import LiteFormat

/// Which kernel runs which op: builtin ops by code and version range, custom ops by name.
///
/// A new op is one file in Kernels/ and one line here.
enum OpRegistry {
    struct Registration {
        let versions: ClosedRange<Int>
        let kernel: Kernel.Type
    }

    static let builtins: [BuiltinOperator: Registration] = [
        .add: .init(versions: 1...5, kernel: Add.self),
        .equal: .init(versions: 1...4, kernel: Equal.self),
        .notEqual: .init(versions: 1...3, kernel: NotEqual.self),
        .less: .init(versions: 1...3, kernel: Less.self),
        .lessEqual: .init(versions: 1...3, kernel: LessEqual.self),
        .greater: .init(versions: 1...3, kernel: Greater.self),
        .greaterEqual: .init(versions: 1...3, kernel: GreaterEqual.self),
        .logicalAnd: .init(versions: 1...1, kernel: LogicalAnd.self),
        .logicalOr: .init(versions: 1...1, kernel: LogicalOr.self),
        .logicalNot: .init(versions: 1...1, kernel: LogicalNot.self),
        .while: .init(versions: 1...1, kernel: While.self),
        .if: .init(versions: 1...1, kernel: If.self),
        .sub: .init(versions: 1...5, kernel: Sub.self),
        .mul: .init(versions: 1...7, kernel: Mul.self),
        .div: .init(versions: 1...2, kernel: Div.self),
        .batchMatmul: .init(versions: 1...4, kernel: BatchMatMul.self),
        .squaredDifference: .init(versions: 1...2, kernel: SquaredDifference.self),
        .minimum: .init(versions: 1...4, kernel: Minimum.self),
        .maximum: .init(versions: 1...4, kernel: Maximum.self),
        .prelu: .init(versions: 1...1, kernel: PRelu.self),
        .relu: .init(versions: 1...3, kernel: Relu.self),
        .relu6: .init(versions: 1...3, kernel: Relu6.self),
        .reluN1To1: .init(versions: 1...2, kernel: ReluN1To1.self),
        .logistic: .init(versions: 1...3, kernel: Logistic.self),
        .tanh: .init(versions: 1...3, kernel: Tanh.self),
        .exp: .init(versions: 1...2, kernel: Exp.self),
        .sqrt: .init(versions: 1...1, kernel: Sqrt.self),
        .rsqrt: .init(versions: 1...3, kernel: Rsqrt.self),
        .abs: .init(versions: 1...5, kernel: Abs.self),
        .hardSwish: .init(versions: 1...1, kernel: HardSwish.self),
        .gelu: .init(versions: 1...2, kernel: Gelu.self),
        .elu: .init(versions: 1...2, kernel: Elu.self),
        .relu0To1: .init(versions: 1...1, kernel: Relu0To1.self),
        .atan2: .init(versions: 1...1, kernel: Atan2.self),
        .dynamicUpdateSlice: .init(versions: 1...4, kernel: DynamicUpdateSlice.self),
        .localResponseNormalization: .init(versions: 1...1, kernel: LocalResponseNormalization.self),
        .embeddingLookup: .init(versions: 1...1, kernel: EmbeddingLookup.self),
        .scatterNd: .init(versions: 1...1, kernel: ScatterNd.self),
        .reduceAny: .init(versions: 1...1, kernel: ReduceAny.self),
        .reduceAll: .init(versions: 1...1, kernel: ReduceAll.self),
        .log: .init(versions: 1...2, kernel: Log.self),
        .sin: .init(versions: 1...1, kernel: Sin.self),
        .cos: .init(versions: 1...1, kernel: Cos.self),
        .square: .init(versions: 1...1, kernel: Square.self),
        .floor: .init(versions: 1...2, kernel: Floor.self),
        .ceil: .init(versions: 1...1, kernel: Ceil.self),
        .round: .init(versions: 1...1, kernel: Round.self),
        .sign: .init(versions: 1...2, kernel: Sign.self),
        .pow: .init(versions: 1...1, kernel: Pow.self),
        .floorDiv: .init(versions: 1...3, kernel: FloorDiv.self),
        .floorMod: .init(versions: 1...2, kernel: FloorMod.self),
        .selectV2: .init(versions: 1...2, kernel: SelectV2.self),
        .select: .init(versions: 1...4, kernel: Select.self),
        .tile: .init(versions: 1...3, kernel: Tile.self),
        .fill: .init(versions: 1...4, kernel: Fill.self),
        .broadcastTo: .init(versions: 2...3, kernel: BroadcastTo.self),
        .zerosLike: .init(versions: 1...1, kernel: ZerosLike.self),
        .range: .init(versions: 1...2, kernel: RangeOp.self),
        .l2Normalization: .init(versions: 1...2, kernel: L2Normalization.self),
        .gatherNd: .init(versions: 1...4, kernel: GatherNd.self),
        .cumsum: .init(versions: 1...1, kernel: Cumsum.self),
        .oneHot: .init(versions: 1...1, kernel: OneHot.self),
        .topkV2: .init(versions: 1...3, kernel: TopKV2.self),
        .nonMaxSuppressionV4: .init(versions: 1...1, kernel: NonMaxSuppressionV4.self),
        .nonMaxSuppressionV5: .init(versions: 1...1, kernel: NonMaxSuppressionV5.self),
        .addN: .init(versions: 1...1, kernel: AddN.self),
        .reverseSequence: .init(versions: 1...1, kernel: ReverseSequence.self),
        .matrixDiag: .init(versions: 1...1, kernel: MatrixDiag.self),
        .matrixSetDiag: .init(versions: 1...1, kernel: MatrixSetDiag.self),
        .segmentSum: .init(versions: 1...1, kernel: SegmentSum.self),
        .unsortedSegmentSum: .init(versions: 1...1, kernel: UnsortedSegmentSum.self),
        .unsortedSegmentProd: .init(versions: 1...1, kernel: UnsortedSegmentProd.self),
        .unsortedSegmentMax: .init(versions: 1...1, kernel: UnsortedSegmentMax.self),
        .unsortedSegmentMin: .init(versions: 1...1, kernel: UnsortedSegmentMin.self),
        .bucketize: .init(versions: 1...1, kernel: Bucketize.self),
        .bitwiseXor: .init(versions: 1...1, kernel: BitwiseXor.self),
        .rightShift: .init(versions: 1...1, kernel: RightShift.self),
        .rfft2d: .init(versions: 1...1, kernel: Rfft2d.self),
        .complexAbs: .init(versions: 1...1, kernel: ComplexAbs.self),
        .real: .init(versions: 1...1, kernel: Real.self),
        .imag: .init(versions: 1...1, kernel: Imag.self),
        .spaceToBatchNd: .init(versions: 1...4, kernel: SpaceToBatchNd.self),
        .batchToSpaceNd: .init(versions: 1...4, kernel: BatchToSpaceNd.self),
        .conv2d: .init(versions: 1...8, kernel: Conv2D.self),
        .depthwiseConv2d: .init(versions: 1...7, kernel: DepthwiseConv2D.self),
        .fullyConnected: .init(versions: 1...12, kernel: FullyConnected.self),
        .averagePool2d: .init(versions: 1...3, kernel: AveragePool2D.self),
        .maxPool2d: .init(versions: 1...3, kernel: MaxPool2D.self),
        .softmax: .init(versions: 1...3, kernel: Softmax.self),
        .logSoftmax: .init(versions: 1...2, kernel: LogSoftmax.self),
        .reshape: .init(versions: 1...1, kernel: Reshape.self),
        .squeeze: .init(versions: 1...2, kernel: Squeeze.self),
        .expandDims: .init(versions: 1...1, kernel: ExpandDims.self),
        .concatenation: .init(versions: 1...4, kernel: Concatenation.self),
        .pad: .init(versions: 1...4, kernel: Pad.self),
        .padv2: .init(versions: 1...4, kernel: PadV2.self),
        .mirrorPad: .init(versions: 1...3, kernel: MirrorPad.self),
        .mean: .init(versions: 1...3, kernel: Mean.self),
        .sum: .init(versions: 1...2, kernel: Sum.self),
        .reduceProd: .init(versions: 1...2, kernel: ReduceProd.self),
        .reduceMax: .init(versions: 1...3, kernel: ReduceMax.self),
        .reduceMin: .init(versions: 1...3, kernel: ReduceMin.self),
        .shape: .init(versions: 1...1, kernel: Shape.self),
        .neg: .init(versions: 1...2, kernel: Neg.self),
        .leakyRelu: .init(versions: 1...2, kernel: LeakyRelu.self),
        .transposeConv: .init(versions: 1...4, kernel: TransposeConv.self),
        .resizeBilinear: .init(versions: 1...4, kernel: ResizeBilinear.self),
        .resizeNearestNeighbor: .init(versions: 1...4, kernel: ResizeNearestNeighbor.self),
        .stridedSlice: .init(versions: 1...8, kernel: StridedSlice.self),
        .slice: .init(versions: 1...6, kernel: Slice.self),
        .transpose: .init(versions: 1...6, kernel: Transpose.self),
        .split: .init(versions: 1...4, kernel: Split.self),
        .splitV: .init(versions: 1...3, kernel: SplitV.self),
        .pack: .init(versions: 1...4, kernel: Pack.self),
        .unpack: .init(versions: 1...4, kernel: Unpack.self),
        .gather: .init(versions: 1...6, kernel: Gather.self),
        .argMax: .init(versions: 1...3, kernel: ArgMax.self),
        .argMin: .init(versions: 1...3, kernel: ArgMin.self),
        .cast: .init(versions: 1...6, kernel: Cast.self),
        .depthToSpace: .init(versions: 1...2, kernel: DepthToSpace.self),
        .spaceToDepth: .init(versions: 1...2, kernel: SpaceToDepth.self),
        .dequantize: .init(versions: 1...6, kernel: Dequantize.self),
        .densify: .init(versions: 1...1, kernel: Densify.self),
        .reverseV2: .init(versions: 1...3, kernel: ReverseV2.self),
        .quantize: .init(versions: 1...3, kernel: Quantize.self),
        .unidirectionalSequenceLstm: .init(versions: 1...4, kernel: UnidirectionalSequenceLSTM.self),
        .bidirectionalSequenceLstm: .init(versions: 1...3, kernel: BidirectionalSequenceLSTM.self),
    ]

    static let custom: [String: Registration] = [
        "TFLite_Detection_PostProcess": .init(versions: 1...1, kernel: DetectionPostProcess.self),
    ]

    static func registration(for code: OperatorCode) -> Registration? {
        code.builtin == .custom ? code.customName.flatMap { custom[$0] } : builtins[code.builtin]
    }

    /// True when a kernel exists for this op code and version.
    static func supports(_ code: OperatorCode) -> Bool {
        registration(for: code)?.versions.contains(code.version) ?? false
    }
}

extension Interpreter {
    /// True when this engine has a kernel for the op code at its version.
    public static func supports(_ code: OperatorCode) -> Bool { OpRegistry.supports(code) }
}
