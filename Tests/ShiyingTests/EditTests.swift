// Issue 5 end to end for stills: `Editor` / `shiying edit` decode upright,
// render with the one renderer and write with the source's metadata; preview
// and save are the same pixels; SPEC E7 overwrites only from the full-size
// original. ImageMagick and exiftool are the independent oracles.
import Foundation
@testable import Shiying
import Testing

@Suite("Edit")
struct EditTests {
    /// The typical recipe of the issue: crop + straighten 3° + exposure + saturation + a built-in filter.
    static let typical = EditRecipe(crop: .init(x: 0.05, y: 0.05, width: 0.9, height: 0.9), straighten: 3,
                                    adjustments: .init(exposure: 0.3, saturation: 0.2),
                                    filter: .init(id: "film.amber", intensity: 0.8))

    /// A 12 MP (4032x3024) photo-like JPEG, as iPhones take them, cached.
    static func twelveMP() async throws -> String {
        try await FixtureCache.shared.samples("edit-12mp", count: 1, seed: 5, width: 4032, height: 3024)[0]
    }

    /// An 8-bit RGB PNG of `jpeg` made upright by ImageMagick: a lossless source.
    static func pngSource(_ jpeg: String, in dir: TempDir, name: String = "src.png") async throws -> String {
        let png = dir.file(name)
        let run = try await runTool("convert", [jpeg, "-auto-orient", "PNG24:" + png])
        guard run.succeeded else { throw TestFailure("convert → PNG: \(run)") }
        return png
    }

    static func whole(_ path: String) async throws -> [UInt8] {
        let size = try await Magick.size(path)
        return try await Magick.pixels(path, Rect(x: 0, y: 0, width: size.width, height: size.height))
    }

    /// Index and values of the first differing byte, for failure messages.
    static func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> String {
        guard a.count == b.count else { return "sizes \(a.count) vs \(b.count)" }
        guard let i = a.indices.first(where: { a[$0] != b[$0] }) else { return "identical" }
        return "byte \(i) (pixel \(i / 3)): \(a[i]) vs \(b[i])"
    }

    // issue 5: "Identity recipe reproduces the source exactly" — through decode, render and PNG encode.
    @Test("identity recipe {} on a PNG: output pixels byte-identical to the source; render() too")
    func identityIsExact() async throws {
        let dir = try TempDir("edit-identity")
        defer { dir.remove() }
        let src = try await Self.pngSource(try await Photos.small()[1], in: dir)
        let identity = try EditRecipe(jsonData: Data("{}".utf8))
        let out = dir.file("out.png")
        let report = try Editor.saveBlocking(src, recipe: identity, to: out)
        #expect(report.width == 480 && report.height == 640, "\(report)")
        let want = try await Self.whole(src)
        let got = try await Self.whole(out)
        #expect(got == want, "saved PNG differs from the source: \(Self.firstDifference(got, want))")
        let rendered = try Editor.render(src, recipe: identity)
        #expect(rendered.width == 480 && rendered.height == 640)
        #expect(rendered.pixels == want, "render() differs from the source: \(Self.firstDifference(rendered.pixels, want))")
    }

    // issue 5 / SPEC E2, E5: "Preview at the save size is byte-identical to the save's pixels".
    @Test("preview at the save size is byte-identical to the saved PNG (full size and a box)")
    func previewEqualsSave() async throws {
        let dir = try TempDir("edit-same")
        defer { dir.remove() }
        let src = try await Photos.small()[0]
        for box in [nil, (width: 300, height: 300)] as [(width: Int, height: Int)?] {
            let out = dir.file("save.png")
            let report = try Editor.saveBlocking(src, recipe: Self.typical, to: out, maxSize: box)
            let preview = try Editor.render(src, recipe: Self.typical, maxSize: (report.width, report.height))
            #expect(preview.width == report.width && preview.height == report.height)
            let saved = try await Self.whole(out)
            #expect(preview.pixels == saved,
                    "box \(String(describing: box)): preview ≠ save: \(Self.firstDifference(preview.pixels, saved))")
            // Not the identity: the recipe did change the picture.
            #expect(report.width < 640 && report.width > 0, "\(report)")
        }
    }

    // issue 5: preview = save at a smaller size (reduced-scale decode included) is a correct downscale.
    @Test("preview in a 1170 px box: right size, close to the full save downscaled by ImageMagick")
    func previewCloseToDownscaledSave() async throws {
        let dir = try TempDir("edit-preview")
        defer { dir.remove() }
        let src = try await Self.twelveMP()
        let full = dir.file("full.png"), small = dir.file("preview.png")
        let fullReport = try Editor.saveBlocking(src, recipe: Self.typical, to: full)
        let preview = try Editor.render(src, recipe: Self.typical, maxSize: (1170, 1170))
        #expect(max(preview.width, preview.height) == 1170, "\(preview.width)x\(preview.height)")
        let aspectHeight = Double(preview.width) * Double(fullReport.height) / Double(fullReport.width)
        #expect(abs(Double(preview.height) - aspectHeight) <= 1, "preview \(preview.width)x\(preview.height) vs full \(fullReport.width)x\(fullReport.height)")
        let report = try Editor.saveBlocking(src, recipe: Self.typical, to: small, maxSize: (1170, 1170))
        #expect(report.width == preview.width && report.height == preview.height)
        // The preview decoded the JPEG at a reduced DCT scale (sy_edit.h); still close.
        #expect(report.decodedWidth < report.sourceWidth, "expected a reduced decode: \(report)")
        let got = try await Magick.blockMeans(small, region: Rect(x: 0, y: 0, width: preview.width, height: preview.height), grid: 6)
        let want = try await Magick.referenceBlockMeans(full, operations: ["-resize", "\(preview.width)x\(preview.height)!"], grid: 6)
        let (worst, detail) = blockDifference(got, want)
        print("1170 preview vs ImageMagick-downscaled full save: worst block difference \(String(format: "%.2f", worst))")
        #expect(worst <= 3, "block means differ by \(worst) levels:\n\(detail)")
    }

    // EXIF orientation 6: the recipe's crop refers to the upright picture.
    // Found by a user-level sweep (2026-12-06): the border colour is sRGB (the recipe's schema), but on a Display P3
    // photo its numbers were written as P3 ones: #FF8000 came out more saturated than asked.
    @Test("a border's sRGB colour is coded in the photo's space: Display P3 on an iPhone HEIC, as is on sRGB")
    func borderColourManaged() async throws {
        let dir = try TempDir("edit-border-p3")
        defer { dir.remove() }
        var recipe = EditRecipe()
        recipe.border = .init(width: 0.1, color: RecipeColor(red: 255, green: 128, blue: 0))
        func corner(_ path: String) async throws -> [Int] {
            let run = try await runTool("convert", [path, "-crop", "1x1+2+2", "-depth", "8", "txt:-"])
            let rgb = run.stdout.split(separator: "(").last?.split(separator: ")").first ?? ""
            return rgb.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
        let sample = try await FixtureCache.shared.samples("edit-border", count: 1, seed: 5, width: 320, height: 240)[0]
        _ = try Editor.saveBlocking(sample, recipe: recipe, to: dir.file("srgb.png"))
        #expect(try await corner(dir.file("srgb.png")) == [255, 128, 0])
        let iphone = Paths.corpus.appendingPathComponent("real/iphoneSE2_grid.heic").path
        guard FileManager.default.fileExists(atPath: iphone) else { return }
        _ = try Editor.saveBlocking(iphone, recipe: recipe, to: dir.file("p3.png"), maxSize: (640, 640))
        let p3 = try await corner(dir.file("p3.png"))  // sRGB (255, 128, 0) in Display P3: (239, 135, 51)
        #expect(p3.count == 3 && abs(p3[0] - 239) <= 1 && abs(p3[1] - 135) <= 1 && abs(p3[2] - 51) <= 1, "\(p3)")
    }

    @Test("a rotated (orientation 6) JPEG edits upright: size and picture match ImageMagick -auto-orient")
    func rotatedInputEditsUpright() async throws {
        let dir = try TempDir("edit-rotated")
        defer { dir.remove() }
        let src = try await Photos.small()[1] // 640x480 stored, orientation 6
        let out = dir.file("out.png")
        // Top half of the upright picture: 480x320.
        let recipe = EditRecipe(crop: .init(x: 0, y: 0, width: 1, height: 0.5))
        let report = try Editor.saveBlocking(src, recipe: recipe, to: out)
        #expect(report.appliedOrientation == 6 && report.width == 480 && report.height == 320, "\(report)")
        let got = try await Magick.blockMeans(out, region: Rect(x: 0, y: 0, width: 480, height: 320))
        let want = try await Magick.referenceBlockMeans(src, operations: ["-auto-orient", "-crop", "480x320+0+0", "+repage"])
        let (worst, detail) = blockDifference(got, want)
        #expect(worst <= 2, "upright crop differs from ImageMagick by \(worst) levels:\n\(detail)")
    }

    // SPEC S3-style metadata on an edit: capture date and GPS kept, Orientation 1, new pixel size.
    @Test("metadata kept in JPEG, PNG and HEIC output (exiftool): date, GPS, Orientation 1, new size")
    func metadataKept() async throws {
        let dir = try TempDir("edit-meta")
        defer { dir.remove() }
        let src = dir.file("src.jpg")
        try FileManager.default.copyItem(atPath: try await Photos.small()[1], toPath: src)
        let tag = try await runTool("exiftool", ["-overwrite_original", "-GPSLatitude=31.2304", "-GPSLatitudeRef=N",
                                                 "-GPSLongitude=121.4737", "-GPSLongitudeRef=E", src])
        #expect(tag.succeeded, "exiftool: \(tag)")
        let recipe = EditRecipe(crop: .init(x: 0.1, y: 0.1, width: 0.8, height: 0.5), adjustments: .init(exposure: 0.2))
        for ext in ["jpg", "png", "heic"] {
            let out = dir.file("out.\(ext)")
            let report = try Editor.saveBlocking(src, recipe: recipe, to: out)
            #expect(Set(report.kept).isSuperset(of: ["exif", "capture-date", "gps"]), "\(ext): kept \(report.kept)")
            let tags = try await runTool("exiftool", ["-s", "-Orientation#", "-DateTimeOriginal", "-GPSLatitude#",
                                                      "-ExifImageWidth", "-ExifImageHeight", out])
            #expect(tags.stdout.contains("Orientation                     : 1"), "\(ext): \(tags.stdout)")
            #expect(tags.stdout.contains(report.captureDate ?? "missing"), "\(ext) date: \(tags.stdout)")
            #expect(tags.stdout.contains("31.2304"), "\(ext) GPS: \(tags.stdout)")
            #expect(tags.stdout.contains("ExifImageWidth                  : \(report.width)")
                    && tags.stdout.contains("ExifImageHeight                 : \(report.height)"),
                    "\(ext): Exif size should be \(report.width)x\(report.height): \(tags.stdout)")
            let size = try await Magick.size(out)
            #expect(size.width == report.width && size.height == report.height, "\(ext): \(size) vs \(report)")
        }
    }

    // Every recipe field reaches the C struct: set each to a distinctive value, read the struct back.
    @Test("every EditRecipe field maps to its sy_recipe field (and only that one)")
    func recipeMapping() throws {
        let base = EditRecipe.identity.engineFields
        #expect(base["valid"] == "yes", "\(base)")
        typealias Case = (field: String, want: String, recipe: EditRecipe)
        func with(_ change: (inout EditRecipe) -> Void) -> EditRecipe {
            var r = EditRecipe.identity
            change(&r)
            return r
        }
        var cases: [Case] = [
            ("crop.x", "0.125", with { $0.crop = .init(x: 0.125, y: 0, width: 0.5, height: 1) }),
            ("crop.y", "0.25", with { $0.crop = .init(x: 0, y: 0.25, width: 1, height: 0.5) }),
            ("crop.width", "0.375", with { $0.crop = .init(x: 0, y: 0, width: 0.375, height: 1) }),
            ("crop.height", "0.625", with { $0.crop = .init(x: 0, y: 0, width: 1, height: 0.625) }),
            ("straighten", "-7.5", with { $0.straighten = -7.5 }),
            ("quarterTurns", "3", with { $0.quarterTurns = -1 }),
            ("flipHorizontal", "1", with { $0.flipHorizontal = true }),
            ("flipVertical", "1", with { $0.flipVertical = true }),
            ("filter.id", "mono.noir", with { $0.filter = .init(id: "mono.noir") }),
            ("filter.intensity", "0.35", with { $0.filter = .init(id: "mono.noir", intensity: 0.35) }),
            ("border.width", "0.0625", with { $0.border = .init(width: 0.0625) }),
            ("border.color", "18,52,86", with { $0.border = .init(width: 0.0625, color: .init(red: 0x12, green: 0x34, blue: 0x56)) }),
        ]
        for (index, (name, _)) in EditRecipe.Adjustments.neutral.namedValues.enumerated() {
            let value = name == "exposure" ? -2.5 : Double(index + 1) / 16
            var a = EditRecipe.Adjustments.neutral
            switch name {
            case "exposure": a.exposure = value
            case "contrast": a.contrast = value
            case "highlights": a.highlights = value
            case "shadows": a.shadows = value
            case "saturation": a.saturation = value
            case "vibrance": a.vibrance = value
            case "warmth": a.warmth = value
            case "tint": a.tint = value
            case "vignette": a.vignette = value
            case "sharpness": a.sharpness = value
            default: Issue.record("adjustment \(name) has no case in this test")
            }
            cases.append(("adjustments.\(name)", "\(value)", with { $0.adjustments = a }))
        }
        // Every JSON field of the schema is covered (version is fixed at 1).
        let covered = Set(cases.map(\.field)).union(["version"])
        #expect(covered == Set(base.keys).subtracting(["valid"]), "uncovered: \(Set(base.keys).subtracting(covered))")
        for (field, want, recipe) in cases {
            let fields = recipe.engineFields
            #expect(fields[field] == want, "\(field): C struct holds \(fields[field] ?? "nil"), want \(want)")
            #expect(fields["valid"] == "yes", "\(field): sy_recipe_validate refused: \(fields["valid"] ?? "")")
            // Only the intended field moved (crop sides and the filter pair move together by construction).
            let moved = fields.keys.filter { $0 != "valid" && fields[$0] != base[$0] }
            let allowed: Set<String> = field.hasPrefix("crop.") ? ["crop.x", "crop.y", "crop.width", "crop.height"]
                : field.hasPrefix("filter.") ? ["filter.id", "filter.intensity"]
                : field.hasPrefix("border.") ? ["border.width", "border.color"] : [field]
            #expect(Set(moved).isSubset(of: allowed) && moved.contains(field), "\(field): moved \(moved.sorted())")
        }
    }

    // docs/recipe-schema.md examples are recipes the engine accepts (built-in ids exist, cube: has a path).
    @Test("every recipe example in docs/recipe-schema.md is accepted by the engine's filter check")
    func docExamplesRender() throws {
        let doc = try String(contentsOf: Paths.packageRoot.appendingPathComponent("docs/recipe-schema.md"), encoding: .utf8)
        let blocks = doc.components(separatedBy: "```json\n").dropFirst().map { $0.components(separatedBy: "\n```")[0] }
        #expect(blocks.count >= 4)
        for block in blocks {
            let recipe = try EditRecipe(jsonData: Data(block.utf8))
            #expect(throws: Never.self, "\(block)") { try recipe.validateForEngine() }
            #expect(recipe.engineFields["valid"] == "yes" || recipe.filter?.id.hasPrefix("cube:") == true, "\(block)")
        }
        #expect(throws: EditRecipeError.self) { try EditRecipe(filter: .init(id: "film.warm")).validateForEngine() }
    }

    // CLI error path: a bad recipe names the field and its range; nothing is written.
    @Test("shiying edit with exposure 9: exit ≠ 0, message names adjustments.exposure, no output")
    func cliBadRecipe() async throws {
        let dir = try TempDir("edit-cli-bad")
        defer { dir.remove() }
        let recipe = dir.file("bad.json"), out = dir.file("out.jpg")
        try Data(#"{"adjustments":{"exposure":9}}"#.utf8).write(to: URL(fileURLWithPath: recipe))
        let run = try await CLI.run(["edit", try await Photos.small()[0], "--recipe", recipe, "-o", out])
        #expect(run.exitedNormally && run.status != 0, "\(run)")
        #expect(run.stderr.contains("adjustments.exposure") && run.stderr.contains("-4.0…4.0"), "\(run.stderr)")
        #expect(run.stderr.contains("bad.json"), "the message names the recipe file: \(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let unknown = dir.file("unknown.json")
        try Data(#"{"filter":{"id":"film.nope"}}"#.utf8).write(to: URL(fileURLWithPath: unknown))
        let run2 = try await CLI.run(["edit", try await Photos.small()[0], "--recipe", unknown, "-o", out])
        #expect(run2.status != 0 && run2.stderr.contains("filter.id"), "\(run2)")
    }

    // CLI happy path: JSON report with the recipe echoed, size box honoured; `filters` lists every family.
    @Test("shiying edit --json reports size, format, recipe and metadata; shiying filters lists ≥ 6 per family")
    func cliEditAndFilters() async throws {
        let dir = try TempDir("edit-cli")
        defer { dir.remove() }
        let recipePath = dir.file("r.json"), out = dir.file("out.jpg")
        try Self.typical.jsonData().write(to: URL(fileURLWithPath: recipePath))
        let run = try await CLI.run(["edit", try await Photos.small()[0], "--recipe", recipePath, "-o", out,
                                     "--size", "200x200", "--quality", "85", "--json"])
        #expect(run.succeeded, "\(run)")
        let object = try JSONSerialization.jsonObject(with: Data((run.lastLine ?? "").utf8)) as? [String: Any]
        #expect(object?["format"] as? String == "jpeg" && object?["width"] as? Int == 200, "\(run.stdout)")
        let echoed = try JSONSerialization.data(withJSONObject: object?["recipe"] ?? [:])
        #expect(try EditRecipe(jsonData: echoed) == Self.typical, "recipe echo: \(run.stdout)")
        #expect((object?["engine_peak_bytes"] as? Int ?? 0) > 0 && object?["kept"] as? [String] != nil, "\(run.stdout)")
        let size = try await Magick.size(out)
        #expect(size.width == 200, "\(size)")

        let filters = try await CLI.run(["filters", "--json"])
        #expect(filters.succeeded, "\(filters)")
        let listing = try JSONSerialization.jsonObject(with: Data((filters.lastLine ?? "").utf8)) as? [String: Any]
        let families = listing?["families"] as? [[String: Any]] ?? []
        #expect(families.count >= 4, "\(filters.stdout)")
        for family in families {
            #expect((family["filters"] as? [Any])?.count ?? 0 >= 6, "family \(family["id"] ?? "?") has fewer than 6 filters")
        }
        #expect(try FilterCatalogue.builtIn().families.count == families.count)
    }

    /// `.cube` text for a size-2 table: out = f(in) at the 8 corners, red fastest.
    static func cube(_ f: (Double, Double, Double) -> (Double, Double, Double)) -> String {
        var text = "TITLE \"test\"\nLUT_3D_SIZE 2\n"
        for b in [0.0, 1.0] {
            for g in [0.0, 1.0] {
                for r in [0.0, 1.0] {
                    let v = f(r, g, b)
                    text += "\(v.0) \(v.1) \(v.2)\n"
                }
            }
        }
        return text
    }

    // issue 5: "plus .cube files for user filters" — an identity cube changes nothing, an inverting one inverts.
    @Test("user .cube filters: identity cube = identity, inverting cube inverts; CLI resolves a relative cube path")
    func userCube() async throws {
        let dir = try TempDir("edit-cube")
        defer { dir.remove() }
        let src = try await Self.pngSource(try await Photos.small()[0], in: dir)
        let identityCube = dir.file("identity.cube"), invertCube = dir.file("invert.cube")
        try Self.cube { ($0, $1, $2) }.write(toFile: identityCube, atomically: true, encoding: .utf8)
        try Self.cube { (1 - $0, 1 - $1, 1 - $2) }.write(toFile: invertCube, atomically: true, encoding: .utf8)
        let plain = try Editor.render(src, recipe: .identity)
        let same = try Editor.render(src, recipe: EditRecipe(filter: .init(id: "cube:" + identityCube)))
        let worstSame = zip(same.pixels, plain.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 99
        #expect(same.pixels.count == plain.pixels.count && worstSame <= 1, "identity cube moved a value by \(worstSame)")
        let inverted = try Editor.render(src, recipe: EditRecipe(filter: .init(id: "cube:" + invertCube)))
        let worstInv = zip(inverted.pixels, plain.pixels).map { abs(Int($0) + Int($1) - 255) }.max() ?? 99
        #expect(worstInv <= 1, "inverting cube: worst |a + b - 255| = \(worstInv)")
        // A missing cube names the file.
        #expect { _ = try Editor.render(src, recipe: EditRecipe(filter: .init(id: "cube:" + dir.file("none.cube")))) }
            throws: { ($0 as? ShiyingError)?.message.contains("none.cube") == true }
        // CLI: "cube:invert.cube" next to the recipe file.
        let recipePath = dir.file("r.json"), out = dir.file("cli.png")
        try Data(#"{"filter":{"id":"cube:invert.cube"}}"#.utf8).write(to: URL(fileURLWithPath: recipePath))
        let run = try await CLI.run(["edit", src, "--recipe", recipePath, "-o", out])
        #expect(run.succeeded, "\(run)")
        let cli = try await Self.whole(out)
        #expect(cli == inverted.pixels, "CLI output ≠ render(): \(Self.firstDifference(cli, inverted.pixels))")
    }

    // SPEC E7: overwrite from the full-size original passes the gate; a thumbnail of the same photo is refused.
    @Test("E7 gate: overwrite from the original succeeds; from a downscaled copy it is refused and nothing changes")
    func fullSizeGate() async throws {
        let dir = try TempDir("edit-gate")
        defer { dir.remove() }
        let original = dir.file("IMG_0001.jpg")
        try FileManager.default.copyItem(atPath: try await Photos.small()[0], toPath: original)
        let imported = try Editor.originalRecord(of: original) // what the library recorded at import
        #expect(imported.fullSize == PixelSize(width: 640, height: 480))
        let brighter = EditRecipe(adjustments: .init(exposure: 0.5))
        let before = try Data(contentsOf: URL(fileURLWithPath: original))
        let report = try Editor.overwriteOriginalBlocking(original, recipe: brighter, record: imported)
        #expect(report.width == 640 && report.height == 480 && report.decodedWidth == 640, "\(report)")
        let after = try Data(contentsOf: URL(fileURLWithPath: original))
        #expect(after != before, "the original was not rewritten")
        let mean0 = try await Magick.mean(original, Rect(x: 0, y: 0, width: 640, height: 480))
        #expect(mean0.r + mean0.g + mean0.b > 0, "decodable")

        // The library updates its record after a write; the next edit starts from there.
        let record = try Editor.originalRecord(of: original)
        let thumb = dir.file("thumb.jpg")
        let made = try await runTool("convert", [original, "-resize", "50%", thumb])
        #expect(made.succeeded, "\(made)")
        let untouched = try Data(contentsOf: URL(fileURLWithPath: original))
        #expect(throws: FullSizeGateError.self) {
            _ = try Editor.overwriteOriginalBlocking(original, recipe: brighter, record: record, renderingFrom: thumb)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: original)) == untouched, "refused, yet the original changed")

        // The library file itself replaced by the thumbnail (a proxy in place of the original): refused too.
        let proxyInPlace = dir.file("IMG_0002.jpg")
        try FileManager.default.copyItem(atPath: thumb, toPath: proxyInPlace)
        let proxyBytes = try Data(contentsOf: URL(fileURLWithPath: proxyInPlace))
        do {
            _ = try Editor.overwriteOriginalBlocking(proxyInPlace, recipe: brighter, record: record)
            Issue.record("a proxy in place of the original passed the gate")
        } catch let error as FullSizeGateError {
            #expect(error.message.contains("Nothing was written"), "\(error)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: proxyInPlace)) == proxyBytes)
        #expect(!dir.contents().contains { $0.contains(".tmp") }, "temp files left: \(dir.contents())")
    }

    // Saving never replaces its own input (that is what the gated overwrite is for).
    @Test("save refuses to write over its input; a failed save leaves an existing output untouched")
    func saveNeverClobbers() async throws {
        let dir = try TempDir("edit-clobber")
        defer { dir.remove() }
        let src = dir.file("a.jpg")
        try FileManager.default.copyItem(atPath: try await Photos.small()[0], toPath: src)
        #expect(throws: ShiyingError.self) { _ = try Editor.saveBlocking(src, recipe: Self.typical, to: src) }
        let out = dir.file("keep.jpg")
        let precious = Data("precious".utf8)
        _ = FileManager.default.createFile(atPath: out, contents: precious)
        let broken = dir.file("broken.jpg")
        _ = FileManager.default.createFile(atPath: broken, contents: Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(count: 64))
        #expect(throws: ShiyingError.self) { _ = try Editor.saveBlocking(broken, recipe: Self.typical, to: out) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == precious)
        #expect(!dir.contents().contains { $0.contains(".tmp") }, "temp files left: \(dir.contents())")
    }
}

@Suite("Edit session")
struct EditSessionTests {
    // SPEC E5: a slider drag re-renders without decoding again, and each preview equals a fresh render.
    @Test("EditSession: slider changes reuse one decode; a crop change decodes again; bytes equal Editor.render")
    func oneDecodeManyRenders() async throws {
        let src = try await Photos.small()[1]
        let box = (width: 200, height: 200)
        let session = try EditSession(src, recipe: EditTests.typical, maxSize: box)
        #expect(session.decodeCount == 1)
        var recipe = EditTests.typical
        for exposure in [-0.5, 0.0, 0.7, 1.2] { // a drag of the exposure slider
            recipe.adjustments.exposure = exposure
            let preview = try session.render(recipe)
            let fresh = try Editor.render(src, recipe: recipe, maxSize: box)
            #expect(preview == fresh, "exposure \(exposure): session preview ≠ fresh render")
        }
        #expect(session.decodeCount == 1, "slider changes decoded again: \(session.decodeCount)")
        // The session keeps the downscale grid while the geometry stays: moving the crop must resample
        // again, and sharpening (a halo row above and below) reads the kept grid.
        var moved = recipe
        moved.crop = .init(x: 0.03, y: 0.07, width: 0.9, height: 0.9)
        moved.adjustments.sharpness = 0.6
        moved.adjustments.vignette = 0.4
        for step in [moved, recipe, moved] {
            #expect(try session.render(step) == (try Editor.render(src, recipe: step, maxSize: box)),
                    "crop \(step.crop): session preview ≠ fresh render")
        }
        let decodes = session.decodeCount
        recipe.crop = .init(x: 0.2, y: 0.2, width: 0.3, height: 0.3) // needs more source pixels per target pixel
        let cropped = try session.render(recipe)
        #expect(cropped == (try Editor.render(src, recipe: recipe, maxSize: box)))
        #expect(session.decodeCount == decodes + 1, "a crop change needing another decode: \(session.decodeCount)")
        #expect(throws: EditRecipeError.self) { _ = try session.render(EditRecipe(straighten: 50)) }
        #expect(try session.render(recipe) == cropped, "the session works again after a refused recipe")
    }
}
