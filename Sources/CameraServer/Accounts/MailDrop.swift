import CameraCommon
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where the server's e-mail goes: a Maildir (`mail/tmp`, `mail/new`, `mail/cur`) in the data
/// directory, one RFC 5322 message per file, readable only by the server's user. A mail transfer
/// agent (or `mutt -f data/mail`) takes it from there; the secrets in it never reach the log.
struct MailDrop: Sendable {
    let folder: String
    /// `https://cams.example.com`: links in mail start with it. Without it mail carries the code
    /// only: a link built from the request's `Host` would let anyone who signs up with someone
    /// else's address send them a link to a site of the sender's choosing.
    let publicURL: String?

    init(dataDirectory: String, publicURL: String?) {
        folder = dataDirectory + "/mail"
        self.publicURL = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    }

    struct Message: Sendable, Equatable {
        var to: String
        var subject: String
        var body: String
    }

    /// The message asking `email` to confirm it, with `secret` as code and (with a public URL) link.
    func verification(to email: String, secret: String) -> Message {
        var lines = [
            "Someone (we hope you) made a CameraCore account with this address.",
            "",
        ]
        if let publicURL {
            lines += ["To confirm it, open:", "", "  \(publicURL)/#verify=\(secret)", "", "or paste this code"]
        } else {
            lines += ["To confirm it, paste this code"]
        }
        lines += [
            "in the banner at the top of Settings:", "", "  \(secret)", "",
            "If it was not you, ignore this mail: the account cannot link your Apple ID until the",
            "address is confirmed.",
        ]
        return Message(
            to: email, subject: "Confirm your e-mail address for CameraCore",
            body: lines.joined(separator: "\r\n") + "\r\n")
    }

    /// Writes `message` into `new/` (through `tmp/`, so a reader never sees half of it) and returns
    /// the file's path.
    ///
    /// - Throws: ``MediaError`` naming the folder that could not be written, or the header field
    ///   that held a control character (a line break would start a header of the sender's own).
    @discardableResult
    func send(_ message: Message, now: Date = Date()) throws(MediaError) -> String {
        let operation = "write mail"
        for (name, value) in [("To", message.to), ("Subject", message.subject)]
        where value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw MediaError(.invalidArgument, operation: operation, message: "\(name): holds a control character")
        }
        for sub in ["tmp", "new", "cur"] {
            let path = folder + "/" + sub
            guard (try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)) != nil
            else { throw MediaError(.writeFailed, operation: operation, message: "cannot create \(path)") }
            chmod(path, 0o700)
        }
        chmod(folder, 0o700)
        let unique = "\(Int(now.timeIntervalSince1970)).\(UUID().uuidString.lowercased()).cameracore"
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        let text = [
            "From: CameraCore <no-reply@cameracore.invalid>",
            "To: <\(message.to)>",
            "Subject: \(message.subject)",
            "Date: \(formatter.string(from: now))",
            "Message-ID: <\(unique)@cameracore.invalid>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: 8bit",
            "",
            message.body,
        ].joined(separator: "\r\n")
        let temporary = folder + "/tmp/" + unique
        let final = folder + "/new/" + unique + ".eml"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw MediaError(.writeFailed, operation: operation, message: "cannot create \(temporary)")
        }
        let bytes = Array(text.utf8)
        let written = write(descriptor, bytes, bytes.count)
        close(descriptor)
        guard written == bytes.count, rename(temporary, final) == 0 else {
            unlink(temporary)
            throw MediaError(.writeFailed, operation: operation, message: "cannot write \(final)")
        }
        return final
    }
}
