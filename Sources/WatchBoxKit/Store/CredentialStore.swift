import CameraCommon
import CameraIO
import Crypto
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Where camera passwords live (the spec's KeychainService): never in the camera database.
public protocol CredentialStore: Sendable {
    func setPassword(_ password: String, for cameraID: UUID) throws(MediaError)
    func password(for cameraID: UUID) throws(MediaError) -> String?
    func removePassword(for cameraID: UUID) throws(MediaError)
}

/// Passwords sealed with AES-256-GCM in `credentials.sealed`, under a random key in
/// `credentials.key`, a separate file created with mode 0600 (owner read/write only). A key file
/// anyone else can read is refused, as ssh refuses a readable private key. Every write seals the
/// whole table afresh with a new nonce and replaces the file atomically.
///
/// This is the Linux stand-in for the Keychain: it keeps passwords out of the database, backups
/// of it, logs and `--json` output, and unreadable without the key file.
public final class FileCredentialStore: CredentialStore {
    public let directory: String
    private let keyBytes: [UInt8]
    private var key: SymmetricKey { SymmetricKey(data: keyBytes) }
    private let lock = Mutex(())

    public var sealedPath: String { directory + "/credentials.sealed" }
    public var keyPath: String { directory + "/credentials.key" }

    /// Opens the store in `directory`, creating the folder (mode 0700) and the key on first use.
    ///
    /// - Throws: ``MediaError`` `writeFailed` when the folder or key cannot be created;
    ///   `invalidData` when the key file is not 32 bytes or others can read it.
    public init(directory: String) throws(MediaError) {
        self.directory = directory
        let operation = "open credential store \(directory)"
        mkdir(directory, 0o700)
        let keyPath = directory + "/credentials.key"
        let descriptor = open(keyPath, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if descriptor >= 0 {
            let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { [UInt8]($0) }
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            fsync(descriptor)
            close(descriptor)
            guard written == 32 else {
                unlink(keyPath)
                throw MediaError(.writeFailed, operation: operation, message: "cannot write the key file")
            }
        } else if errno != EEXIST {
            throw MediaError(.writeFailed, operation: operation, message: "cannot create the key file (errno \(errno))")
        }
        var status = stat()
        guard stat(keyPath, &status) == 0 else {
            throw MediaError(.notFound, operation: operation, message: "the key file is missing")
        }
        guard status.st_mode & 0o077 == 0 else {
            throw MediaError(
                .invalidData, operation: operation,
                message:
                    "\(keyPath) can be read by other users (mode \(String(status.st_mode & 0o777, radix: 8))); run chmod 600 on it"
            )
        }
        guard let data = FileManager.default.contents(atPath: keyPath), data.count == 32 else {
            throw MediaError(.invalidData, operation: operation, message: "the key file is not a 256-bit key")
        }
        keyBytes = [UInt8](data)
    }

    public func setPassword(_ password: String, for cameraID: UUID) throws(MediaError) {
        try lock.withLock { _ throws(MediaError) in
            var table = try load()
            table[cameraID.uuidString] = password
            try save(table)
        }
    }

    public func password(for cameraID: UUID) throws(MediaError) -> String? {
        try lock.withLock { _ throws(MediaError) in try load()[cameraID.uuidString] }
    }

    /// The cameras that have a password stored, from one read of the sealed file (for lists that
    /// only show whether a password is set).
    public func camerasWithPasswords() throws(MediaError) -> Set<UUID> {
        try lock.withLock { _ throws(MediaError) in Set(try load().keys.compactMap { UUID(uuidString: $0) }) }
    }

    public func removePassword(for cameraID: UUID) throws(MediaError) {
        try lock.withLock { _ throws(MediaError) in
            var table = try load()
            guard table.removeValue(forKey: cameraID.uuidString) != nil else { return }
            try save(table)
        }
    }

    private func load() throws(MediaError) -> [String: String] {
        guard let sealed = FileManager.default.contents(atPath: sealedPath) else { return [:] }
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            let plain = try AES.GCM.open(box, using: key)
            return try JSONDecoder().decode([String: String].self, from: plain)
        } catch {
            // Never echo the contents: say which file and what to do.
            throw MediaError(
                .invalidData, operation: "read credentials",
                message: "\(sealedPath) cannot be opened with \(keyPath) (wrong key or damaged file)")
        }
    }

    private func save(_ table: [String: String]) throws(MediaError) {
        let sealed: Data
        do {
            let plain = try JSONEncoder().encode(table)
            guard let combined = try AES.GCM.seal(plain, using: key).combined else {
                throw MediaError(.other, operation: "save credentials", message: "sealing failed")
            }
            sealed = combined
        } catch {
            throw MediaError(.other, operation: "save credentials", message: "sealing failed")
        }
        try AtomicFile.write([UInt8](sealed), to: sealedPath)
        chmod(sealedPath, 0o600)
    }
}
