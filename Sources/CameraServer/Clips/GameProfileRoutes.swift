import CGameKit
import CameraCommon
import CameraIO
import Foundation
import HTTPTypes
import Hummingbird

#if canImport(Glibc)
    import Glibc
#endif

/// A game the user taught CGame in the web app: what the game writes when it announces an event,
/// and where on the screen (found by ``RegionCalibrator`` in a screenshot or a short recording).
struct TaughtGame: Codable {
    var name: String
    /// The words the game writes ("you fragged", "eliminated").
    var keyword: String
    var region: NormalizedRect
    /// The event's name in clips ("Kill" unless given).
    var event: String?
}

/// What the calibration found, for the page to draw and the user to accept or redraw.
struct CalibrationAnswer: Encodable {
    var keyword: String
    var region: NormalizedRect
    var alignment: String?
    var sightings: [RegionCalibrator.Sighting]
    var framesScanned: Int
    var mediaSeconds: Double
}

extension CameraCoreServer {
    /// Uploads for calibration: a screenshot, or a recording of which the first minute is read.
    static let maxCalibrationBytes = 64 * 1024 * 1024
    /// Games one account may teach.
    static let maxTaughtGames = 20

    var gameProfileRoutes: [Route] {
        [
            Route(
                method: .post, path: "/api/profiles/calibrate", access: .user,
                summary:
                    "Find where a game writes ?keyword= in an uploaded screenshot (PNG, JPEG) or recording (MP4, WebM): the proposed region and what was read (422 when never read)"
            ) { request, context in
                let user = try context.user()
                let keyword = try Self.keyword(request.uri.queryParameters.get("keyword").map { String($0) } ?? "")
                let folder = self.files.workouts(userID: user)
                let upload = folder + "/.calibration-\(UUID().uuidString.lowercased())"
                defer { unlink(upload) }
                _ = try await self.files.receive(
                    request.body, to: upload, limit: Self.maxCalibrationBytes,
                    accept: { path in
                        try await self.workers.run(user: user) {
                            ClipFiles.isVideo(path, options: .uploadedVideoOrPicture)
                        }
                    },
                    refusal: "the upload is not a PNG or JPEG screenshot, nor an MP4, QuickTime or WebM recording")
                let result: RegionCalibrator.Result
                do {
                    result = try await self.workers.run(user: user) { () throws(MediaError) in
                        try RegionCalibrator.scan(
                            .file(upload), keyword: keyword, interval: 2, maxFrames: 30,
                            readerOptions: .uploadedVideoOrPicture)
                    }
                } catch let error as MediaError {
                    throw APIError(.badRequest, "the upload could not be read: \(error.message)")
                }
                guard let region = result.region else {
                    let frames = result.framesScanned == 1 ? "the picture" : "\(result.framesScanned) frames"
                    throw APIError(
                        .unprocessableContent,
                        "\"\(keyword)\" was not read in \(frames); check the words against what the game shows, "
                            + "and use a picture taken while the message is on screen")
                }
                return try json(
                    CalibrationAnswer(
                        keyword: keyword, region: region, alignment: result.alignment,
                        sightings: Array(result.sightings.prefix(12)), framesScanned: result.framesScanned,
                        mediaSeconds: result.mediaSeconds))
            },
            Route(
                method: .post, path: "/api/profiles", access: .user,
                summary:
                    "Save a game taught from a screenshot: {name, keyword, region: {x, y, width, height}, event?} (replaces the user's game of that name)"
            ) { request, context in
                let user = try context.user()
                let taught = try await decode(TaughtGame.self, from: request, context: context)
                let (id, profile) = try Self.profile(taught)
                let mine = try await self.store.gameProfiles(userID: user)
                if let other = mine.first(where: { $0.id == id }), other.profile.name != profile.name {
                    throw APIError(
                        .conflict,
                        "name: \"\(other.profile.name)\" has a name too like this one; choose another or delete it first"
                    )
                }
                guard mine.contains(where: { $0.id == id }) || mine.count < Self.maxTaughtGames else {
                    throw APIError(.conflict, "at most \(Self.maxTaughtGames) games per account; delete one first")
                }
                try await self.store.saveGameProfile(profile, id: id, userID: user)
                return try json(GameChoice(profile, id: id), status: .created)
            },
            Route(
                method: .delete, path: "/api/profiles/:id", access: .user,
                summary: "Delete a game the user taught (settings naming it go back to the first shipped game)"
            ) { _, context in
                let user = try context.user()
                let id = try pathID(context)
                guard try await self.store.deleteGameProfile(id: id, userID: user) else {
                    throw APIError(.notFound, "no such game of yours")
                }
                var settings = try await self.store.settings(userID: user)
                if (try? await self.gameProfile(named: settings.gameProfileName, user: user, field: "game")) == nil {
                    settings.gameProfileName = ProfileLibrary.builtIn[0].name
                    try await self.store.saveSettings(settings, userID: user)
                }
                return Response(status: .noContent)
            },
        ]
    }

    /// A keyword to look for: 2–60 characters with a letter or digit, on one line.
    static func keyword(_ text: String) throws -> String {
        let keyword = text.trimmingWhitespace()
        guard keyword.count >= 2, keyword.count <= 60 else {
            throw APIError(.badRequest, "keyword: give the 2–60 characters the game writes, e.g. \"you fragged\"")
        }
        guard !keyword.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
            keyword.contains(where: { $0.isLetter || $0.isNumber })
        else {
            throw APIError(.badRequest, "keyword: must be words on one line (letters or digits)")
        }
        return keyword
    }

    /// The profile a taught game makes, and its id; 400 or 409 naming the field that is wrong.
    static func profile(_ taught: TaughtGame) throws -> (String, GameProfile) {
        let name = taught.name.trimmingWhitespace()
        guard !name.isEmpty, name.count <= 40,
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw APIError(.badRequest, "name: give the game a name of 1–40 characters on one line") }
        guard let id = ProfileLibrary.slug(name) else {
            throw APIError(.badRequest, "name: use at least one letter A–Z or digit")
        }
        if ProfileLibrary.find(name, in: ProfileLibrary.builtIn) != nil {
            throw APIError(.conflict, "name: \(name) is a game CGame already knows; choose another name")
        }
        let keyword = try keyword(taught.keyword)
        let event = (taught.event ?? "Kill").trimmingWhitespace()
        guard !event.isEmpty, event.count <= 20, event.allSatisfy({ $0.isLetter || $0.isNumber || $0 == " " }) else {
            throw APIError(.badRequest, "event: a name of 1–20 letters, e.g. Kill")
        }
        let r = taught.region
        guard [r.x, r.y, r.width, r.height].allSatisfy(\.isFinite), r.x >= 0, r.y >= 0, r.width >= 0.01,
            r.height >= 0.01, r.x + r.width <= 1.0001, r.y + r.height <= 1.0001
        else {
            throw APIError(
                .badRequest, "region: must lie inside the picture (fractions 0–1), at least 1 % wide and high")
        }
        let profile = GameProfile(
            name: name, region: r, events: [.init(type: event, keywords: [keyword])])
        do { try profile.validate(operation: "save game") } catch {
            throw APIError(.badRequest, error.message)
        }
        return (id, profile)
    }

    /// A shipped game by name or alias, else one the user taught; otherwise 400 naming `field` and
    /// the games there are.
    func gameProfile(named name: String, user: String, field: String) async throws -> GameProfile {
        let mine = try await store.gameProfiles(userID: user).map(\.profile)
        let games = ProfileLibrary.readyToUse + mine
        guard let profile = ProfileLibrary.find(name, in: games) else {
            throw APIError(
                .badRequest,
                "\(field): no game called \"\(name.prefix(100))\"; choose one of "
                    + games.map(\.name).joined(separator: ", "))
        }
        return profile
    }
}
