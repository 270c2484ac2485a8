import Foundation

/// Every command's JSON: snake_case keys, sorted, slashes as they are (not `\/`). Boxes are
/// `{"x", "y", "width", "height"}` in pixels (``boxJSON(x:y:width:height:)``).
func jsonText(_ object: Any, pretty: Bool) -> String {
    let options: JSONSerialization.WritingOptions = pretty ? [.prettyPrinted, .sortedKeys] : [.sortedKeys]
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: options.union(.withoutEscapingSlashes)) else { return "{}" }
    return String(decoding: data, as: UTF8.self)
}

/// The one box form of every command's JSON.
func boxJSON(x: Double, y: Double, width: Double, height: Double) -> [String: Any] {
    ["x": x, "y": y, "width": width, "height": height]
}

/// A JSON encoder for Codable reports with the same conventions as ``jsonText(_:pretty:)``.
func snakeCaseEncoder(pretty: Bool = true) -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    return encoder
}
