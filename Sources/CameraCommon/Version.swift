/// The version of the CameraCore package, as the command lines print it (`--version`).
public let cameraCoreVersion = "0.1.0"
