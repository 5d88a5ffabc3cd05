import CameraCommon
import Foundation

/// Gameplay-like videos for CGame's detector: a moving background, kill-feed lines drawn at known
/// times inside a region (stacked like a real feed, in varying fonts, sizes and colours with an
/// outline), distractor text elsewhere and near-miss words inside, with the ground truth.
public enum GameplayCorpus {
    /// A line of text on screen from `start` to `end` seconds.
    public struct Line: Sendable, Codable, Equatable {
        /// The event type it announces (`Kill`, `Knock`), or nil for a distractor.
        public var type: String?
        public var text: String
        public var start: Double
        public var end: Double

        public init(type: String?, text: String, start: Double, end: Double) {
            self.type = type
            self.text = text
            self.start = start
            self.end = end
        }
    }

    public struct Video: Sendable, Codable {
        public var path: String
        public var width: Int
        public var height: Int
        public var frameRate: Int
        public var seconds: Int
        public var gopSize: Int
        /// Lines inside the region (events and near misses).
        public var feed: [Line]
        /// Lines drawn outside the region.
        public var outside: [Line]
        /// The ground truth: event lines only.
        public var events: [Line] { feed.filter { $0.type != nil } }
    }

    /// Backgrounds that keep changing like gameplay.
    public enum Background: String, Sendable, CaseIterable {
        case testPattern, fractal, noisyBars, flat
        func source(width: Int, height: Int, rate: Int, seconds: Int) -> String {
            switch self {
            case .testPattern:
                return "testsrc2=size=\(width)x\(height):rate=\(rate):duration=\(seconds)"
            case .fractal:
                // Rendered small (mandelbrot is slow) and scaled up; it zooms slowly, like scenery
                // passing (a fast zoom turns into per-pixel colour noise, which no game shows).
                return
                    "mandelbrot=size=320x180:rate=\(rate):end_pts=\(seconds * 100),scale=\(width):\(height),trim=duration=\(seconds)"
            case .noisyBars:
                return
                    "smptehdbars=size=\(width)x\(height):rate=\(rate):duration=\(seconds),noise=alls=14:allf=t+u,hue=H=t*40"
            case .flat:
                return "color=c=0x202830:size=\(width)x\(height):rate=\(rate):duration=\(seconds)"
            }
        }
    }

    static let fonts = [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf",
    ]
    static let colors = ["white", "0xFFE14D", "0x9CF0FF", "0xFF8A80"]

    /// Encodes a gameplay video with `feed` lines stacked inside `region` (normalised) and `outside`
    /// lines at the top left, and writes the ground truth next to it as `<name>.json`.
    ///
    /// Texts must be letters, digits and spaces (they go through ffmpeg's filter syntax).
    public static func make(
        in directory: String, name: String, region: NormalizedRect, feed: [Line], outside: [Line] = [],
        width: Int = 1280, height: Int = 720, frameRate: Int = 30, seconds: Int = 20, gopSize: Int? = nil,
        background: Background = .testPattern, style: Int = 0, backingBox: Double? = nil, bitRate: String = "4M",
        audio: Bool = false
    ) throws -> Video {
        let path = "\(directory)/\(name)"
        let gop = gopSize ?? frameRate
        var filters: [String] = []
        // Stack lines like a feed: each takes the first row free when it appears.
        var rows: [(end: Double, row: Int)] = []
        let fontSize = Int((Double(height) * (0.026 + 0.004 * Double(style % 3))).rounded())
        let lineHeight = Int(Double(fontSize) * 1.6)
        let left = Int(region.x * Double(width)) + fontSize / 2
        let top = Int(region.y * Double(height)) + fontSize / 2
        let maxRows = max(1, (Int(region.height * Double(height)) - fontSize) / lineHeight)
        for (index, line) in feed.sorted(by: { $0.start < $1.start }).enumerated() {
            rows.removeAll { $0.end <= line.start }
            let used = Set(rows.map(\.row))
            let row = (0..<maxRows).first { !used.contains($0) } ?? 0
            rows.append((line.end, row))
            let variant = style + index
            filters.append(
                drawtext(
                    line, x: "\(left)", y: "\(top + row * lineHeight)", size: fontSize,
                    font: fonts[variant % fonts.count], color: colors[variant % colors.count],
                    border: 2 + variant % 2, box: backingBox))
        }
        for (index, line) in outside.enumerated() {
            filters.append(
                drawtext(
                    line, x: "\(width / 40)", y: "\(height / 20 + index * lineHeight)", size: fontSize,
                    font: fonts[0], color: "white", border: 2, box: nil))
        }
        var arguments = ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i"]
        arguments.append(background.source(width: width, height: height, rate: frameRate, seconds: seconds))
        if audio {
            arguments += ["-f", "lavfi", "-i", "sine=frequency=330:sample_rate=48000:duration=\(seconds)"]
        }
        if !filters.isEmpty { arguments += ["-vf", filters.joined(separator: ",")] }
        arguments += [
            "-c:v", "libx264", "-preset", "veryfast", "-b:v", bitRate, "-maxrate", bitRate, "-bufsize", bitRate,
            "-pix_fmt", "yuv420p", "-g", "\(gop)", "-keyint_min", "\(gop)", "-sc_threshold", "0",
            // One encoder thread: x264's multi-threaded rate control made the pictures (and so the
            // OCR results) differ slightly from run to run; tests need the same corpus every time.
            "-threads", "1",
            "-frames:v", "\(frameRate * seconds)",
        ]
        if audio { arguments += ["-c:a", "aac", "-b:a", "96k", "-shortest"] }
        arguments.append(path)
        try Subprocess.run("ffmpeg", arguments)
        let video = Video(
            path: path, width: width, height: height, frameRate: frameRate, seconds: seconds, gopSize: gop,
            feed: feed, outside: outside)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(video).write(to: URL(fileURLWithPath: path + ".json"))
        return video
    }

    /// `box`: opacity of a dark backing box behind the line (how Apex, Warzone and CS2 draw their
    /// feeds); nil for outline only (Fortnite).
    static func drawtext(
        _ line: Line, x: String, y: String, size: Int, font: String, color: String, border: Int, box: Double?
    ) -> String {
        precondition(line.text.allSatisfy { $0.isLetter || $0.isNumber || $0 == " " }, "corpus text: \(line.text)")
        let backing = box.map { ":box=1:boxcolor=black@\($0):boxborderw=\(size / 4)" } ?? ""
        return
            "drawtext=fontfile=\(font):text='\(line.text)':x=\(x):y=\(y):fontsize=\(size):fontcolor=\(color)"
            + ":borderw=\(border):bordercolor=black\(backing):enable='between(t,\(line.start),\(line.end))'"
    }

    /// Player-like names.
    public static let names = [
        "Ninja", "Shadow77", "xXSlayerXx", "Bot42", "PixelQueen", "Raven", "ZeroCool", "Mango", "Kestrel", "NovaStar",
        "Blaze", "Turbo9", "Vortex", "Echo", "Quill", "Ranger5",
    ]
}
