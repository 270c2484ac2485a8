import Foundation
import LiteTasks

/// The ink of a `POST /v1/ink` body: `{"strokes": [[{"x", "y", "t"}, ...], ...]}` (t in ms, optional), or the
/// `[x, y, t]` point form of the ../shared/ink format, as `vision-cli ink` reads a file.
enum InkBody {
    static func parse(_ data: Data) throws -> Ink {
        let parsed: Any
        do { parsed = try JSONSerialization.jsonObject(with: data) } catch {
            throw APIError(status: .badRequest, kind: "invalid_json", message: "the body is not valid JSON")
        }
        guard let object = parsed as? [String: Any] else { throw APIError.invalidInk("the body is not a JSON object") }
        guard let strokes = object["strokes"] as? [Any] else { throw APIError.invalidInk("the body has no \"strokes\" array") }
        var ink = Ink(strokes: [])
        for (s, stroke) in strokes.enumerated() {
            guard let points = stroke as? [Any] else { throw APIError.invalidInk("stroke \(s) is not an array of points") }
            var out: [StrokePoint] = []
            for (p, point) in points.enumerated() {
                func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }
                func coordinate(_ value: Double) throws -> Float {
                    guard value.magnitude <= Double(Float.greatestFiniteMagnitude) else {
                        throw APIError.invalidInk("stroke \(s) point \(p) has a coordinate (\(value)) beyond a 32-bit float's range")
                    }
                    return Float(value)
                }
                func time(_ value: Any?) throws -> Int64? {
                    guard let value, !(value is NSNull) else { return nil }
                    guard let t = number(value), t.isFinite, abs(t) < 9e15 else {
                        throw APIError.invalidInk("stroke \(s) point \(p) has a time (\(value)) that is not a number of milliseconds")
                    }
                    return Int64(t.rounded())
                }
                if let dictionary = point as? [String: Any], let x = number(dictionary["x"]), let y = number(dictionary["y"]) {
                    out.append(StrokePoint(x: try coordinate(x), y: try coordinate(y), t: try time(dictionary["t"])))
                } else if let array = point as? [Any], array.count >= 2, let x = number(array[0]), let y = number(array[1]) {
                    out.append(StrokePoint(x: try coordinate(x), y: try coordinate(y), t: try time(array.count > 2 ? array[2] : nil)))
                } else {
                    throw APIError.invalidInk("stroke \(s) point \(p) is neither {\"x\", \"y\", \"t\"} nor [x, y, t]")
                }
            }
            ink.strokes.append(Stroke(points: out))
        }
        return ink
    }
}
