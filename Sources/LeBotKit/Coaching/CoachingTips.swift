import CameraCommon
import CameraIO
import FoundationEssentials

/// The coaching knowledge base, `coaching_tips.json` in the spec's format, with four optional
/// lists of our own for misses whose way the camera told: `flat` (came in flat), `short`, `long`
/// and `wide`. A file without them gives those misses a general tip.
/// Read only through ``parse(_:name:)``, which validates (not `Decodable`); written as JSON by
/// `lebot tips show`.
public struct CoachingTips: Sendable, Encodable, Equatable {
    public var tips: [String]
    public var encouragement: [String]
    public var makes: [String]
    public var misses: [String]
    public var flat: [String]
    public var short: [String]
    public var long: [String]
    public var wide: [String]

    public init(
        tips: [String], encouragement: [String], makes: [String], misses: [String], flat: [String] = [],
        short: [String] = [], long: [String] = [], wide: [String] = []
    ) {
        self.tips = tips
        self.encouragement = encouragement
        self.makes = makes
        self.misses = misses
        self.flat = flat
        self.short = short
        self.long = long
        self.wide = wide
    }

    /// The tips for a miss that went this way.
    public func forMiss(_ side: MissSide) -> [String] {
        switch side {
        case .short: short
        case .long: long
        case .wide: wide
        }
    }

    /// The tips that ship with LeBot (the spec's, plus a few for short, long and flat shots).
    public static let standard = CoachingTips(
        tips: [
            "Excellent follow-through on that shot!",
            "Try to keep your elbow tucked in closer to your body.",
            "Bend your knees more to get power from your legs.",
            "Hold your follow-through until the ball hits the rim.",
            "Focus on a consistent shooting arc.",
            "Keep your shooting hand directly under the ball.",
        ],
        encouragement: ["Great shot mechanics!", "Nice improvement!", "Keep that form consistent!"],
        makes: ["Money! Great shot!", "Nothing but net!", "Swish! Perfect form!"],
        misses: ["Keep shooting with confidence!", "Good form, just keep practicing!", "Almost there, stay focused!"],
        flat: [
            "Get more arc on it: aim to drop the ball into the hoop, not at it.",
            "Focus on a consistent shooting arc.",
        ],
        short: [
            "Use your legs: that one came up short.", "Bend your knees more to get power from your legs.",
        ],
        long: ["Ease off a little: aim for the front of the rim."],
        wide: [
            "Line up your elbow, the ball and the rim: that one went wide.",
            "Try to keep your elbow tucked in closer to your body.",
        ]
    )

    /// Reads and validates a user's file.
    ///
    /// - Throws: ``MediaError`` `invalidData` listing every problem (unknown or missing keys,
    ///   empty lists, blank or overlong tips) with where it is; `notFound` when it cannot be read.
    public static func load(_ path: String) throws(MediaError) -> CoachingTips {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw MediaError(.notFound, operation: "read \(path)", message: "cannot read the file")
        }
        return try parse(bytes, name: path)
    }

    public static func parse(_ bytes: Data, name: String = "coaching tips") throws(MediaError) -> CoachingTips {
        let operation = "read \(name)"
        let raw: RawFile
        do {
            raw = try JSONDecoder().decode(RawFile.self, from: bytes)
        } catch {
            throw MediaError(
                .invalidData, operation: operation,
                message:
                    "expected a JSON object with \"tips\", \"encouragement\", \"makes\" and \"misses\" lists of strings"
            )
        }
        let keys = ["tips", "encouragement", "makes", "misses"]
        let optional = ["flat", "short", "long", "wide"]
        var problems: [String] = []
        for key in raw.entries.keys.sorted() where !keys.contains(key) && !optional.contains(key) {
            problems.append(
                "unknown key \"\(key)\" (expected \(keys.joined(separator: ", ")), and optionally \(optional.joined(separator: ", ")))"
            )
        }
        var lists: [String: [String]] = [:]
        for key in keys + optional {
            guard let entry = raw.entries[key] else {
                if keys.contains(key) { problems.append("\"\(key)\" is missing") }
                continue
            }
            guard let array = entry else {
                problems.append("\"\(key)\" must be a list of strings")
                continue
            }
            if array.isEmpty, keys.contains(key) { problems.append("\"\(key)\" is empty: give at least one") }
            var strings: [String] = []
            for (index, element) in array.enumerated() {
                guard let text = element.text else {
                    problems.append("\(key)[\(index)] is not a string")
                    continue
                }
                let trimmed = text.trimmingWhitespace()
                if trimmed.isEmpty {
                    problems.append("\(key)[\(index)] is blank")
                } else if trimmed.count > 200 {
                    problems.append(
                        "\(key)[\(index)] is \(trimmed.count) characters; keep tips under 200 so they can be spoken")
                } else {
                    strings.append(trimmed)
                }
            }
            lists[key] = strings
        }
        guard problems.isEmpty else {
            throw MediaError(.invalidData, operation: operation, message: problems.joined(separator: "; "))
        }
        return CoachingTips(
            tips: lists["tips"] ?? [], encouragement: lists["encouragement"] ?? [], makes: lists["makes"] ?? [],
            misses: lists["misses"] ?? [], flat: lists["flat"] ?? [], short: lists["short"] ?? [],
            long: lists["long"] ?? [], wide: lists["wide"] ?? [])
    }

    /// The file as written, before validation: every key, each a list (or not) of strings (or not).
    private struct RawFile: Decodable {
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        struct Element: Decodable {
            var text: String?
            init(from decoder: any Decoder) throws {
                text = try? decoder.singleValueContainer().decode(String.self)
            }
        }
        var entries: [String: [Element]?] = [:]
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            for key in container.allKeys {
                entries[key.stringValue] = .some(try? container.decode([Element].self, forKey: key))
            }
        }
    }

    public var count: Int {
        tips.count + encouragement.count + makes.count + misses.count + flat.count + short.count + long.count
            + wide.count
    }
}

/// What a tip is chosen for.
public struct CoachingContext: Sendable {
    public var outcome: ShotOutcome
    /// Consecutive makes (positive) or misses (negative) including this shot.
    public var streak: Int
    public var entryAngle: Double?
    /// Which way a miss went, when the view told (``ShotEvent/missedBy``).
    public var missedBy: MissSide?

    public init(outcome: ShotOutcome, streak: Int = 0, entryAngle: Double? = nil, missedBy: MissSide? = nil) {
        self.outcome = outcome
        self.streak = streak
        self.entryAngle = entryAngle
        self.missedBy = missedBy
    }

    /// The context of a detected shot.
    public init(_ shot: ShotEvent, streak: Int) {
        self.init(outcome: shot.outcome, streak: streak, entryAngle: shot.entryAngle, missedBy: shot.missedBy)
    }
}

/// Chooses a tip for a shot (the spec's CoachingTipsManager): made shots get praise (encouragement
/// on a streak of three or more), missed shots a tip that fits how they missed — flat entry → arc,
/// short → legs, long → touch, wide → elbow (``CoachingTips/flat`` and the others) — or a general
/// one; never the same tip twice in a row.
public struct CoachingTipsManager: Sendable {
    public let tips: CoachingTips
    private var generator: SeededGenerator
    public private(set) var lastTip: String?

    public init(tips: CoachingTips = .standard, seed: UInt64 = 1) {
        self.tips = tips
        self.generator = SeededGenerator(seed: seed)
    }

    public mutating func tip(for context: CoachingContext) -> String {
        var candidates: [String]
        switch context.outcome {
        case .make:
            candidates = context.streak >= 3 ? tips.encouragement : tips.makes
        case .miss:
            if let angle = context.entryAngle, angle < 35 {
                candidates = tips.flat
            } else {
                candidates = context.missedBy.map(tips.forMiss) ?? []
            }
            if candidates.isEmpty { candidates = context.streak <= -3 ? tips.misses : tips.tips + tips.misses }
        case .indeterminate:
            candidates = tips.encouragement
        }
        if candidates.isEmpty { candidates = tips.tips.isEmpty ? ["Keep shooting!"] : tips.tips }
        let fresh = candidates.filter { $0 != lastTip }
        let pool = fresh.isEmpty ? candidates : fresh
        let choice = pool[Int(generator.next() % UInt64(pool.count))]
        lastTip = choice
        return choice
    }
}
