import CGameKit
import CameraAssemble
import CameraCommon
import CameraIO
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// Where uploaded files live: `clips/{userID}/{clipID}.mp4` (the spec's Storage layout), with
/// thumbnails beside them and reels in `reels/{userID}/`. Every name is built from ids that passed
/// ``isValidID(_:)``, so no request can name a path outside these folders.
struct ClipFiles: Sendable {
    let root: String
    /// Uploads slower than this on average (bytes a second, after the first `uploadGrace`) are
    /// dropped with 408: a client trickling a body would hold a connection and a file open for hours.
    let minimumUploadRate: Int
    let uploadGrace: Duration

    init(root: String, minimumUploadRate: Int = 16 * 1024, uploadGrace: Duration = .seconds(20)) throws(MediaError) {
        self.root = root
        self.minimumUploadRate = minimumUploadRate
        self.uploadGrace = uploadGrace
        for folder in ["clips", "reels", "workouts"] { try Self.folder(root + "/" + folder) }
    }

    static func folder(_ path: String) throws(MediaError) {
        do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
            throw MediaError(.writeFailed, operation: "create folder", message: "cannot create \(path)")
        }
    }

    func video(userID: String, clipID: String) -> String { root + "/clips/\(userID)/\(clipID).mp4" }
    func thumbnail(userID: String, clipID: String) -> String { root + "/clips/\(userID)/\(clipID).jpg" }
    func reel(userID: String, reelID: String) -> String { root + "/reels/\(userID)/\(reelID).mp4" }
    func workouts(userID: String) -> String { root + "/workouts/\(userID)" }

    /// Hidden files in a user's folder are the server's work in progress: an upload being received
    /// or read, a copy being made, a video kept an hour for its first frame. One an hour old is
    /// left from a server stopped mid-way (or a kept video past its hour): the server removes those
    /// when it starts. Returns how many it removed.
    @discardableResult
    func removeLeftovers(olderThan age: TimeInterval) -> Int {
        var removed = 0
        let manager = FileManager.default
        for kind in ["clips", "reels", "workouts"] {
            let top = root + "/" + kind
            for user in (try? manager.contentsOfDirectory(atPath: top)) ?? [] where !user.hasPrefix(".") {
                let folder = top + "/" + user
                for name in (try? manager.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(".") {
                    let path = folder + "/" + name
                    guard let attributes = try? manager.attributesOfItem(atPath: path),
                        attributes[.type] as? FileAttributeType == .typeRegular,
                        let modified = attributes[.modificationDate] as? Date,
                        Date().timeIntervalSince(modified) >= age
                    else { continue }
                    if unlink(path) == 0 { removed += 1 }
                }
            }
        }
        return removed
    }

    /// Streams a request body into `path`: a hidden temporary file first, renamed into place only
    /// when the whole body arrived within `limit` and `accept` took the file, so a dropped,
    /// oversized or refused upload leaves the previous file (if any) untouched. Returns the byte
    /// count.
    func receive(
        _ body: RequestBody, to path: String, limit: Int, accept: (String) async throws -> Bool = { _ in true },
        refusal: String = "the upload was refused"
    ) async throws -> Int {
        try Self.folder(AtomicFile.folder(of: path))
        let temporary = AtomicFile.folder(of: path) + "/.upload-\(UUID().uuidString.lowercased())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw APIError(.internalServerError, "cannot store the upload") }
        var size = 0
        var closed = false
        defer {
            if !closed { close(descriptor) }
            unlink(temporary)
        }
        let started = ContinuousClock.now
        for try await buffer in body {
            size += buffer.readableBytes
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            if elapsed > uploadGrace, Double(size) / seconds < Double(minimumUploadRate) {
                throw APIError(
                    .requestTimeout,
                    "the upload is too slow (under \(minimumUploadRate / 1024) KiB/s); try a better connection")
            }
            guard size <= limit else { throw APIError(.contentTooLarge, "the upload is larger than \(limit) bytes") }
            let written = buffer.withUnsafeReadableBytes { bytes -> Bool in
                var offset = 0
                while offset < bytes.count {
                    let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if count <= 0 { return false }
                    offset += count
                }
                return true
            }
            guard written else { throw APIError(.init(code: 507), "the server could not store the upload") }
        }
        close(descriptor)
        closed = true
        guard try await accept(temporary) else { throw APIError(.badRequest, refusal) }
        guard rename(temporary, path) == 0 else { throw APIError(.internalServerError, "cannot store the upload") }
        return size
    }

    /// Whether FFmpeg opens the file with `options` (the demuxers an upload may use) and finds a
    /// video stream in it.
    static func isVideo(_ path: String, options: ReaderOptions = .uploadedVideo) -> Bool {
        guard let reader = try? MediaReader(.file(path), options: options) else { return false }
        defer { reader.close() }
        return reader.videoStream != nil
    }

    /// A file answer honouring `Range: bytes=…` (one range), as video players and resumable
    /// downloads send.
    func serve(_ path: String, contentType: String, request: Request, context: AppContext) async throws -> Response {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = (attributes[.size] as? NSNumber)?.intValue
        else { throw APIError(.notFound, "no file uploaded yet") }
        var headers: HTTPFields = [.contentType: contentType, .acceptRanges: "bytes"]
        guard let header = request.headers[.range] else {
            headers[.contentLength] = "\(size)"
            guard size > 0 else { return Response(status: .ok, headers: headers) }
            return Response(
                status: .ok, headers: headers, body: try await FileIO().loadFile(path: path, context: context))
        }
        guard let range = Self.range(header, size: size) else {
            headers[.contentRange] = "bytes */\(size)"
            throw APIError(
                .rangeNotSatisfiable, "range \(header) is outside the file's \(size) bytes", headers: headers)
        }
        headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
        headers[.contentLength] = "\(range.count)"
        return Response(
            status: .partialContent, headers: headers,
            body: try await FileIO().loadFile(path: path, range: range, context: context))
    }

    /// `bytes=a-b`, `bytes=a-` or `bytes=-n` against a file of `size` bytes.
    static func range(_ header: String, size: Int) -> ClosedRange<Int>? {
        guard header.hasPrefix("bytes="), size > 0 else { return nil }
        let spec = header.dropFirst(6)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let start = spec[..<dash].trimmingWhitespace()
        let end = spec[spec.index(after: dash)...].trimmingWhitespace()
        if start.isEmpty {
            guard let suffix = Int(end), suffix > 0 else { return nil }
            return max(0, size - suffix)...(size - 1)
        }
        guard let first = Int(start), first >= 0, first < size else { return nil }
        if end.isEmpty { return first...(size - 1) }
        guard let last = Int(end), last >= first else { return nil }
        return first...min(last, size - 1)
    }
}

/// A game the settings can name, with the events its profile detects; for a game the user taught,
/// its id, words and region too.
struct GameChoice: Codable {
    var name: String
    var aliases: [String]
    var events: [String]
    var id: String?
    var keywords: [String]?
    var region: NormalizedRect?

    init(_ profile: GameProfile, id: String? = nil) {
        name = profile.name
        aliases = profile.aliases
        events = Array(Set(profile.events.map(\.type))).sorted()
        self.id = id
        if id != nil {
            keywords = profile.events.flatMap(\.keywords)
            region = profile.region
        }
    }
}

struct ReelRequest: Decodable {
    var clipIDs: [String]
    var title: String?
    /// `crossfade` (default), `dipToBlack` or `cut`.
    var transition: String?
    /// Seconds to fit the reel into; nil keeps every clip whole.
    var targetDuration: Double?
}

extension CameraCoreServer {
    var clipRoutes: [Route] {
        [
            Route(method: .get, path: "/api/settings", access: .user, summary: "The user's CGame settings") {
                _, context in
                try json(try await self.store.settings(userID: try context.user()))
            },
            Route(method: .put, path: "/api/settings", access: .user, summary: "Save the user's CGame settings") {
                request, context in
                var settings = try await decode(UserSettings.self, from: request, context: context)
                try settings.validate()
                // Only games the server knows: the name reaches `cgame`, which needs a profile for it.
                let user = try context.user()
                let profile = try await self.gameProfile(
                    named: settings.gameProfileName, user: user, field: "gameProfileName")
                settings.gameProfileName = profile.name
                try await self.store.saveSettings(settings, userID: user)
                return try json(settings)
            },
            Route(
                method: .get, path: "/api/profiles", access: .user,
                summary: "The games CGame can watch: the shipped ones, then those the user taught (with id)"
            ) { _, context in
                let mine = try await self.store.gameProfiles(userID: try context.user())
                return try json(
                    ProfileLibrary.readyToUse.map { GameChoice($0) } + mine.map { GameChoice($0.profile, id: $0.id) })
            },
            Route(method: .get, path: "/api/clips", access: .user, summary: "The user's clips, newest first") {
                request, context in
                let limit = request.uri.queryParameters.get("limit").flatMap { Int($0) }.map { min(max($0, 1), 500) }
                return try json(try await self.store.clips(userID: try context.user(), limit: limit ?? 200))
            },
            Route(method: .get, path: "/api/clips/:id", access: .user, summary: "One clip's metadata") { _, context in
                try json(try await self.ownedClip(context))
            },
            Route(
                method: .put, path: "/api/clips/:id", access: .user,
                summary: "Create or update a clip's metadata (idempotent by id)"
            ) { request, context in
                let id = try pathID(context)
                let input = try await decode(ClipInput.self, from: request, context: context)
                guard !input.game.trimmingWhitespace().isEmpty, input.game.count <= 100 else {
                    throw APIError(.badRequest, "game: must be 1–100 characters")
                }
                guard input.duration >= 0, input.duration <= 3600, input.events.count <= 100 else {
                    throw APIError(.badRequest, "duration must be 0–3600 s and events at most 100")
                }
                guard (input.name?.utf8.count ?? 0) <= 256 else {
                    throw APIError(.badRequest, "name: at most 256 bytes")
                }
                guard input.events.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 64 }) else {
                    throw APIError(.badRequest, "events: each 1–64 bytes")
                }
                let userID = try context.user()
                if try await self.store.clip(userID: userID, id: id) == nil {
                    try self.checkClipCount(try await self.store.usage(userID: userID))
                }
                return try json(try await self.store.saveClip(userID: userID, id: id, input: input))
            },
            Route(method: .delete, path: "/api/clips/:id", access: .user, summary: "Delete a clip and its files") {
                _, context in
                let (userID, id) = (try context.user(), try pathID(context))
                guard try await self.store.deleteClip(userID: userID, id: id) else {
                    throw APIError(.notFound, "no clip \(id)")
                }
                unlink(self.files.video(userID: userID, clipID: id))
                unlink(self.files.thumbnail(userID: userID, clipID: id))
                return Response(status: .noContent)
            },
            Route(
                method: .put, path: "/api/clips/:id/file", access: .user,
                summary: "Upload the clip's MP4 (streamed; a retry replaces, never duplicates)"
            ) { request, context in
                let clip = try await self.ownedClip(context)
                let userID = try context.user()
                let length = request.headers[.contentLength].flatMap({ Int($0) })
                if let length, length > self.configuration.maxClipBytes {
                    throw APIError(
                        .contentTooLarge, "the upload is larger than \(self.configuration.maxClipBytes) bytes")
                }
                // The account's storage: what this clip holds now is replaced, so it counts as free.
                let quota = self.configuration.storageBytesPerUser
                let free = quota - (try await self.store.usage(userID: userID).bytes) + (clip.size ?? 0)
                if (length ?? 1) > free {
                    throw APIError(
                        .contentTooLarge,
                        "your storage is full (\(quota / 1_048_576) MB per account); delete clips to make room")
                }
                // Only a readable video replaces what was there.
                let size = try await self.files.receive(
                    request.body, to: self.files.video(userID: userID, clipID: clip.id),
                    limit: min(self.configuration.maxClipBytes, free),
                    accept: { path in try await self.workers.run(user: userID) { ClipFiles.isVideo(path) } },
                    refusal: "the upload is not a playable video")
                try await self.store.markUploaded(userID: userID, id: clip.id, size: size)
                return try json(try await self.ownedClip(context))
            },
            Route(
                method: .get, path: "/api/clips/:id/file", access: .user, summary: "Download the clip (Range supported)"
            ) {
                request, context in
                let clip = try await self.ownedClip(context)
                return try await self.files.serve(
                    self.files.video(userID: try context.user(), clipID: clip.id), contentType: "video/mp4",
                    request: request, context: context)
            },
            Route(
                method: .put, path: "/api/clips/:id/thumbnail", access: .user,
                summary: "Upload the clip's JPEG thumbnail"
            ) {
                request, context in
                let clip = try await self.ownedClip(context)
                let userID = try context.user()
                let path = self.files.thumbnail(userID: userID, clipID: clip.id)
                _ = try await self.files.receive(request.body, to: path, limit: 2 << 20)
                let url = "/api/clips/\(clip.id)/thumbnail"
                try await self.store.setThumbnail(userID: userID, id: clip.id, url: url)
                return try json(try await self.ownedClip(context))
            },
            Route(method: .get, path: "/api/clips/:id/thumbnail", access: .user, summary: "The clip's thumbnail") {
                request, context in
                let clip = try await self.ownedClip(context)
                return try await self.files.serve(
                    self.files.thumbnail(userID: try context.user(), clipID: clip.id), contentType: "image/jpeg",
                    request: request, context: context)
            },
            Route(method: .post, path: "/api/reels", access: .user, summary: "Compile a reel from clips (background)") {
                request, context in
                let userID = try context.user()
                let body = try await decode(ReelRequest.self, from: request, context: context)
                guard (1...50).contains(body.clipIDs.count) else {
                    throw APIError(.badRequest, "clipIDs: choose 1 to 50 clips")
                }
                let transition: Transition.Kind?
                switch body.transition ?? "crossfade" {
                case "cut": transition = nil
                case let name:
                    guard let kind = Transition.Kind(rawValue: name) else {
                        throw APIError(.badRequest, "transition: one of crossfade, dipToBlack, cut")
                    }
                    transition = kind
                }
                if let target = body.targetDuration, !(5...600).contains(target) {
                    throw APIError(.badRequest, "targetDuration: 5–600 seconds, or leave it out to keep clips whole")
                }
                var items: [VideoCompiler.Item] = []
                for id in body.clipIDs {
                    guard isValidID(id), let clip = try await self.store.clip(userID: userID, id: id),
                        clip.uploadedAt != nil
                    else { throw APIError(.badRequest, "clipIDs: \(id) is not an uploaded clip of yours") }
                    items.append(VideoCompiler.Item(path: self.files.video(userID: userID, clipID: clip.id)))
                }
                guard try await self.store.usage(userID: userID).reels < self.configuration.maxReelsPerUser else {
                    throw APIError(.conflict, "at most \(self.configuration.maxReelsPerUser) reels per account")
                }
                // The reel keeps its place among the media workers until it is made.
                let reservation = try self.workers.reserve(user: userID)
                let title = body.title.map { String($0.trimmingWhitespace().prefix(60)) }.flatMap {
                    $0.isEmpty ? nil : $0
                }
                let reel = try await self.store.createReel(userID: userID, clipIDs: body.clipIDs, title: title)
                let output = self.files.reel(userID: userID, reelID: reel.id)
                let options = VideoCompiler.Options(
                    transition: transition, title: title, targetDuration: body.targetDuration, preset: "ultrafast")
                let store = self.store
                let logger = self.logger
                let compiled = items
                let progress = self.reelProgress
                progress.set(reel.id, 0)
                Task.detached {
                    do {
                        try await reservation.run { () throws -> Void in
                            try ClipFiles.folder(AtomicFile.folder(of: output))
                            try VideoCompiler.compile(
                                compiled, to: output, options: options,
                                progress: { fraction in progress.set(reel.id, fraction) })
                        }
                        try await store.finishReel(id: reel.id, status: "ready", message: nil)
                    } catch {
                        // The details (paths, FFmpeg's words) go to the log, not to the user.
                        logger.error("reel \(reel.id) failed: \(error)")
                        try? await store.finishReel(
                            id: reel.id, status: "failed", message: "the reel could not be made; try again later")
                    }
                    progress.set(reel.id, nil)
                }
                return try json(reel, status: .accepted)
            },
            Route(method: .get, path: "/api/reels", access: .user, summary: "The user's reels, newest first") {
                _, context in
                try json(try await self.store.reels(userID: try context.user()).map(self.withProgress))
            },
            Route(method: .get, path: "/api/reels/:id", access: .user, summary: "A reel's status and progress") {
                _, context in
                try json(self.withProgress(try await self.ownedReel(context)))
            },
            Route(method: .delete, path: "/api/reels/:id", access: .user, summary: "Delete a reel and its file") {
                _, context in
                let reel = try await self.ownedReel(context)
                guard reel.status != "compiling" else {
                    throw APIError(.conflict, "the reel is still being made; delete it when it is done")
                }
                let userID = try context.user()
                _ = try await self.store.deleteReel(userID: userID, id: reel.id)
                unlink(self.files.reel(userID: userID, reelID: reel.id))
                return Response(status: .noContent)
            },
            Route(method: .get, path: "/api/reels/:id/file", access: .user, summary: "Download a finished reel") {
                request, context in
                let reel = try await self.ownedReel(context)
                guard reel.status == "ready" else { throw APIError(.conflict, "the reel is \(reel.status)") }
                return try await self.files.serve(
                    self.files.reel(userID: try context.user(), reelID: reel.id), contentType: "video/mp4",
                    request: request, context: context)
            },
        ]
    }

    /// The clip named in the path if it is the caller's; otherwise 404 (the same answer whether it
    /// exists for someone else or not at all).
    func ownedClip(_ context: AppContext) async throws -> Clip {
        let id = try pathID(context)
        guard let clip = try await store.clip(userID: try context.user(), id: id) else {
            throw APIError(.notFound, "no clip \(id)")
        }
        return clip
    }

    /// The reel with its compile progress, while it is being made.
    func withProgress(_ reel: Reel) -> Reel {
        var reel = reel
        reel.progress = reel.status == "compiling" ? reelProgress.get(reel.id) : nil
        return reel
    }

    func ownedReel(_ context: AppContext) async throws -> Reel {
        let id = try pathID(context)
        guard let reel = try await store.reel(userID: try context.user(), id: id) else {
            throw APIError(.notFound, "no reel \(id)")
        }
        return reel
    }
}
