extension MediaError {
    /// A decoding failure of a user's JSON file (a project, an effect stack, a profile) as an
    /// `invalidArgument` error naming the field: `missing field "amount" in layers[0].filter`.
    public init(decoding error: DecodingError, operation: String) {
        self.init(.invalidArgument, operation: operation, message: Self.describe(error))
    }

    /// What was wrong with a JSON document, naming the field: the one describer for files, request
    /// bodies and configuration.
    public static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let parts = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }
            let joined = parts.joined()
            return joined.hasPrefix(".") ? String(joined.dropFirst()) : joined
        }
        switch error {
        case .keyNotFound(let key, let context):
            let at = path(context)
            return "missing field \"\(key.stringValue)\"\(at.isEmpty ? "" : " in \(at)")"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong type at \(path(context)): \(context.debugDescription)"
        case .dataCorrupted(let context):
            let at = path(context)
            return at.isEmpty
                ? "not valid JSON: \(context.debugDescription)" : "bad value at \(at): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
