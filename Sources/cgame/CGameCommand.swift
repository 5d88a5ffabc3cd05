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

@main
enum Entry {
    static func main() async {
        limitOpenMPThreads()
        await CGameCommand.main()
    }

    /// Debian's Tesseract runs its LSTM on several OpenMP threads per line, which makes small crops
    /// about 3× slower here; OpenMP reads `OMP_THREAD_LIMIT` only when it loads, before any of our
    /// code runs, so the command sets it and starts itself again (once).
    static func limitOpenMPThreads() {
        guard getenv("OMP_THREAD_LIMIT") == nil else { return }
        setenv("OMP_THREAD_LIMIT", "1", 1)
        let arguments = CommandLine.unsafeArgv
        execv("/proc/self/exe", arguments)
        // If re-executing fails we carry on, only slower.
    }
}

struct CGameCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cgame",
        abstract: "Automatic gameplay highlights: read a game's on-screen text, cut clips around kills, build reels.",
        discussion: """
            Inputs are anything FFmpeg reads: a recorded file, a stream from OBS (rtmp://, srt://, udp://), \
            an RTSP camera, or the screen (x11grab::0.0).

              cgame run match.mp4 --profile fortnite         clips into the pending folder
              cgame run srt://127.0.0.1:9000?mode=listener   live from OBS (custom SRT)
              cgame run x11grab::0.0 --profile valorant      the X11 screen
              cgame detect match.mp4 --profile apex --json   events only
              cgame calibrate match.mp4 --keyword "you fragged" --name mygame
              cgame clips                                    what was saved
              cgame compile --all -o reel.mp4 --title "Friday night"

            Files live in $CGAME_HOME (default ~/.local/share/cgame): settings.json, profiles/, pending/, clips/.
            """,
        subcommands: [
            RunCommand.self, DetectCommand.self, ClipsCommand.self, CompileCommand.self, ProfilesCommand.self,
            SettingsCommand.self, OCRCommand.self, CalibrateCommand.self, LoginCommand.self, SyncCommand.self,
            LogoutCommand.self,
        ]
    )
}
