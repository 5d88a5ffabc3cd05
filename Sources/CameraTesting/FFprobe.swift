import Foundation

/// What ffprobe — the independent reference — says about a file, for tests to compare against.
public struct FFprobeReport: Sendable {
    public struct Frame: Sendable {
        public var pts: Double
        public var isKeyframe: Bool
        public var mediaType: String
    }

    public var formatDuration: Double?
    public var videoFrames: [Frame]
    public var audioFrames: [Frame]
    public var width: Int?
    public var height: Int?
    public var rotation: Int?
    public var videoCodec: String?

    /// The longest time between two video frames next to each other in presentation order (a
    /// still, as a viewer sees it); infinity with fewer than two frames.
    public var longestVideoGap: Double {
        let times = videoFrames.map(\.pts).sorted()
        return zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? .infinity
    }

    /// Runs `ffprobe -show_frames` (decoding every frame) on `path`.
    public static func read(_ path: String) throws -> FFprobeReport {
        let output = try Subprocess.run(
            "ffprobe",
            [
                "-v", "error", "-print_format", "json", "-show_format", "-show_streams", "-show_frames",
                "-show_entries",
                "frame=media_type,pts_time,best_effort_timestamp_time,key_frame:stream=codec_type,codec_name,width,height:stream_side_data=rotation:format=duration",
                path,
            ])
        guard let json = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any] else {
            throw SubprocessError(command: "ffprobe \(path)", output: output)
        }
        var report = FFprobeReport(formatDuration: nil, videoFrames: [], audioFrames: [])
        if let format = json["format"] as? [String: Any], let duration = format["duration"] as? String {
            report.formatDuration = Double(duration)
        }
        for stream in json["streams"] as? [[String: Any]] ?? [] where stream["codec_type"] as? String == "video" {
            report.width = stream["width"] as? Int
            report.height = stream["height"] as? Int
            report.videoCodec = stream["codec_name"] as? String
            for side in stream["side_data_list"] as? [[String: Any]] ?? [] {
                if let rotation = side["rotation"] as? Int { report.rotation = rotation }
            }
        }
        for frame in json["frames"] as? [[String: Any]] ?? [] {
            let time =
                (frame["pts_time"] as? String).flatMap(Double.init)
                ?? (frame["best_effort_timestamp_time"] as? String).flatMap(Double.init) ?? .nan
            let entry = Frame(
                pts: time, isKeyframe: (frame["key_frame"] as? Int) == 1,
                mediaType: frame["media_type"] as? String ?? "")
            if entry.mediaType == "video" {
                report.videoFrames.append(entry)
            } else if entry.mediaType == "audio" {
                report.audioFrames.append(entry)
            }
        }
        return report
    }
}
