import Foundation

/// An axis-aligned box in normalized coordinates, in TFLite's detection order (ymin, xmin, ymax, xmax).
public struct DetectionBox: Sendable, Equatable, Hashable, Codable {
    /// Top edge, as a fraction of the image height.
    public var ymin: Float
    /// Left edge, as a fraction of the image width.
    public var xmin: Float
    /// Bottom edge, as a fraction of the image height.
    public var ymax: Float
    /// Right edge, as a fraction of the image width.
    public var xmax: Float

    /// A box from its edges, in normalized coordinates (not checked or reordered).
    public init(ymin: Float, xmin: Float, ymax: Float, xmax: Float) {
        self.ymin = ymin
        self.xmin = xmin
        self.ymax = ymax
        self.xmax = xmax
    }

    /// `xmax - xmin` (negative for an inverted box).
    public var width: Float { xmax - xmin }
    /// `ymax - ymin` (negative for an inverted box).
    public var height: Float { ymax - ymin }
    /// ``width`` times ``height``, as a fraction of the image area.
    public var area: Float { (ymax - ymin) * (xmax - xmin) }

    /// Intersection over union as `TFLite_Detection_PostProcess` computes it: 0 when either box has no area.
    public func intersectionOverUnion(_ other: DetectionBox) -> Float {
        let areaA = area, areaB = other.area
        if areaA <= 0 || areaB <= 0 { return 0 }
        let intersection = max(min(ymax, other.ymax) - max(ymin, other.ymin), 0) * max(min(xmax, other.xmax) - max(xmin, other.xmin), 0)
        return intersection / (areaA + areaB - intersection)
    }
}

/// An SSD anchor (prior box) in normalized coordinates: centre and size.
public struct DetectionAnchor: Sendable, Equatable, Codable {
    /// Vertical centre, as a fraction of the image height.
    public var yCenter: Float
    /// Horizontal centre, as a fraction of the image width.
    public var xCenter: Float
    /// Height, as a fraction of the image height.
    public var height: Float
    /// Width, as a fraction of the image width.
    public var width: Float

    /// An anchor from its centre and size, in normalized coordinates.
    public init(yCenter: Float, xCenter: Float, height: Float, width: Float) {
        self.yCenter = yCenter
        self.xCenter = xCenter
        self.height = height
        self.width = width
    }
}

/// The centre-size box coder of `TFLite_Detection_PostProcess` (tensorflow/lite/kernels/detection_postprocess.cc)
/// and greedy non-maximum suppression as that op runs it. Shared by the op's kernel and by detectors whose models
/// stop before the op, so both give the same boxes.
public enum CenterSizeBoxCoding {
    /// The op's `y_scale`, `x_scale`, `h_scale`, `w_scale`.
    public struct Scales: Sendable, Equatable {
        /// The divisors of the encoded centre (`y`, `x`) and of the encoded log sizes (`h`, `w`).
        public var y: Float, x: Float, h: Float, w: Float
        /// Scales from the op's options (10, 10, 5, 5 in the usual SSD models).
        public init(y: Float, x: Float, h: Float, w: Float) {
            self.y = y; self.x = x; self.h = h; self.w = w
        }
    }

    /// Decodes one encoding (ty, tx, th, tw) against `anchor`. The op computes in double and rounds each
    /// centre and half size to float once; the corners are float sums of those, so this matches it bit for bit.
    @inline(__always)
    public static func decode(ty: Float, tx: Float, th: Float, tw: Float, anchor: DetectionAnchor, scales: Scales) -> DetectionBox {
        let yCenter = Float(Double(ty) / Double(scales.y) * Double(anchor.height) + Double(anchor.yCenter))
        let xCenter = Float(Double(tx) / Double(scales.x) * Double(anchor.width) + Double(anchor.xCenter))
        let halfH = Float(0.5 * Foundation.exp(Double(th) / Double(scales.h)) * Double(anchor.height))
        let halfW = Float(0.5 * Foundation.exp(Double(tw) / Double(scales.w)) * Double(anchor.width))
        return DetectionBox(ymin: yCenter - halfH, xmin: xCenter - halfW, ymax: yCenter + halfH, xmax: xCenter + halfW)
    }

    /// Greedy NMS over one score per box, as the op's `NonMaxSuppressionSingleClassHelper`: keep scores at or
    /// above `scoreThreshold`, sort descending (ties by index, as the op's `std::stable_sort`), take the best, drop
    /// every later box whose IoU with it exceeds `iouThreshold`, repeat up to `maxDetections`. Returns the kept box
    /// indices, best first.
    ///
    /// Runs lazily: the candidates are a heap, and each one popped is kept unless a box kept before it overlaps it.
    /// That is the same decision the full sort makes (a box is only ever suppressed by a kept box ranked above it),
    /// but it orders only as many boxes as it pops, not every box above the threshold (1,917 for COCO SSD, whose
    /// threshold is 1e-8). `referenceNonMaxSuppression(boxes:scores:scoreThreshold:iouThreshold:maxDetections:)`
    /// is the op's loop as written.
    public static func nonMaxSuppression(boxes: [DetectionBox], scores: [Float], scoreThreshold: Float,
                                         iouThreshold: Float, maxDetections: Int) -> [Int] {
        var heap = [Int]()
        heap.reserveCapacity(scores.count)
        for i in scores.indices where scores[i] >= scoreThreshold { heap.append(i) }
        var selected: [Int] = []
        heap.withUnsafeMutableBufferPointer { heap in
            // NaN scores never pass the threshold, so this is a strict order.
            func precedes(_ a: Int, _ b: Int) -> Bool {
                let sa = scores[a], sb = scores[b]
                return sa != sb ? sa > sb : a < b
            }
            func siftDown(_ start: Int, _ count: Int) {
                var parent = start
                let item = heap[parent]
                while true {
                    var child = 2 * parent + 1
                    if child >= count { break }
                    if child + 1 < count && precedes(heap[child + 1], heap[child]) { child += 1 }
                    if !precedes(heap[child], item) { break }
                    heap[parent] = heap[child]
                    parent = child
                }
                heap[parent] = item
            }
            var count = heap.count
            for start in stride(from: count / 2 - 1, through: 0, by: -1) { siftDown(start, count) }
            while count > 0 && selected.count < maxDetections {
                let candidate = heap[0]
                count -= 1
                heap[0] = heap[count]
                siftDown(0, count)
                // The kept box is the receiver, as in the op's loop: with NaN coordinates `min`/`max` are not symmetric.
                if !selected.contains(where: { boxes[$0].intersectionOverUnion(boxes[candidate]) > iouThreshold }) {
                    selected.append(candidate)
                }
            }
        }
        return selected
    }

    /// The op's loop as written (every candidate sorted, then suppressed in order): what
    /// ``nonMaxSuppression(boxes:scores:scoreThreshold:iouThreshold:maxDetections:)`` is tested against.
    static func referenceNonMaxSuppression(boxes: [DetectionBox], scores: [Float], scoreThreshold: Float,
                                           iouThreshold: Float, maxDetections: Int) -> [Int] {
        let candidates = scores.indices.filter { scores[$0] >= scoreThreshold }
        let order = candidates.sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }
        var active = [Bool](repeating: true, count: order.count)
        var selected: [Int] = []
        let limit = min(order.count, maxDetections)
        for i in order.indices {
            if selected.count >= limit { break }
            guard active[i] else { continue }
            selected.append(order[i])
            for j in (i + 1)..<max(order.count, i + 1) where active[j] {
                if boxes[order[i]].intersectionOverUnion(boxes[order[j]]) > iouThreshold { active[j] = false }
            }
        }
        return selected
    }
}
