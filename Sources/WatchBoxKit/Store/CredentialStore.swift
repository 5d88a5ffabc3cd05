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

/// Passwords sealed with AES-256-GCM, one file per camera (`<camera id>.sealed`, the camera id
/// bound in as authenticated data so a file moved to another camera's name does not open), under
/// a random key in `credentials.key`, a separate file created with mode 0600 (owner read/write
/// only). A key file anyone else can read is refused, as ssh refuses a readable private key. Each
/// write replaces one camera's file atomically; passwords once opened are kept in memory, so lists,
/// snapshots and live views do not decrypt anything, and one user's many or long passwords cost
/// nothing to another user's requests.
///
/// This is the Linux stand-in for the Keychain: it keeps passwords out of the database, backups
/// of it, logs and `--json` output, and unreadable without the key file.
public final class FileCredentialStore: CredentialStore {
    public let directory: String
    private let keyBytes: [UInt8]
    private var key: SymmetricKey { SymmetricKey(data: keyBytes) }
    /// Opened passwords by camera with the file's identity when read (nil: no file), so a change
    /// made by another process (the CLI beside the server) is noticed with one `stat`.
    private let cache = Mutex<[UUID: (password: String?, stamp: FileStamp?)]>([:])

    struct FileStamp: Equatable {
        var inode: UInt64
        var modified: Int
        var size: Int
    }

    private func stamp(_ path: String) -> FileStamp? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return FileStamp(
            inode: UInt64(status.st_ino), modified: status.st_mtim.tv_sec * 1_000_000_000 + status.st_mtim.tv_nsec,
            size: Int(status.st_size))
    }
    private let lock = Mutex(())

    public var keyPath: String { directory + "/credentials.key" }

    /// Where one camera's sealed password lives.
    public func sealedPath(for cameraID: UUID) -> String {
        directory + "/" + cameraID.uuidString.lowercased() + ".sealed"
    }

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
        try migrateTable()
    }

    public func setPassword(_ password: String, for cameraID: UUID) throws(MediaError) {
        try lock.withLock { _ throws(MediaError) in
            try save(password, for: cameraID)
            let stamp = stamp(sealedPath(for: cameraID))
            cache.withLock { $0[cameraID] = (password, stamp) }
        }
    }

    public func password(for cameraID: UUID) throws(MediaError) -> String? {
        let path = sealedPath(for: cameraID)
        let current = stamp(path)
        if let cached = cache.withLock({ $0[cameraID] }), cached.stamp == current { return cached.password }
        return try lock.withLock { _ throws(MediaError) in
            let password = try load(cameraID)
            cache.withLock { $0[cameraID] = (password, current) }
            return password
        }
    }

    /// The cameras that have a password stored, from the folder's listing (nothing is decrypted).
    public func camerasWithPasswords() throws(MediaError) -> Set<UUID> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return Set(
            names.compactMap { name in name.hasSuffix(".sealed") ? UUID(uuidString: String(name.dropLast(7))) : nil })
    }

    public func removePassword(for cameraID: UUID) throws(MediaError) {
        lock.withLock { _ in
            unlink(sealedPath(for: cameraID))
            cache.withLock { $0[cameraID] = (nil, nil) }
        }
    }

    /// Splits the single `credentials.sealed` table of earlier versions into one file per camera.
    private func migrateTable() throws(MediaError) {
        let tablePath = directory + "/credentials.sealed"
        guard let sealed = FileManager.default.contents(atPath: tablePath) else { return }
        let table: [String: String]
        do {
            let plain = try AES.GCM.open(try AES.GCM.SealedBox(combined: sealed), using: key)
            table = try JSONDecoder().decode([String: String].self, from: plain)
        } catch {
            throw MediaError(
                .invalidData, operation: "read credentials",
                message: "\(tablePath) cannot be opened with \(keyPath) (wrong key or damaged file)")
        }
        for (id, password) in table {
            if let cameraID = UUID(uuidString: id) { try save(password, for: cameraID) }
        }
        unlink(tablePath)
    }

    private func load(_ cameraID: UUID) throws(MediaError) -> String? {
        let path = sealedPath(for: cameraID)
        guard let sealed = FileManager.default.contents(atPath: path) else { return nil }
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            let plain = try AES.GCM.open(box, using: key, authenticating: Data(cameraID.uuidString.lowercased().utf8))
            return String(decoding: plain, as: UTF8.self)
        } catch {
            // Never echo the contents: say which file and what to do.
            throw MediaError(
                .invalidData, operation: "read credentials",
                message: "\(path) cannot be opened with \(keyPath) (wrong key, damaged file or another camera's file)")
        }
    }

    private func save(_ password: String, for cameraID: UUID) throws(MediaError) {
        let path = sealedPath(for: cameraID)
        let sealed: Data
        do {
            guard
                let combined = try AES.GCM.seal(
                    Data(password.utf8), using: key, authenticating: Data(cameraID.uuidString.lowercased().utf8)
                ).combined
            else {
                throw MediaError(.other, operation: "save credentials", message: "sealing failed")
            }
            sealed = combined
        } catch {
            throw MediaError(.other, operation: "save credentials", message: "sealing failed")
        }
        try AtomicFile.write([UInt8](sealed), to: path)
        chmod(path, 0o600)
    }
}
