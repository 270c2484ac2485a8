/// How a quantized tensor's integers map to the real numbers they stand for:
/// `realValue = scale * Float(quantizedValue - zeroPoint)`.
///
/// Only tensors quantized with one scale for the whole tensor have them: a per-channel quantized tensor reports
/// `nil`, as TensorFlow Lite's `TfLiteTensorQuantizationParams` gives a zero scale for it.
public struct QuantizationParameters: Equatable, Hashable, Sendable {
    /// The real-valued distance between two consecutive quantized values.
    public let scale: Float

    /// The quantized value that stands for the real value 0.
    public let zeroPoint: Int

    /// Parameters with the given `scale` and `zeroPoint` (made by the interpreter only, as in TensorFlowLiteSwift).
    init(scale: Float, zeroPoint: Int) {
        self.scale = scale
        self.zeroPoint = zeroPoint
    }
}
