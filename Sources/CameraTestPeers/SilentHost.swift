import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP port on 127.0.0.1 that takes connections (the kernel completes the handshake) and never
/// says a word: the camera that hangs, the attacker's host that holds a server's worker forever.
public final class SilentHost: Sendable {
    public let port: Int
    private let descriptor: Int32

    public init() throws {
        (descriptor, port) = try LoopbackPort.listening(backlog: 128)
    }

    public func stop() { close(descriptor) }
}
