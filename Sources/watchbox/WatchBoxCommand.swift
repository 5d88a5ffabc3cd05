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

@main
struct WatchBoxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watchbox",
        abstract: "Keep a list of RTSP cameras and check that they answer.",
        discussion: """
              watchbox discover                         ONVIF cameras on this network
              watchbox scan 192.168.1.0/24              RTSP services on a subnet
              watchbox probe rtsp://192.168.1.20/stream1 --user admin
              watchbox cameras add "Front door" rtsp://192.168.1.20/stream1 \\
                --user admin --password-stdin
              watchbox cameras list --json
              watchbox cameras reorder <id> <id> ...
              watchbox snapshot "Front door" -o door.jpg
              watchbox record "Front door" --for 10:00 --segment 60 -o recordings/door
              watchbox watch                            live table of every camera

            Cameras live in $WATCHBOX_HOME/cameras.sqlite (default ~/.local/share/watchbox); passwords only in \
            the encrypted credential file next to it, never in the database, logs or output.
            """,
        subcommands: [
            CamerasCommand.self, DiscoverCommand.self, ScanCommand.self, ProbeCommand.self, SnapshotCommand.self,
            RecordCommand.self, WatchCommand.self,
        ]
    )
}
