import Foundation
import LiteEngine
import LiteFormat
import LiteImage

/// What a model's image input expects, read from the tensor and its metadata: MediaPipe's `ImageTensorSpecs`.
struct ImageTensorSpecs: Sendable {
    var width: Int
    var height: Int
    var type: TensorType
    /// For float inputs: value = pixel * scale + offset, from NormalizationOptions (MediaPipe's
    /// `output_tensor_float_range` = [(0 - mean) / std, (255 - mean) / std]).
    var scale: Float = 1
    var offset: Float = 0
    var quantization: (scale: Float, zeroPoint: Int)?

    /// `normalization` (mean, std) stands in for the metadata's NormalizationOptions, for models without metadata.
    init(resources: ModelResources, input: Tensor, normalization override: (mean: Float, std: Float)? = nil) throws {
        guard input.rank == 4, input.shape[0] == 1, input.shape[3] == 3 else {
            throw TaskError.invalidArgument("the input tensor should have dimensions 1 x height x width x 3, got \(input.shape)")
        }
        height = input.shape[1]
        width = input.shape[2]
        type = input.type
        switch input.type {
        case .uint8:
            break
        case .float32, .int8:
            let normalization = override.map { NormalizationOptions(mean: [$0.mean], std: [$0.std]) } ?? resources.inputMetadata(0)?.normalization
            if input.type == .float32, normalization == nil {
                throw TaskError.invalidArgument("Input tensor has type float32: it requires specifying NormalizationOptions metadata to preprocess input images.")
            }
            if let normalization {
                guard let mean = normalization.mean.first, let std = normalization.std.first else {
                    throw TaskError.invalidArgument("NormalizationOptions has no mean or std values")
                }
                for i in 0..<max(normalization.mean.count, normalization.std.count)
                where normalization.mean[min(i, normalization.mean.count - 1)] != mean || normalization.std[min(i, normalization.std.count - 1)] != std {
                    throw TaskError.unimplemented("Per-channel image normalization is not available.")
                }
                guard abs(std) >= Float.ulpOfOne else {
                    throw TaskError.invalidArgument("NormalizationOptions.std_values can't be 0. Please check if the tensor metadata has been populated correctly.")
                }
                let low = (0 - mean) / std, high = (255 - mean) / std
                scale = (high - low) / 255
                offset = low
            }
            if input.type == .int8 {
                guard let q = input.quantization, let s = q.scale.first, let z = q.zeroPoint.first else {
                    throw TaskError.invalidArgument("int8 input tensor has no quantization parameters")
                }
                quantization = (s, Int(z))
            }
        default:
            throw TaskError.invalidArgument("Expected input tensor of type uint8, int8 or float32, got \(input.type)")
        }
    }

    /// Samples `region` of the upright `image` into the tensor, as MediaPipe's ImageToTensorCalculator on CPU.
    /// With an `orientation`, `image` holds the stored pixels and `region` is in the picture as shown: the same
    /// tensor as filling from `image.applying(orientation)`, without turning the whole image first.
    func fill(_ tensor: Tensor, from image: Image, orientation: ImageOrientation = .up, region: PixelRect?) {
        let pixels = image.resampled(region: region, outputWidth: width, outputHeight: height, orientation: orientation)
        guard let data = tensor.data else { return }
        switch type {
        case .uint8:
            pixels.withUnsafeBytes { data.copyMemory(from: $0.baseAddress!, byteCount: pixels.count) }
        case .float32:
            let out = data.assumingMemoryBound(to: Float.self)
            // MediaPipe converts with OpenCV's convertTo, which rounds p * scale + offset once (computed here in
            // double, where the product is exact); a float multiply then add differs in the last bit for ~1/4 of values.
            let (scale, offset) = (Double(scale), Double(offset))
            for i in pixels.indices { out[i] = Float(Double(pixels[i]) * scale + offset) }
        default:
            let out = data.assumingMemoryBound(to: Int8.self)
            let (qScale, zeroPoint) = quantization!
            for i in pixels.indices {
                let real = Float(Double(pixels[i]) * Double(scale) + Double(offset))
                out[i] = Int8(clamping: Int((real / qScale).rounded()) + zeroPoint)
            }
        }
    }
}

extension CGRect {
    /// Validates a normalized region of interest as MediaPipe does and converts it to pixels of a
    /// `width` x `height` picture.
    func pixelRegion(width: Int, height: Int) throws -> PixelRect {
        let values = [minX, minY, maxX, maxY]
        guard values.allSatisfy({ $0.isFinite }) else { throw TaskError.invalidArgument("region of interest \(self) is not finite") }
        guard minX < maxX, minY < maxY else {
            throw TaskError.invalidArgument("Expected RectF with left < right and top < bottom, got \(self).")
        }
        guard minX >= 0, minY >= 0, maxX <= 1, maxY <= 1 else {
            throw TaskError.invalidArgument("region of interest \(self) must lie within the normalized image [0, 1] x [0, 1]")
        }
        // MediaPipe goes through a NormalizedRect (centre and size in Float), then a pixel RotatedRect in Float.
        let centerX = Float(Float(minX + self.width / 2) * Float(width)), centerY = Float(Float(minY + self.height / 2) * Float(height))
        let w = Float(self.width) * Float(width), h = Float(self.height) * Float(height)
        return PixelRect(centerX: centerX, centerY: centerY, width: w, height: h)
    }
}
