import CameraCommon
import CameraIO
import FoundationEssentials

/// The shipped game profiles and the user's own profile files.
///
/// A profile is found by name or alias (any case), or read from a `.json` path. User profiles live
/// in `$CGAME_HOME/profiles` (default `~/.local/share/cgame/profiles`); a user file with the same
/// name as a shipped profile replaces it.
public enum ProfileLibrary {
    /// The profiles shipped with CGame. Regions are for 16:9 screens, where each game draws the
    /// text that announces kills.
    public static let builtIn: [GameProfile] = {
        let player = GameProfile.playerPlaceholder
        return [
            GameProfile(
                name: "Fortnite", aliases: ["fn"],
                // Elimination feed, lower left above the map.
                region: NormalizedRect(x: 0.01, y: 0.56, width: 0.34, height: 0.24),
                events: [
                    .init(type: "Kill", keywords: ["eliminated", "you eliminated"], excludeKeywords: ["teammate"]),
                    .init(type: "Knock", keywords: ["knocked out", "knocked"]),
                ]),
            GameProfile(
                name: "Valorant", aliases: ["val"],
                // Kill banner, lower centre.
                region: NormalizedRect(x: 0.30, y: 0.66, width: 0.40, height: 0.16),
                events: [
                    .init(type: "Kill", keywords: ["eliminated", "killed"]),
                    .init(type: "Ace", keywords: ["ace"], debounce: 8),
                    .init(type: "Clutch", keywords: ["clutch"], debounce: 8),
                ]),
            GameProfile(
                name: "Apex Legends", aliases: ["apex"],
                // Knock and kill notices, lower centre above the health bars.
                region: NormalizedRect(x: 0.32, y: 0.60, width: 0.36, height: 0.14),
                events: [
                    .init(type: "Knock", keywords: ["knocked down"]),
                    .init(type: "Kill", keywords: ["killed", "eliminated"]),
                    .init(type: "Champion", keywords: ["you are the champion"], debounce: 10),
                ]),
            GameProfile(
                name: "Call of Duty: Warzone", aliases: ["warzone", "cod"],
                // Kill feed, lower left.
                region: NormalizedRect(x: 0.01, y: 0.52, width: 0.30, height: 0.22),
                events: [
                    .init(type: "Kill", keywords: ["eliminated", "killed"]),
                    .init(type: "Knock", keywords: ["downed"]),
                ]),
            GameProfile(
                name: "Counter-Strike 2", aliases: ["cs2", "counter-strike"],
                // Kill feed, upper right.
                region: NormalizedRect(x: 0.70, y: 0.06, width: 0.29, height: 0.24),
                events: [
                    .init(type: "Kill", keywords: ["killed", "headshot"]),
                    .init(type: "RoundWin", patterns: [#"\b(counter-)?terrorists\s+win\b"#], debounce: 10),
                ]),
            GameProfile(
                name: "OpenArena", aliases: ["oa", "quake3", "q3"],
                // The centre print a Quake III-engine game shows for the player's own frags ("You fragged
                // NAME", a line about the player's place below it); the screen's followed player when
                // spectating. The first line is at 27–32 % of the height on any screen size, ~35 % of
                // the width for short names, 70 % for the longest.
                // Each print shows for 3 s (cg_centertime), so the same print later is the same
                // victim fragged again. 3 s of the game's clock: a game that serves its own match
                // moves its clock on at most 200 ms a picture (Com_ModifyMsec's clampTime), so
                // drawing under five pictures a second (software rendering at 1080p) a print stays
                // up longer on the video (5.3 s seen).
                region: NormalizedRect(x: 0.15, y: 0.25, width: 0.70, height: 0.09), shownFor: 3,
                longestFrame: 0.2,
                events: [.init(type: "Kill", keywords: ["you fragged"])]),
            GameProfile(
                name: "OpenArena kills", aliases: ["oa-kills", "quake3-kills"],
                // The obituary lines top left, one for every kill in the match ("Grism was railed by
                // Sarge", "Major ate Sarge's rocket"): the player's kills are the lines that name the
                // player after the victim. Chat lines ("Name: text") are not obituaries. Needs the
                // player's in-game name (`--player NAME`). Patterns are matched on the folded
                // (lower-case) line, so they spell classes without capitals.
                region: NormalizedRect(x: 0, y: 0, width: 0.5, height: 0.08),
                events: [
                    .init(
                        type: "Kill",
                        patterns: [
                            #"^(?![^:]*:)(?![^a-z0-9]*\#(player)([^a-z0-9]|$)).*[^a-z0-9]\#(player)([^a-z0-9]|$)"#
                        ])
                ]),
        ]
    }()

    /// The shipped profiles that need nothing more than their name (not the player's name).
    public static var readyToUse: [GameProfile] { builtIn.filter { !$0.needsPlayer } }

    /// A profile's name as a file or URL name: accents dropped, lower-case letters and digits, words
    /// joined by `-`, at most 64 characters ("Unknown Game" → `unknown-game`); nil when the name has
    /// no Latin letter or digit.
    public static func slug(_ name: String) -> String? {
        let folded = TextFolding.fold(name)
        let slug = folded.unicodeScalars.map {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) ? String($0).lowercased() : "-"
        }
        .joined().split(separator: "-").joined(separator: "-")
        return slug.isEmpty ? nil : String(slug.prefix(64))
    }

    /// Where users keep their own profiles.
    public static var userDirectory: String { CGamePaths.home + "/profiles" }

    /// The profile in `profiles` called `name` or with it as an alias (any case, spaces around
    /// ignored).
    public static func find(_ name: String, in profiles: [GameProfile]) -> GameProfile? {
        let wanted = name.trimmingWhitespace().lowercased()
        return profiles.first { $0.name.lowercased() == wanted || $0.aliases.contains { $0.lowercased() == wanted } }
    }

    /// A profile by name, alias or path to a JSON file.
    ///
    /// - Throws: ``MediaError`` `notFound` listing the known names; `invalidArgument` for a bad file.
    public static func profile(named name: String, userDirectory: String? = nil) throws(MediaError) -> GameProfile {
        if name.hasSuffix(".json") || name.contains("/") { return try load(name) }
        let available = allProfiles(userDirectory: userDirectory ?? Self.userDirectory).profiles
        if let found = find(name, in: available) { return found }
        throw MediaError(
            .notFound, operation: "find profile \(name)",
            message: "no such game; known: \(available.map(\.name).joined(separator: ", "))")
    }

    /// Shipped profiles overridden and extended by the user's, and the user files that failed to load.
    public static func allProfiles(userDirectory: String) -> (profiles: [GameProfile], errors: [MediaError]) {
        var profiles = builtIn
        var errors: [MediaError] = []
        let files = (try? FileManager.default.contentsOfDirectory(atPath: userDirectory)) ?? []
        for file in files.sorted() where file.hasSuffix(".json") {
            do throws(MediaError) {
                let profile = try load(userDirectory + "/" + file)
                profiles.removeAll { $0.name.lowercased() == profile.name.lowercased() }
                profiles.append(profile)
            } catch {
                errors.append(error)
            }
        }
        return (profiles, errors)
    }

    /// Reads and checks a profile file.
    ///
    /// - Throws: ``MediaError`` naming the file and the field (`events[1].patterns[0]: …`).
    public static func load(_ path: String) throws(MediaError) -> GameProfile {
        let operation = "load profile \(path)"
        let profile = try JSONFile.read(GameProfile.self, from: path, operation: operation)
        try profile.validate(operation: operation)
        return profile
    }
}

extension GameProfile {
    /// Checks what JSON decoding cannot: ranges, non-empty rules, patterns that compile.
    public func validate(operation: String = "check profile") throws(MediaError) {
        func fail(_ message: String) -> MediaError {
            MediaError(.invalidArgument, operation: operation, message: message)
        }
        if name.trimmingWhitespace().isEmpty { throw fail("name: must not be empty") }
        let r = region
        guard r.x >= 0, r.y >= 0, r.width > 0, r.height > 0, r.x + r.width <= 1.0001, r.y + r.height <= 1.0001 else {
            throw fail("region: must lie inside the frame (0...1) with a positive width and height, got \(r)")
        }
        if debounce < 0 { throw fail("debounce: must be zero or more seconds, got \(debounce)") }
        if let shownFor, !(shownFor > 0) { throw fail("shownFor: must be more than zero seconds, got \(shownFor)") }
        if let longestFrame, !(longestFrame > 0) {
            throw fail("longestFrame: must be more than zero seconds, got \(longestFrame)")
        }
        if events.isEmpty { throw fail("events: at least one event rule is needed") }
        if characterWhitelist?.isEmpty == true { throw fail("characterWhitelist: must not be empty (omit it instead)") }
        for (index, rule) in events.enumerated() {
            let at = "events[\(index)]"
            if rule.type.trimmingWhitespace().isEmpty { throw fail("\(at).type: must not be empty") }
            if rule.keywords.isEmpty && rule.patterns.isEmpty {
                throw fail("\(at): needs keywords or patterns")
            }
            for (k, keyword) in rule.keywords.enumerated()
            where TextFolding.words(TextFolding.fold(keyword)).isEmpty {
                throw fail("\(at).keywords[\(k)]: \"\(keyword)\" has no letters or digits")
            }
            for (p, pattern) in rule.patterns.enumerated() {
                do {
                    _ = try Regex(pattern)
                } catch {
                    throw fail("\(at).patterns[\(p)]: \"\(pattern)\" is not a valid regular expression")
                }
            }
            guard (0...1).contains(rule.minimumConfidence) else {
                throw fail("\(at).minimumConfidence: must be between 0 and 1, got \(rule.minimumConfidence)")
            }
            if let debounce = rule.debounce, debounce < 0 {
                throw fail("\(at).debounce: must be zero or more seconds, got \(debounce)")
            }
        }
    }

    /// The profile as pretty JSON (a template for users' own profiles).
    public func json() -> String {
        (try? JSONFile.text(self, operation: "show profile")).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

/// Where CGame keeps its files: `$CGAME_HOME`, else `$XDG_DATA_HOME/cgame`, else
/// `~/.local/share/cgame`.
public enum CGamePaths {
    public static var home: String { DataDirectory.home(app: "cgame", overrideVariable: "CGAME_HOME") }
}
