import Foundation
import LiteImage

extension Object {
    /// A one-line caption: tracking ID, then the classifier's best label and its confidence, else the detector's
    /// class (``detectorLabel``, when its label map names it) and score, else "object" and the detector's score.
    public var caption: String {
        var parts: [String] = []
        if let trackingID { parts.append("#\(trackingID)") }
        if let label = labels.first {
            parts.append("\(label.text ?? "class \(label.index)") \(String(format: "%.2f", label.confidence))")
        } else if let label = detectorLabel, let text = label.text {
            parts.append("\(text) \(String(format: "%.2f", label.confidence))")
        } else {
            parts.append(String(format: "object %.2f", detectionConfidence))
        }
        return parts.joined(separator: " ")
    }
}

extension Image {
    /// The image with each object's frame drawn as a box and its caption above it (below when there is no room),
    /// coloured by tracking ID. `objects` are in this image's pixel coordinates (the oriented image).
    public func annotated(with objects: [Object]) -> Image {
        var canvas = self
        let thickness = max(2, min(width, height) / 200)
        let scale = max(1, min(width, height) / 400)
        for (n, object) in objects.enumerated() {
            let color = RGBColor.palette(object.trackingID ?? n)
            let x = Int(object.frame.minX.rounded()), y = Int(object.frame.minY.rounded())
            let w = Int(object.frame.width.rounded()), h = Int(object.frame.height.rounded())
            canvas.strokeRectangle(x: x, y: y, width: w, height: h, thickness: thickness, color: color)
            let caption = object.caption
            let size = Image.textSize(caption, scale: scale)
            let textY = y - size.height >= 0 ? y - size.height : min(y + h, height - size.height)
            canvas.drawText(caption, x: max(0, x) + scale, y: textY, scale: scale, color: .white, background: color)
        }
        return canvas
    }
}
