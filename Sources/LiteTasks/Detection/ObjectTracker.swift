import LiteEngine

/// Gives detections stable IDs from frame to frame, for stream mode.
///
/// Each track keeps its last box and a smoothed velocity (centre motion per frame). A new frame's detections
/// are matched to tracks in two greedy passes: first by IoU between the detection and the track's predicted box
/// (last box moved by its velocity for every frame since it was seen), best overlap first, at least
/// `minimumOverlap`; then, for what is left, by centre distance when the centres are within `maximumJump` of the
/// track's size and the sizes within a factor of 2 (fast motion). Unmatched detections start new tracks with the
/// next ID (IDs are never reused); a track not matched for more than `maximumMissedFrames` frames is dropped.
public struct ObjectTracker: Sendable {
    public struct Options: Sendable, Equatable {
        public var minimumOverlap: Float = 0.2
        /// Centre distance allowed in the second pass, as a fraction of the track's box diagonal.
        public var maximumJump: Float = 0.6
        /// Frames a track survives without a match (occlusion, a missed detection).
        public var maximumMissedFrames = 10
        /// Weight of the newest motion in the velocity estimate.
        public var velocitySmoothing: Float = 0.5

        public init() {}
    }

    public struct Track: Sendable, Equatable {
        public let id: Int
        public internal(set) var box: DetectionBox
        public internal(set) var velocityX: Float = 0
        public internal(set) var velocityY: Float = 0
        public internal(set) var missedFrames = 0
        /// Frames in which the track was matched.
        public internal(set) var hits = 1

        /// Where the track is expected in the next frame.
        public var predicted: DetectionBox {
            let steps = Float(missedFrames + 1)
            let dx = velocityX * steps, dy = velocityY * steps
            return DetectionBox(ymin: box.ymin + dy, xmin: box.xmin + dx, ymax: box.ymax + dy, xmax: box.xmax + dx)
        }
    }

    public var options: Options
    public private(set) var tracks: [Track] = []
    private var nextID = 0

    public init(options: Options = Options()) {
        self.options = options
    }

    /// Forgets every track; IDs keep increasing.
    public mutating func reset() {
        tracks.removeAll()
    }

    /// Matches this frame's boxes to tracks and returns the track ID of each box, in the boxes' order.
    public mutating func update(with boxes: [DetectionBox]) -> [Int] {
        var assignment = [Int?](repeating: nil, count: boxes.count)
        var trackTaken = [Bool](repeating: false, count: tracks.count)
        let predictions = tracks.map(\.predicted)

        var pairs: [(overlap: Float, track: Int, box: Int)] = []
        for t in tracks.indices {
            for b in boxes.indices {
                let overlap = predictions[t].intersectionOverUnion(boxes[b])
                if overlap >= options.minimumOverlap { pairs.append((overlap, t, b)) }
            }
        }
        pairs.sort { $0.overlap != $1.overlap ? $0.overlap > $1.overlap : ($0.track, $0.box) < ($1.track, $1.box) }
        for pair in pairs where !trackTaken[pair.track] && assignment[pair.box] == nil {
            trackTaken[pair.track] = true
            assignment[pair.box] = pair.track
        }

        var jumps: [(distance: Float, track: Int, box: Int)] = []
        for t in tracks.indices where !trackTaken[t] {
            let p = predictions[t]
            let diagonal = (p.width * p.width + p.height * p.height).squareRoot()
            for b in boxes.indices where assignment[b] == nil {
                let d = centreDistance(p, boxes[b])
                let sizeRatio = max(boxes[b].area, 1e-12) / max(p.area, 1e-12)
                if d <= options.maximumJump * diagonal && sizeRatio >= 0.25 && sizeRatio <= 4 { jumps.append((d, t, b)) }
            }
        }
        jumps.sort { $0.distance != $1.distance ? $0.distance < $1.distance : ($0.track, $0.box) < ($1.track, $1.box) }
        for jump in jumps where !trackTaken[jump.track] && assignment[jump.box] == nil {
            trackTaken[jump.track] = true
            assignment[jump.box] = jump.track
        }

        var ids = [Int](repeating: 0, count: boxes.count)
        for b in boxes.indices {
            if let t = assignment[b] {
                var track = tracks[t]
                let steps = Float(track.missedFrames + 1)
                let (oldX, oldY) = centre(track.box), (newX, newY) = centre(boxes[b])
                let alpha = options.velocitySmoothing
                track.velocityX = alpha * (newX - oldX) / steps + (1 - alpha) * track.velocityX
                track.velocityY = alpha * (newY - oldY) / steps + (1 - alpha) * track.velocityY
                track.box = boxes[b]
                track.missedFrames = 0
                track.hits += 1
                tracks[t] = track
                ids[b] = track.id
            }
        }
        for t in tracks.indices where !trackTaken[t] { tracks[t].missedFrames += 1 }
        tracks.removeAll { $0.missedFrames > options.maximumMissedFrames }
        for b in boxes.indices where assignment[b] == nil {
            tracks.append(Track(id: nextID, box: boxes[b]))
            ids[b] = nextID
            nextID += 1
        }
        return ids
    }

    private func centre(_ box: DetectionBox) -> (Float, Float) { ((box.xmin + box.xmax) / 2, (box.ymin + box.ymax) / 2) }

    private func centreDistance(_ a: DetectionBox, _ b: DetectionBox) -> Float {
        let (ax, ay) = centre(a), (bx, by) = centre(b)
        return ((ax - bx) * (ax - bx) + (ay - by) * (ay - by)).squareRoot()
    }
}
