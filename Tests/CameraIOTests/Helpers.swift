import Foundation

func fileExists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

func listFolder(_ path: String) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: path) }

func fileSize(_ path: String) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
}

func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

func readFile(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Seconds since an arbitrary point, for timing bounds in tests.
func now() -> Double { ProcessInfo.processInfo.systemUptime }
