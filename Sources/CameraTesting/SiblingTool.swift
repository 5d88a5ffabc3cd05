import Foundation

/// Runs one of the package's command-line tools, built next to the test bundle, the way a user
/// would: arguments, text on standard input, and what it printed.
public enum SiblingTool {
    public typealias Result = Subprocess.Output

    /// The built executable `name` (e.g. `watchbox`) beside the running tests.
    public static func path(_ name: String) -> String {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if folder.path.hasSuffix(".xctest") { folder = folder.deletingLastPathComponent() }
        return folder.appendingPathComponent(name).path
    }

    /// Runs `name` with `arguments`; `input` goes to standard input (none: an empty stream). With
    /// `namespace`, the tool runs inside that network namespace (`ip netns exec`).
    public static func run(
        _ name: String, _ arguments: [String], input: String? = nil, namespace: String? = nil
    ) throws -> Result {
        if let namespace {
            return try Subprocess.run(
                "ip", ["netns", "exec", namespace, path(name)] + arguments, input: input,
                check: false)
        }
        return try Subprocess.run(path(name), arguments, input: input, check: false)
    }

    /// ``run(_:_:input:namespace:)`` waited for on a thread of its own. A test whose servers the tool
    /// talks to must not hold one of Swift's few cooperative threads while it waits: on two cores
    /// that left the servers one thread and the tool's requests timed out.
    public static func detached(_ name: String, _ arguments: [String], input: String? = nil) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Swift.Result { try run(name, arguments, input: input) })
            }
        }
    }
}
