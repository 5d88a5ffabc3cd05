import CameraCommon
import CameraIO
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// What is known about a saved clip: the spec's clip document (game, events, timestamp, duration)
/// plus where its files are on this machine.
public struct ClipMetadata: Sendable, Codable, Equatable, Identifiable {
    public var id: String
    /// The profile's game name, e.g. `Fortnite`.
    public var game: String
    /// Event types in order, e.g. `["Kill", "Kill"]`.
    public var events: [String]
    /// Wall-clock time of the first event.
    public var timestamp: Date
    /// Seconds of video in the file.
    public var duration: Double
    /// `Double Kill`, `Knock`, ...
    public var name: String
    /// Seconds from the clip's start to each event.
    public var eventOffsets: [Double]
    /// The clip file (MP4).
    public var localPath: String
    /// A JPEG of the first event, when one was made.
    public var thumbnailPath: String?
    /// The span of the source the clip covers, in the source's seconds.
    public var sourceStart: Double
    public var sourceEnd: Double

    public init(
        id: String = UUID().uuidString.lowercased(), game: String, events: [String], timestamp: Date,
        duration: Double, name: String, eventOffsets: [Double], localPath: String, thumbnailPath: String?,
        sourceStart: Double, sourceEnd: Double
    ) {
        self.id = id
        self.game = game
        self.events = events
        // Whole seconds, as stored (ISO 8601), so a saved clip reads back equal.
        self.timestamp = Date(timeIntervalSince1970: timestamp.timeIntervalSince1970.rounded())
        self.duration = duration
        self.name = name
        self.eventOffsets = eventOffsets
        self.localPath = localPath
        self.thumbnailPath = thumbnailPath
        self.sourceStart = sourceStart
        self.sourceEnd = sourceEnd
    }
}

/// The folder where new clips wait to be processed (the spec's AppGroupManager and its shared
/// container), and where processed clips are kept.
///
/// Layout: `pending/{id}.mp4`, `pending/{id}.jpg`, `pending/{id}.json`, and `clips/` for clips
/// moved to their permanent place. Each file appears by atomic rename, and the JSON — the entry
/// that lists a clip — is written last, after the video and thumbnail are in place. So a process
/// killed at any instant leaves no listed clip without its video and no half-written file listed;
/// at worst an unlisted video, which ``removeOrphans()`` deletes. One JSON file per clip (rather than
/// the spec's single list) means the capture process and the app never rewrite each other's entries.
public final class PendingClipStore: Sendable {
    public let root: String
    public var pendingDirectory: String { root + "/pending" }
    public var savedDirectory: String { root + "/clips" }
    /// Flush files to disk before listing them (survives power loss, not only crashes).
    public let durable: Bool

    /// Opens (and creates) the store under `root` (default: `$CGAME_HOME`).
    ///
    /// - Throws: ``MediaError`` `writeFailed` when the folders cannot be created.
    public init(root: String = CGamePaths.home, durable: Bool = false) throws(MediaError) {
        self.root = root
        self.durable = durable
        for directory in [root, root + "/pending", root + "/clips"] {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw MediaError(
                    .writeFailed, operation: "open clip store \(root)", message: "cannot create \(directory)")
            }
        }
    }

    /// Where the exporter writes a new clip's video and thumbnail.
    public func pendingVideoPath(id: String) -> String { pendingDirectory + "/\(id).mp4" }
    public func pendingThumbnailPath(id: String) -> String { pendingDirectory + "/\(id).jpg" }

    /// Lists a clip whose files are already in place (the last step of an export).
    public func saveClipMetadata(_ metadata: ClipMetadata) throws(MediaError) {
        guard FileManager.default.fileExists(atPath: metadata.localPath) else {
            throw MediaError(
                .notFound, operation: "save clip \(metadata.id)", message: "its video \(metadata.localPath) is missing")
        }
        try JSONFile.write(
            metadata, to: pendingDirectory + "/\(metadata.id).json", durable: durable,
            operation: "save clip \(metadata.id)")
    }

    /// Clips waiting to be processed, oldest first. Entries whose video has gone missing or whose JSON
    /// cannot be read are skipped (and reported by ``problems``).
    public func loadPendingClipMetadata() -> [ClipMetadata] {
        loadPending().clips
    }

    /// Unreadable pending entries, for `cgame clips` to show.
    public var problems: [String] { loadPending().problems }

    /// The pending clips and the problems with the entries that were skipped, in one read.
    public func loadPending() -> (clips: [ClipMetadata], problems: [String]) {
        readEntries(in: pendingDirectory, requireVideo: true)
    }

    /// Clips already moved to their permanent place, oldest first.
    public func loadSavedClips() -> [ClipMetadata] {
        readEntries(in: savedDirectory, requireVideo: false).clips
    }

    /// The JSON entries of a folder (not the hidden temporary files of a write in progress).
    private func entryNames(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
    }

    private func readEntries(in directory: String, requireVideo: Bool) -> (clips: [ClipMetadata], problems: [String]) {
        var clips: [ClipMetadata] = []
        var problems: [String] = []
        for name in entryNames(in: directory) {
            let path = directory + "/" + name
            guard let clip = try? JSONFile.read(ClipMetadata.self, from: path, operation: "read clip entry") else {
                problems.append("\(path): not a clip entry")
                continue
            }
            if requireVideo && !FileManager.default.fileExists(atPath: clip.localPath) {
                problems.append("\(path): video \(clip.localPath) is missing")
                continue
            }
            clips.append(clip)
        }
        clips.sort { ($0.timestamp, $0.id) < ($1.timestamp, $1.id) }
        return (clips, problems)
    }

    /// Moves a file from the pending folder into the saved folder and returns its new path (nil when
    /// it does not exist).
    @discardableResult
    public func moveClipToPermanentLocation(localPath: String) -> String? {
        let name = localPath.split(separator: "/").last.map(String.init) ?? localPath
        let destination = savedDirectory + "/" + name
        guard rename(localPath, destination) == 0 else { return nil }
        return destination
    }

    /// Moves a pending clip (video, thumbnail, entry) to the saved folder, in an order that keeps it
    /// listed whatever moment a crash comes: the saved entry is written first (naming where the
    /// files will be; until they are there it is not listed as saved, and the pending entry still
    /// finds them), then the files move, then the pending entry goes.
    public func keep(_ clip: ClipMetadata) throws(MediaError) -> ClipMetadata {
        guard FileManager.default.fileExists(atPath: clip.localPath) else {
            throw MediaError(.notFound, operation: "keep clip \(clip.id)", message: "its video is missing")
        }
        func destination(_ path: String) -> String {
            savedDirectory + "/" + (path.split(separator: "/").last.map(String.init) ?? path)
        }
        var saved = clip
        saved.localPath = destination(clip.localPath)
        let thumbnail = clip.thumbnailPath.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
        saved.thumbnailPath = thumbnail.map(destination)
        let entry = savedDirectory + "/\(clip.id).json"
        try JSONFile.write(saved, to: entry, durable: durable, operation: "keep clip \(clip.id)")
        guard moveClipToPermanentLocation(localPath: clip.localPath) != nil else {
            unlink(entry)
            throw MediaError(.notFound, operation: "keep clip \(clip.id)", message: "its video could not be moved")
        }
        if let thumbnail, moveClipToPermanentLocation(localPath: thumbnail) == nil {
            saved.thumbnailPath = nil
            try JSONFile.write(saved, to: entry, durable: durable, operation: "keep clip \(clip.id)")
        }
        unlink(pendingDirectory + "/\(clip.id).json")
        return saved
    }

    /// Forgets every pending entry (after processing); the files stay where they are.
    public func clearPendingMetadata() {
        for name in entryNames(in: pendingDirectory) { unlink(pendingDirectory + "/" + name) }
    }

    /// Removes a pending entry only (e.g. after its upload was confirmed).
    public func clearPending(id: String) {
        unlink(pendingDirectory + "/\(id).json")
    }

    /// Deletes videos and thumbnails in the pending folder that no entry lists, and temporary files
    /// left by a killed writer. Returns how many files went.
    @discardableResult
    public func removeOrphans() -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: pendingDirectory)) ?? []
        let listed = Set(entryNames(in: pendingDirectory).map { String($0.dropLast(5)) })
        var removed = 0
        for name in names {
            let isTemporary = name.hasPrefix(".")
            let stem = name.split(separator: ".").first.map(String.init) ?? name
            if isTemporary || (!name.hasSuffix(".json") && !listed.contains(stem)) {
                if unlink(pendingDirectory + "/" + name) == 0 { removed += 1 }
            }
        }
        return removed
    }
}
