import CameraCommon
import Foundation
import HTTPTypes
import Hummingbird
import WatchBoxKit

struct Credentials: Decodable {
    var email: String
    var password: String
}

struct AppleSignIn: Decodable {
    var identityToken: String
}

struct SignInOptions: Encodable {
    /// The Services ID and return page for Apple's web sign-in, or nil when not configured.
    var apple: [String: String]?
}

struct VerifyRequest: Decodable {
    var token: String
}

struct PasswordChange: Decodable {
    var currentPassword: String
    var newPassword: String
}

struct AccountDeletion: Decodable {
    /// The account's password; accounts without one (Sign in with Apple) send `confirm: "delete"`.
    var password: String?
    var confirm: String?
}

struct RefreshRequest: Decodable {
    var refreshToken: String?
}

extension CameraCoreServer {
    var authRoutes: [Route] {
        [
            Route(method: .post, path: "/api/auth/signup", access: .anyone, summary: "Create an account") {
                request, context in
                try self.limitSignIn(context)
                let body = try await decode(Credentials.self, from: request, context: context)
                return try self.signedIn(
                    try await self.auth.signUp(email: body.email, password: body.password), .created, context: context)
            },
            Route(method: .post, path: "/api/auth/login", access: .anyone, summary: "Sign in with e-mail and password")
            {
                request, context in
                try self.limitSignIn(context)
                let body = try await decode(Credentials.self, from: request, context: context)
                return try self.signedIn(
                    try await self.auth.logIn(email: body.email, password: body.password), context: context)
            },
            Route(
                method: .get, path: "/api/auth/options", access: .anyone,
                summary: "How to sign in here: Sign in with Apple on the web when configured"
            ) { _, _ in
                var apple: [String: String]?
                if let client = self.configuration.appleWebClientID,
                    let redirect = self.configuration.appleWebRedirectURI
                {
                    apple = ["clientID": client, "redirectURI": redirect]
                }
                return try json(SignInOptions(apple: apple))
            },
            Route(method: .post, path: "/api/auth/apple", access: .anyone, summary: "Sign in with Apple") {
                request, context in
                try self.limitSignIn(context)
                let body = try await decode(AppleSignIn.self, from: request, context: context)
                return try self.signedIn(
                    try await self.auth.signInWithApple(identityToken: body.identityToken), context: context)
            },
            Route(
                method: .post, path: "/api/auth/refresh", access: .anyone,
                summary: "New tokens for a refresh token (body or cookie)"
            ) { request, context in
                let body = try? await decode(RefreshRequest.self, from: request, context: context)
                guard let token = body?.refreshToken ?? request.cookies[Self.refreshCookie]?.value else {
                    throw APIError(.unauthorized, "no refresh token")
                }
                return try self.signedIn(try await self.auth.refresh(token), context: context)
            },
            Route(method: .post, path: "/api/auth/logout", access: .user, summary: "Sign out (revokes the session)") {
                _, context in
                try await self.auth.logOut(sessionID: context.sessionID ?? "")
                return self.clearingCookies(Response(status: .noContent))
            },
            Route(
                method: .post, path: "/api/auth/logout-all", access: .user,
                summary: "Sign out everywhere (every session of the account, this one too)"
            ) { _, context in
                try await self.auth.logOutEverywhere(userID: try context.user())
                return self.clearingCookies(Response(status: .noContent))
            },
            Route(
                method: .post, path: "/api/auth/password", access: .user,
                summary: "Change the password (current one required); other sessions end"
            ) { request, context in
                try self.limitSignIn(context)
                let body = try await decode(PasswordChange.self, from: request, context: context)
                do {
                    try await self.auth.changePassword(
                        userID: try context.user(), sessionID: context.sessionID ?? "", current: body.currentPassword,
                        new: body.newPassword)
                } catch AuthError.wrongCredentials {
                    throw APIError(.forbidden, "currentPassword: that is not your current password")
                }
                return Response(status: .noContent)
            },
            Route(
                method: .delete, path: "/api/me", access: .user,
                summary: "Delete the account with its clips, reels, workouts and cameras"
            ) { request, context in
                try self.limitSignIn(context)
                let body = try await decode(AccountDeletion.self, from: request, context: context)
                let userID = try context.user()
                if let stored = try await self.auth.passwordHash(userID: userID) {
                    guard try await self.auth.verify(password: body.password ?? "", hash: stored) else {
                        throw APIError(.forbidden, "password: that is not your password; the account was not deleted")
                    }
                } else if body.confirm != "delete" {
                    throw APIError(.badRequest, "confirm: send \"delete\" to delete an account without a password")
                }
                try await self.deleteAccount(userID: userID)
                return self.clearingCookies(Response(status: .noContent))
            },
            Route(
                method: .post, path: "/api/auth/verify", access: .anyone,
                summary: "Confirm the account's e-mail address with the token sent to it"
            ) { request, context in
                try self.limitSignIn(context)
                let body = try await decode(VerifyRequest.self, from: request, context: context)
                do {
                    return try json(try await self.auth.verifyEmail(secret: body.token))
                } catch is AuthError {
                    throw APIError(.badRequest, "token: not a pending verification (already used or mistyped)")
                }
            },
            Route(
                method: .post, path: "/api/auth/verify/resend", access: .user,
                summary: "Mail a new confirmation code to the account's address (the old one stops working)"
            ) { _, context in
                let userID = try context.user()
                try self.resendLimiter.check(userID, refusal: "a code was sent a moment ago")
                try self.resendDailyLimiter.check(userID, refusal: "five codes were sent today, the most in a day")
                guard let email = try await self.auth.resendVerification(userID: userID) else {
                    throw APIError(.conflict, "this account's e-mail address is confirmed already")
                }
                return try json(["sentTo": email], status: .accepted)
            },
            Route(method: .get, path: "/api/me", access: .user, summary: "The signed-in user") { _, context in
                guard let user = try await self.store.user(id: try context.user()) else {
                    throw APIError(.unauthorized, "the account no longer exists")
                }
                return try json(user)
            },
        ]
    }

    static let refreshCookie = "cc_refresh"

    /// `response` with both session cookies removed, each at the path it was set at (or the browser
    /// keeps it).
    func clearingCookies(_ response: Response) -> Response {
        var response = response
        for (name, path) in [(Self.sessionCookie, "/"), (Self.refreshCookie, "/api/auth")] {
            response.setCookie(Cookie(name: name, value: "", maxAge: 0, path: path, httpOnly: true, sameSite: .strict))
        }
        return response
    }

    /// Ends the account's sessions and live views, then removes its cameras' passwords, its files
    /// and its rows.
    func deleteAccount(userID: String) async throws {
        try await auth.logOutEverywhere(userID: userID)
        let cameras = try await ServerCameraRepository(database: store.database, userID: userID).cameras()
        for camera in cameras {
            try self.cameras.credentials.removePassword(for: camera.id)
            self.cameras.stopRecording(camera.id, deleting: true)
            self.cameras.restart(camera.id)
        }
        try await store.deleteUser(userID: userID)
        for folder in ["clips", "reels", "workouts"] {
            try? FileManager.default.removeItem(atPath: files.root + "/\(folder)/\(userID)")
        }
    }

    func limitSignIn(_ context: AppContext) throws {
        try signInLimiter.check(context.clientAddress, refusal: "too many sign-in attempts")
    }

    /// The tokens as JSON (apps) and as HttpOnly, SameSite=Strict cookies (the web UI), `Secure`
    /// when the page was reached over HTTPS.
    func signedIn(_ tokens: SessionTokens, _ status: HTTPResponse.Status = .ok, context: AppContext) throws -> Response
    {
        var response = try json(tokens, status: status)
        let secure = configuration.secureCookies || context.isHTTPS
        response.setCookie(
            Cookie(
                name: Self.sessionCookie, value: tokens.accessToken, maxAge: Int(configuration.accessTokenSeconds),
                path: "/", secure: secure, httpOnly: true, sameSite: .strict))
        response.setCookie(
            Cookie(
                name: Self.refreshCookie, value: tokens.refreshToken, maxAge: Int(configuration.refreshTokenSeconds),
                path: "/api/auth", secure: secure, httpOnly: true, sameSite: .strict))
        return response
    }
}
