import CameraCommon
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import WatchBoxKit

/// The spec's `thumbnailData`: a small JPEG of each camera, taken from a keyframe of a stream that
/// is already playing (live view or recording, so no extra connection), refreshed every
/// `thumbnailSeconds`, kept in `<data>/thumbnails/<stream id>.jpg` and shown as the grid's poster
/// while the live video connects.
extension CameraService {
    func thumbnailPath(_ id: UUID) -> String { thumbnailRoot + "/\(id.uuidString.lowercased()).jpg" }

    /// Takes a poster of every playing stream whose poster is missing or older than `thumbnailSeconds`.
    func refreshThumbnails() async {
        let now = Date()
        let playing = tables.states.withLock { table in
            table.compactMap { id, entry -> UUID? in
                if case .playing = entry.state { return id }
                return nil
            }
        }
        let due = tables.thumbnails.withLock { state in
            playing.filter { id in
                guard let taken = state.taken[id] else { return true }
                return now.timeIntervalSince(taken) >= thumbnailSeconds
            }
        }
        for id in due {
            tables.thumbnails.withLock { $0.taken[id] = now }
            guard
                let jpeg = try? await Snapshot.jpeg(
                    from: manager, cameraID: id, timeout: .seconds(5), width: 320, quality: 75)
            else { continue }
            try? AtomicFile.write(jpeg, to: thumbnailPath(id), durable: false)
        }
    }

    func thumbnailRoutes() -> [Route] {
        [
            Route(
                method: .get, path: "/api/cameras/:id/thumbnail", access: .user,
                summary: "The camera's poster: a 320-pixel JPEG from a recent keyframe (404 before it first played)"
            ) { _, context in
                let camera = try await self.owned(context)
                let profiles = try await self.repository(context).profiles(cameraID: camera.id)
                // The newest picture of any of the camera's streams (the grid plays the small one).
                let newest = ([camera.id] + profiles.map(\.id)).compactMap { id -> (String, Date)? in
                    let path = self.thumbnailPath(id)
                    guard
                        let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate]
                            as? Date
                    else { return nil }
                    return (path, modified)
                }.max { $0.1 < $1.1 }
                guard let (path, _) = newest, let data = FileManager.default.contents(atPath: path) else {
                    throw APIError(.notFound, "no picture of this camera yet: it appears once the camera has played")
                }
                return Response(
                    status: .ok,
                    headers: [.contentType: "image/jpeg", .cacheControl: "private, max-age=30"],
                    body: .init(byteBuffer: ByteBuffer(bytes: Array(data))))
            }
        ]
    }
}
