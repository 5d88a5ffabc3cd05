import CameraTesting
import Foundation

/// A stand-in for an attacker's host: an RTSP listener on loopback that answers every request with
/// `401` and `WWW-Authenticate: Basic` — which makes a client send its credentials — and keeps
/// every byte it received, so a test can check that a password never reached it.
public final class CredentialCatcher: @unchecked Sendable {
    public let port: Int
    public let log: String
    private let process: Process

    public init() throws {
        let folder = try ScratchFolder.make("catcher")
        log = folder + "/received.txt"
        FileManager.default.createFile(atPath: log, contents: Data())
        (process, port) = try TestPeer.launch(
            script: "credential_catcher", arguments: [log], namespace: nil,
            failure: "the credential catcher did not start")
    }

    /// Everything the catcher received so far.
    public var received: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    public func stop() { TestPeer.stop(process) }
}
