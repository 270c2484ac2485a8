/// An RGB colour for drawing.
public struct RGBColor: Sendable, Equatable {
    /// The colour's red, green and blue components, 0...255.
    public var red: UInt8, green: UInt8, blue: UInt8

    /// A colour from its components.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red; self.green = green; self.blue = blue
    }

    /// (255, 255, 255).
    public static let white = RGBColor(red: 255, green: 255, blue: 255)
    /// (0, 0, 0).
    public static let black = RGBColor(red: 0, green: 0, blue: 0)

    /// A distinct, saturated colour for an index (tracking IDs), cycling through 10 hues.
    public static func palette(_ index: Int) -> RGBColor {
        let colors: [RGBColor] = [
            .init(red: 230, green: 25, blue: 75), .init(red: 60, green: 180, blue: 75), .init(red: 0, green: 130, blue: 200),
            .init(red: 245, green: 130, blue: 48), .init(red: 145, green: 30, blue: 180), .init(red: 70, green: 240, blue: 240),
            .init(red: 240, green: 50, blue: 230), .init(red: 210, green: 245, blue: 60), .init(red: 0, green: 128, blue: 128),
            .init(red: 170, green: 110, blue: 40),
        ]
        return colors[((index % colors.count) + colors.count) % colors.count]
    }
}

/// Simple drawing for annotated output: rectangles and text in a built-in bitmap font. Everything is clipped
/// to the image.
extension Image {
    /// Fills the rectangle with corners (x0, y0) inclusive and (x1, y1) exclusive.
    public mutating func fill(x0: Int, y0: Int, x1: Int, y1: Int, color: RGBColor) {
        let left = max(0, x0), right = min(width, x1), top = max(0, y0), bottom = min(height, y1)
        guard left < right, top < bottom else { return }
        for y in top..<bottom {
            var i = (y * width + left) * 3
            for _ in left..<right {
                pixels[i] = color.red; pixels[i + 1] = color.green; pixels[i + 2] = color.blue
                i += 3
            }
        }
    }

    /// Draws the outline of a rectangle given in pixels (x, y, width, height), `thickness` pixels wide, inside it.
    public mutating func strokeRectangle(x: Int, y: Int, width w: Int, height h: Int, thickness: Int, color: RGBColor) {
        let t = max(1, thickness)
        fill(x0: x, y0: y, x1: x + w, y1: y + t, color: color)
        fill(x0: x, y0: y + h - t, x1: x + w, y1: y + h, color: color)
        fill(x0: x, y0: y, x1: x + t, y1: y + h, color: color)
        fill(x0: x + w - t, y0: y, x1: x + w, y1: y + h, color: color)
    }

    /// The size in pixels of `text` drawn at `scale`.
    public static func textSize(_ text: String, scale: Int = 1) -> (width: Int, height: Int) {
        (text.unicodeScalars.count * BitmapFont.glyphWidth * max(1, scale), BitmapFont.glyphHeight * max(1, scale))
    }

    /// Draws `text` with its top-left corner at (x, y) on a filled background; characters outside printable
    /// ASCII are drawn as "?".
    public mutating func drawText(_ text: String, x: Int, y: Int, scale: Int = 1, color: RGBColor, background: RGBColor?) {
        let s = max(1, scale)
        let size = Self.textSize(text, scale: s)
        if let background { fill(x0: x - s, y0: y, x1: x + size.width + s, y1: y + size.height, color: background) }
        for (n, scalar) in text.unicodeScalars.enumerated() {
            let code = scalar.value >= 32 && scalar.value < 127 ? Int(scalar.value) : Int(UInt8(ascii: "?"))
            let glyph = (code - Int(BitmapFont.firstCharacter)) * BitmapFont.glyphHeight
            for row in 0..<BitmapFont.glyphHeight {
                let bits = BitmapFont.rows[glyph + row]
                for column in 0..<BitmapFont.glyphWidth where bits & (1 << (BitmapFont.glyphWidth - 1 - column)) != 0 {
                    let px = x + (n * BitmapFont.glyphWidth + column) * s, py = y + row * s
                    fill(x0: px, y0: py, x1: px + s, y1: py + s, color: color)
                }
            }
        }
    }
}
