import Foundation

/// Reads an ink from JSON: `{"strokes": [[{"x": .., "y": .., "t": ..}, ...], ...], "label": ..}` (t in ms, optional
/// or null), or the `[x, y, t]` point form of the ../shared/ink NDJSON lines.
///
/// The reader walks the bytes once and builds only the ink, so memory is the input plus the points kept, and it
/// stops at the first point over `maximumPoints` or stroke over `maximumStrokes`. (Foundation's `JSONSerialization`
/// holds every value as an object: a 32 MiB file of `[x, y]` points took 2.5 GB and about a minute before a
/// recognizer could refuse it.) Nesting deeper than ``maximumDepth`` is an error, as in `JSONSerialization`.
public enum InkJSON {
    /// An ink read from JSON and the document's `"label"` string, if it has one.
    public struct Document: Sendable, Equatable {
        /// The strokes, in the document's order (empty strokes kept).
        public var ink: Ink
        /// The top-level `"label"` when it is a string.
        public var label: String?
    }

    /// Why JSON is not an ink.
    public struct Failure: Error, Equatable, CustomStringConvertible, Sendable {
        /// What kind of problem.
        public enum Kind: Sendable, Equatable {
            /// The bytes are not JSON (or nest deeper than ``InkJSON/maximumDepth``).
            case notJSON
            /// Valid JSON that is not an ink: no `"strokes"` array, a point without numeric x and y, a bad time or a
            /// coordinate no 32-bit float holds.
            case notAnInk
            /// More points or strokes than the limits the reader was given.
            case tooLarge
        }

        /// What kind of problem.
        public var kind: Kind
        /// What is wrong and where (a stroke and point index, or a byte offset).
        public var message: String
        public var description: String { message }
    }

    /// The deepest nesting of arrays and objects read (JSONSerialization's limit).
    public static let maximumDepth = 512

    /// The ink in `data`.
    ///
    /// - Throws: ``Failure``: ``Failure/Kind/notJSON`` for bytes that are not JSON (checked over the whole input
    ///   before any other failure is reported), ``Failure/Kind/notAnInk`` for JSON of another shape,
    ///   ``Failure/Kind/tooLarge`` for more than `maximumPoints` points or `maximumStrokes` strokes.
    public static func parse(_ data: Data, maximumPoints: Int = DigitalInkRecognizer.maximumPoints,
                             maximumStrokes: Int = DigitalInkRecognizer.maximumStrokes) throws(Failure) -> Document {
        let result: Result<Document, Failure> = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Result<Document, Failure> in
            let bytes = raw.bindMemory(to: UInt8.self)
            var reader = InkJSONReader(bytes: bytes, maximumPoints: maximumPoints, maximumStrokes: maximumStrokes)
            do throws(Failure) {
                return .success(try reader.document())
            } catch {
                // A problem of shape or size met part-way: the whole input must still be JSON for it to be reported,
                // as when the document was parsed before it was read.
                if error.kind != .notJSON {
                    var check = InkJSONReader(bytes: bytes, maximumPoints: 0, maximumStrokes: 0)
                    do throws(Failure) { try check.wholeDocumentIsJSON() } catch { return .failure(error) }
                }
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// A point time as whole milliseconds: finite and within ±9e15 (exactly representable), rounded; else nil.
    public static func milliseconds(_ value: Double) -> Int64? {
        value.isFinite && abs(value) < 9e15 ? Int64(value.rounded()) : nil
    }
}
