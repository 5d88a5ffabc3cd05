import ArgumentParser
import CameraCommon
import CameraIO
import CommandLineSupport
import FoundationEssentials
import Networking
import Synchronization
import WatchBoxKit

#if canImport(Glibc)
    import Glibc
#endif

struct ProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe", abstract: "Ask an RTSP URL what it serves (OPTIONS, DESCRIBE, login).",
        discussion: "Prints reachability, the login scheme, codecs and size. Exit status 1 when it cannot be played.")

    @Argument(help: "rtsp://host[:port]/path (credentials in the URL work but end up in shell history).")
    var url: String
    @Option(help: "User name.") var user: String?
    @Flag(help: "Read the password from standard input.") var passwordStdin = false
    @Option(help: "Seconds to wait for answers.") var timeout: Double = 5
    @Flag(help: "Print as JSON.") var json = false

    func run() async throws {
        var password: String?
        if passwordStdin || user != nil && StreamURL(url)?.password == nil {
            password = Terminal.readPassword(prompt: "password for \(user ?? "the camera"): ")
        }
        let prober = RTSPProber(timeout: .milliseconds(Int(timeout * 1000)))
        let result = await prober.probe(url, username: user, password: password)
        if json {
            try printJSON(result)
        } else {
            print(Self.describe(result))
        }
        if !result.isPlayable { throw ExitCode(1) }
    }

    static func describe(_ result: RTSPProbeResult) -> String {
        var lines = ["\(result.url)"]
        lines.append("  reachable   \(result.reachable ? "yes" : "no")\(result.server.map { " (\($0))" } ?? "")")
        switch result.authentication {
        case .none?: lines.append("  login       not needed")
        case .required(let schemes)?:
            lines.append("  login       needed: \(schemes.map(\.rawValue).joined(separator: ", ")) (give --user)")
        case .accepted(let scheme)?: lines.append("  login       accepted (\(scheme.rawValue))")
        case .rejected(let scheme)?: lines.append("  login       refused (\(scheme.rawValue)): check user and password")
        case nil: break
        }
        if let codec = result.videoCodec {
            var video = "  video       \(codec)"
            if let width = result.width, let height = result.height { video += " \(width)x\(height)" }
            if let fps = result.frameRate { video += " at \(String(format1: fps)) fps" }
            lines.append(video)
        }
        if let audio = result.audioCodec { lines.append("  audio       \(audio)") }
        lines.append("  answered in \(result.milliseconds) ms")
        if let error = result.error { lines.append("  problem     \(error)") }
        return lines.joined(separator: "\n")
    }
}
