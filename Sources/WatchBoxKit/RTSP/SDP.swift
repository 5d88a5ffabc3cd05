import CameraCommon
import FoundationEssentials

/// A session description (RFC 4566) as RTSP cameras send it in reply to DESCRIBE, parsed
/// tolerantly: cameras send `\n` instead of `\r\n`, skip `v=`, pad with spaces, repeat attributes
/// and invent their own (`a=x-dimensions`). Nothing here throws; what cannot be read is left out.
public struct SessionDescription: Sendable, Equatable, Codable {
    public struct Media: Sendable, Equatable, Codable {
        /// `video`, `audio`, `application`, ...
        public var kind: String
        public var port: Int
        public var transport: String
        public var payloadTypes: [Int]
        /// Encoding name from `a=rtpmap`, e.g. `H264`, `H265`, `MPEG4-GENERIC`, `PCMU` (as sent).
        public var encoding: String?
        public var clockRate: Int?
        public var channels: Int?
        /// `a=fmtp` parameters by lowercased name.
        public var formatParameters: [String: String]
        /// `a=control` of this media (relative or absolute).
        public var control: String?
        public var frameRate: Double?
        /// Attributes as `name` → values, in order, for anything not modelled above.
        public var attributes: [String: [String]]

        /// Our codec name (`h264`, `hevc`, `aac`, `pcm_mulaw`, ...) for display and decoding.
        public var codec: String? {
            guard let encoding = encoding?.uppercased() else {
                // Static payload types (RFC 3551).
                switch payloadTypes.first {
                case 0: return "pcm_mulaw"
                case 8: return "pcm_alaw"
                case 26: return "mjpeg"
                default: return nil
                }
            }
            switch encoding {
            case "H264": return "h264"
            case "H265", "HEVC": return "hevc"
            case "MPEG4-GENERIC", "MP4A-LATM": return "aac"
            case "PCMU": return "pcm_mulaw"
            case "PCMA": return "pcm_alaw"
            case "JPEG": return "mjpeg"
            case "OPUS": return "opus"
            case "G726-32", "G726": return "g726"
            default: return encoding.lowercased()
            }
        }

        /// Picture size from the SPS in `sprop-parameter-sets` (H.264) or from vendor attributes.
        public var resolution: (width: Int, height: Int)? {
            if let sets = formatParameters["sprop-parameter-sets"],
                let first = sets.split(separator: ",").first,
                let sps = Data(base64Encoded: String(first).trimmingWhitespace(), options: .ignoreUnknownCharacters),
                let size = H264SPS.size([UInt8](sps))
            {
                return size
            }
            for name in ["x-dimensions", "cliprect"] {
                guard let value = attributes[name]?.first else { continue }
                let numbers = value.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
                if name == "x-dimensions", numbers.count >= 2 { return (numbers[0], numbers[1]) }
                if name == "cliprect", numbers.count >= 4 { return (numbers[3] - numbers[1], numbers[2] - numbers[0]) }
            }
            return nil
        }
    }

    public var sessionName: String?
    /// Session-level `a=control` (often `*`).
    public var control: String?
    public var media: [Media]
    /// Session-level attributes not modelled above.
    public var attributes: [String: [String]]

    public init(parsing text: String) {
        var sessionName: String?
        var control: String?
        var attributes: [String: [String]] = [:]
        var media: [Media] = []
        for rawLine in text.split(whereSeparator: { $0.isNewline }) {
            let line = rawLine.trimmingWhitespace()
            guard line.count >= 2, let equals = line.firstIndex(of: "="),
                line.distance(from: line.startIndex, to: equals) == 1
            else { continue }
            let type = line[line.startIndex]
            let value = String(line[line.index(after: equals)...]).trimmingWhitespace()
            switch type {
            case "s" where media.isEmpty:
                sessionName = value
            case "m":
                let fields = value.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count >= 3 else { continue }
                let port = Int(fields[1].split(separator: "/").first ?? "") ?? 0
                media.append(
                    Media(
                        kind: String(fields[0]).lowercased(), port: port, transport: String(fields[2]),
                        payloadTypes: fields.dropFirst(3).compactMap { Int($0) }, encoding: nil, clockRate: nil,
                        channels: nil, formatParameters: [:], control: nil, frameRate: nil, attributes: [:]))
            case "a":
                let (name, attributeValue) = Self.splitAttribute(value)
                if media.isEmpty {
                    if name == "control" {
                        control = attributeValue
                    } else {
                        attributes[name, default: []].append(attributeValue)
                    }
                    continue
                }
                var current = media.removeLast()
                Self.apply(name: name, value: attributeValue, to: &current)
                media.append(current)
            default:
                continue
            }
        }
        self.sessionName = sessionName
        self.control = control
        self.media = media
        self.attributes = attributes
    }

    public var video: Media? { media.first { $0.kind == "video" } }
    public var audio: Media? { media.first { $0.kind == "audio" } }

    static func splitAttribute(_ value: String) -> (String, String) {
        guard let colon = value.firstIndex(of: ":") else { return (value.lowercased(), "") }
        return (
            String(value[..<colon]).trimmingWhitespace().lowercased(),
            String(value[value.index(after: colon)...]).trimmingWhitespace()
        )
    }

    static func apply(name: String, value: String, to media: inout Media) {
        switch name {
        case "rtpmap":
            // rtpmap:<pt> <encoding>/<clock>[/<channels>]
            let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard parts.count == 2 else { return }
            let payload = Int(parts[0])
            if let payload, !media.payloadTypes.isEmpty, media.payloadTypes.first != payload, media.encoding != nil {
                return
            }
            let codec = parts[1].split(separator: "/")
            media.encoding = codec.first.map { String($0).trimmingWhitespace() }
            media.clockRate = codec.count > 1 ? Int(codec[1].trimmingWhitespace()) : nil
            media.channels = codec.count > 2 ? Int(codec[2].trimmingWhitespace()) : nil
        case "fmtp":
            // fmtp:<pt> name=value; name=value (some cameras omit the payload type or the spaces)
            var parameters = value
            if let space = value.firstIndex(of: " "), Int(value[..<space]) != nil {
                parameters = String(value[value.index(after: space)...])
            } else if Int(value) != nil {
                parameters = ""
            }
            for pair in parameters.split(separator: ";") {
                let trimmed = pair.trimmingWhitespace()
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                let key = String(trimmed[..<equals]).trimmingWhitespace().lowercased()
                media.formatParameters[key] = String(trimmed[trimmed.index(after: equals)...]).trimmingWhitespace()
            }
        case "control":
            media.control = value
        case "framerate":
            media.frameRate = Double(value)
        default:
            media.attributes[name, default: []].append(value)
        }
    }
}

/// Reads the picture size out of an H.264 sequence parameter set (ITU-T H.264 §7.3.2.1.1).
enum H264SPS {
    static func size(_ nal: [UInt8]) -> (width: Int, height: Int)? {
        guard nal.count > 4, nal[0] & 0x1F == 7 else { return nil }
        // Remove emulation-prevention bytes (00 00 03 → 00 00).
        var rbsp: [UInt8] = []
        var zeros = 0
        for byte in nal.dropFirst() {
            if zeros >= 2 && byte == 3 {
                zeros = 0
                continue
            }
            rbsp.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        var reader = BitReader(rbsp)
        guard let profile = reader.bits(8), reader.bits(16) != nil, reader.exponentialGolomb() != nil else {
            return nil
        }
        var chromaFormat = 1
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            guard let format = reader.exponentialGolomb() else { return nil }
            chromaFormat = format
            if format == 3 { _ = reader.bits(1) }
            guard reader.exponentialGolomb() != nil, reader.exponentialGolomb() != nil, reader.bits(1) != nil,
                let scalingMatrix = reader.bits(1)
            else { return nil }
            if scalingMatrix == 1 {
                for index in 0..<(format == 3 ? 12 : 8) {
                    guard let present = reader.bits(1) else { return nil }
                    if present == 1 {
                        var last = 8
                        var next = 8
                        for _ in 0..<(index < 6 ? 16 : 64) where next != 0 {
                            guard let delta = reader.signedExponentialGolomb() else { return nil }
                            next = (last + delta + 256) % 256
                            last = next == 0 ? last : next
                        }
                    }
                }
            }
        }
        guard reader.exponentialGolomb() != nil, let pocType = reader.exponentialGolomb() else { return nil }
        if pocType == 0 {
            guard reader.exponentialGolomb() != nil else { return nil }
        } else if pocType == 1 {
            guard reader.bits(1) != nil, reader.signedExponentialGolomb() != nil,
                reader.signedExponentialGolomb() != nil, let cycle = reader.exponentialGolomb(), cycle < 256
            else { return nil }
            for _ in 0..<cycle { guard reader.signedExponentialGolomb() != nil else { return nil } }
        }
        guard reader.exponentialGolomb() != nil, reader.bits(1) != nil,
            let widthInMacroblocks = reader.exponentialGolomb(), let heightInMapUnits = reader.exponentialGolomb(),
            let frameMacroblocksOnly = reader.bits(1)
        else { return nil }
        if frameMacroblocksOnly == 0 { _ = reader.bits(1) }
        guard reader.bits(1) != nil, let cropping = reader.bits(1) else { return nil }
        var crop = (left: 0, right: 0, top: 0, bottom: 0)
        if cropping == 1 {
            guard let left = reader.exponentialGolomb(), let right = reader.exponentialGolomb(),
                let top = reader.exponentialGolomb(), let bottom = reader.exponentialGolomb()
            else { return nil }
            crop = (left, right, top, bottom)
        }
        let cropUnitX = chromaFormat == 0 || chromaFormat == 3 ? 1 : 2
        let cropUnitY = (chromaFormat == 1 ? 2 : 1) * (2 - frameMacroblocksOnly)
        let width = (widthInMacroblocks + 1) * 16 - (crop.left + crop.right) * cropUnitX
        let height = (heightInMapUnits + 1) * 16 * (2 - frameMacroblocksOnly) - (crop.top + crop.bottom) * cropUnitY
        guard width > 0, height > 0, width <= 16384, height <= 16384 else { return nil }
        return (width, height)
    }
}

/// Reads bits most-significant first; nil past the end.
struct BitReader {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func bits(_ count: Int) -> Int? {
        var value = 0
        for _ in 0..<count {
            guard position / 8 < bytes.count else { return nil }
            let bit = (bytes[position / 8] >> (7 - UInt8(position % 8))) & 1
            value = value << 1 | Int(bit)
            position += 1
        }
        return value
    }

    mutating func exponentialGolomb() -> Int? {
        var zeros = 0
        while true {
            guard let bit = bits(1) else { return nil }
            if bit == 1 { break }
            zeros += 1
            if zeros > 31 { return nil }
        }
        guard let rest = bits(zeros) else { return nil }
        return (1 << zeros) - 1 + rest
    }

    mutating func signedExponentialGolomb() -> Int? {
        guard let value = exponentialGolomb() else { return nil }
        return value % 2 == 1 ? (value + 1) / 2 : -(value / 2)
    }
}
