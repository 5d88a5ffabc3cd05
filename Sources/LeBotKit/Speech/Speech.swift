import CameraCommon

/// How a line is spoken: faster and higher after a make, calmer after a miss.
public struct SpeechStyle: Sendable, Equatable {
    public var voice: String
    /// Words per minute.
    public var rate: Int
    /// 0...99.
    public var pitch: Int

    public init(voice: String = "en-us", rate: Int = 170, pitch: Int = 50) {
        self.voice = voice
        self.rate = rate
        self.pitch = pitch
    }

    public static func forOutcome(_ outcome: ShotOutcome, voice: String = "en-us") -> SpeechStyle {
        switch outcome {
        case .make: SpeechStyle(voice: voice, rate: 185, pitch: 62)
        case .miss: SpeechStyle(voice: voice, rate: 155, pitch: 42)
        case .indeterminate: SpeechStyle(voice: voice, rate: 170, pitch: 50)
        }
    }
}

/// Spoken feedback (the spec's AVSpeechSynthesizer role).
public protocol SpeechSynthesizer: Sendable {
    /// Speaks on the audio device.
    func speak(_ text: String, style: SpeechStyle) throws(MediaError)
    /// Writes a WAV file instead.
    func synthesize(_ text: String, style: SpeechStyle, to path: String) throws(MediaError)
}

/// espeak-ng (Debian's `espeak-ng`), run as a child process with the text as one argument, never
/// through a shell.
public struct EspeakSynthesizer: SpeechSynthesizer {
    public var executable: String

    public init(executable: String = "espeak-ng") {
        self.executable = executable
    }

    public func speak(_ text: String, style: SpeechStyle) throws(MediaError) {
        try run(arguments(text, style: style))
    }

    public func synthesize(_ text: String, style: SpeechStyle, to path: String) throws(MediaError) {
        try run(["-w", path] + arguments(text, style: style))
    }

    func arguments(_ text: String, style: SpeechStyle) -> [String] {
        // "--" so a tip that starts with "-" is not read as an option.
        ["-v", style.voice, "-s", String(style.rate), "-p", String(max(0, min(99, style.pitch))), "--", text]
    }

    private func run(_ arguments: [String]) throws(MediaError) {
        let exit: ChildProcess.Exit
        do {
            exit = try ChildProcess.run([executable] + arguments, silenceErrors: true)
        } catch {
            throw MediaError(.unsupported, operation: "speak", message: "\(error.message) (install espeak-ng)")
        }
        guard exit.status == 0 else {
            throw MediaError(.other, operation: "speak", message: "\(executable) failed with status \(exit.status)")
        }
    }
}
