import CameraCommon
import FoundationEssentials
import Networking

extension CredentialStore {
    /// The one place a camera's URL meets its password: the stored URL (kept without credentials)
    /// with the camera's user name and the password from this store, for FFmpeg only — never for a
    /// log, an error or an answer.
    ///
    /// - Throws: ``MediaError`` `invalidArgument` when the stored URL is not an `rtsp(s)://` URL,
    ///   or the store's error when the password cannot be read.
    public func playableURL(_ url: String, username: String?, cameraID: UUID) throws(MediaError) -> String {
        guard let parts = StreamURL(url) else {
            throw MediaError(.invalidArgument, operation: "open camera", message: "the camera's URL is not valid")
        }
        return parts.withCredentials(user: username, password: try password(for: cameraID))
    }

    /// ``playableURL(_:username:cameraID:)`` for a stored camera.
    public func playableURL(for camera: Camera) throws(MediaError) -> String {
        try playableURL(camera.rtspURL, username: camera.username, cameraID: camera.id)
    }
}
