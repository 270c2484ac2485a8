import Foundation
import LiteImage

/// A synthetic but real-looking video: object crops cut from real photos, moving and scaling along keyframed
/// paths over a real background, drawn in order (later objects occlude earlier ones). Ground truth is each
/// object's visible rectangle.
public struct SyntheticVideo: Sendable {
    /// Where an object is at a frame: centre and height in output pixels (width follows the crop's aspect).
    public struct Keyframe: Sendable {
        public var frame: Int
        public var centerX: Double
        public var centerY: Double
        public var height: Double

        public init(_ frame: Int, x: Double, y: Double, height: Double) {
            self.frame = frame; self.centerX = x; self.centerY = y; self.height = height
        }
    }

    public struct Actor: Sendable {
        public var name: String
        /// The photo (file name in the images folder) and the object's rectangle in it, in pixels.
        public var photo: String
        public var crop: (x: Double, y: Double, width: Double, height: Double)
        public var path: [Keyframe]

        public init(_ name: String, photo: String, crop: (x: Double, y: Double, width: Double, height: Double), path: [Keyframe]) {
            self.name = name; self.photo = photo; self.crop = crop; self.path = path
        }

        /// The actor's rectangle (x, y, w, h) at `frame`, linearly interpolated; nil outside its keyframes.
        func rectangle(at frame: Int) -> (x: Double, y: Double, width: Double, height: Double)? {
            guard let first = path.first, let last = path.last, frame >= first.frame, frame <= last.frame else { return nil }
            var a = first, b = last
            for (k0, k1) in zip(path, path.dropFirst()) where frame >= k0.frame && frame <= k1.frame {
                a = k0; b = k1
                break
            }
            let t = b.frame == a.frame ? 0 : Double(frame - a.frame) / Double(b.frame - a.frame)
            let cx = a.centerX + (b.centerX - a.centerX) * t, cy = a.centerY + (b.centerY - a.centerY) * t
            let h = a.height + (b.height - a.height) * t
            let w = h * crop.width / crop.height
            return (cx - w / 2, cy - h / 2, w, h)
        }
    }

    /// One object in one frame: its identity and visible rectangle (clipped to the frame).
    public struct Truth: Sendable, Equatable {
        public var actor: Int
        public var x: Double, y: Double, width: Double, height: Double
        /// Fraction of the rectangle covered by actors drawn after it.
        public var occluded: Double
    }

    public var name: String
    public var background: String
    /// The part of the background photo used, in its pixels (x, y, w, h); stretched to the frame.
    public var backgroundRegion: (x: Double, y: Double, width: Double, height: Double)
    public var width = 1280
    public var height = 720
    public var frameCount: Int
    public var actors: [Actor]
    /// Objects more occluded than this are not counted as ground truth in that frame (they cannot be seen).
    public var visibilityCutoff = 0.8

    public init(name: String, background: String, backgroundRegion: (x: Double, y: Double, width: Double, height: Double),
                frameCount: Int, actors: [Actor]) {
        self.name = name; self.background = background; self.backgroundRegion = backgroundRegion
        self.frameCount = frameCount; self.actors = actors
    }

    /// Renders frames from photos in `imagesDirectory`.
    public final class Renderer {
        public let video: SyntheticVideo
        private let backdrop: Image
        private let photos: [Image]

        public init(_ video: SyntheticVideo, imagesDirectory: String) throws {
            self.video = video
            let load = { (name: String) -> Image in
                let decoded = try Image.decode(contentsOfFile: (imagesDirectory as NSString).appendingPathComponent(name))
                return decoded.image.applying(decoded.orientation)
            }
            let background = try load(video.background)
            let r = video.backgroundRegion
            backdrop = try Image(width: video.width, height: video.height,
                                 pixels: background.resampled(region: PixelRect(x: r.x, y: r.y, width: r.width, height: r.height),
                                                              outputWidth: video.width, outputHeight: video.height))
            photos = try video.actors.map { try load($0.photo) }
        }

        /// The frame's pixels and its ground truth.
        public func frame(_ index: Int) throws -> (image: Image, truth: [Truth]) {
            var canvas = backdrop
            var placed: [(actor: Int, rect: (x: Double, y: Double, width: Double, height: Double))] = []
            for (n, actor) in video.actors.enumerated() {
                guard let rect = actor.rectangle(at: index) else { continue }
                let w = Int(rect.width.rounded()), h = Int(rect.height.rounded())
                guard w > 0, h > 0 else { continue }
                let c = actor.crop
                let patch = photos[n].resampled(region: PixelRect(x: c.x, y: c.y, width: c.width, height: c.height), outputWidth: w, outputHeight: h)
                let left = Int(rect.x.rounded()), top = Int(rect.y.rounded())
                for y in 0..<h where top + y >= 0 && top + y < video.height {
                    for x in 0..<w where left + x >= 0 && left + x < video.width {
                        let source = (y * w + x) * 3, target = ((top + y) * video.width + left + x) * 3
                        canvas.pixels[target] = patch[source]
                        canvas.pixels[target + 1] = patch[source + 1]
                        canvas.pixels[target + 2] = patch[source + 2]
                    }
                }
                placed.append((n, (Double(left), Double(top), Double(w), Double(h))))
            }
            var truth: [Truth] = []
            for (k, item) in placed.enumerated() {
                let clipped = clip(item.rect)
                guard clipped.width > 0, clipped.height > 0 else { continue }
                let covered = coveredFraction(clipped, by: placed[(k + 1)...].map { clip($0.rect) })
                truth.append(Truth(actor: item.actor, x: clipped.x, y: clipped.y, width: clipped.width, height: clipped.height, occluded: covered))
            }
            return (canvas, truth)
        }

        private func clip(_ r: (x: Double, y: Double, width: Double, height: Double)) -> (x: Double, y: Double, width: Double, height: Double) {
            let x0 = max(0, r.x), y0 = max(0, r.y), x1 = min(Double(video.width), r.x + r.width), y1 = min(Double(video.height), r.y + r.height)
            return (x0, y0, max(0, x1 - x0), max(0, y1 - y0))
        }

        /// The fraction of `rect` under the union of `covers`, counted on a coarse grid.
        private func coveredFraction(_ rect: (x: Double, y: Double, width: Double, height: Double), by covers: [(x: Double, y: Double, width: Double, height: Double)]) -> Double {
            guard !covers.isEmpty else { return 0 }
            let steps = 40
            var hidden = 0
            for i in 0..<steps {
                for j in 0..<steps {
                    let px = rect.x + (Double(i) + 0.5) * rect.width / Double(steps), py = rect.y + (Double(j) + 0.5) * rect.height / Double(steps)
                    if covers.contains(where: { px >= $0.x && px < $0.x + $0.width && py >= $0.y && py < $0.y + $0.height }) { hidden += 1 }
                }
            }
            return Double(hidden) / Double(steps * steps)
        }
    }
}

extension SyntheticVideo {
    static let dogRunning = (x: 120.0, y: 48.0, width: 130.0, height: 246.0)
    static let dogStanding = (x: 346.0, y: 162.0, width: 147.0, height: 207.0)
    static let parrot = (x: 88.0, y: 103.0, width: 385.0, height: 755.0)
    static let owl = (x: 155.0, y: 10.0, width: 179.0, height: 357.0)
    static let bird = (x: 40.0, y: 82.0, width: 447.0, height: 244.0)
    static let beachSea = (x: 0.0, y: 0.0, width: 1800.0, height: 1012.0)

    /// Two dogs crossing in opposite directions at different heights: their boxes overlap for a while (at most
    /// about a quarter of one is hidden) but neither is ever fully hidden. The test sequence: no ID may switch.
    public static let crossing = SyntheticVideo(
        name: "two dogs crossing, partial overlap", background: "beach.jpg", backgroundRegion: beachSea, frameCount: 60,
        actors: [
            Actor("running dog", photo: "pets.jpg", crop: dogRunning, path: [.init(0, x: 220, y: 250, height: 380), .init(59, x: 1060, y: 260, height: 380)]),
            Actor("standing dog", photo: "pets.jpg", crop: dogStanding, path: [.init(0, x: 1080, y: 530, height: 300), .init(59, x: 200, y: 520, height: 300)]),
        ])

    /// The same dogs crossing at nearly the same height: up to 70% of the running dog is hidden.
    public static let heavyCrossing = SyntheticVideo(
        name: "two dogs crossing, heavy overlap", background: "beach.jpg", backgroundRegion: beachSea, frameCount: 60,
        actors: [
            Actor("running dog", photo: "pets.jpg", crop: dogRunning, path: [.init(0, x: 220, y: 360, height: 380), .init(59, x: 1060, y: 380, height: 380)]),
            Actor("standing dog", photo: "pets.jpg", crop: dogStanding, path: [.init(0, x: 1080, y: 440, height: 300), .init(59, x: 200, y: 420, height: 300)]),
        ])

    /// A parrot flies in front of an owl, hiding it completely for a few frames, while the owl grows (comes closer).
    public static let occlusion = SyntheticVideo(
        name: "parrot fully occluding an owl", background: "beach.jpg", backgroundRegion: beachSea, frameCount: 90,
        actors: [
            Actor("owl", photo: "owl.jpg", crop: owl, path: [.init(0, x: 640, y: 380, height: 300), .init(89, x: 700, y: 380, height: 420)]),
            Actor("parrot", photo: "parrot.jpg", crop: parrot, path: [.init(0, x: 150, y: 360, height: 560), .init(89, x: 1150, y: 360, height: 560)]),
        ])

    /// Four animals moving, scaling, entering and leaving, crossing each other.
    public static let busy = SyntheticVideo(
        name: "four animals entering, leaving and crossing", background: "beach.jpg", backgroundRegion: beachSea, frameCount: 120,
        actors: [
            Actor("bird", photo: "bird.png", crop: bird, path: [.init(0, x: 300, y: 170, height: 200), .init(60, x: 700, y: 200, height: 240), .init(119, x: 1000, y: 160, height: 200)]),
            Actor("running dog", photo: "pets.jpg", crop: dogRunning, path: [.init(10, x: 150, y: 500, height: 300), .init(119, x: 1100, y: 480, height: 360)]),
            Actor("owl", photo: "owl.jpg", crop: owl, path: [.init(0, x: 1100, y: 450, height: 320), .init(70, x: 500, y: 470, height: 300), .init(100, x: 380, y: 470, height: 280)]),
            Actor("standing dog", photo: "pets.jpg", crop: dogStanding, path: [.init(40, x: 900, y: 560, height: 200), .init(119, x: 620, y: 540, height: 300)]),
        ])

    public static let all = [crossing, heavyCrossing, occlusion, busy]
}
