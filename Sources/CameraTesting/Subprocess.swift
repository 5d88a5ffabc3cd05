import Foundation

/// Runs a command line tool (ffmpeg, ffprobe, tesseract) for tests and benchmarks.
public enum Subprocess {
    public struct Output: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs `executable` and returns its standard output as bytes (for raw video or images).
    public static func runBinary(_ executable: String, _ arguments: [String]) throws -> [UInt8] {
        let (output, bytes) = try launch(executable, arguments)
        if output.status != 0 {
            throw SubprocessError(command: ([executable] + arguments).joined(separator: " "), output: output)
        }
        return bytes
    }

    /// Runs `executable` (looked up on PATH) with `arguments` and waits for it.
    /// `input` goes to its standard input (nil: an empty stream).
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], input: String? = nil, check: Bool = true)
        throws -> Output
    {
        let (output, _) = try launch(executable, arguments, input: input)
        if check && output.status != 0 {
            throw SubprocessError(command: ([executable] + arguments).joined(separator: " "), output: output)
        }
        return output
    }

    /// An absolute `executable` runs as it is; a bare name is looked up on PATH.
    private static func launch(_ executable: String, _ arguments: [String], input: String? = nil) throws -> (
        Output, [UInt8]
    ) {
        let process = Process()
        if executable.hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        let outPipe = Pipe()
        let errPipe = Pipe()
        let inPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = input == nil ? FileHandle.nullDevice : inPipe
        try process.run()
        if let input {
            inPipe.fileHandleForWriting.write(Data(input.utf8))
            try inPipe.fileHandleForWriting.close()
        }
        // Read both pipes concurrently so neither fills up and blocks the child.
        let errors = DataBox()
        let done = DispatchSemaphore(value: 0)
        let errHandle = errPipe.fileHandleForReading
        DispatchQueue.global().async {
            errors.data = errHandle.readDataToEndOfFile()
            done.signal()
        }
        let outData = outPipe.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        process.waitUntilExit()
        let output = Output(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errors.data, as: UTF8.self))
        return (output, [UInt8](outData))
    }
}

/// A tool exited with a non-zero status.
public struct SubprocessError: Error, CustomStringConvertible {
    public let command: String
    public let output: Subprocess.Output
    public var description: String { "\(command) exited with \(output.status): \(output.stderr.suffix(2000))" }
}

/// Bytes handed from the stderr reader to the waiting thread; the semaphore orders the accesses.
private final class DataBox: @unchecked Sendable {
    var data = Data()
}
