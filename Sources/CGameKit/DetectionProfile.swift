import CameraCommon

/// An in-game event found in a frame's text.
public struct EventMatch: Sendable, Hashable, Codable {
    /// The event type, e.g. `Kill`.
    public var type: String
    /// The line that matched, as recognised.
    public var text: String
    /// The line as people are shown it: ``text`` with the keywords matched despite a misread
    /// letter written as the profile writes them ("Ninja eliminatecl Raven" read, "Ninja
    /// eliminated Raven" shown), without stray marks and letters read at its ends ("-'. You
    /// fragged Gargoyle" read, "You fragged Gargoyle" shown).
    public var shown: String
    public var confidence: Double
    /// Where the line is in the region.
    public var box: NormalizedRect

    public init(
        type: String, text: String, confidence: Double,
        box: NormalizedRect = NormalizedRect(x: 0, y: 0, width: 1, height: 1), shown: String? = nil
    ) {
        self.type = type
        self.text = text
        self.shown = shown ?? text
        self.confidence = confidence
        self.box = box
    }
}

/// A game-specific detection configuration (the spec's `DetectionProfile`).
public protocol DetectionProfile: Sendable {
    var name: String { get }
    /// Where the game shows the text that announces events, normalised to the frame (top left origin).
    var recognitionRegion: NormalizedRect { get }
    /// How to read that region.
    var recognitionOptions: RecognitionOptions { get }
    /// Seconds during which the same event text seen again is the same event (kill feeds show each
    /// line for a few seconds).
    var debounce: Double { get }
    /// The debounce window of one event type (default: ``debounce``).
    func debounce(for type: String) -> Double
    /// How long the game shows a line, when it shows each for a fixed time (Quake III's centre
    /// print: 3 s). The same text read again a second later than that after it first read is the
    /// next line saying it (the same victim fragged again), not the line come back into view
    /// (default: nil, unknown; a feed's half-read lines can read alike for longer).
    var shownFor: Double? { get }
    /// The most the game's own clock moves on between two pictures it draws, when it holds its
    /// clock back on a slow machine (a Quake III-engine game playing its own match: 0.2 s). A game
    /// drawing fewer pictures a second than that allows runs its clock slow, and a line shown for
    /// ``shownFor`` by that clock stays up longer on the video: how long a line has been shown is
    /// then counted on the game's clock, from the pictures the region shows (default: nil, the
    /// video's own time).
    var longestFrame: Double? { get }
    /// The events announced by these lines of text.
    func events(in observations: [TextObservation]) -> [EventMatch]
    /// The folded words every line of an event type shares (its keywords: "you", "fragged"), which
    /// say nothing about which line it is (default: none).
    func announcingWords(for type: String) -> Set<String>
}

extension DetectionProfile {
    public func debounce(for type: String) -> Double { debounce }
    public var shownFor: Double? { nil }
    public var longestFrame: Double? { nil }
    public func announcingWords(for type: String) -> Set<String> { [] }

    /// The spec's entry point: whether these observations announce any event.
    public func didDetectEvent(from observations: [TextObservation]) -> Bool {
        !events(in: observations).isEmpty
    }
}

/// A detection profile read from JSON, so players add games without recompiling.
///
/// ```json
/// {
///   "name": "Fortnite",
///   "region": { "x": 0.0, "y": 0.55, "width": 0.32, "height": 0.25 },
///   "polarity": "light",
///   "pageSegmentation": "singleBlock",
///   "events": [
///     { "type": "Kill", "keywords": ["eliminated"], "minimumConfidence": 0.6 },
///     { "type": "Victory", "patterns": ["victory\\s+royale"] }
///   ]
/// }
/// ```
public struct GameProfile: DetectionProfile, Codable {
    public struct EventRule: Sendable, Codable, Hashable {
        /// The event's name, e.g. `Kill`, `Knock`, `Victory`.
        public var type: String
        /// Words or phrases that announce the event, matched as whole words after case and accent
        /// folding. Words of 6 letters or more tolerate one misread letter.
        public var keywords: [String]
        /// Regular expressions (Swift `Regex` syntax) matched against the folded line.
        public var patterns: [String]
        /// Lines recognised with less confidence than this (0...1) are ignored.
        public var minimumConfidence: Double
        /// Seconds during which the same line again is the same event; nil uses the profile's.
        public var debounce: Double?
        /// Words that veto a match on the same line (e.g. `teammate` for a team-kill message).
        public var excludeKeywords: [String]

        public init(
            type: String, keywords: [String] = [], patterns: [String] = [], minimumConfidence: Double = 0.5,
            debounce: Double? = nil, excludeKeywords: [String] = []
        ) {
            self.type = type
            self.keywords = keywords
            self.patterns = patterns
            self.minimumConfidence = minimumConfidence
            self.debounce = debounce
            self.excludeKeywords = excludeKeywords
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            type = try container.decode(String.self, forKey: .type)
            keywords = try container.decodeIfPresent([String].self, forKey: .keywords) ?? []
            patterns = try container.decodeIfPresent([String].self, forKey: .patterns) ?? []
            minimumConfidence = try container.decodeIfPresent(Double.self, forKey: .minimumConfidence) ?? 0.5
            debounce = try container.decodeIfPresent(Double.self, forKey: .debounce)
            excludeKeywords = try container.decodeIfPresent([String].self, forKey: .excludeKeywords) ?? []
        }
    }

    public var name: String
    /// Other names the profile answers to (e.g. `cs2` for Counter-Strike 2).
    public var aliases: [String]
    public var region: NormalizedRect
    public var pageSegmentation: PageSegmentation
    public var polarity: TextPolarity
    public var characterWhitelist: String?
    public var debounce: Double
    public var shownFor: Double?
    public var longestFrame: Double?
    public var events: [EventRule] { didSet { matchers = RuleMatchers(events) } }
    /// Rules with folded keywords and compiled patterns, built once per profile rather than per frame.
    private var matchers: RuleMatchers

    private enum CodingKeys: String, CodingKey {
        case name, aliases, region, pageSegmentation, polarity, characterWhitelist, debounce, shownFor, longestFrame,
            events
    }

    public var recognitionRegion: NormalizedRect { region }
    public var recognitionOptions: RecognitionOptions {
        RecognitionOptions(
            pageSegmentation: pageSegmentation, characterWhitelist: characterWhitelist, polarity: polarity)
    }

    public init(
        name: String, aliases: [String] = [], region: NormalizedRect, pageSegmentation: PageSegmentation = .singleBlock,
        polarity: TextPolarity = .light, characterWhitelist: String? = nil, debounce: Double = 4,
        shownFor: Double? = nil, longestFrame: Double? = nil, events: [EventRule]
    ) {
        self.name = name
        self.aliases = aliases
        self.region = region
        self.pageSegmentation = pageSegmentation
        self.polarity = polarity
        self.characterWhitelist = characterWhitelist
        self.debounce = debounce
        self.shownFor = shownFor
        self.longestFrame = longestFrame
        self.events = events
        self.matchers = RuleMatchers(events)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        aliases = try container.decodeIfPresent([String].self, forKey: .aliases) ?? []
        region = try container.decode(NormalizedRect.self, forKey: .region)
        pageSegmentation =
            try container.decodeIfPresent(PageSegmentation.self, forKey: .pageSegmentation) ?? .singleBlock
        polarity = try container.decodeIfPresent(TextPolarity.self, forKey: .polarity) ?? .light
        characterWhitelist = try container.decodeIfPresent(String.self, forKey: .characterWhitelist)
        debounce = try container.decodeIfPresent(Double.self, forKey: .debounce) ?? 4
        shownFor = try container.decodeIfPresent(Double.self, forKey: .shownFor)
        longestFrame = try container.decodeIfPresent(Double.self, forKey: .longestFrame)
        events = try container.decode([EventRule].self, forKey: .events)
        matchers = RuleMatchers(events)
    }

    public func events(in observations: [TextObservation]) -> [EventMatch] {
        var matches: [EventMatch] = []
        for observation in observations {
            let folded = TextFolding.fold(observation.text)
            let words = TextFolding.words(folded)
            for matcher in matchers.rules where observation.confidence >= matcher.rule.minimumConfidence {
                if matcher.matches(folded: folded, words: words) {
                    matches.append(
                        EventMatch(
                            type: matcher.rule.type, text: observation.text, confidence: observation.confidence,
                            box: observation.box,
                            shown: TextFolding.withoutStrayEnds(matcher.respelled(observation.text))))
                    break  // one event per line: the first rule that matches wins
                }
            }
        }
        return matches
    }

    /// What a pattern writes for the player's in-game name, for games that name everyone's kills
    /// (an obituary feed): the player's are the lines with their name in the killer's place.
    public static let playerPlaceholder = "{player}"

    /// Whether a rule names the player (see ``forPlayer(_:)``).
    public var needsPlayer: Bool {
        events.contains { $0.patterns.contains { $0.contains(Self.playerPlaceholder) } }
    }

    /// The profile for one player: `{player}` in the patterns becomes the name, folded as lines are
    /// and escaped, so "Sarge" or "[x]Sarge" match only themselves.
    ///
    /// - Throws: ``MediaError`` `invalidArgument` for an empty or over-long name.
    public func forPlayer(_ name: String) throws(MediaError) -> GameProfile {
        let folded = TextFolding.fold(name.trimmingWhitespace())
        guard !folded.isEmpty, folded.count <= 40, !folded.contains(where: \.isNewline) else {
            throw MediaError(
                .invalidArgument, operation: "set the player for \(self.name)",
                message: "player: give your in-game name, 1–40 characters on one line")
        }
        let special = Set("\\^$.|?*+()[]{}-#&~ ")
        let escaped = folded.map { special.contains($0) ? "\\\($0)" : String($0) }.joined()
        var profile = self
        profile.events = events.map { rule in
            var rule = rule
            rule.patterns = rule.patterns.map { $0.replacing(Self.playerPlaceholder, with: escaped) }
            return rule
        }
        return profile
    }

    /// The debounce window of an event type.
    public func debounce(for type: String) -> Double {
        events.first { $0.type == type }?.debounce ?? debounce
    }

    /// The words of an event type's keywords.
    public func announcingWords(for type: String) -> Set<String> {
        Set(matchers.rules.filter { $0.rule.type == type }.flatMap { $0.keywords.joined() })
    }
}

/// Immutable compiled rules shared by copies of a profile.
final class RuleMatchers: @unchecked Sendable {
    let rules: [RuleMatcher]
    init(_ events: [GameProfile.EventRule]) { rules = events.map { RuleMatcher(rule: $0) } }
}

/// A rule with its keywords folded and its patterns compiled.
struct RuleMatcher {
    let rule: GameProfile.EventRule
    let keywords: [[String]]
    let excluded: [[String]]
    let patterns: [Regex<AnyRegexOutput>]
    /// The keywords' words that match with a misread letter (6 letters or more), as the rule writes
    /// them and folded (``respelled(_:)``).
    let misreadable: [(written: String, folded: String)]

    init(rule: GameProfile.EventRule) {
        self.rule = rule
        keywords = rule.keywords.map { TextFolding.words(TextFolding.fold($0)) }.filter { !$0.isEmpty }
        misreadable = rule.keywords.flatMap { $0.split(separator: " ") }.map {
            (String($0), TextFolding.fold(String($0)))
        }
        .filter { $0.folded.count >= 6 }
        excluded = rule.excludeKeywords.map { TextFolding.words(TextFolding.fold($0)) }.filter { !$0.isEmpty }
        // Patterns are checked by GameProfile.validate(); one that does not compile is skipped here.
        patterns = rule.patterns.compactMap { try? Regex(TextFolding.fold($0)).ignoresCase() }
    }

    /// `text` with each word that matched a word of the rule's keywords by a misread letter
    /// (``TextFolding/wordMatches(_:_:fuzzy:)``) written as the rule writes that word, in capitals
    /// when it was read in capitals. A word one or two letters longer than the keyword's is the
    /// keyword misread (OCR reads a "d" as "cl"); a longer one is the keyword run together with a
    /// neighbour, and they get a space between them. A mark read at a matched word's edge goes with
    /// it ("#ininated"). Words read right are left as read, and so is every word of a rule with no
    /// keyword word of 6 letters or more (none matches fuzzily).
    func respelled(_ text: String) -> String {
        guard !misreadable.isEmpty else { return text }
        return text.split(separator: " ", omittingEmptySubsequences: false).map { token -> String in
            let folded = TextFolding.fold(String(token))
            // A mark at a word's edge can be a letter misread ("#ininated"): the word without it.
            let word = String(
                folded.drop(while: TextFolding.isMark).reversed().drop(while: TextFolding.isMark).reversed())
            guard !word.isEmpty, !word.contains(where: TextFolding.isMark),
                !misreadable.contains(where: { $0.folded == word }),
                let match = misreadable.first(where: { TextFolding.wordMatches(word, $0.folded, fuzzy: true) })
            else { return String(token) }
            let keyword = token.allSatisfy { !$0.isLowercase } ? match.written.uppercased() : match.written
            let extra = word.count - match.folded.count
            if extra <= 2 { return keyword }
            guard word == folded else { return String(token) }
            // Run together: the keyword is at the word's start or end.
            let atStart = TextFolding.wordMatches(String(word.prefix(match.folded.count)), match.folded, fuzzy: true)
            return atStart ? keyword + " " + token.suffix(extra) : token.prefix(extra) + " " + keyword
        }.joined(separator: " ")
    }

    func matches(folded: String, words: [String]) -> Bool {
        if excluded.contains(where: { TextFolding.containsPhrase($0, in: words, fuzzy: false) }) { return false }
        if keywords.contains(where: { TextFolding.containsPhrase($0, in: words, fuzzy: true) }) { return true }
        return patterns.contains { (try? $0.firstMatch(in: folded)) != nil }
    }
}
