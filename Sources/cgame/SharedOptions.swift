import ArgumentParser
import CGameKit
import CameraAssemble
import CameraCommon
import CameraIO
import CommandLineSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The clip store shared by `run`, `clips` and `compile`.
struct ClipStoreOption: ParsableArguments {
    @Option(help: "Where clips go (default: $CGAME_HOME).")
    var store: String?

    func open() throws -> PendingClipStore { try PendingClipStore(root: store ?? CGamePaths.home) }
}

/// Options shared by `run` and `detect`.
struct SourceOptions: ParsableArguments {
    @Argument(help: "A file, a stream URL (rtmp://, srt://, udp://, rtsp://) or x11grab::DISPLAY.")
    var input: String

    @Option(help: "Game profile: a name (see `cgame profiles list`) or a .json file. Default: from settings.")
    var profile: String?

    @Option(
        help: ArgumentHelp(
            "Your in-game name, for profiles that read everyone's kills (openarena-kills).",
            valueName: "name"))
    var player: String?

    @Option(help: "Frames read per second of video.")
    var rate: Double = 10

    @Option(help: "Recognition threads (each loads its own Tesseract).")
    var workers: Int = 2

    @Flag(help: "For live inputs (streams, x11grab): never drop frames, even when recognition falls behind.")
    var noDrop = false

    func validate() throws {
        guard rate > 0, rate <= 60 else { throw ValidationError("--rate must be between 0 and 60 frames per second") }
        guard (1...16).contains(workers) else { throw ValidationError("--workers must be 1…16") }
    }

    var source: MediaSource { MediaSource(parsing: input) }

    func loadProfile(settings: UserSettings) throws -> GameProfile {
        let found = try ProfileLibrary.profile(named: profile ?? settings.gameProfileName)
        if let player { return try found.forPlayer(player) }
        guard !found.needsPlayer else {
            throw ValidationError(
                "\(found.name) reads everyone's kills and needs your in-game name: add --player NAME")
        }
        return found
    }

    func detectorOptions() -> EventDetector.Options {
        EventDetector.Options(sampleRate: rate, workers: workers, dropWhenBusy: source.isLive && !noDrop)
    }
}
