import Foundation

/// Runs one of the package's command-line tools, built next to the test bundle, the way a user
/// would: arguments, text on standard input, and what it printed.
public enum SiblingTool {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

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
        let process = Process()
        if let namespace {
            process.executableURL = URL(fileURLWithPath: NetworkNamespacePair.ip)
            process.arguments = ["netns", "exec", namespace, path(name)] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: path(name))
            process.arguments = arguments
        }
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self))
    }
}
