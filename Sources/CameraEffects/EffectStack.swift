import CameraCommon
import CameraIO
import CameraTransform
import FoundationEssentials

/// An effect stack saved as JSON: the layers bottom to top with their settings, so an edit can be
/// saved, reloaded and applied to other videos (`cameracore effects --stack stack.json`).
///
/// ```json
/// {"layers": [
///   {"type": "filter", "filter": {"kind": "sepia", "amount": 0.8, "radius": 0.5}},
///   {"type": "text", "text": {"text": "GG!", "size": 0.08, "color": "#FFCC00"}, "zIndex": 2}
/// ]}
/// ```
public struct EffectStackConfiguration: Sendable, Codable, Equatable {
    public var layers: [LayerConfiguration]

    public init(layers: [LayerConfiguration]) { self.layers = layers }

    /// One layer: its type, the settings for that type, and its place in the stack.
    public struct LayerConfiguration: Sendable, Codable, Equatable {
        public enum LayerType: String, Sendable, Codable, CaseIterable {
            case filter, text, pen, photo, sticker, frame, board
        }

        public var type: LayerType
        public var zIndex: Int?
        public var hidden: Bool?
        public var filter: FilterEffect.Configuration?
        public var text: TextEffect.Configuration?
        public var pen: PenEffect.Configuration?
        public var photo: PhotoEffect.Configuration?
        public var sticker: StickerEffect.Configuration?
        public var frame: FrameEffect.Configuration?
        public var board: BoardEffect.Configuration?

        public init(type: LayerType, zIndex: Int? = nil, hidden: Bool? = nil) {
            self.type = type
            self.zIndex = zIndex
            self.hidden = hidden
        }

        public static func filter(_ configuration: FilterEffect.Configuration) -> Self {
            var layer = Self(type: .filter)
            layer.filter = configuration
            return layer
        }

        public static func text(_ configuration: TextEffect.Configuration) -> Self {
            var layer = Self(type: .text)
            layer.text = configuration
            return layer
        }
    }

    /// Parses a stack file's bytes.
    ///
    /// - Throws: ``MediaError`` `invalidArgument` naming the layer and field that is wrong (an
    ///   unknown type, missing settings, a value out of range).
    public static func decode(_ json: [UInt8]) throws(MediaError) -> EffectStackConfiguration {
        try JSONFile.decode(EffectStackConfiguration.self, from: Data(json), operation: "read effect stack")
    }

    /// Builds the layers (loading their images) into a new ``LayerStack``.
    ///
    /// - Throws: ``MediaError`` naming the layer (`layers[2] (photo)`) whose settings are missing or
    ///   wrong, or whose image cannot be loaded.
    public func makeStack(updateMode: LayerStack.UpdateMode = .inline) throws(MediaError) -> LayerStack {
        let stack = LayerStack(updateMode: updateMode)
        for (index, layer) in layers.enumerated() {
            let name = "layers[\(index)] (\(layer.type.rawValue))"
            func missing() -> MediaError {
                MediaError(
                    .invalidArgument, operation: "build effect stack",
                    message: "\(name) has no \"\(layer.type.rawValue)\" settings")
            }
            let built: any TransformLayer
            do throws(MediaError) {
                switch layer.type {
                case .filter:
                    guard let settings = layer.filter else { throw missing() }
                    built = try FilterEffect(settings)
                case .text:
                    guard let settings = layer.text else { throw missing() }
                    built = TextEffect(settings)
                case .pen:
                    guard let settings = layer.pen else { throw missing() }
                    built = PenEffect(settings)
                case .photo:
                    guard let settings = layer.photo else { throw missing() }
                    built = try PhotoEffect(settings)
                case .sticker:
                    guard let settings = layer.sticker else { throw missing() }
                    built = try StickerEffect(settings)
                case .frame:
                    guard let settings = layer.frame else { throw missing() }
                    built = try FrameEffect(settings)
                case .board:
                    guard let settings = layer.board else { throw missing() }
                    built = try BoardEffect(settings)
                }
            } catch {
                if error.operation == "build effect stack" { throw error }
                throw MediaError(error.kind, operation: "build effect stack", message: "\(name): \(error.description)")
            }
            stack.add(built, zIndex: layer.zIndex ?? 0, hidden: layer.hidden ?? false)
        }
        return stack
    }

    /// JSON for a stack file, pretty-printed with sorted keys.
    public func encoded() throws(MediaError) -> [UInt8] {
        try JSONFile.text(self, operation: "write effect stack")
    }

}
