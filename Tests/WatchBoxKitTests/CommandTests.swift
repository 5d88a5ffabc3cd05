import CameraTestPeers
import CameraTesting
import Foundation
import Testing

/// Runs `watchbox` with `input` on standard input, inside a network namespace when one is named.
func watchbox(_ arguments: [String], input: String = "", namespace: String? = nil) throws -> (
    status: Int32, stdout: String, stderr: String
) {
    let run = try SiblingTool.run("watchbox", arguments, input: input, namespace: namespace)
    return (run.status, run.stdout, run.stderr)
}

@Suite(.serialized) struct WatchBoxCommandTests {
    @Test func addACheckedCameraThenListItWithoutThePasswordAnywhere() throws {
        let server = RTSPTestServer(auth: .digest)
        try server.start()
        defer { server.stop() }
        let home = try temporaryDirectory()
        let probe = try watchbox(
            ["probe", server.url(), "--user", server.user, "--json"], input: server.password + "\n")
        #expect(probe.status == 0, "\(probe.stderr)")
        #expect(probe.stdout.contains("\"videoCodec\" : \"h264\""))

        let refused = try watchbox(
            ["cameras", "add", "Porch", server.url(), "--user", server.user, "--password-stdin", "--home", home],
            input: "wrong\n")
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("refused"))

        let added = try watchbox(
            ["cameras", "add", "Porch", server.url(), "--user", server.user, "--password-stdin", "--home", home],
            input: server.password + "\n")
        #expect(added.status == 0, "\(added.stderr)")
        let listed = try watchbox(["cameras", "list", "--json", "--home", home])
        #expect(listed.stdout.contains("Porch"))
        for output in [probe.stdout, probe.stderr, added.stdout, added.stderr, listed.stdout, refused.stderr] {
            #expect(!output.contains(server.password))
        }
        let database = try Data(contentsOf: URL(fileURLWithPath: home + "/cameras.sqlite"))
        #expect(database.range(of: Data(server.password.utf8)) == nil)

        let duplicate = try watchbox(["cameras", "add", "Again", server.url(), "--no-check", "--home", home])
        #expect(duplicate.status != 0)
        #expect(duplicate.stderr.contains("Porch already uses"))
        let removed = try watchbox(["cameras", "remove", "Porch", "--home", home])
        #expect(removed.status == 0)
        #expect(try watchbox(["cameras", "list", "--home", home]).stdout.contains("No cameras yet"))
    }

    @Test func snapshotRecordAndWatchUseTheStoredPassword() throws {
        let server = RTSPTestServer(auth: .digest, width: 640, height: 360)
        try server.start()
        defer { server.stop() }
        let home = try temporaryDirectory()
        let added = try watchbox(
            ["cameras", "add", "Lab", server.url(), "--user", server.user, "--password-stdin", "--home", home],
            input: server.password + "\n")
        #expect(added.status == 0, "\(added.stderr)")

        let snapshot = try watchbox(["snapshot", "Lab", "-o", home + "/lab.jpg", "--width", "320", "--home", home])
        #expect(snapshot.status == 0, "\(snapshot.stderr)")
        #expect(FileManager.default.fileExists(atPath: home + "/lab.jpg"))

        let record = try watchbox([
            "record", "Lab", "--for", "3.5s", "--segment", "1", "-o", home + "/rec", "--home", home,
        ])
        #expect(record.status == 0, "\(record.stderr)")
        let segments = try FileManager.default.contentsOfDirectory(atPath: home + "/rec").filter {
            $0.hasSuffix(".mp4")
        }
        #expect(segments.count >= 2, "\(record.stdout)")

        let watch = try watchbox(["watch", "--for", "3s", "--json", "--home", home])
        #expect(watch.status == 0, "\(watch.stderr)")
        #expect(watch.stdout.contains("\"state\" : \"playing\""), "\(watch.stdout)")
        for output in [snapshot, record, watch] {
            #expect(!output.stdout.contains(server.password) && !output.stderr.contains(server.password))
        }
    }
}
