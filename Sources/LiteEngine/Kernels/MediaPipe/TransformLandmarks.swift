import LiteFormat

/// MediaPipe's custom op `TransformLandmarks`, version 2 (mediapipe/util/tflite/operations/transform_landmarks.cc,
/// the version MediaPipe's CPU op resolver registers): maps landmarks through an affine matrix.
///
/// Inputs: landmarks [B, N, D] float with D = 2 (x, y) or 3 (x, y, z) and a [1, 4, 4] float matrix; output of the
/// landmarks' shape. x and y become the first two rows of the matrix times (x, y, 0, 1); z is copied. No options.
/// (MediaPipe maps the first batch item only and leaves the rest of its output unwritten; this kernel maps every one.)
final class TransformLandmarks: Kernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), matrix = try self.input(1), output = try self.output(0)
        try expectType(input, .float32)
        try expectType(matrix, .float32)
        try expectRank(input, 3)
        guard input.dim(2) == 2 || input.dim(2) == 3 else { throw KernelError.invalid("landmarks \(input.shape): 2 or 3 coordinates expected") }
        guard matrix.elementCount >= 8 else { throw KernelError.invalid("transform matrix \(matrix.shape) has fewer than 8 values") }
        output.type = .float32
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, m = node.inputs[1]!.floats
        let src = input.floats, dst = node.outputs[0].floats
        let dimensions = input.dim(2)
        for landmark in 0..<(input.dim(0) * input.dim(1)) {
            let at = landmark * dimensions
            let x = src[at], y = src[at + 1]
            // MediaPipe's 4-term dot products with (x, y, 0, 1), summed left to right.
            let tx = m[0] * x + m[1] * y + m[2] * 0 + m[3] * 1
            let ty = m[4] * x + m[5] * y + m[6] * 0 + m[7] * 1
            dst[at] = tx
            dst[at + 1] = ty
            if dimensions == 3 { dst[at + 2] = src[at + 2] }
        }
    }
}
