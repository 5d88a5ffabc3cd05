import CGameKit
import CameraCommon
import CameraIO
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What the server tells the page during a capture from the browser (one JSON text message each):
/// `started`, `progress`, `event`, `correction` (the text of the `event` with the same `event` and
/// `time`, read better), `clip` (the saved clip, as `/api/clips` lists it), `warning`, `error` (the
/// capture stops) and `done`.
struct CaptureNote: Encodable {
    var type: String
    var message: String?
    var game: String?
    var seconds: Double?
    var events: Int?
    var clips: Int?
    var dropped: Int?
    var event: String?
    var text: String?
    var time: Double?
    var clip: Clip?

    var json: String { String(decoding: (try? jsonEncoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self) }
}

/// Streams from the browser running now (captures, live trainings): one per user,
/// ``ServerConfiguration/capturesAtOnce`` in all.
final class CaptureTable: Sendable {
    let limit: Int
    /// What the page calls it ("capture", "live training").
    let noun: String
    private let users = Mutex<Set<String>>([])

    init(limit: Int, noun: String = "capture") {
        self.limit = limit
        self.noun = noun
    }

    /// Nil when admitted; otherwise why not, in words for the page.
    func admit(_ user: String) -> String? {
        users.withLock { users in
            if users.contains(user) {
                return "a \(noun) is already running for your account (in another tab or window); stop it first"
            }
            guard users.count < limit else { return "the server is busy with other \(noun)s; try again in a while" }
            users.insert(user)
            return nil
        }
    }

    /// Given back through ``Place`` only, once per admission.
    private func release(_ user: String) { _ = users.withLock { $0.remove(user) } }

    /// The place `user` was admitted to, given back once however many ways out give it back: a
    /// stream over gives it back as soon as it is read to its end, so the page may start the next
    /// one while this socket winds down, and a second giving back must not free that next one's.
    func place(of user: String) -> Place { Place(table: self, user: user) }

    final class Place: Sendable {
        let table: CaptureTable
        let user: String
        private let given = Mutex(false)

        init(table: CaptureTable, user: String) {
            self.table = table
            self.user = user
        }

        func release() {
            let first = given.withLock { given in
                defer { given = true }
                return !given
            }
            if first { table.release(user) }
        }
    }
}

/// When something last happened.
final class Stamp: Sendable {
    private let time = Mutex(ContinuousClock.now)
    func touch() { time.withLock { $0 = .now } }
    var age: Double { (ContinuousClock.now - time.withLock { $0 }).seconds }
}

extension CameraCoreServer {
    /// Adds to `group` the two tasks every stream from the browser needs: the page's chunks into
    /// `write` until it says stop or goes away, and the limits (signing out, the longest stream,
    /// a page that sends nothing). Either way the input is then finished; `problem` hears why,
    /// in words, when it was not the page's own stop.
    func feed(
        _ group: inout ThrowingTaskGroup<Void, any Error>, _ inbound: WebSocketInboundStream,
        into write: @escaping @Sendable ([UInt8]) -> WebMPipe.Accepted, finish: @escaping @Sendable () -> Void,
        noun: String, signedOut: @escaping @Sendable () -> Bool, problem: @escaping @Sendable (String) -> Void
    ) {
        let lastInput = Stamp()
        let (maxSeconds, idleSeconds) = (configuration.captureMaxSeconds, configuration.captureIdleSeconds)
        group.addTask {
            defer { finish() }
            if let reason = try await BrowserStream.receive(inbound, into: write, lastInput: lastInput, noun: noun) {
                problem(reason)
            }
        }
        group.addTask {
            let reason = try await BrowserStream.limit(
                lastInput: lastInput, maxSeconds: maxSeconds, idleSeconds: idleSeconds, noun: noun,
                signedOut: signedOut)
            problem(reason)
            finish()
        }
    }
}

/// The page's side of a stream recorded in the browser (WebM chunks over a WebSocket).
enum BrowserStream {
    /// Feeds the page's binary chunks to `pipe` until the page says stop or goes away; returns a
    /// problem in words when the stream had to end for another reason.
    static func receive(
        _ inbound: WebSocketInboundStream, into pipe: (([UInt8]) -> WebMPipe.Accepted), lastInput: Stamp, noun: String
    ) async throws -> String? {
        for try await message in inbound.messages(maxSize: 1 << 20) {
            switch message {
            case .binary(let buffer):
                lastInput.touch()
                switch pipe(Array(buffer.readableBytesView)) {
                case .queued: continue
                case .ended: return nil
                case .behind:
                    return "the server cannot keep up with this \(noun), so it stopped; send a smaller picture"
                }
            case .text(let text):
                if text.contains("\"stop\"") { return nil }
            }
        }
        return nil
    }

    /// Waits until a limit ends the stream: signing out, the longest stream, a page that sends
    /// nothing. Returns why, in words.
    static func limit(
        lastInput: Stamp, maxSeconds: Double, idleSeconds: Double, noun: String,
        signedOut: @Sendable () -> Bool
    ) async throws -> String {
        let started = ContinuousClock.now
        while true {
            try await Task.sleep(for: .seconds(1))
            if signedOut() { return "signed out" }
            if (ContinuousClock.now - started).seconds > maxSeconds {
                return "a \(noun) lasts at most \(Int(maxSeconds / 60)) minutes; start a new one"
            }
            if lastInput.age > idleSeconds {
                return "nothing arrived from the page for \(Int(idleSeconds)) s, so the \(noun) stopped"
            }
        }
    }
}

extension CameraCoreServer {
    var captureRoutes: [Route] {
        [
            Route(
                webSocket: "/api/highlights/capture",
                summary:
                    "Capture from the browser: WebM chunks in (binary messages, {\"type\":\"stop\"} ends), events and saved clips out (?game=)"
            ) { request, context in
                let user = try context.user()
                let settings = try await self.store.settings(userID: user)
                let profile = try await self.gameProfile(
                    named: request.uri.queryParameters.get("game").map { String($0) } ?? settings.gameProfileName,
                    user: user, field: "game")
                try await self.checkRoomForClip(user: user)
                let session = context.sessionID ?? ""
                let highlights = HighlightSettings(
                    preRoll: settings.preRollDuration, postRoll: settings.postRollDuration)
                return { inbound, outbound in
                    try await self.capture(
                        inbound: inbound, outbound: outbound, user: user, profile: profile, highlights: highlights,
                        signedOut: { self.auth.isRevoked(session) })
                }
            }
        ]
    }

    /// Throws 409 when the account holds as many clips as it may.
    func checkClipCount(_ usage: (clips: Int, bytes: Int, reels: Int)) throws {
        guard usage.clips < configuration.maxClipsPerUser else {
            throw APIError(
                .conflict, "at most \(configuration.maxClipsPerUser) clips per account; delete some first")
        }
    }

    /// Throws 409 when the account has no room for another clip (count or storage).
    func checkRoomForClip(user: String, bytes: Int = 1) async throws {
        let usage = try await store.usage(userID: user)
        try checkClipCount(usage)
        guard usage.bytes + bytes <= configuration.storageBytesPerUser else {
            throw APIError(
                .conflict,
                "your storage is full (\(configuration.storageBytesPerUser / 1_048_576) MB per account); delete clips to make room"
            )
        }
    }

    /// One capture: the page's chunks into a ``StreamedCapture``; its events, progress and clips
    /// (saved into the user's gallery as they are made) back to the page. However the page leaves
    /// (Stop, a closed tab, a lost connection), the open highlight is saved.
    func capture(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, user: String, profile: GameProfile,
        highlights: HighlightSettings, signedOut: @escaping @Sendable () -> Bool
    ) async throws {
        func send(_ note: CaptureNote) async { try? await outbound.write(.text(note.json)) }
        if let refusal = captures.admit(user) {
            await send(CaptureNote(type: "error", message: refusal))
            return
        }
        let place = captures.place(of: user)
        defer { place.release() }
        let folder = files.root + "/captures/" + UUID().uuidString.lowercased()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let capture: StreamedCapture
        do {
            try ClipFiles.folder(folder)
            capture = try StreamedCapture(folder: folder, profile: profile, highlights: highlights)
        } catch {
            logger.error("capture for \(user) could not start: \(error)")
            await send(CaptureNote(type: "error", message: "the server could not start a capture; try again later"))
            return
        }
        enum Update: Sendable {
            case event(DetectedEvent)
            case clip(ClipMetadata)
            case progress(HighlightPipeline.Progress)
            case problem(String)
            case finished(Result<HighlightPipeline.Summary, MediaError>)
        }
        let (updates, sink) = AsyncStream<Update>.makeStream()
        capture.start(
            onEvent: { sink.yield(.event($0)) }, onClip: { sink.yield(.clip($0)) },
            progress: { sink.yield(.progress($0)) },
            completion: {
                sink.yield(.finished($0))
                sink.finish()
            })
        await send(CaptureNote(type: "started", game: profile.name))
        await withThrowingTaskGroup(of: Void.self) { group in
            feed(
                &group, inbound, into: capture.write, finish: capture.finishInput, noun: "capture",
                signedOut: signedOut, problem: { sink.yield(.problem($0)) })
            var saved = 0
            for await update in updates {
                // Over once read: the account may start another as soon as the page hears so,
                // before this socket's tasks wind down and it is closed.
                if case .finished = update { place.release() }
                switch update {
                case .event(let event):
                    await send(
                        CaptureNote(
                            type: event.corrects ? "correction" : "event", event: event.type, text: event.text,
                            time: event.time.seconds))
                case .progress(let progress):
                    await send(
                        CaptureNote(
                            type: "progress", seconds: progress.position, events: progress.events,
                            clips: saved, dropped: progress.droppedFrames))
                case .clip(let metadata):
                    do {
                        let clip = try await keepCapturedClip(metadata, user: user)
                        saved += 1
                        await send(CaptureNote(type: "clip", clip: clip))
                    } catch {
                        await send(
                            CaptureNote(
                                type: "warning",
                                message:
                                    "\(metadata.name) was not saved: \((error as? APIError)?.message ?? "the server could not store it")"
                            ))
                    }
                case .problem(let message):
                    await send(CaptureNote(type: "warning", message: message))
                case .finished(.success(let summary)):
                    await send(
                        CaptureNote(
                            type: "done", seconds: summary.mediaSeconds, events: summary.events.count, clips: saved,
                            dropped: summary.statistics.dropped))
                case .finished(.failure(let error)):
                    logger.info("capture for \(user) ended: \(error)")
                    await send(
                        CaptureNote(
                            type: "error",
                            message:
                                "the capture could not be read as a WebM video (\(error.kind)); nothing was saved from it"
                        ))
                }
            }
            group.cancelAll()
        }
        place.release()
        try? await outbound.close(.normalClosure, reason: nil)
    }

    /// Moves a clip the capture made into the user's gallery, as if `cgame sync` had uploaded it.
    private func keepCapturedClip(_ metadata: ClipMetadata, user: String) async throws -> Clip {
        let size =
            (try? FileManager.default.attributesOfItem(atPath: metadata.localPath)[.size] as? NSNumber)?
            .intValue ?? 0
        try await checkRoomForClip(user: user, bytes: size)
        let id = metadata.id
        _ = try await store.saveClip(
            userID: user, id: id,
            input: ClipInput(
                game: metadata.game, name: metadata.name, events: metadata.events, timestamp: metadata.timestamp,
                duration: metadata.duration))
        let path = files.video(userID: user, clipID: id)
        try ClipFiles.folder(AtomicFile.folder(of: path))
        guard rename(metadata.localPath, path) == 0 else {
            _ = try await store.deleteClip(userID: user, id: id)
            throw APIError(.internalServerError, "the server could not store it")
        }
        try await store.markUploaded(userID: user, id: id, size: size)
        if let thumbnail = metadata.thumbnailPath,
            rename(thumbnail, files.thumbnail(userID: user, clipID: id)) == 0
        {
            try await store.setThumbnail(userID: user, id: id, url: "/api/clips/\(id)/thumbnail")
        }
        guard let clip = try await store.clip(userID: user, id: id) else {
            throw APIError(.internalServerError, "the server could not store it")
        }
        return clip
    }
}
