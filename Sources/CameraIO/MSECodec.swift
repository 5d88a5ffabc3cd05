/// The codec string Media Source Extensions need for a fragmented MP4 (`video/mp4; codecs="…"`),
/// read from the init segment ``MediaWriter`` wrote: `avc1.PPCCLL` from the `avcC` box's profile,
/// compatibility and level bytes.
public enum MSECodec {
    /// - Parameters:
    ///   - initSegment: a fragmented MP4's `ftyp` + `moov`.
    ///   - codecName: FFmpeg's name of the codec (`h264`, `hevc`), for the fallback when the
    ///     segment has no `avcC` box.
    public static func string(initSegment: [UInt8], codecName: String) -> String {
        let marker: [UInt8] = Array("avcC".utf8)
        if initSegment.count > 8 {
            for index in 0..<(initSegment.count - 8) where Array(initSegment[index..<(index + 4)]) == marker {
                let profile = initSegment[index + 5]
                let compatibility = initSegment[index + 6]
                let level = initSegment[index + 7]
                return "avc1." + [profile, compatibility, level].map(hex).joined()
            }
        }
        return codecName == "hevc" ? "hvc1.1.6.L93.B0" : "avc1.42e01e"
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}
