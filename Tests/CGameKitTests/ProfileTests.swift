import CGameKit
import CameraCommon
import CameraTesting
import Foundation
import Testing

@Suite struct ProfileTests {
    func line(_ text: String, _ confidence: Double = 0.9) -> TextObservation {
        TextObservation(text: text, confidence: confidence, box: NormalizedRect(x: 0, y: 0, width: 1, height: 0.2))
    }

    @Test func shippedProfilesAreValidAndFoundByNameOrAlias() throws {
        #expect(ProfileLibrary.builtIn.count >= 5)
        for profile in ProfileLibrary.builtIn { try profile.validate() }
        let directory = try temporaryDirectory()
        #expect(try ProfileLibrary.profile(named: "cs2", userDirectory: directory).name == "Counter-Strike 2")
        #expect(try ProfileLibrary.profile(named: "APEX", userDirectory: directory).name == "Apex Legends")
        let missing = Result { () throws(MediaError) in
            try ProfileLibrary.profile(named: "tetris", userDirectory: directory)
        }
        guard case .failure(let error) = missing else {
            Issue.record("an unknown game was found")
            return
        }
        #expect(error.kind == .notFound)
        #expect(error.message.contains("Fortnite"))  // lists what is known
    }

    @Test("OpenArena's obituary lines: the player's kills are those naming the player after the victim")
    func obituariesNameThePlayerAsKiller() throws {
        let shipped = try ProfileLibrary.profile(named: "oa-kills", userDirectory: "/nonexistent")
        #expect(shipped.needsPlayer)
        #expect(!ProfileLibrary.readyToUse.contains { $0.name == shipped.name })
        let sarge = try shipped.forPlayer("Sarge")
        #expect(!sarge.needsPlayer)
        for text in ["Grism was railed by Sarge", "Major ate Sarge's rocket", "Kyonshi was machinegunned by SARGE"] {
            #expect(sarge.events(in: [line(text)]).map(\.type) == ["Kill"], "\(text)")
        }
        for text in [
            "Sarge was railed by Grism", "Sarge cratered", "Sarge: gg", "Kyonshi: Sarge is on the roof",
            "Grism was railed by Sargent", "Grism was railed by Major",
        ] {
            #expect(sarge.events(in: [line(text)]).isEmpty, "\(text)")
        }
        // A name with the characters patterns use matches itself only.
        let clan = try shipped.forPlayer("[x] Sarge.")
        #expect(clan.events(in: [line("Grism was railed by [x] Sarge.")]).count == 1)
        #expect(clan.events(in: [line("Grism was railed by x Sarge")]).isEmpty)
        #expect(throws: MediaError.self) { try shipped.forPlayer("  ") }
        #expect(throws: MediaError.self) { try shipped.forPlayer("a\nb") }
    }

    @Test func keywordsMatchWholeWordsWithCaseAccentsAndOneMisreadLetter() throws {
        let fortnite = try ProfileLibrary.profile(named: "fortnite", userDirectory: "/nonexistent")
        #expect(fortnite.events(in: [line("Ninja ELIMINATED Bot42")]).map(\.type) == ["Kill"])
        #expect(fortnite.events(in: [line("Ninja éliminated Bot42")]).map(\.type) == ["Kill"])
        #expect(fortnite.events(in: [line("Ninja elirninated Bot42")]).isEmpty)  // rn≠m is a length change
        #expect(fortnite.events(in: [line("Ninja e1iminated Bot42")]).map(\.type) == ["Kill"])
        #expect(fortnite.events(in: [line("Mango knocked Echo")]).map(\.type) == ["Knock"])
        // A long keyword's first letter or two lost (a hard-compressed picture smears thin strokes),
        // shown as the game writes it; a third lost, or a letter lost at its end, is not the keyword.
        for misread in ["liminated", "eiminated", "iminated", "limineted"] {
            #expect(fortnite.events(in: [line("Nima \(misread) Raven")]).map(\.shown) == ["Nima eliminated Raven"])
        }
        #expect(fortnite.events(in: [line("Nima minated Raven")]).isEmpty)
        #expect(fortnite.events(in: [line("Nima eliminate Raven")]).isEmpty)
        // Near misses are not events.
        for text in ["Eliminations 3", "Eliminator ready", "eliminate the storm", "Teammate eliminated Echo"] {
            #expect(fortnite.events(in: [line(text)]).isEmpty, "\(text)")
        }
        // Unsure lines are ignored.
        #expect(fortnite.events(in: [line("Ninja eliminated Bot42", 0.2)]).isEmpty)
        // Two kill lines in one frame are two matches.
        #expect(fortnite.events(in: [line("A eliminated B"), line("C eliminated D")]).count == 2)
        #expect(fortnite.didDetectEvent(from: [line("A eliminated B")]))
    }

    /// A line matched by a keyword read with a letter wrong is shown with the keyword as the game
    /// writes it (the capture page listed "Ninja eliminatecl Raven"), and kept as read for telling
    /// readings of one line apart.
    @Test func aKeywordReadWithALetterWrongIsShownAsTheProfileWritesIt() throws {
        let fortnite = try ProfileLibrary.profile(named: "fortnite", userDirectory: "/nonexistent")
        let apex = try ProfileLibrary.profile(named: "apex", userDirectory: "/nonexistent")
        func shown(_ profile: GameProfile, _ text: String) -> [String] { profile.events(in: [line(text)]).map(\.shown) }
        #expect(shown(fortnite, "Ninja eliminatecl Raven") == ["Ninja eliminated Raven"])  // "d" read as "cl"
        #expect(shown(fortnite, "Ninja e1iminated Bot42") == ["Ninja eliminated Bot42"])
        // A mark for a letter at its edge (a 600 kbit/s encode's "#ininated"): the mark goes too.
        #expect(shown(fortnite, "Niue #ininated Raven") == ["Niue eliminated Raven"])
        #expect(shown(fortnite, "NINJA ELIMINATEO BOT42") == ["NINJA ELIMINATED BOT42"])
        #expect(shown(fortnite, "Ninja eliminatedBot42") == ["Ninja eliminated Bot42"])
        #expect(shown(apex, "Wraith knockeddown Bloodhound") == ["Wraith knocked down Bloodhound"])
        // Read right: as read, case and all.
        #expect(shown(fortnite, "Ninja ELIMINATED Bot42") == ["Ninja ELIMINATED Bot42"])
        #expect(fortnite.events(in: [line("Ninja eliminatecl Raven")]).map(\.text) == ["Ninja eliminatecl Raven"])
    }

    /// Scenery and outlines read as marks and stray letters at a line's ends (a live OpenArena
    /// match listed "-'. You fragged Gargoyle", the detection corpus "‘KILLED Kestrel é") are not
    /// shown; a clan tag's brackets and marks inside the line are.
    @Test func strayMarksAtALinesEndsAreNotShown() throws {
        let openarena = try ProfileLibrary.profile(named: "openarena", userDirectory: "/nonexistent")
        let apex = try ProfileLibrary.profile(named: "apex", userDirectory: "/nonexistent")
        let fortnite = try ProfileLibrary.profile(named: "fortnite", userDirectory: "/nonexistent")
        func shown(_ profile: GameProfile, _ text: String) -> [String] { profile.events(in: [line(text)]).map(\.shown) }
        #expect(shown(openarena, "-'. You fragged Gargoyle") == ["You fragged Gargoyle"])
        #expect(shown(openarena, "7 You fragged Grism :") == ["You fragged Grism"])
        #expect(shown(openarena, "You fragged Kyonshi *.™") == ["You fragged Kyonshi"])
        #expect(shown(openarena, "“You fragged Grism.") == ["You fragged Grism"])
        #expect(shown(apex, "‘KILLED Kestrel é") == ["KILLED Kestrel"])
        #expect(shown(apex, "KILLED PixelQueen:") == ["KILLED PixelQueen"])
        #expect(shown(fortnite, "[FaZe]Ninja eliminated Raven (2)") == ["[FaZe]Ninja eliminated Raven (2)"])
        #expect(shown(fortnite, "Shadow?7?7 eliminated Quill") == ["Shadow?7?7 eliminated Quill"])
        // What was read stays as read, for telling readings apart.
        #expect(openarena.events(in: [line("-'. You fragged Gargoyle")]).map(\.text) == ["-'. You fragged Gargoyle"])
    }

    @Test func patternsUseRegularExpressions() throws {
        let cs2 = try ProfileLibrary.profile(named: "cs2", userDirectory: "/nonexistent")
        #expect(cs2.events(in: [line("Counter-Terrorists Win")]).map(\.type) == ["RoundWin"])
        #expect(cs2.events(in: [line("Terrorists   win")]).map(\.type) == ["RoundWin"])
        #expect(cs2.events(in: [line("Terrorists winning streak")]).isEmpty)
    }

    @Test func badProfilesGetErrorsNamingTheField() throws {
        let directory = try temporaryDirectory()
        let cases: [(json: String, expected: String)] = [
            (#"{"name": "X", "region": {"x":0,"y":0,"width":0.5,"height":0.5}}"#, "missing field \"events\""),
            (#"{"name": "X", "region": {"x":0,"y":0,"width":0.5}, "events": []}"#, "region"),
            (
                #"{"name": "X", "region": {"x":0.8,"y":0,"width":0.5,"height":0.5}, "events": [{"type":"Kill","keywords":["k"]}]}"#,
                "region: must lie inside"
            ),
            (#"{"name": "X", "region": {"x":0,"y":0,"width":0.5,"height":0.5}, "events": []}"#, "events: at least one"),
            (
                #"{"name": "X", "region": {"x":0,"y":0,"width":0.5,"height":0.5}, "events": [{"type":"Kill"}]}"#,
                "events[0]: needs keywords or patterns"
            ),
            (
                #"{"name": "X", "region": {"x":0,"y":0,"width":0.5,"height":0.5}, "events": [{"type":"Kill","keywords":["a"]},{"type":"Win","patterns":["(unclosed"]}]}"#,
                "events[1].patterns[0]"
            ),
            (
                #"{"name": "X", "region": {"x":0,"y":0,"width":0.5,"height":0.5}, "events": [{"type":"Kill","keywords":["a"],"minimumConfidence":5}]}"#,
                "events[0].minimumConfidence"
            ),
            (
                #"{"name": "X", "region": {"x":0,"y":0,"width":0.5,"height":0.5}, "pageSegmentation": "diagonal", "events": [{"type":"Kill","keywords":["a"]}]}"#,
                "pageSegmentation"
            ),
            (
                #"{"name": "X", "region": {"x":0,"y":0,"width":0.5,"height":0.5}, "shownFor": 0, "events": [{"type":"Kill","keywords":["a"]}]}"#,
                "shownFor: must be more than zero seconds"
            ),
            (
                #"{"name": "X", "region": {"x":0,"y":0,"width":0.5,"height":0.5}, "longestFrame": -0.2, "events": [{"type":"Kill","keywords":["a"]}]}"#,
                "longestFrame: must be more than zero seconds"
            ),
            (#"{"name": "X", "#, "not valid JSON"),
        ]
        for (index, testCase) in cases.enumerated() {
            let path = "\(directory)/bad\(index).json"
            try testCase.json.write(toFile: path, atomically: true, encoding: .utf8)
            let result = Result { () throws(MediaError) in try ProfileLibrary.load(path) }
            guard case .failure(let error) = result else {
                Issue.record("case \(index) loaded")
                continue
            }
            #expect(error.kind == .invalidArgument)
            #expect(error.message.contains(testCase.expected), "case \(index): \(error.message)")
            #expect(error.operation.contains(path))
        }
    }

    @Test func userProfilesExtendAndOverrideTheShippedOnes() throws {
        let directory = try temporaryDirectory()
        let custom = """
            {"name": "Rocket League", "aliases": ["rl"], "region": {"x":0.3,"y":0.1,"width":0.4,"height":0.2},
             "events": [{"type": "Goal", "keywords": ["goal"], "debounce": 6}]}
            """
        try custom.write(toFile: directory + "/rocket.json", atomically: true, encoding: .utf8)
        let override = ProfileLibrary.builtIn[0].json().replacingOccurrences(of: "0.56", with: "0.5")
        try override.write(toFile: directory + "/fortnite.json", atomically: true, encoding: .utf8)
        try "{broken".write(toFile: directory + "/broken.json", atomically: true, encoding: .utf8)
        let (profiles, errors) = ProfileLibrary.allProfiles(userDirectory: directory)
        #expect(profiles.contains { $0.name == "Rocket League" })
        #expect(profiles.filter { $0.name == "Fortnite" }.count == 1)
        #expect(profiles.first { $0.name == "Fortnite" }?.region.y == 0.5)
        #expect(errors.count == 1 && errors[0].operation.contains("broken.json"))
        let rocket = try ProfileLibrary.profile(named: "rl", userDirectory: directory)
        #expect(rocket.debounce(for: "Goal") == 6)
        #expect(rocket.shownFor == nil)
        // OpenArena's centre print shows for 3 s, and says so in its JSON.
        let openArena = try ProfileLibrary.profile(named: "openarena", userDirectory: "/nonexistent")
        #expect(openArena.shownFor == 3 && openArena.json().contains("\"shownFor\" : 3"))
        // A profile round-trips through its JSON.
        let again = try JSONDecoder().decode(GameProfile.self, from: Data(rocket.json().utf8))
        #expect(again.json() == rocket.json())
    }
}

/// A new folder, removed when the test process exits.
func temporaryDirectory() throws -> String { try ScratchFolder.make("cgame-tests") }
