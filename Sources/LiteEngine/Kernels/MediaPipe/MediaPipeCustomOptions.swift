import LiteFormat

/// The custom options of MediaPipe's ops (mediapipe/util/tflite/operations/): the convolution and pooling ops take a
/// TFLite parameter struct copied byte for byte into the options (read back with `reinterpret_cast`), the landmark
/// and transform ops a FlexBuffer map.
enum MediaPipeCustomOptions {
    /// `TfLitePadding` as stored in the raw structs: 0 unknown, 1 SAME, 2 VALID.
    static func padding(_ raw: Int32) throws -> Padding {
        switch raw {
        case 1: return .same
        case 2: return .valid
        default: throw KernelError.invalid("padding \(raw) (1 SAME or 2 VALID expected)")
        }
    }

    /// The first `count` little-endian int32 fields of a raw struct; throws when the options are shorter.
    static func int32Fields(_ bytes: UnsafeRawBufferPointer?, count: Int, _ what: String) throws -> [Int32] {
        guard let bytes, bytes.count >= 4 * count else {
            throw KernelError.invalid("custom options of \(bytes?.count ?? 0) bytes, \(what) needs \(4 * count)")
        }
        return (0..<count).map { Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * $0, as: Int32.self)) }
    }

    /// The float clamp of a raw `TfLiteFusedActivation` as TFLite's `CalculateActivationRange` gives it: RELU, RELU6
    /// and RELU_N1_TO_1 clamp, every other value (none, tanh, sign bit, sigmoid) leaves ±FLT_MAX.
    static func activationRange(_ raw: Int32) -> (Float, Float) {
        switch raw {
        case 1: return (0, .greatestFiniteMagnitude)
        case 2: return (-1, 1)
        case 3: return (0, 6)
        default: return (-.greatestFiniteMagnitude, .greatestFiniteMagnitude)
        }
    }

    /// The FlexBuffer map of a custom op's options.
    static func flexMap(_ bytes: UnsafeRawBufferPointer?) throws -> [String: FlexValue] {
        guard let bytes, !bytes.isEmpty else { throw KernelError.invalid("missing custom options") }
        do { return try FlexValue(root: bytes).map() } catch let error as FormatError {
            throw KernelError.invalid("custom options: \(error)")
        }
    }
}

/// `TfLitePoolParams` as MediaPipe's pooling ops read it from their custom options: padding, stride (width, height),
/// filter (width, height) and fused activation, six int32s (the struct's trailing computed padding is not read).
struct MediaPipePoolParams {
    let padding: Padding
    let strideW: Int, strideH: Int
    let filterW: Int, filterH: Int
    /// The raw `TfLiteFusedActivation`.
    let activation: Int32

    init(_ bytes: UnsafeRawBufferPointer?) throws {
        let f = try MediaPipeCustomOptions.int32Fields(bytes, count: 6, "TfLitePoolParams")
        padding = try MediaPipeCustomOptions.padding(f[0])
        (strideW, strideH, filterW, filterH, activation) = (Int(f[1]), Int(f[2]), Int(f[3]), Int(f[4]), f[5])
        guard strideW > 0, strideH > 0, filterW > 0, filterH > 0, strideW <= 1 << 16, strideH <= 1 << 16, filterW <= 1 << 16, filterH <= 1 << 16 else {
            throw KernelError.invalid("stride \(strideH)x\(strideW) and filter \(filterH)x\(filterW) must be positive")
        }
    }
}
