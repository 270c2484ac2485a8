/// Something TensorFlow Lite would hand part of the graph to (a GPU, Core ML, a DSP).
///
/// LiteVision runs every op on the CPU with its own kernels: delegates passed to
/// ``Interpreter/init(modelPath:options:delegates:)`` are kept in ``Interpreter/delegates`` but never used.
/// Unlike TensorFlowLiteSwift's protocol, this one asks for no `cDelegate` pointer, since there is no C runtime
/// to give it to; `MetalDelegate` and `CoreMLDelegate` do not exist here.
public protocol Delegate: AnyObject {}
