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

struct ProfilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profiles", abstract: "List, show and check game profiles.",
        discussion: """
            Add a game by writing a JSON profile into $CGAME_HOME/profiles/ (start from `cgame profiles show \
            fortnite`), then check it with `cgame profiles validate FILE`.
            """,
        subcommands: [List.self, Show.self, Validate.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every profile, shipped and your own.")
        @Flag(help: "Print as JSON.") var json = false
        func run() throws {
            let (profiles, errors) = ProfileLibrary.allProfiles(userDirectory: ProfileLibrary.userDirectory)
            if json {
                try printJSON(profiles)
            } else {
                for profile in profiles {
                    let events = profile.events.map(\.type).joined(separator: ", ")
                    let aliases = profile.aliases.isEmpty ? "" : " (\(profile.aliases.joined(separator: ", ")))"
                    print("\(profile.name)\(aliases): \(events)")
                }
            }
            for error in errors { Terminal.error("warning: \(error)") }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a profile as JSON (a template).")
        @Argument(help: "Name, alias or file.") var name: String
        func run() throws { print(try ProfileLibrary.profile(named: name).json()) }
    }

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check a profile file; errors name the field.")
        @Argument(help: "Profile JSON files.") var files: [String]
        func run() throws {
            var failed = false
            for file in files {
                do {
                    let profile = try ProfileLibrary.load(file)
                    print("\(file): ok (\(profile.name), \(profile.events.count) event rules)")
                } catch {
                    Terminal.error("\(error)")
                    failed = true
                }
            }
            if failed { throw ExitCode(1) }
        }
    }
}
