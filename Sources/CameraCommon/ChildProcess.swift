#if canImport(Glibc)
    import Glibc
#endif

/// Runs a command line tool directly (posix_spawn, no shell) and waits for it: espeak-ng for
/// speech, the command lines the benchmark times.
public enum ChildProcess {
    public struct Exit: Sendable {
        public var status: Int32
        /// Peak resident memory of the child, kilobytes.
        public var peakKilobytes: Int
    }

    /// Runs `command` (looked up on PATH) with standard output, and standard error when
    /// `silenceErrors`, sent to /dev/null. The child gets no other descriptor of ours: a daemon it
    /// leaves behind (pg_ctl's postmaster) must not hold our pipes or sockets open.
    ///
    /// - Throws: ``MediaError`` `unsupported` when the program cannot be started.
    public static func run(_ command: [String], silenceErrors: Bool = false) throws(MediaError) -> Exit {
        guard let program = command.first else {
            throw MediaError(.invalidArgument, operation: "run a program", message: "no program given")
        }
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        if silenceErrors { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
        _ = closeFrom.map { $0(&actions, 3) }
        let spawned = posix_spawnp(&pid, program, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw MediaError(
                .unsupported, operation: "run \(program)",
                message: "could not start: \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0, errno == EINTR {}
        return Exit(status: status, peakKilobytes: Int(usage.ru_maxrss))
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the Glibc module
    /// does not import; nil on an older C library, where children inherit what is not close-on-exec.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? =
        {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
            else { return nil }
            return unsafeBitCast(
                symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }()
}
