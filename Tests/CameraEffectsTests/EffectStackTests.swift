import CameraCommon
import CameraEffects
import CameraTransform
import Testing

@Suite("Effect stack files")
struct EffectStackTests {
    @Test("a stack saves to JSON and loads back the same")
    func roundTrip() throws {
        var sticker = EffectStackConfiguration.LayerConfiguration(type: .pen, zIndex: 3)
        sticker.pen = PenEffect.Configuration(strokes: [
            .init(
                color: RGBAColor(red: 255, green: 0, blue: 0, alpha: 200), width: 0.01,
                points: [.init(x: 0.1, y: 0.2, time: 0.5)])
        ])
        let configuration = EffectStackConfiguration(layers: [
            .filter(.init(kind: .sepia, amount: 0.7)),
            .text(.init(text: "Ünïcödé ✓", size: 0.1, color: RGBAColor(red: 255, green: 204, blue: 0))),
            sticker,
        ])
        let loaded = try EffectStackConfiguration.decode(try configuration.encoded())
        #expect(loaded == configuration)
        let stack = try loaded.makeStack()
        #expect(stack.entries.count == 3)
        #expect(stack.entries.last?.zIndex == 3)
    }

    @Test(
        "bad stack files name what is wrong",
        arguments: [
            (#"{"layers": [{"type": "glitter"}]}"#, "glitter"),
            (#"{"layers": [{"type": "filter"}]}"#, "layers[0] (filter) has no \"filter\" settings"),
            (#"{"layers": [{"type": "filter", "filter": {"kind": "blur"}}]}"#, "amount"),
            (
                #"{"layers": [{"type": "filter", "filter": {"kind": "contrast", "amount": 40, "radius": 0}}]}"#,
                "outside"
            ),
            (
                #"{"layers": [{"type": "text", "text": {"text": "x", "font": "DejaVu Sans", "bold": false, "size": 0.1, "color": "red", "outlineWidth": 0, "x": 0, "y": 0}}]}"#,
                "#FF8800"
            ),
            (
                #"{"layers": [{"type": "photo", "photo": {"path": "/nope.png", "placement": {"centerX": 0.5, "centerY": 0.5, "width": 0.2, "rotation": 0, "opacity": 1}}}]}"#,
                "/nope.png"
            ),
            ("{not json", "JSON"),
        ])
    func badFiles(json: String, mentions: String) {
        #expect {
            try EffectStackConfiguration.decode(Array(json.utf8)).makeStack()
        } throws: { error in
            guard let error = error as? MediaError else { return false }
            return error.kind == .invalidArgument || error.kind == .notFound ? "\(error)".contains(mentions) : false
        }
    }
}
