import CameraCommon
import CameraIO
import CameraTesting
import Foundation
import Networking
import Testing

@testable import WatchBoxKit

/// A new folder, removed when the test process exits.
func temporaryDirectory() throws -> String { try ScratchFolder.make("watchbox-tests") }

@Suite struct ModelAndGridTests {
    @Test func streamURLsSplitAndLoseTheirCredentials() throws {
        let url = try #require(
            StreamURL("rtsp://admin:p%40ss:word@192.168.1.20:8554/Streaming/Channels/101?transport=tcp"))
        #expect(url.user == "admin")
        #expect(url.password == "p@ss:word")
        #expect(url.host == "192.168.1.20" && url.port == 8554)
        #expect(url.path == "/Streaming/Channels/101?transport=tcp")
        #expect(url.withoutCredentials == "rtsp://192.168.1.20:8554/Streaming/Channels/101?transport=tcp")
        #expect(url.withCredentials(user: "admin", password: "p@ss:word").contains("admin:p%40ss%3Aword@"))
        #expect(StreamURL("rtsp://[::1]/live")?.host == "::1")
        #expect(StreamURL("rtsp://[::1]/live")?.port == 554)
        for bad in ["http://cam/stream", "rtsp://", "rtsp://host:99999/x", "not a url"] {
            #expect(StreamURL(bad) == nil, "\(bad)")
        }
        let camera = Camera(name: "Door", rtspURL: "rtsp://user:secret@10.0.0.5/live")
        #expect(camera.rtspURL == "rtsp://10.0.0.5:554/live")
        #expect(camera.username == "user" && camera.ipAddress == "10.0.0.5" && camera.port == 554)
        let json = String(decoding: try JSONEncoder().encode(camera), as: UTF8.self)
        #expect(!json.contains("secret"))
    }

    @Test func oneURLParserRefusesWhatARequestLineMustNotCarry() throws {
        // CR/LF, NUL, spaces and tabs would let a stored URL add lines to FFmpeg's or our request.
        for bad in [
            "rtsp://cam/live\r\nPOST /api/auth/signup HTTP/1.1", "rtsp://cam/li ve", "rtsp://cam/\u{0}x",
            "http://host/a\tb", "rtsp://cam\n/live", "rtsp:///nohost", "rtsp://[::1/x", "rtsp://[::1]x/y",
        ] {
            #expect(URLParts(bad) == nil, "\(bad.debugDescription) was accepted")
            #expect(StreamURL(bad) == nil, "\(bad.debugDescription) was accepted")
            #expect(HTTPURL(bad) == nil, "\(bad.debugDescription) was accepted")
        }
        let parts = try #require(URLParts("RTSPS://u%20s:p%0Aw@[fe80::1]:7447/a?b=c"))
        #expect(parts.scheme == "rtsps" && parts.host == "fe80::1" && parts.port == 7447 && parts.path == "/a?b=c")
        // Credentials are decoded, and encoded again when a URL is built: a CR/LF in a password never
        // reaches a request line raw.
        #expect(parts.user == "u s" && parts.password == "p\nw")
        let rebuilt = try #require(StreamURL("rtsp://cam/live")).withCredentials(user: "u", password: "p\r\nw")
        #expect(!rebuilt.contains("\r") && !rebuilt.contains("\n") && rebuilt.contains("p%0D%0Aw@"))
        #expect(HTTPURL("http://example.com?x=1")?.path == "/?x=1")
        #expect(HTTPURL(" https://example.com:8443/v1 ")?.effectivePort == 8443)
    }

    @Test func networksKnowWhichRangesTheyTouch() throws {
        let loopback = try #require(IPv4Network("127.0.0.0/8"))
        func range(_ text: String) throws -> (UInt32, UInt32) {
            let range = try AddressRange(text, force: true)
            return (range.first, range.first &+ UInt32(range.count - 1))
        }
        for touching in ["127.0.0.1", "126.255.255.250-127.0.0.5", "127.255.255.255", "100.0.0.0-127.0.0.1"] {
            let (first, last) = try range(touching)
            #expect(loopback.overlaps(first: first, last: last), "\(touching)")
        }
        for apart in ["128.0.0.0/24", "126.0.0.0/8", "10.0.0.1"] {
            let (first, last) = try range(apart)
            #expect(!loopback.overlaps(first: first, last: last), "\(apart)")
        }
    }

    @Test func gridColumnsFollowCountAndWidth() {
        let wide = 1920.0
        #expect(GridLayoutCalculator.columns(count: 0, width: wide) == 1)
        #expect(GridLayoutCalculator.columns(count: 1, width: wide) == 1)
        #expect(GridLayoutCalculator.columns(count: 2, width: wide) == 2)
        #expect(GridLayoutCalculator.columns(count: 4, width: wide) == 2)
        #expect(GridLayoutCalculator.columns(count: 5, width: wide) == 3)
        #expect(GridLayoutCalculator.columns(count: 9, width: wide) == 3)
        #expect(GridLayoutCalculator.columns(count: 10, width: wide) == 4)
        #expect(GridLayoutCalculator.columns(count: 16, width: wide) == 4)
        #expect(GridLayoutCalculator.columns(count: 17, width: wide) == 5)
        // A phone: at most two 160-pt cells fit in 375 pt; portrait takes one column off.
        #expect(GridLayoutCalculator.columns(count: 9, width: 375) == 2)
        #expect(GridLayoutCalculator.columns(count: 4, width: 375, height: 812) == 1)
        #expect(GridLayoutCalculator.columns(count: 4, width: 812, height: 375) == 2)
    }

    @Test func gridFramesTileTheViewportWithoutOverlap() {
        for count in [1, 3, 4, 7, 12, 16, 25] {
            let frames = GridLayoutCalculator.frames(count: count, width: 1280, height: 720)
            #expect(frames.count == count)
            for frame in frames {
                #expect(frame.x >= 8 - 1e-9 && frame.y >= 8 - 1e-9)
                #expect(frame.x + frame.width <= 1272 + 1e-9 && frame.y + frame.height <= 712 + 1e-9)
                #expect(abs(frame.width / frame.height - 16.0 / 9.0) < 1e-6)
            }
            for (i, a) in frames.enumerated() {
                for b in frames[(i + 1)...] {
                    let apart =
                        a.x + a.width <= b.x + 1e-9 || b.x + b.width <= a.x + 1e-9 || a.y + a.height <= b.y + 1e-9
                        || b.y + b.height <= a.y + 1e-9
                    #expect(apart, "\(count) cells: \(a) overlaps \(b)")
                }
            }
        }
        #expect(GridLayoutCalculator.frames(count: 3, width: 10, height: 10).isEmpty)
    }
}

@Suite struct SDPTests {
    static let gstreamer = """
        v=0\r
        o=- 1188340656180883 1 IN IP4 127.0.0.1\r
        s=Session streamed with GStreamer\r
        t=0 0\r
        a=tool:GStreamer\r
        a=type:broadcast\r
        a=control:*\r
        a=range:npt=now-\r
        m=video 0 RTP/AVP 96\r
        c=IN IP4 0.0.0.0\r
        a=rtpmap:96 H264/90000\r
        a=framerate:30\r
        a=fmtp:96 packetization-mode=1;sprop-parameter-sets=Z2QAH6zZQFAFuwEQAAADABAAAAMDIPGDGWA=,aOvjyyLA;profile-level-id=64001F\r
        a=control:stream=0\r

        """

    @Test func parsesAGStreamerDescriptionWithTheSizeFromTheSPS() throws {
        let sdp = SessionDescription(parsing: Self.gstreamer)
        #expect(sdp.sessionName == "Session streamed with GStreamer")
        #expect(sdp.control == "*")
        let video = try #require(sdp.video)
        #expect(video.codec == "h264")
        #expect(video.clockRate == 90000)
        #expect(video.control == "stream=0")
        #expect(video.frameRate == 30)
        #expect(video.formatParameters["packetization-mode"] == "1")
        let size = try #require(video.resolution)
        #expect(size.width == 1280 && size.height == 720)
    }

    @Test func toleratesWhatRealCamerasSend() throws {
        // LF line ends, no v=, spaces around values, fmtp without spaces, a vendor size attribute,
        // an H.265 stream, audio with a static payload type, and junk lines.
        let quirky = """
             s=Media Presentation
            a=control:rtsp://192.168.1.64:554/Streaming/Channels/101/?transportmode=unicast
            m=video 0 RTP/AVP 96
            a=rtpmap:96 H265/90000
            a=fmtp:96 sprop-vps=QAEMAf//AWAAAAMAkAAAAwAAAwBdlZgJ;sprop-sps=QgEBAWAAAAMAkAAAAwAAAwBdoAKAgC0WWVmkkyvAQA==
            a=x-dimensions: 2560, 1440
            a=control:trackID=1
            m=audio 0 RTP/AVP 0
            a=control:trackID=2
            garbage without equals
            x=unknown line type
            a=
            """
        let sdp = SessionDescription(parsing: quirky)
        #expect(sdp.media.count == 2)
        #expect(sdp.video?.codec == "hevc")
        #expect(sdp.video?.resolution?.width == 2560)
        #expect(sdp.video?.resolution?.height == 1440)
        #expect(sdp.audio?.codec == "pcm_mulaw")
        #expect(sdp.audio?.control == "trackID=2")
        #expect(sdp.control?.hasPrefix("rtsp://192.168.1.64") == true)
        // Dahua-style AAC with channels, and a MJPEG camera.
        let aac = SessionDescription(
            parsing: "m=audio 0 RTP/AVP 97\na=rtpmap:97 MPEG4-GENERIC/16000/1\na=fmtp:97 streamtype=5;config=1408\n")
        #expect(aac.audio?.codec == "aac" && aac.audio?.clockRate == 16000 && aac.audio?.channels == 1)
        #expect(SessionDescription(parsing: "m=video 0 RTP/AVP 26\n").video?.codec == "mjpeg")
        // Main profile 1080p: 1088 coded lines cropped to 1080.
        let main = SessionDescription(
            parsing:
                "m=video 0 RTP/AVP 96\na=rtpmap:96 H264/90000\na=fmtp:96 sprop-parameter-sets=Z01AKOygPAET8uAiAAADAAIAAAMAZB4wYyw=\n"
        )
        #expect(main.video?.resolution?.width == 1920 && main.video?.resolution?.height == 1080)
    }

    @Test func fuzzedDescriptionsNeverCrash() {
        var generator = SeededGenerator(seed: 42)
        let base = Array(Self.gstreamer.utf8)
        var parsed = 0
        for _ in 0..<500 {
            var bytes = base
            for _ in 0..<Int.random(in: 1...20, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[index] = UInt8.random(in: 0...255, using: &generator)
            }
            if Bool.random(using: &generator) {
                bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator)))
            }
            let sdp = SessionDescription(parsing: String(decoding: bytes, as: UTF8.self))
            if sdp.video != nil { parsed += 1 }
            // Whatever survives is sane: a size a camera could have, a codec with a name.
            if let size = sdp.video?.resolution {
                #expect((1...16384).contains(size.width) && (1...16384).contains(size.height), "\(size)")
            }
            if let codec = sdp.video?.codec { #expect(!codec.isEmpty) }
        }
        // Damage elsewhere in the description still finds the video.
        #expect(parsed > 100, "only \(parsed) of 500 damaged descriptions kept their video")
    }
}

@Suite struct DigestTests {
    @Test func matchesRFC2617AndRFC7616Examples() throws {
        // RFC 2617 §3.5.
        let challenge = try #require(
            AuthenticationChallenge(
                header:
                    #"Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41""#
            ))
        var authenticator = DigestAuthenticator(username: "Mufasa", password: "Circle Of Life")
        let header = authenticator.authorization(
            for: challenge, method: "GET", uri: "/dir/index.html", clientNonce: "0a4f113b")
        #expect(header.contains(#"response="6629fae49393a05397450978507c4ef1""#))
        #expect(header.contains("nc=00000001") && header.contains(#"opaque="5ccc069c403ebaf9f0171e9517f40e41""#))
        // RFC 7616 §3.9.1, SHA-256 and MD5.
        for (algorithm, expected) in [
            ("SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"),
            ("MD5", "8ca523f5e9506fed4657c9700eebdbec"),
        ] {
            let rfc7616 = try #require(
                AuthenticationChallenge(
                    header:
                        "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", algorithm=\(algorithm), nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\""
                ))
            var client = DigestAuthenticator(username: "Mufasa", password: "Circle of Life")
            let answer = client.authorization(
                for: rfc7616, method: "GET", uri: "/dir/index.html",
                clientNonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ")
            #expect(answer.contains("response=\"\(expected)\""), "\(algorithm): \(answer)")
        }
        // RFC 2069 (no qop) and Basic.
        let old = try #require(AuthenticationChallenge(header: #"Digest realm="cam", nonce="abc""#))
        var client = DigestAuthenticator(username: "u", password: "p")
        #expect(!client.authorization(for: old, method: "DESCRIBE", uri: "rtsp://h/s").contains("qop"))
        let basic = try #require(AuthenticationChallenge(header: #"Basic realm="cam""#))
        #expect(client.authorization(for: basic, method: "DESCRIBE", uri: "x") == "Basic dTpw")
        #expect(AuthenticationChallenge(header: "NTLM") == nil)
        #expect(AuthenticationChallenge.strongest([basic, old])?.scheme == .digest)
    }
}
