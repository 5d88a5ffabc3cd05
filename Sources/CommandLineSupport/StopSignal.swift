import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Ctrl-C (SIGINT) and SIGTERM ask a long-running command to stop cleanly (save what it has); a
/// second signal exits at once.
public enum StopSignal {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Calls `handler` on the first SIGINT or SIGTERM. Call once, from the main thread.
    public static func install(_ handler: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "stop-signal")
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            nonisolated(unsafe) var count = 0
            source.setEventHandler {
                count += 1
                if count > 1 { _exit(130) }
                Terminal.status("stopping… (again to quit now)")
                handler()
            }
            source.resume()
            sources.append(source)
        }
    }
}
