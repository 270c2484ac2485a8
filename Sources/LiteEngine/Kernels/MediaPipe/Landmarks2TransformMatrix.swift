import Foundation
import LiteFormat

/// MediaPipe's custom op `Landmarks2TransformMatrix`, version 2 (mediapipe/util/tflite/operations/
/// landmarks_to_transform_matrix.cc, the version MediaPipe's CPU op resolver registers): the 4×4 matrix that maps a
/// crop of `output_width`×`output_height` pixels onto the landmarks' space, the crop rotated so that the line from
/// the left to the right rotation landmark lies at `target_rotation_radians` and sized to the bounding box of the
/// landmark subset (scaled by `scale_x`, `scale_y`).
///
/// Input [1, N, 3] float (x, y, z per landmark, only x and y read); output [1, 4, 4] float, row major. Options
/// (FlexBuffer map): `subset_idxs` (landmark indices, read in pairs; an odd last one stands for a pair of itself),
/// `left_rotation_idx`, `right_rotation_idx`, `target_rotation_radians`, `output_height`, `output_width`, `scale_x`,
/// `scale_y`. Computed in single precision in MediaPipe's order.
final class Landmarks2TransformMatrix: Kernel {
    let subset: [Int]
    let leftIndex: Int, rightIndex: Int
    let targetRotation: Float
    let outputHeight: Int, outputWidth: Int
    let scaleX: Float, scaleY: Float

    required init(_ node: NodeContext) throws {
        let map = try MediaPipeCustomOptions.flexMap(node.customOptions)
        func int(_ key: String) throws -> Int {
            guard let value = map[key]?.intValue, let int = Int(exactly: value) else { throw KernelError.invalid("missing option \(key)") }
            return int
        }
        func float(_ key: String) throws -> Float {
            guard let value = map[key]?.doubleValue else { throw KernelError.invalid("missing option \(key)") }
            return Float(value)
        }
        guard let indices = map["subset_idxs"]?.integerVector else { throw KernelError.invalid("missing option subset_idxs") }
        var subset = indices.map { Int(clamping: $0) }
        if subset.count % 2 == 1 { subset.append(subset[subset.count - 1]) }
        self.subset = subset
        leftIndex = try int("left_rotation_idx")
        rightIndex = try int("right_rotation_idx")
        targetRotation = try float("target_rotation_radians")
        outputHeight = try int("output_height")
        outputWidth = try int("output_width")
        scaleX = try float("scale_x")
        scaleY = try float("scale_y")
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
        guard !subset.isEmpty, subset.allSatisfy({ $0 >= 0 }), leftIndex >= 0, rightIndex >= 0 else {
            throw KernelError.invalid("landmark indices must be non-negative and the subset not empty")
        }
        guard outputHeight > 0, outputWidth > 0, scaleX > 0, scaleY > 0 else {
            throw KernelError.invalid("output size \(outputHeight)x\(outputWidth) and scale \(scaleX), \(scaleY) must be positive")
        }
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32)
        try expectRank(input, 3)
        let landmarks = input.elementCount / 3
        guard (subset + [leftIndex, rightIndex]).allSatisfy({ $0 < landmarks }) else {
            throw KernelError.invalid("a landmark index is past the \(landmarks) landmarks of \(input.shape)")
        }
        output.type = .float32
        output.shape = [1, 4, 4]
    }

    /// A row-major 4×4 product with MediaPipe's summation order (k ascending from 0).
    static func multiply(_ a: [Float], _ b: [Float]) -> [Float] {
        var result = [Float](repeating: 0, count: 16)
        for r in 0..<4 {
            for c in 0..<4 {
                var sum: Float = 0
                for k in 0..<4 { sum += a[r * 4 + k] * b[k * 4 + c] }
                result[r * 4 + c] = sum
            }
        }
        return result
    }

    override func run(_ context: RunContext) throws {
        let landmarks = node.inputs[0]!.floats
        let left = (landmarks[3 * leftIndex], landmarks[3 * leftIndex + 1])
        let right = (landmarks[3 * rightIndex], landmarks[3 * rightIndex + 1])
        let rotation = targetRotation - atan2(right.1 - left.1, right.0 - left.0)

        // The subset's bounding box in the frame rotated by `rotation` (each point (x, y, 1) times the 3×3 rotation,
        // summed from 0 as MediaPipe's Mat3 does).
        let (cosR, sinR) = (cos(rotation), sin(rotation))
        var minX = Float.infinity, minY = Float.infinity, maxX = -Float.infinity, maxY = -Float.infinity
        for index in subset {
            let x = landmarks[3 * index], y = landmarks[3 * index + 1]
            var rx: Float = 0
            rx += cosR * x; rx += -sinR * y; rx += 0 * 1
            var ry: Float = 0
            ry += sinR * x; ry += cosR * y; ry += 0 * 1
            minX = min(minX, rx); maxX = max(maxX, rx)
            minY = min(minY, ry); maxY = max(maxY, ry)
        }
        let cropWidth = maxX - minX, cropHeight = maxY - minY
        let centerX = (minX + maxX) / 2, centerY = (minY + maxY) / 2
        // The box's center back in the landmarks' frame (rotation by -rotation, the point's third coordinate 1).
        let (cosI, sinI) = (cos(-rotation), sin(-rotation))
        var cropX: Float = 0
        cropX += cosI * centerX; cropX += -sinI * centerY; cropX += 0 * 1
        var cropY: Float = 0
        cropY += sinI * centerX; cropY += cosI * centerY; cropY += 0 * 1

        let r = -rotation
        let scaleX = self.scaleX * cropWidth / Float(outputWidth), scaleY = self.scaleY * cropHeight / Float(outputHeight)
        let shiftX = Float(-1.0 * (Double(outputWidth) / 2.0)), shiftY = Float(-1.0 * (Double(outputHeight) / 2.0))
        let identity: [Float] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        let steps: [[Float]] = [
            [1, 0, 0, cropX, 0, 1, 0, cropY, 0, 0, 1, 0, 0, 0, 0, 1],
            [cos(r), -sin(r), 0, 0, sin(r), cos(r), 0, 0, 0, 0, 1, 0, 0, 0, 0, 1],
            [scaleX, 0, 0, 0, 0, scaleY, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1],
            [1, 0, 0, shiftX, 0, 1, 0, shiftY, 0, 0, 1, 0, 0, 0, 0, 1],
        ]
        let matrix = steps.reduce(identity, Self.multiply)
        let out = node.outputs[0].floats
        for i in 0..<16 { out[i] = matrix[i] }
    }
}
