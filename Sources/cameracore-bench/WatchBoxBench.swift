import CameraCommon
import CameraIO
import CameraTestPeers
import CameraTesting
import Foundation
import Synchronization
import WatchBoxKit

#if canImport(Glibc)
    import Glibc
#endif

/// WatchBox's benchmarks against GStreamer's RTSP server on loopback: time to first frame, and
/// 16 streams passed through (no decoding) at once.
enum WatchBoxBench {
    static func run(runs: Int) throws {
        try timeToFirstFrame(runs: max(5, runs * 2))
        try sixteenStreams()
        try discoveryAndScan(runs: max(5, runs * 2))
    }

    /// Inside a namespace pair (no packet leaves the machine): WS-Discovery's time to the first
    /// answer, and a /24 scan with one camera, against nmap's connect scan with and without its
    /// ARP host discovery.
    static func discoveryAndScan(runs: Int) throws {
        guard NetworkNamespacePair.isAvailable else {
            print("| discovery and /24 scan | skipped: needs root and iproute2 for network namespaces | | | |")
            return
        }
        let lab = try NetworkNamespacePair()
        defer { lab.close() }
        let device = ONVIFTestDevice(
            address: NetworkNamespacePair.deviceAddress, port: 80, namespace: lab.device, discovery: true)
        try device.start()
        defer { device.stop() }
        let camera = RTSPTestServer(auth: .digest, port: 554, address: "0.0.0.0", namespace: lab.device)
        try camera.start()
        defer { camera.stop() }
        let watchbox = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("watchbox").path
        let inClient = [NetworkNamespacePair.ip, "netns", "exec", lab.client]

        var firstAnswer: [Double] = []
        var command: [Double] = []
        for _ in 0..<runs {
            let started = Date()
            let output = try Subprocess.run(
                inClient[0], Array(inClient.dropFirst()) + [watchbox, "discover", "--json", "--timeout", "1"])
            command.append(Date().timeIntervalSince(started) * 1000)
            let found = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]] ?? []
            if let device = found.first?["device"] as? [String: Any], let ms = device["milliseconds"] as? Int {
                firstAnswer.append(Double(ms))
            }
        }
        print(
            "| ONVIF discovery in a namespace pair: first answer (\(firstAnswer.count) of \(runs) runs found the camera) | \(format(median(firstAnswer), digits: 0)) ms | | | ≤ 3 s |"
        )
        print(
            "| `watchbox discover --timeout 1` whole command | \(format(median(command), digits: 0)) ms | | | |")

        let ports = PortScanner.defaultPorts.map(String.init).joined(separator: ",")
        let ours = try Measurement.run(inClient + [watchbox, "scan", NetworkNamespacePair.subnet, "--json"])
        let nmap = try Measurement.run(inClient + ["nmap", "-sT", "-n", "-p", ports, NetworkNamespacePair.subnet])
        let nmapNoPing = try Measurement.run(
            inClient + ["nmap", "-sT", "-Pn", "-n", "-p", ports, NetworkNamespacePair.subnet])
        print(
            "| /24 scan, 5 ports, one camera (ours: 64 at a time, 1 s timeout) vs `nmap -sT` (ARP host discovery as root) | \(format(ours.wallSeconds, digits: 1)) s | \(format(nmap.wallSeconds, digits: 1)) s | \(format(ours.wallSeconds / nmap.wallSeconds, digits: 2)) | |"
        )
        print(
            "| same vs `nmap -sT -Pn` (no host discovery: what an unprivileged scanner can do) | \(format(ours.wallSeconds, digits: 1)) s | \(format(nmapNoPing.wallSeconds, digits: 1)) s | \(format(ours.wallSeconds / nmapNoPing.wallSeconds, digits: 2)) | |"
        )
    }

    /// Open + first video packet, ours (low-latency options, in-process) against `ffmpeg -i URL
    /// -frames:v 1 -f null -` (a child process, so it includes ~40 ms of process start).
    static func timeToFirstFrame(runs: Int) throws {
        let server = RTSPTestServer(auth: .digest, width: 1280, height: 720)
        try server.start()
        defer { server.stop() }
        let url = server.url(user: server.user, password: server.password)
        var ours: [Double] = []
        var theirs: [Double] = []
        for _ in 0..<runs {
            let started = Date()
            let reader = try MediaReader(.url(url), options: .lowLatency(timeout: .seconds(5)))
            while let sample = try reader.nextSample(), sample.mediaType != .video {}
            ours.append(Date().timeIntervalSince(started) * 1000)
            reader.close()
            usleep(300_000)  // let the server tear the shared pipeline down, so each run starts cold
            theirs.append(
                try Measurement.run([
                    "ffmpeg", "-v", "error", "-rtsp_transport", "tcp", "-i", url, "-frames:v", "1", "-f", "null", "-",
                ]).wallSeconds * 1000)
            usleep(300_000)
        }
        print("| case | ours (ms, median) | ffmpeg CLI (ms, median) | ratio | goal |")
        print("|---|---|---|---|---|")
        print(
            "| time to first frame, loopback RTSP 720p H.264 with Digest (\(runs) runs) | \(format(median(ours), digits: 0)) | \(format(median(theirs), digits: 0)) | \(format(median(ours) / median(theirs), digits: 2)) | ≤ 300 ms |"
        )
    }

    /// 16 cameras on one shared 720p mount (the server encodes once), read for 10 s without
    /// decoding: our process's CPU time and memory growth per stream.
    static func sixteenStreams() throws {
        let server = RTSPTestServer(auth: .none, width: 1280, height: 720)
        try server.start()
        defer { server.stop() }
        let playing = Mutex<Set<UUID>>([])
        let bytes = Atomic<Int>(0)
        let manager = StreamManager(onState: { id, state in
            if state == .playing { _ = playing.withLock { $0.insert(id) } }
        })
        let ids = (0..<16).map { _ in UUID() }
        for id in ids {
            manager.subscribe(id) { _, sample in bytes.add(sample.data.count, ordering: .relaxed) }
        }
        let memoryBefore = residentBytes()
        for id in ids { manager.start(id, url: server.url()) }
        let deadline = Date().addingTimeInterval(15)
        while playing.withLock({ $0.count }) < 16, Date() < deadline { usleep(50_000) }
        let connected = playing.withLock { $0.count }
        sleep(1)
        let cpuBefore = cpuSeconds()
        let wallBefore = Date()
        bytes.store(0, ordering: .relaxed)
        sleep(10)
        let cpu = cpuSeconds() - cpuBefore
        let wall = Date().timeIntervalSince(wallBefore)
        let memory = Double(residentBytes() - memoryBefore) / 1_048_576
        let megabits = Double(bytes.load(ordering: .relaxed)) * 8 / wall / 1_000_000
        manager.stopAll()
        print(
            "| 16 × 720p streams passed through (\(connected) connected, \(format(megabits, digits: 1)) Mbit/s in total) | \(format(cpu / wall / 16 * 100, digits: 2)) % of a core and \(format(memory / 16, digits: 1)) MB per stream | | | ≤ 3 % and ≤ 8 MB |"
        )
        print("")
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
    }

    static func residentBytes() -> Int { CGameBench.residentBytes() }
}
