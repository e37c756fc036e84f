// issue 5: EditRecipe JSON schema (docs/recipe-schema.md), validation and the
// helpers the save paths use (SPEC E1 border → still; issue 7 geometry split).
import Foundation
import Shiying
import Testing

private func decode(_ json: String) throws -> EditRecipe { try EditRecipe(jsonData: Data(json.utf8)) }

private func recipeError(_ json: String) -> EditRecipeError? {
    do {
        _ = try decode(json)
        return nil
    } catch let error as EditRecipeError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

/// Top-level keys of encoded JSON.
private func keys(_ recipe: EditRecipe) throws -> Set<String> {
    let object = try JSONSerialization.jsonObject(with: try recipe.jsonData()) as? [String: Any]
    return Set(object?.keys.map { $0 } ?? [])
}

/// A recipe touching every field.
private let rich = EditRecipe(
    crop: .init(x: 0.125, y: 0.1, width: 0.75, height: 0.8), straighten: -3.5, quarterTurns: 1,
    flipHorizontal: true, flipVertical: true,
    adjustments: .init(exposure: 1, contrast: 0.2, highlights: -0.3, shadows: 0.4, saturation: 0.5, vibrance: -0.6,
                       warmth: 0.7, tint: -0.8, vignette: 0.9, sharpness: -1),
    filter: .init(id: "film.portra", intensity: 0.65), border: .init(width: 0.05, color: .init(red: 0x12, green: 0xAB, blue: 0xEF)))

@Suite("Editor recipe")
struct EditorRecipeTests {
    // Found by a user-level sweep (2026-12-06): {"version": 1.5} was reported as "not valid JSON".
    @Test("a number that does not fit its field is not called invalid JSON; broken JSON still is")
    func wrongKindIsNotBrokenJSON() {
        #expect { _ = try EditRecipe(jsonData: Data(#"{"version": 1.5}"#.utf8)) } throws: { error in
            let message = (error as? EditRecipeError)?.message ?? ""
            return !message.contains("not valid JSON") && message.contains("field")
        }
        #expect { _ = try EditRecipe(jsonData: Data(#"{"version":"#.utf8)) } throws: { error in
            (error as? EditRecipeError)?.message.contains("not valid JSON") == true
        }
    }

    @Test("issue 5: {} is the identity and the identity encodes back to {}")
    func emptyIsIdentity() throws {
        let recipe = try decode("{}")
        #expect(recipe == .identity)
        #expect(recipe.isIdentity)
        #expect(!recipe.hasGeometry && !recipe.hasColor && !recipe.hasBorder)
        #expect(try EditRecipe.identity.jsonString() == "{}")
    }

    @Test("issue 5: the issue's JSON names decode to the fields they name")
    func issueNames() throws {
        let recipe = try decode("""
            {"crop": {"x": 0.1, "y": 0.2, "width": 0.5, "height": 0.6}, "straighten": 3, "quarterTurns": 2,
             "flipHorizontal": true, "flipVertical": false,
             "adjustments": {"exposure": 1.5, "contrast": 0.1, "highlights": 0.2, "shadows": 0.3, "saturation": 0.4,
                             "vibrance": 0.5, "warmth": 0.6, "tint": 0.7, "vignette": 0.8, "sharpness": 0.9},
             "filter": {"id": "mono.classic", "intensity": 0.5}, "border": {"width": 0.1, "color": "#102030"}}
            """)
        #expect(recipe.crop == .init(x: 0.1, y: 0.2, width: 0.5, height: 0.6))
        #expect(recipe.straighten == 3 && recipe.quarterTurns == 2 && recipe.flipHorizontal && !recipe.flipVertical)
        let a = recipe.adjustments
        #expect([a.exposure, a.contrast, a.highlights, a.shadows, a.saturation, a.vibrance, a.warmth, a.tint, a.vignette, a.sharpness]
                == [1.5, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9])
        #expect(recipe.filter == .init(id: "mono.classic", intensity: 0.5))
        #expect(recipe.border == .init(width: 0.1, color: .init(red: 0x10, green: 0x20, blue: 0x30)))
    }

    @Test("issue 5: a recipe with every field survives encode → decode unchanged, with the schema's key names")
    func roundTrip() throws {
        let data = try rich.jsonData()
        #expect(try EditRecipe(jsonData: data) == rich)
        #expect(try keys(rich) == ["crop", "straighten", "quarterTurns", "flipHorizontal", "flipVertical", "adjustments", "filter", "border"])
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"color\":\"#12ABEF\""))
        // Deterministic bytes: equal recipes encode identically.
        #expect(try rich.jsonData() == data)
    }

    @Test("issue 5: defaults are omitted (zero sliders, intensity 1, white border colour)")
    func defaultsOmitted() throws {
        let recipe = EditRecipe(adjustments: .init(exposure: 0.5), filter: .init(id: "f"), border: .init(width: 0.1))
        #expect(try recipe.jsonString() == #"{"adjustments":{"exposure":0.5},"border":{"width":0.1},"filter":{"id":"f"}}"#)
        #expect(try decode(try recipe.jsonString()) == recipe)
    }

    @Test("issue 5: absent adjustments are 0, filter intensity defaults to 1, border colour to white")
    func absentMeansDefault() throws {
        let recipe = try decode(#"{"adjustments": {"warmth": -0.25}, "filter": {"id": "x"}, "border": {"width": 0.02}}"#)
        #expect(recipe.adjustments == .init(warmth: -0.25))
        #expect(recipe.filter?.intensity == 1)
        #expect(recipe.border?.color == .white)
        #expect(try decode(#"{"filter": null}"#).filter == nil)
    }

    @Test("issue 5: quarterTurns is normalized mod 4", arguments: [(-1, 3), (-4, 0), (0, 0), (3, 3), (4, 0), (5, 1), (-7, 1), (1002, 2)])
    func quarterTurns(_ c: (Int, Int)) throws {
        #expect(try decode(#"{"quarterTurns": \#(c.0)}"#).quarterTurns == c.1)
        var recipe = EditRecipe()
        recipe.quarterTurns = c.0
        #expect(recipe.quarterTurns == c.1)
        #expect(EditRecipe(quarterTurns: c.0) == recipe)
    }

    @Test("issue 5: four quarter turns leave no geometry and encode to {}")
    func fourTurns() throws {
        var recipe = EditRecipe()
        for _ in 0..<4 { recipe.quarterTurns += 1 }
        #expect(!recipe.hasGeometry && recipe.isIdentity)
        #expect(try recipe.jsonString() == "{}")
    }

    @Test("issue 24: an unknown or misplaced key is refused naming it; only the free-form meta object is ignored",
          arguments: [(#"{"exposure": 0.3, "bogus": 1}"#, "bogus"), (#"{"exposure": 0.3}"#, "exposure"),
                      (#"{"adjustments": {"exposure": 1, "clarity": 0.3}}"#, "adjustments.clarity"),
                      (#"{"filter": {"id": "f", "blend": "soft"}}"#, "filter.blend"),
                      (##"{"border": {"width": 2, "colour": "#FFFFFF"}}"##, "border.colour")])
    func unknownKeysRefused(_ json: String, _ field: String) throws {
        let error = recipeError(json)
        #expect(error?.kind == .malformed, "\(json)")
        #expect(error?.field == field, "\(String(describing: error))")
        #expect(error?.message.contains("unknown key") == true, "\(String(describing: error?.message))")
        let kept = try decode(#"{"meta": {"note": "for the family album", "app": {"v": 3}}, "straighten": 2}"#)
        #expect(kept == EditRecipe(straighten: 2))
    }

    @Test("issue 24: a wrong type says what JSON is wanted, never a Swift type name")
    func typeErrorsInJSONWords() throws {
        for (json, words) in [(#"[1, 2]"#, "a JSON object"), (#"{"straighten": "3"}"#, "a number"),
                              (#"{"flipHorizontal": 1}"#, "true or false"), (#"{"adjustments": 5}"#, "a JSON object")] {
            let message = recipeError(json)?.message ?? ""
            #expect(message.contains(words), "\(json): \(message)")
            #expect(!message.contains("Dictionary") && !message.contains("Double") && !message.contains("Bool"), "\(message)")
        }
    }

    @Test("issue 5: a newer version is refused before any field is read; version 1 and absent are accepted")
    func versions() throws {
        #expect(try decode(#"{"version": 1, "straighten": 1}"#).straighten == 1)
        let newer = recipeError(#"{"version": 2, "straighten": 400, "crop": "whatever"}"#)
        #expect(newer?.kind == .unsupportedVersion)
        #expect(newer?.field == "version")
        #expect(newer?.message.contains("version 2") == true)
        #expect(recipeError(#"{"version": 0}"#)?.kind == .unsupportedVersion)
        #expect(throws: EditRecipeError.self) { try EditRecipe(version: 2).jsonData() }
    }

    @Test("issue 5: out-of-range values are refused, naming the field and the allowed range", arguments: [
        (#"{"straighten": 45.5}"#, "straighten", "-45.0…45.0"),
        (#"{"straighten": -46}"#, "straighten", "-45.0…45.0"),
        (#"{"adjustments": {"exposure": 4.01}}"#, "adjustments.exposure", "-4.0…4.0 EV"),
        (#"{"adjustments": {"exposure": -5}}"#, "adjustments.exposure", "-4.0…4.0 EV"),
        (#"{"adjustments": {"contrast": 1.5}}"#, "adjustments.contrast", "-1.0…1.0"),
        (#"{"adjustments": {"highlights": -1.01}}"#, "adjustments.highlights", "-1.0…1.0"),
        (#"{"adjustments": {"shadows": 2}}"#, "adjustments.shadows", "-1.0…1.0"),
        (#"{"adjustments": {"saturation": -2}}"#, "adjustments.saturation", "-1.0…1.0"),
        (#"{"adjustments": {"vibrance": 1.1}}"#, "adjustments.vibrance", "-1.0…1.0"),
        (#"{"adjustments": {"warmth": -1.1}}"#, "adjustments.warmth", "-1.0…1.0"),
        (#"{"adjustments": {"tint": 3}}"#, "adjustments.tint", "-1.0…1.0"),
        (#"{"adjustments": {"vignette": 1.2}}"#, "adjustments.vignette", "-1.0…1.0"),
        (#"{"adjustments": {"sharpness": -1.5}}"#, "adjustments.sharpness", "-1.0…1.0"),
        (#"{"filter": {"id": "f", "intensity": 1.2}}"#, "filter.intensity", "0.0…1.0"),
        (#"{"filter": {"id": "f", "intensity": -0.1}}"#, "filter.intensity", "0.0…1.0"),
        (#"{"border": {"width": 0.3}}"#, "border.width", "0.0…0.25"),
        (#"{"border": {"width": -0.01}}"#, "border.width", "0.0…0.25"),
    ])
    func outOfRange(_ c: (String, String, String)) {
        let error = recipeError(c.0)
        #expect(error?.kind == .outOfRange)
        #expect(error?.field == c.1)
        #expect(error?.message.hasPrefix(c.1 + ":") == true)
        #expect(error?.message.contains(c.2) == true, "\(error?.message ?? "no error")")
    }

    @Test("issue 5: range ends are accepted")
    func rangeEnds() throws {
        for json in [#"{"straighten": 45}"#, #"{"straighten": -45}"#, #"{"adjustments": {"exposure": 4, "contrast": -1, "tint": 1}}"#,
                     #"{"filter": {"id": "f", "intensity": 0}}"#, #"{"border": {"width": 0.25}}"#, #"{"border": {"width": 0}}"#,
                     #"{"crop": {"x": 0.1, "y": 0.7, "width": 0.9, "height": 0.3}}"#,
                     #"{"crop": {"x": 0, "y": 0, "width": 1, "height": 1}}"#] {
            _ = try decode(json)
        }
    }

    @Test("issue 5: the crop must lie inside the unit square with a positive size", arguments: [
        #"{"crop": {"x": -0.1, "y": 0, "width": 0.5, "height": 0.5}}"#,
        #"{"crop": {"x": 0, "y": -0.01, "width": 0.5, "height": 0.5}}"#,
        #"{"crop": {"x": 0.6, "y": 0, "width": 0.5, "height": 0.5}}"#,
        #"{"crop": {"x": 0, "y": 0.5, "width": 0.5, "height": 0.6}}"#,
        #"{"crop": {"x": 0, "y": 0, "width": 0, "height": 0.5}}"#,
        #"{"crop": {"x": 0, "y": 0, "width": 0.5, "height": -0.5}}"#,
        #"{"crop": {"x": 0, "y": 0, "width": 1.5, "height": 1}}"#,
    ])
    func badCrop(_ json: String) {
        let error = recipeError(json)
        #expect(error?.kind == .invalidValue)
        #expect(error?.field == "crop")
        #expect(error?.message.contains("unit square") == true || error?.message.contains("positive") == true)
    }

    @Test("issue 5: malformed input names the field", arguments: [
        (#"{"straighten": "3"}"#, "straighten"),
        (#"{"crop": {"x": 0, "y": 0, "width": 1}}"#, "crop.height"),
        (##"{"border": {"color": "#000000"}}"##, "border.width"),
        (#"{"filter": {"intensity": 0.5}}"#, "filter.id"),
        (#"{"adjustments": {"exposure": true}}"#, "adjustments.exposure"),
        (#"{"flipHorizontal": 1}"#, "flipHorizontal"),
        ("[]", ""),
        ("not json", ""),
    ])
    func malformed(_ c: (String, String)) {
        let error = recipeError(c.0)
        #expect(error?.kind == .malformed)
        #expect(error?.field == c.1, "\(error?.message ?? "no error")")
    }

    @Test("issue 5: the border colour must be #RRGGBB", arguments: ["#FFF", "red", "#GG0000", "FFFFFF", "#FFFFFF00", ""])
    func badColor(_ text: String) {
        let error = recipeError(#"{"border": {"width": 0.1, "color": "\#(text)"}}"#)
        #expect(error?.kind == .invalidValue)
        #expect(error?.field == "border.color")
        #expect(error?.message.contains("#RRGGBB") == true)
    }

    @Test("issue 5: hex colours are read in either case and written in upper case")
    func colorCase() throws {
        #expect(RecipeColor(hex: "#a0b1c2") == RecipeColor(red: 0xA0, green: 0xB1, blue: 0xC2))
        #expect(RecipeColor(red: 0xA0, green: 0xB1, blue: 0xC2).hex == "#A0B1C2")
        let recipe = try decode(##"{"border": {"width": 0.1, "color": "#0a0b0c"}}"##)
        #expect(try recipe.jsonString().contains("#0A0B0C"))
    }

    @Test("issue 5: quarterTurns must be a whole number (2.0 is 2)")
    func wholeTurns() throws {
        #expect(try decode(#"{"quarterTurns": 2.0}"#).quarterTurns == 2)
        let error = recipeError(#"{"quarterTurns": 1.5}"#)
        #expect(error?.kind == .invalidValue && error?.field == "quarterTurns")
    }

    @Test("issue 5: an empty filter id is refused")
    func emptyFilterID() {
        let error = recipeError(#"{"filter": {"id": ""}}"#)
        #expect(error?.kind == .invalidValue && error?.field == "filter.id")
    }

    @Test("issue 5: NaN and infinities are refused by validate() and by encoding")
    func nonFinite() {
        let cases: [(EditRecipe, String)] = [
            (EditRecipe(straighten: .nan), "straighten"),
            (EditRecipe(adjustments: .init(exposure: .infinity)), "adjustments.exposure"),
            (EditRecipe(adjustments: .init(vignette: -.infinity)), "adjustments.vignette"),
            (EditRecipe(crop: .init(x: .nan, y: 0, width: 1, height: 1)), "crop.x"),
            (EditRecipe(filter: .init(id: "f", intensity: .nan)), "filter.intensity"),
            (EditRecipe(border: .init(width: .nan)), "border.width"),
        ]
        for (recipe, field) in cases {
            do {
                try recipe.validate()
                Issue.record("\(field): accepted")
            } catch let error as EditRecipeError {
                #expect(error.kind == .notFinite && error.field == field)
            } catch {
                Issue.record("\(error)")
            }
            #expect(throws: EditRecipeError.self) { try recipe.jsonData() }
        }
    }

    @Test("issue 5: hasGeometry is set by each geometry field alone")
    func hasGeometry() {
        let geometric: [EditRecipe] = [
            EditRecipe(crop: .init(x: 0, y: 0, width: 0.5, height: 1)), EditRecipe(straighten: 0.5),
            EditRecipe(quarterTurns: 3), EditRecipe(flipHorizontal: true), EditRecipe(flipVertical: true),
        ]
        for recipe in geometric {
            #expect(recipe.hasGeometry && !recipe.hasColor && !recipe.hasBorder && !recipe.isIdentity)
        }
        let colourOnly = EditRecipe(adjustments: .init(sharpness: 0.1), filter: .init(id: "f"))
        #expect(!colourOnly.hasGeometry && colourOnly.hasColor)
    }

    @Test("SPEC E1: a border saves a Live photo as a still; no border (or width 0) keeps it Live")
    func borderMakesStill() {
        #expect(EditRecipe(border: .init(width: 0.02)).savesLivePhotoAsStill)
        #expect(EditRecipe(border: .init(width: 0.02)).hasBorder)
        #expect(!EditRecipe(border: .init(width: 0)).savesLivePhotoAsStill)
        #expect(!EditRecipe(crop: .init(x: 0, y: 0, width: 0.5, height: 0.5), adjustments: .init(exposure: 1)).savesLivePhotoAsStill)
        #expect(rich.savesLivePhotoAsStill)
    }

    @Test("issue 5: a filter at intensity 0 and a zero-width border change nothing")
    func noOpParts() {
        #expect(EditRecipe(filter: .init(id: "f", intensity: 0), border: .init(width: 0)).isIdentity)
        #expect(!EditRecipe(filter: .init(id: "f", intensity: 0.01)).isIdentity)
    }

    @Test("issue 7: geometryOnly and colorOnly split a recipe; together with the border they rebuild it")
    func splits() throws {
        let geometry = rich.geometryOnly
        let colour = rich.colorOnly
        #expect(geometry.hasGeometry && !geometry.hasColor && !geometry.hasBorder)
        #expect(colour.hasColor && !colour.hasGeometry && !colour.hasBorder)
        #expect(geometry.crop == rich.crop && geometry.straighten == rich.straighten && geometry.quarterTurns == rich.quarterTurns
                && geometry.flipHorizontal && geometry.flipVertical)
        #expect(colour.adjustments == rich.adjustments && colour.filter == rich.filter)
        var rebuilt = geometry.withColor(from: colour)
        rebuilt.border = rich.border
        #expect(rebuilt == rich)
        #expect(try keys(geometry) == ["crop", "straighten", "quarterTurns", "flipHorizontal", "flipVertical"])
        #expect(try keys(colour) == ["adjustments", "filter"])
    }

    @Test("issue 5: every JSON example in docs/recipe-schema.md decodes and re-encodes to the same text")
    func schemaDocExamples() throws {
        let doc = try String(contentsOf: Paths.packageRoot.appendingPathComponent("docs/recipe-schema.md"), encoding: .utf8)
        let blocks = doc.components(separatedBy: "```json\n").dropFirst().map { $0.components(separatedBy: "\n```")[0] }
        #expect(blocks.count >= 3)
        for block in blocks {
            let recipe = try decode(block)
            #expect(try recipe.jsonString() == block)
        }
    }

    @Test("issue 5: error messages read as documented in docs/recipe-schema.md")
    func documentedMessages() {
        #expect(recipeError(#"{"adjustments": {"exposure": 5}}"#)?.message
                == "adjustments.exposure: 5.0 is outside the allowed range -4.0…4.0 EV")
        #expect(recipeError(##"{"border": {"width": 0.1, "color": "#FFF"}}"##)?.message
                == ##"border.color: "#FFF" is not a colour; write "#RRGGBB" (six hex digits)"##)
        #expect(recipeError(#"{"border": {}}"#)?.message == "border.width: required key is missing")
        #expect(recipeError(#"{"straighten": "x"}"#)?.message == "straighten: expected a number")
        #expect(recipeError(#"{"version": 2}"#)?.message
                == "version: version 2 is newer than the supported version 1; update the app to open this edit")
    }
}
