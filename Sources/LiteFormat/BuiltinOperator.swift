/// TensorFlow Lite's `BuiltinOperator` codes (schema.fbs), with their schema names.
public struct BuiltinOperator: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The operator's code in schema.fbs (an operator code's effective code, `max(builtin_code, deprecated_builtin_code)`).
    public let rawValue: Int32
    /// The operator with code `rawValue`; any value is accepted (``description`` names unknown ones `BUILTIN_<code>`).
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The schema's name (`CONV_2D`), or `BUILTIN_<code>` for a code this reader does not know.
    public var description: String {
        rawValue >= 0 && Int(rawValue) < BuiltinOperator.names.count ? BuiltinOperator.names[Int(rawValue)] : "BUILTIN_\(rawValue)"
    }

    static let names: [String] = [
        "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE",
        "DEQUANTIZE", "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED", "HASHTABLE_LOOKUP", "L2_NORMALIZATION",
        "L2_POOL_2D", "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "LSH_PROJECTION", "LSTM", "MAX_POOL_2D",
        "MUL", "RELU", "RELU_N1_TO_1", "RELU6", "RESHAPE", "RESIZE_BILINEAR",
        "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF", "TANH", "CONCAT_EMBEDDINGS",
        "SKIP_GRAM", "CALL", "CUSTOM", "EMBEDDING_LOOKUP_SPARSE", "PAD", "UNIDIRECTIONAL_SEQUENCE_RNN",
        "GATHER", "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "TRANSPOSE", "MEAN", "SUB",
        "DIV", "SQUEEZE", "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE", "BIDIRECTIONAL_SEQUENCE_RNN", "EXP",
        "TOPK_V2", "SPLIT", "LOG_SOFTMAX", "DELEGATE", "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST",
        "PRELU", "MAXIMUM", "ARG_MAX", "MINIMUM", "LESS", "NEG",
        "PADV2", "GREATER", "GREATER_EQUAL", "LESS_EQUAL", "SELECT", "SLICE",
        "SIN", "TRANSPOSE_CONV", "SPARSE_TO_DENSE", "TILE", "EXPAND_DIMS", "EQUAL",
        "NOT_EQUAL", "LOG", "SUM", "SQRT", "RSQRT", "SHAPE",
        "POW", "ARG_MIN", "FAKE_QUANT", "REDUCE_PROD", "REDUCE_MAX", "PACK",
        "LOGICAL_OR", "ONE_HOT", "LOGICAL_AND", "LOGICAL_NOT", "UNPACK", "REDUCE_MIN",
        "FLOOR_DIV", "REDUCE_ANY", "SQUARE", "ZEROS_LIKE", "FILL", "FLOOR_MOD",
        "RANGE", "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU", "SQUARED_DIFFERENCE", "MIRROR_PAD", "ABS",
        "SPLIT_V", "UNIQUE", "CEIL", "REVERSE_V2", "ADD_N", "GATHER_ND",
        "COS", "WHERE", "RANK", "ELU", "REVERSE_SEQUENCE", "MATRIX_DIAG",
        "QUANTIZE", "MATRIX_SET_DIAG", "ROUND", "HARD_SWISH", "IF", "WHILE",
        "NON_MAX_SUPPRESSION_V4", "NON_MAX_SUPPRESSION_V5", "SCATTER_ND", "SELECT_V2", "DENSIFY", "SEGMENT_SUM",
        "BATCH_MATMUL", "PLACEHOLDER_FOR_GREATER_OP_CODES", "CUMSUM", "CALL_ONCE", "BROADCAST_TO", "RFFT2D",
        "CONV_3D", "IMAG", "REAL", "COMPLEX_ABS", "HASHTABLE", "HASHTABLE_FIND",
        "HASHTABLE_IMPORT", "HASHTABLE_SIZE", "REDUCE_ALL", "CONV_3D_TRANSPOSE", "VAR_HANDLE", "READ_VARIABLE",
        "ASSIGN_VARIABLE", "BROADCAST_ARGS", "RANDOM_STANDARD_NORMAL", "BUCKETIZE", "RANDOM_UNIFORM", "MULTINOMIAL",
        "GELU", "DYNAMIC_UPDATE_SLICE", "RELU_0_TO_1", "UNSORTED_SEGMENT_PROD", "UNSORTED_SEGMENT_MAX", "UNSORTED_SEGMENT_SUM",
        "ATAN2", "UNSORTED_SEGMENT_MIN", "SIGN", "BITCAST", "BITWISE_XOR", "RIGHT_SHIFT",
    ]
    /// `ADD` (code 0).
    public static let add = BuiltinOperator(rawValue: 0)
    /// `AVERAGE_POOL_2D` (code 1).
    public static let averagePool2d = BuiltinOperator(rawValue: 1)
    /// `CONCATENATION` (code 2).
    public static let concatenation = BuiltinOperator(rawValue: 2)
    /// `CONV_2D` (code 3).
    public static let conv2d = BuiltinOperator(rawValue: 3)
    /// `DEPTHWISE_CONV_2D` (code 4).
    public static let depthwiseConv2d = BuiltinOperator(rawValue: 4)
    /// `DEPTH_TO_SPACE` (code 5).
    public static let depthToSpace = BuiltinOperator(rawValue: 5)
    /// `DEQUANTIZE` (code 6).
    public static let dequantize = BuiltinOperator(rawValue: 6)
    /// `EMBEDDING_LOOKUP` (code 7).
    public static let embeddingLookup = BuiltinOperator(rawValue: 7)
    /// `FLOOR` (code 8).
    public static let floor = BuiltinOperator(rawValue: 8)
    /// `FULLY_CONNECTED` (code 9).
    public static let fullyConnected = BuiltinOperator(rawValue: 9)
    /// `HASHTABLE_LOOKUP` (code 10).
    public static let hashtableLookup = BuiltinOperator(rawValue: 10)
    /// `L2_NORMALIZATION` (code 11).
    public static let l2Normalization = BuiltinOperator(rawValue: 11)
    /// `L2_POOL_2D` (code 12).
    public static let l2Pool2d = BuiltinOperator(rawValue: 12)
    /// `LOCAL_RESPONSE_NORMALIZATION` (code 13).
    public static let localResponseNormalization = BuiltinOperator(rawValue: 13)
    /// `LOGISTIC` (code 14).
    public static let logistic = BuiltinOperator(rawValue: 14)
    /// `LSH_PROJECTION` (code 15).
    public static let lshProjection = BuiltinOperator(rawValue: 15)
    /// `LSTM` (code 16).
    public static let lstm = BuiltinOperator(rawValue: 16)
    /// `MAX_POOL_2D` (code 17).
    public static let maxPool2d = BuiltinOperator(rawValue: 17)
    /// `MUL` (code 18).
    public static let mul = BuiltinOperator(rawValue: 18)
    /// `RELU` (code 19).
    public static let relu = BuiltinOperator(rawValue: 19)
    /// `RELU_N1_TO_1` (code 20).
    public static let reluN1To1 = BuiltinOperator(rawValue: 20)
    /// `RELU6` (code 21).
    public static let relu6 = BuiltinOperator(rawValue: 21)
    /// `RESHAPE` (code 22).
    public static let reshape = BuiltinOperator(rawValue: 22)
    /// `RESIZE_BILINEAR` (code 23).
    public static let resizeBilinear = BuiltinOperator(rawValue: 23)
    /// `RNN` (code 24).
    public static let rnn = BuiltinOperator(rawValue: 24)
    /// `SOFTMAX` (code 25).
    public static let softmax = BuiltinOperator(rawValue: 25)
    /// `SPACE_TO_DEPTH` (code 26).
    public static let spaceToDepth = BuiltinOperator(rawValue: 26)
    /// `SVDF` (code 27).
    public static let svdf = BuiltinOperator(rawValue: 27)
    /// `TANH` (code 28).
    public static let tanh = BuiltinOperator(rawValue: 28)
    /// `CONCAT_EMBEDDINGS` (code 29).
    public static let concatEmbeddings = BuiltinOperator(rawValue: 29)
    /// `SKIP_GRAM` (code 30).
    public static let skipGram = BuiltinOperator(rawValue: 30)
    /// `CALL` (code 31).
    public static let `call` = BuiltinOperator(rawValue: 31)
    /// `CUSTOM` (code 32).
    public static let custom = BuiltinOperator(rawValue: 32)
    /// `EMBEDDING_LOOKUP_SPARSE` (code 33).
    public static let embeddingLookupSparse = BuiltinOperator(rawValue: 33)
    /// `PAD` (code 34).
    public static let pad = BuiltinOperator(rawValue: 34)
    /// `UNIDIRECTIONAL_SEQUENCE_RNN` (code 35).
    public static let unidirectionalSequenceRnn = BuiltinOperator(rawValue: 35)
    /// `GATHER` (code 36).
    public static let gather = BuiltinOperator(rawValue: 36)
    /// `BATCH_TO_SPACE_ND` (code 37).
    public static let batchToSpaceNd = BuiltinOperator(rawValue: 37)
    /// `SPACE_TO_BATCH_ND` (code 38).
    public static let spaceToBatchNd = BuiltinOperator(rawValue: 38)
    /// `TRANSPOSE` (code 39).
    public static let transpose = BuiltinOperator(rawValue: 39)
    /// `MEAN` (code 40).
    public static let mean = BuiltinOperator(rawValue: 40)
    /// `SUB` (code 41).
    public static let sub = BuiltinOperator(rawValue: 41)
    /// `DIV` (code 42).
    public static let div = BuiltinOperator(rawValue: 42)
    /// `SQUEEZE` (code 43).
    public static let squeeze = BuiltinOperator(rawValue: 43)
    /// `UNIDIRECTIONAL_SEQUENCE_LSTM` (code 44).
    public static let unidirectionalSequenceLstm = BuiltinOperator(rawValue: 44)
    /// `STRIDED_SLICE` (code 45).
    public static let stridedSlice = BuiltinOperator(rawValue: 45)
    /// `BIDIRECTIONAL_SEQUENCE_RNN` (code 46).
    public static let bidirectionalSequenceRnn = BuiltinOperator(rawValue: 46)
    /// `EXP` (code 47).
    public static let exp = BuiltinOperator(rawValue: 47)
    /// `TOPK_V2` (code 48).
    public static let topkV2 = BuiltinOperator(rawValue: 48)
    /// `SPLIT` (code 49).
    public static let split = BuiltinOperator(rawValue: 49)
    /// `LOG_SOFTMAX` (code 50).
    public static let logSoftmax = BuiltinOperator(rawValue: 50)
    /// `DELEGATE` (code 51).
    public static let delegate = BuiltinOperator(rawValue: 51)
    /// `BIDIRECTIONAL_SEQUENCE_LSTM` (code 52).
    public static let bidirectionalSequenceLstm = BuiltinOperator(rawValue: 52)
    /// `CAST` (code 53).
    public static let cast = BuiltinOperator(rawValue: 53)
    /// `PRELU` (code 54).
    public static let prelu = BuiltinOperator(rawValue: 54)
    /// `MAXIMUM` (code 55).
    public static let maximum = BuiltinOperator(rawValue: 55)
    /// `ARG_MAX` (code 56).
    public static let argMax = BuiltinOperator(rawValue: 56)
    /// `MINIMUM` (code 57).
    public static let minimum = BuiltinOperator(rawValue: 57)
    /// `LESS` (code 58).
    public static let less = BuiltinOperator(rawValue: 58)
    /// `NEG` (code 59).
    public static let neg = BuiltinOperator(rawValue: 59)
    /// `PADV2` (code 60).
    public static let padv2 = BuiltinOperator(rawValue: 60)
    /// `GREATER` (code 61).
    public static let greater = BuiltinOperator(rawValue: 61)
    /// `GREATER_EQUAL` (code 62).
    public static let greaterEqual = BuiltinOperator(rawValue: 62)
    /// `LESS_EQUAL` (code 63).
    public static let lessEqual = BuiltinOperator(rawValue: 63)
    /// `SELECT` (code 64).
    public static let `select` = BuiltinOperator(rawValue: 64)
    /// `SLICE` (code 65).
    public static let slice = BuiltinOperator(rawValue: 65)
    /// `SIN` (code 66).
    public static let sin = BuiltinOperator(rawValue: 66)
    /// `TRANSPOSE_CONV` (code 67).
    public static let transposeConv = BuiltinOperator(rawValue: 67)
    /// `SPARSE_TO_DENSE` (code 68).
    public static let sparseToDense = BuiltinOperator(rawValue: 68)
    /// `TILE` (code 69).
    public static let tile = BuiltinOperator(rawValue: 69)
    /// `EXPAND_DIMS` (code 70).
    public static let expandDims = BuiltinOperator(rawValue: 70)
    /// `EQUAL` (code 71).
    public static let equal = BuiltinOperator(rawValue: 71)
    /// `NOT_EQUAL` (code 72).
    public static let notEqual = BuiltinOperator(rawValue: 72)
    /// `LOG` (code 73).
    public static let log = BuiltinOperator(rawValue: 73)
    /// `SUM` (code 74).
    public static let sum = BuiltinOperator(rawValue: 74)
    /// `SQRT` (code 75).
    public static let sqrt = BuiltinOperator(rawValue: 75)
    /// `RSQRT` (code 76).
    public static let rsqrt = BuiltinOperator(rawValue: 76)
    /// `SHAPE` (code 77).
    public static let shape = BuiltinOperator(rawValue: 77)
    /// `POW` (code 78).
    public static let pow = BuiltinOperator(rawValue: 78)
    /// `ARG_MIN` (code 79).
    public static let argMin = BuiltinOperator(rawValue: 79)
    /// `FAKE_QUANT` (code 80).
    public static let fakeQuant = BuiltinOperator(rawValue: 80)
    /// `REDUCE_PROD` (code 81).
    public static let reduceProd = BuiltinOperator(rawValue: 81)
    /// `REDUCE_MAX` (code 82).
    public static let reduceMax = BuiltinOperator(rawValue: 82)
    /// `PACK` (code 83).
    public static let pack = BuiltinOperator(rawValue: 83)
    /// `LOGICAL_OR` (code 84).
    public static let logicalOr = BuiltinOperator(rawValue: 84)
    /// `ONE_HOT` (code 85).
    public static let oneHot = BuiltinOperator(rawValue: 85)
    /// `LOGICAL_AND` (code 86).
    public static let logicalAnd = BuiltinOperator(rawValue: 86)
    /// `LOGICAL_NOT` (code 87).
    public static let logicalNot = BuiltinOperator(rawValue: 87)
    /// `UNPACK` (code 88).
    public static let unpack = BuiltinOperator(rawValue: 88)
    /// `REDUCE_MIN` (code 89).
    public static let reduceMin = BuiltinOperator(rawValue: 89)
    /// `FLOOR_DIV` (code 90).
    public static let floorDiv = BuiltinOperator(rawValue: 90)
    /// `REDUCE_ANY` (code 91).
    public static let reduceAny = BuiltinOperator(rawValue: 91)
    /// `SQUARE` (code 92).
    public static let square = BuiltinOperator(rawValue: 92)
    /// `ZEROS_LIKE` (code 93).
    public static let zerosLike = BuiltinOperator(rawValue: 93)
    /// `FILL` (code 94).
    public static let fill = BuiltinOperator(rawValue: 94)
    /// `FLOOR_MOD` (code 95).
    public static let floorMod = BuiltinOperator(rawValue: 95)
    /// `RANGE` (code 96).
    public static let range = BuiltinOperator(rawValue: 96)
    /// `RESIZE_NEAREST_NEIGHBOR` (code 97).
    public static let resizeNearestNeighbor = BuiltinOperator(rawValue: 97)
    /// `LEAKY_RELU` (code 98).
    public static let leakyRelu = BuiltinOperator(rawValue: 98)
    /// `SQUARED_DIFFERENCE` (code 99).
    public static let squaredDifference = BuiltinOperator(rawValue: 99)
    /// `MIRROR_PAD` (code 100).
    public static let mirrorPad = BuiltinOperator(rawValue: 100)
    /// `ABS` (code 101).
    public static let abs = BuiltinOperator(rawValue: 101)
    /// `SPLIT_V` (code 102).
    public static let splitV = BuiltinOperator(rawValue: 102)
    /// `UNIQUE` (code 103).
    public static let unique = BuiltinOperator(rawValue: 103)
    /// `CEIL` (code 104).
    public static let ceil = BuiltinOperator(rawValue: 104)
    /// `REVERSE_V2` (code 105).
    public static let reverseV2 = BuiltinOperator(rawValue: 105)
    /// `ADD_N` (code 106).
    public static let addN = BuiltinOperator(rawValue: 106)
    /// `GATHER_ND` (code 107).
    public static let gatherNd = BuiltinOperator(rawValue: 107)
    /// `COS` (code 108).
    public static let cos = BuiltinOperator(rawValue: 108)
    /// `WHERE` (code 109).
    public static let `where` = BuiltinOperator(rawValue: 109)
    /// `RANK` (code 110).
    public static let rank = BuiltinOperator(rawValue: 110)
    /// `ELU` (code 111).
    public static let elu = BuiltinOperator(rawValue: 111)
    /// `REVERSE_SEQUENCE` (code 112).
    public static let reverseSequence = BuiltinOperator(rawValue: 112)
    /// `MATRIX_DIAG` (code 113).
    public static let matrixDiag = BuiltinOperator(rawValue: 113)
    /// `QUANTIZE` (code 114).
    public static let quantize = BuiltinOperator(rawValue: 114)
    /// `MATRIX_SET_DIAG` (code 115).
    public static let matrixSetDiag = BuiltinOperator(rawValue: 115)
    /// `ROUND` (code 116).
    public static let round = BuiltinOperator(rawValue: 116)
    /// `HARD_SWISH` (code 117).
    public static let hardSwish = BuiltinOperator(rawValue: 117)
    /// `IF` (code 118).
    public static let `if` = BuiltinOperator(rawValue: 118)
    /// `WHILE` (code 119).
    public static let `while` = BuiltinOperator(rawValue: 119)
    /// `NON_MAX_SUPPRESSION_V4` (code 120).
    public static let nonMaxSuppressionV4 = BuiltinOperator(rawValue: 120)
    /// `NON_MAX_SUPPRESSION_V5` (code 121).
    public static let nonMaxSuppressionV5 = BuiltinOperator(rawValue: 121)
    /// `SCATTER_ND` (code 122).
    public static let scatterNd = BuiltinOperator(rawValue: 122)
    /// `SELECT_V2` (code 123).
    public static let selectV2 = BuiltinOperator(rawValue: 123)
    /// `DENSIFY` (code 124).
    public static let densify = BuiltinOperator(rawValue: 124)
    /// `SEGMENT_SUM` (code 125).
    public static let segmentSum = BuiltinOperator(rawValue: 125)
    /// `BATCH_MATMUL` (code 126).
    public static let batchMatmul = BuiltinOperator(rawValue: 126)
    /// `PLACEHOLDER_FOR_GREATER_OP_CODES` (code 127).
    public static let placeholderForGreaterOpCodes = BuiltinOperator(rawValue: 127)
    /// `CUMSUM` (code 128).
    public static let cumsum = BuiltinOperator(rawValue: 128)
    /// `CALL_ONCE` (code 129).
    public static let callOnce = BuiltinOperator(rawValue: 129)
    /// `BROADCAST_TO` (code 130).
    public static let broadcastTo = BuiltinOperator(rawValue: 130)
    /// `RFFT2D` (code 131).
    public static let rfft2d = BuiltinOperator(rawValue: 131)
    /// `CONV_3D` (code 132).
    public static let conv3d = BuiltinOperator(rawValue: 132)
    /// `IMAG` (code 133).
    public static let imag = BuiltinOperator(rawValue: 133)
    /// `REAL` (code 134).
    public static let real = BuiltinOperator(rawValue: 134)
    /// `COMPLEX_ABS` (code 135).
    public static let complexAbs = BuiltinOperator(rawValue: 135)
    /// `HASHTABLE` (code 136).
    public static let hashtable = BuiltinOperator(rawValue: 136)
    /// `HASHTABLE_FIND` (code 137).
    public static let hashtableFind = BuiltinOperator(rawValue: 137)
    /// `HASHTABLE_IMPORT` (code 138).
    public static let hashtableImport = BuiltinOperator(rawValue: 138)
    /// `HASHTABLE_SIZE` (code 139).
    public static let hashtableSize = BuiltinOperator(rawValue: 139)
    /// `REDUCE_ALL` (code 140).
    public static let reduceAll = BuiltinOperator(rawValue: 140)
    /// `CONV_3D_TRANSPOSE` (code 141).
    public static let conv3dTranspose = BuiltinOperator(rawValue: 141)
    /// `VAR_HANDLE` (code 142).
    public static let varHandle = BuiltinOperator(rawValue: 142)
    /// `READ_VARIABLE` (code 143).
    public static let readVariable = BuiltinOperator(rawValue: 143)
    /// `ASSIGN_VARIABLE` (code 144).
    public static let assignVariable = BuiltinOperator(rawValue: 144)
    /// `BROADCAST_ARGS` (code 145).
    public static let broadcastArgs = BuiltinOperator(rawValue: 145)
    /// `RANDOM_STANDARD_NORMAL` (code 146).
    public static let randomStandardNormal = BuiltinOperator(rawValue: 146)
    /// `BUCKETIZE` (code 147).
    public static let bucketize = BuiltinOperator(rawValue: 147)
    /// `RANDOM_UNIFORM` (code 148).
    public static let randomUniform = BuiltinOperator(rawValue: 148)
    /// `MULTINOMIAL` (code 149).
    public static let multinomial = BuiltinOperator(rawValue: 149)
    /// `GELU` (code 150).
    public static let gelu = BuiltinOperator(rawValue: 150)
    /// `DYNAMIC_UPDATE_SLICE` (code 151).
    public static let dynamicUpdateSlice = BuiltinOperator(rawValue: 151)
    /// `RELU_0_TO_1` (code 152).
    public static let relu0To1 = BuiltinOperator(rawValue: 152)
    /// `UNSORTED_SEGMENT_PROD` (code 153).
    public static let unsortedSegmentProd = BuiltinOperator(rawValue: 153)
    /// `UNSORTED_SEGMENT_MAX` (code 154).
    public static let unsortedSegmentMax = BuiltinOperator(rawValue: 154)
    /// `UNSORTED_SEGMENT_SUM` (code 155).
    public static let unsortedSegmentSum = BuiltinOperator(rawValue: 155)
    /// `ATAN2` (code 156).
    public static let atan2 = BuiltinOperator(rawValue: 156)
    /// `UNSORTED_SEGMENT_MIN` (code 157).
    public static let unsortedSegmentMin = BuiltinOperator(rawValue: 157)
    /// `SIGN` (code 158).
    public static let sign = BuiltinOperator(rawValue: 158)
    /// `BITCAST` (code 159).
    public static let bitcast = BuiltinOperator(rawValue: 159)
    /// `BITWISE_XOR` (code 160).
    public static let bitwiseXor = BuiltinOperator(rawValue: 160)
    /// `RIGHT_SHIFT` (code 161).
    public static let rightShift = BuiltinOperator(rawValue: 161)
}
