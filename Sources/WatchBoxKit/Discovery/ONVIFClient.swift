import CameraCommon
import Crypto
import FoundationEssentials
import NIOHTTP1
import Networking

/// A client for an ONVIF device's SOAP services (the spec's ONVIF step): clock, identity,
/// capabilities, media profiles, and stream and snapshot URIs.
///
/// Authentication follows what cameras accept in practice: WS-Security UsernameToken with
/// PasswordDigest, timestamped on the *device's* clock (from `GetSystemDateAndTime`, since cameras
/// reject skewed timestamps), and HTTP Digest when the device challenges with 401 instead.
public actor ONVIFClient {
    public nonisolated let deviceURL: HTTPURL
    private let username: String?
    private let password: String?
    public let timeout: Duration
    /// Device clock minus ours, learned from `GetSystemDateAndTime`.
    public private(set) var clockOffset: Duration?
    private var mediaURL: HTTPURL?
    private var httpDigest: DigestAuthenticator?
    private var httpChallenge: AuthenticationChallenge?

    static let deviceNamespace = "http://www.onvif.org/ver10/device/wsdl"
    static let mediaNamespace = "http://www.onvif.org/ver10/media/wsdl"
    static let schemaNamespace = "http://www.onvif.org/ver10/schema"

    /// - Throws: ``ONVIFError`` `invalidResponse` when `deviceURL` is not an http URL.
    public init(deviceURL: String, username: String? = nil, password: String? = nil, timeout: Duration = .seconds(5))
        throws(ONVIFError)
    {
        guard let url = HTTPURL(deviceURL) else {
            throw .invalidResponse("\(URLRedaction.redactingURLs(in: deviceURL)) is not an http(s) URL")
        }
        self.deviceURL = url
        self.username = username
        self.password = password
        self.timeout = timeout
    }

    // MARK: - Device service

    /// The device's UTC clock; also sets ``clockOffset``. The spec says it needs no credentials;
    /// devices that demand them anyway (ipycam 1.3 with a password set, some Hikvision firmwares
    /// after "enhanced security" is on) are asked again with a login stamped on our own clock.
    @discardableResult
    public func systemDateAndTime() async throws(ONVIFError) -> Date {
        var sent = Date.now
        let content = "<GetSystemDateAndTime xmlns=\"\(Self.deviceNamespace)\"/>"
        let body: XMLNode
        do {
            body = try await call(
                deviceURL, namespace: Self.deviceNamespace, action: "GetSystemDateAndTime", content: content,
                authenticated: false)
        } catch .notAuthorized where username != nil {
            if clockOffset == nil { clockOffset = .zero }
            sent = Date.now
            body = try await call(
                deviceURL, namespace: Self.deviceNamespace, action: "GetSystemDateAndTime", content: content,
                authenticated: true)
        }
        let received = Date.now
        guard let utc = body.first("UTCDateTime"), let date = utc.child("Date"), let time = utc.child("Time"),
            let year = date.value(of: "Year").flatMap(Int.init), let month = date.value(of: "Month").flatMap(Int.init),
            let day = date.value(of: "Day").flatMap(Int.init), let hour = time.value(of: "Hour").flatMap(Int.init),
            let minute = time.value(of: "Minute").flatMap(Int.init),
            let second = time.value(of: "Second").flatMap(Int.init),
            (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute),
            (0...60).contains(second)
        else {
            throw .invalidResponse("GetSystemDateAndTime has no complete UTCDateTime")
        }
        let deviceTime = Date(
            timeIntervalSince1970: Double(
                Self.daysSinceEpoch(year: year, month: month, day: day) * 86400 + hour * 3600 + minute * 60 + second))
        // The device read its clock about halfway through the round trip.
        let middle = sent.addingTimeInterval(received.timeIntervalSince(sent) / 2)
        clockOffset = .milliseconds(Int64((deviceTime.timeIntervalSince(middle) * 1000).rounded()))
        return deviceTime
    }

    public func deviceInformation() async throws(ONVIFError) -> ONVIFDeviceInformation {
        let body = try await call(
            deviceURL, namespace: Self.deviceNamespace, action: "GetDeviceInformation",
            content: "<GetDeviceInformation xmlns=\"\(Self.deviceNamespace)\"/>")
        guard let answer = body.first("GetDeviceInformationResponse") else {
            throw .invalidResponse("no GetDeviceInformationResponse")
        }
        return ONVIFDeviceInformation(
            manufacturer: answer.value(of: "Manufacturer"), model: answer.value(of: "Model"),
            firmwareVersion: answer.value(of: "FirmwareVersion"), serialNumber: answer.value(of: "SerialNumber"),
            hardwareID: answer.value(of: "HardwareId"))
    }

    public func capabilities() async throws(ONVIFError) -> ONVIFCapabilities {
        let body = try await call(
            deviceURL, namespace: Self.deviceNamespace, action: "GetCapabilities",
            content:
                "<GetCapabilities xmlns=\"\(Self.deviceNamespace)\"><Category>All</Category></GetCapabilities>")
        guard let capabilities = body.first("Capabilities") else { throw .invalidResponse("no Capabilities") }
        let result = ONVIFCapabilities(
            deviceService: capabilities["Device", "XAddr"]?.value, mediaService: capabilities["Media", "XAddr"]?.value,
            eventsService: capabilities["Events", "XAddr"]?.value, ptzService: capabilities["PTZ", "XAddr"]?.value)
        if let media = result.mediaService.flatMap({ WSDiscovery.substitute(host: deviceURL.host, in: $0) }) {
            mediaURL = HTTPURL(media)
        }
        return result
    }

    // MARK: - Media service

    public func profiles() async throws(ONVIFError) -> [ONVIFProfile] {
        let body = try await call(
            try await mediaService(), namespace: Self.mediaNamespace, action: "GetProfiles",
            content: "<GetProfiles xmlns=\"\(Self.mediaNamespace)\"/>")
        guard let answer = body.first("GetProfilesResponse") else { throw .invalidResponse("no GetProfilesResponse") }
        return answer.children.filter { $0.name == "Profiles" }.compactMap { profile in
            guard let token = profile.attributes["token"] else { return nil }
            let encoder = profile.child("VideoEncoderConfiguration")
            return ONVIFProfile(
                token: token, name: profile.child("Name")?.value ?? token, encoding: encoder?.value(of: "Encoding"),
                width: encoder?["Resolution", "Width"]?.value.flatMap { Int($0) },
                height: encoder?["Resolution", "Height"]?.value.flatMap { Int($0) },
                frameRate: encoder?["RateControl", "FrameRateLimit"]?.value.flatMap { Double($0) },
                bitrateKbps: encoder?["RateControl", "BitrateLimit"]?.value.flatMap { Int($0) })
        }
    }

    /// The RTSP URI of a profile (RTP unicast over RTSP), with `0.0.0.0` replaced by the device's host.
    public func streamURI(profile: String) async throws(ONVIFError) -> String {
        let content = """
            <GetStreamUri xmlns="\(Self.mediaNamespace)"><StreamSetup>\
            <Stream xmlns="\(Self.schemaNamespace)">RTP-Unicast</Stream>\
            <Transport xmlns="\(Self.schemaNamespace)"><Protocol>RTSP</Protocol></Transport>\
            </StreamSetup><ProfileToken>\(xmlEscaped(profile))</ProfileToken></GetStreamUri>
            """
        let body = try await call(
            try await mediaService(), namespace: Self.mediaNamespace, action: "GetStreamUri", content: content)
        guard let uri = body.first("MediaUri")?.value(of: "Uri") else {
            throw .invalidResponse("GetStreamUri has no Uri")
        }
        return substitutingDeviceHost(uri)
    }

    public func snapshotURI(profile: String) async throws(ONVIFError) -> String {
        let content =
            "<GetSnapshotUri xmlns=\"\(Self.mediaNamespace)\"><ProfileToken>\(xmlEscaped(profile))</ProfileToken></GetSnapshotUri>"
        let body = try await call(
            try await mediaService(), namespace: Self.mediaNamespace, action: "GetSnapshotUri", content: content)
        guard let uri = body.first("MediaUri")?.value(of: "Uri") else {
            throw .invalidResponse("GetSnapshotUri has no Uri")
        }
        return substitutingDeviceHost(uri)
    }

    private func substitutingDeviceHost(_ uri: String) -> String {
        for zero in ["://0.0.0.0:", "://0.0.0.0/"] where uri.contains(zero) {
            return uri.replacing(zero, with: zero.replacing("0.0.0.0", with: deviceURL.host))
        }
        return uri
    }

    /// The media service address from capabilities, or the device service (many cameras serve both there).
    private func mediaService() async throws(ONVIFError) -> HTTPURL {
        if let mediaURL { return mediaURL }
        let result: Result<ONVIFCapabilities, ONVIFError>
        do {
            result = .success(try await capabilities())
        } catch {
            result = .failure(error)
        }
        // Cameras without GetCapabilities (old firmware) serve media on the device URL; refused
        // credentials are still refused there.
        if case .failure(.notAuthorized(let reason)) = result { throw .notAuthorized(reason: reason) }
        return mediaURL ?? deviceURL
    }

    // MARK: - SOAP

    /// Sends one SOAP 1.2 request and returns the envelope's Body.
    func call(
        _ url: HTTPURL, namespace: String, action: String, content: String, authenticated: Bool = true
    ) async throws(ONVIFError) -> XMLNode {
        if authenticated, username != nil, clockOffset == nil {
            // WS-Security timestamps must be on the device's clock; learn it once. A device that
            // cannot tell its time gets ours.
            _ = try? await systemDateAndTime()
        }
        var attempt = 0
        var clockReadAgain = false
        while true {
            attempt += 1
            let envelope = soapEnvelope(content: content, secured: authenticated)
            var headers: [(String, String)] = [
                ("Content-Type", "application/soap+xml; charset=utf-8; action=\"\(namespace)/\(action)\"")
            ]
            if authenticated, let challenge = httpChallenge, var digest = httpDigest {
                headers.append(("Authorization", digest.authorization(for: challenge, method: "POST", uri: url.path)))
                httpDigest = digest
            }
            let response: HTTPClientResponse
            do {
                response = try await HTTPClient.send(
                    .POST, url: url, headers: headers, body: Array(envelope.utf8), timeout: timeout)
            } catch {
                throw .transport(kind: error.kind.description, message: error.description)
            }
            if response.status == 401 {
                // HTTP Digest instead of (or on top of) WS-Security: answer the challenge once.
                let challenges = response.headers("WWW-Authenticate").compactMap(AuthenticationChallenge.init(header:))
                if authenticated, attempt == 1 || httpChallenge?.nonce != challenges.first?.nonce,
                    attempt <= 2, let username, let password,
                    let challenge = AuthenticationChallenge.strongest(challenges)
                {
                    httpChallenge = challenge
                    httpDigest = DigestAuthenticator(username: username, password: password)
                    continue
                }
                throw .notAuthorized(reason: username == nil ? "credentials are required" : "HTTP 401 from \(url.host)")
            }
            do {
                return try Self.body(of: response, action: action)
            } catch .notAuthorized
                where authenticated && username != nil && !clockReadAgain
                && action != "GetSystemDateAndTime"
            {
                // A refused stamp may be one our idea of the device's clock put too far off (read
                // during a slow answer, or the clock was set since): read it again and ask once more.
                clockReadAgain = true
                _ = try? await systemDateAndTime()
            }
        }
    }

    /// What a clock read during a very slow answer, or a device clock set since, leaves behind
    /// (for tests).
    func assumeClockOffset(_ offset: Duration) { clockOffset = offset }

    /// The Body of a SOAP answer; faults and HTTP errors as ``ONVIFError``.
    static func body(of response: HTTPClientResponse, action: String) throws(ONVIFError) -> XMLNode {
        let envelope: XMLNode
        do {
            envelope = try XMLNode.parse(response.body)
        } catch {
            if !(200..<300).contains(response.status) { throw .http(status: response.status) }
            throw .invalidResponse("\(action): \(error.message)")
        }
        guard envelope.name == "Envelope", let body = envelope.child("Body") else {
            if !(200..<300).contains(response.status) { throw .http(status: response.status) }
            throw .invalidResponse("\(action): no SOAP Envelope/Body")
        }
        if let fault = body.child("Fault") {
            // SOAP 1.2 (Code/Value, Subcode/Value, Reason/Text) or 1.1 (faultcode, faultstring).
            let code = fault["Code", "Value"]?.value ?? fault.value(of: "faultcode") ?? "unknown"
            let subcodes = fault.first("Subcode")?.all("Value").compactMap(\.value) ?? []
            let reason = fault.first("Reason")?.value(of: "Text") ?? fault.value(of: "faultstring") ?? "no reason given"
            let localSubcodes = subcodes.map { $0.split(separator: ":").last.map(String.init) ?? $0 }
            if localSubcodes.contains(where: { $0 == "NotAuthorized" || $0 == "FailedAuthentication" })
                || code.hasSuffix("NotAuthorized") || code.hasSuffix("FailedAuthentication")
            {
                throw .notAuthorized(reason: reason)
            }
            throw .fault(code: code, subcode: subcodes.last, reason: reason)
        }
        guard (200..<300).contains(response.status) else { throw .http(status: response.status) }
        return body
    }

    func soapEnvelope(content: String, secured: Bool) -> String {
        var header = ""
        if secured, let username, let password {
            header =
                "<s:Header>\(Self.usernameToken(username: username, password: password, created: Date.now.addingTimeInterval(clockOffset?.seconds ?? 0)))</s:Header>"
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope">\(header)<s:Body>\(content)</s:Body></s:Envelope>
            """
    }

    /// WS-Security UsernameToken with PasswordDigest = Base64(SHA-1(nonce + created + password)).
    static func usernameToken(username: String, password: String, created: Date, nonce: [UInt8]? = nil) -> String {
        var generator = SystemRandomNumberGenerator()
        let nonce = nonce ?? (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let createdText = iso8601(created)
        let digest = Insecure.SHA1.hash(data: nonce + Array(createdText.utf8) + Array(password.utf8))
        return """
            <Security s:mustUnderstand="1" xmlns="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd">\
            <UsernameToken><Username>\(xmlEscaped(username))</Username>\
            <Password Type="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordDigest">\
            \(Data(digest).base64EncodedString())</Password>\
            <Nonce EncodingType="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary">\
            \(Data(nonce).base64EncodedString())</Nonce>\
            <Created xmlns="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd">\
            \(createdText)</Created></UsernameToken></Security>
            """
    }

    /// `2026-11-22T10:51:29Z`.
    static func iso8601(_ date: Date) -> String {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        var days = total >= 0 ? total / 86400 : (total - 86399) / 86400
        let seconds = total - days * 86400
        // Civil from days (Howard Hinnant's algorithm).
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(year)-\(two(month))-\(two(day))T\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))Z"
    }

    /// Days from 1970-01-01 to a civil date.
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
