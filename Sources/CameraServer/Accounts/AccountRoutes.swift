import CameraCommon
import Foundation
import HTTPTypes
import Hummingbird

struct Credentials: Decodable {
    var email: String
    var password: String
}

struct AppleSignIn: Decodable {
    var identityToken: String
}

struct VerifyRequest: Decodable {
    var token: String
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
                var response = Response(status: .noContent)
                // Each cookie cleared at the path it was set at, or the browser keeps it.
                for (name, path) in [(Self.sessionCookie, "/"), (Self.refreshCookie, "/api/auth")] {
                    response.setCookie(
                        Cookie(name: name, value: "", maxAge: 0, path: path, httpOnly: true, sameSite: .strict))
                }
                return response
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
            Route(method: .get, path: "/api/me", access: .user, summary: "The signed-in user") { _, context in
                guard let user = try await self.store.user(id: try context.user()) else {
                    throw APIError(.unauthorized, "the account no longer exists")
                }
                return try json(user)
            },
        ]
    }

    static let refreshCookie = "cc_refresh"

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
