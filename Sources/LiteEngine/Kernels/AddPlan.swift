import CLiteKernels

/// The code path an ``Add`` (or ``Sub``) runs, chosen once by `prepare` from the operand types and shapes, the
/// numerics and the kernel configuration; `run` is a switch over it.
enum AddPlan {
    /// A folded PAD of zeros after the last axis (``Kernel/takeChannelPad(_:of:)``): `other + pad(x)` read from the PAD's
    /// input, with the configuration's float kernel when it has one (`lite_f32_vadd_channel_padded`, all rows in one
    /// call).
    case floatChannelPadded(pad: Kernel, operand: Int, kernel: lite_f32_vadd_channel_padded_fn?)
    /// Float operands of one size: the configuration's clamped sum (`lite_f32_vadd_minmax`, avx2 level and above).
    case floatSameShape(lite_f32_vadd_minmax_fn)
    /// Float, broadcasting or at baseline (and every float SUB): ``BinaryElementwise/compute(_:_:)``.
    case float
    /// int32 or int64: in the type, wrapping, then clamped to the activation's range.
    case integers
    /// int16: TFLite's AddElementwise with a left shift of 15 (``Add/addInt16(_:_:_:_:)``).
    case int16(Add.QuantizedParameters)
    #if arch(x86_64)
    /// uint8/int8 of one shape in `fast` numerics where the configuration adds exactly in registers (`lite_q8_vadd`).
    case quantizedExactKernels(Add.QuantizedParameters, ElementwiseKernels)
    #endif
    /// uint8/int8 of one shape in `fast` numerics: the integer arithmetic replayed in double (``Add/addFast``).
    case quantizedFast(Add.QuantizedParameters)
    /// uint8/int8 otherwise (broadcasts, `exact` numerics): TFLite's integer arithmetic element by element.
    case quantizedReference(Add.QuantizedParameters)
}
