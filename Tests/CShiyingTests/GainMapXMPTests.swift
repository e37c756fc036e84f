// A save that keeps an Ultra HDR gain map used to write the Ultra HDR packet
// (hdrgm:Version + the Container directory) INSTEAD of an Ultra HDR source's
// XMP: its rating, label, keywords and title were lost while the report
// still said "xmp" kept; HEIC and SDR saves of it wrote an empty packet.
// Now the source's packet is written with its gain-map claims taken out and
// the new directory joined; when the two exceed one JPEG APP1 the JPEG writer
// splits them into extended XMP (XMP Part 3), the directory staying in the main
// packet. exiftool is the independent reader.
import CShiying
import Foundation
import Testing

/// An HDR sample tagged the way a photo manager tags it (exiftool: rating, label, keywords, title): the Ultra
/// HDR JPEG, or the Apple HEIC with a long dc:description too, its XMP packet then `longDescription` bytes longer.
private func tagged(_ folder: HDRSampleFolder, heic: Bool = false, longDescription: Int = 0) throws -> String {
    let out = folder.file("tagged-\(longDescription)." + (heic ? "heic" : "jpg"))
    var args = ["-q", "-o", out, "-XMP-xmp:Rating=4", "-XMP-xmp:Label=Red", "-XMP-dc:Subject=harbour",
                "-XMP-dc:Subject=拾映", "-XMP-dc:Title=Evening ferry"]
    if longDescription > 0 {
        let text = folder.file("description.txt")
        try ExternalTools.writeFile(text, Array(String(repeating: "x", count: longDescription).utf8))
        args.append("-XMP-dc:Description<=" + text)
    }
    try ExternalTools.check("exiftool", args + [heic ? folder.heic : folder.jpeg])
    return out
}

/// The file's XMP as exiftool reads it (-G1 groups: "XMP-xmp:Rating", ...), and its raw packet.
private func xmp(_ path: String) throws -> (tags: [String: Any], packet: String) {
    let json = try ExternalTools.check("exiftool", ["-j", "-G1", "-XMP:all", path])
    let tags = (try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])?.first ?? [:]
    return (tags, try ExternalTools.check("exiftool", ["-b", "-XMP", path]))
}

private func occurrences(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

/// The tags a photo manager wrote, as exiftool reads them back.
private func expectTagsKept(_ tags: [String: Any], _ what: String) {
    #expect("\(tags["XMP-xmp:Rating"] ?? "")" == "4" && tags["XMP-xmp:Label"] as? String == "Red", "\(what): \(tags)")
    #expect(tags["XMP-dc:Subject"] as? [String] == ["harbour", "拾映"], "\(what): \(tags["XMP-dc:Subject"] ?? "nil")")
    #expect(tags["XMP-dc:Title"] as? String == "Evening ferry", "\(what): \(tags["XMP-dc:Title"] ?? "nil")")
}

/// The written file is an Ultra HDR JPEG whose map decodes, indexed by a two-image MPF, named once in the XMP.
private func expectUltraHDR(_ ctx: Context, _ path: String, packet: String, mapWidth: UInt32,
                            kind: sy_gainmap_kind = SY_GAINMAP_ULTRAHDR_JPEG) throws {
    let map = try DecodedGainMap(ctx, path)
    #expect(map.info.kind == kind && map.width == Int(mapWidth), "\(map.info.kind) \(map.width)")
    #expect(occurrences("hdrgm:Version", in: packet) == 1, "one Ultra HDR description: \(packet.prefix(2000))")
    let items = occurrences("Semantic=\"GainMap\"", in: packet) + occurrences("Semantic>GainMap<", in: packet)
    #expect(items == 1 && packet.contains("Item:Length=\"\(map.info.map_length)\""),
            "one directory, naming the map written: \(packet.prefix(2000))")
    let mpf = try ExternalTools.check("exiftool", ["-s3", "-MPF:NumberOfImages", path])
    #expect(mpf.trimmingCharacters(in: .whitespacesAndNewlines) == "2", "MPF: \(mpf)")
}

@Suite("Gain map saves keep the source's XMP (SPEC E6, metadata honesty)",
       .enabled(if: ExternalTools.installed("exiftool"), "exiftool missing"))
struct GainMapXMPTests {
    @Test("an Ultra HDR JPEG tagged by a photo manager, edited and kept Ultra HDR: rating, label, keywords, title stay")
    func ultraHDRKeepsTags() throws {
        let folder = try HDRSampleFolder(width: 512, height: 384)
        let ctx = try Context()
        let source = try tagged(folder)
        expectTagsKept(try xmp(source).tags, "the fixture")
        var recipe = turnAndCropRecipe(colour: true)
        let out = folder.file("edited.jpg")
        let r = gainMapEdit(ctx, source, out, &recipe, format: SY_STILL_JPEG, hook: nil)
        #expect(r.status == SY_OK && r.report.outcome == SY_HDR_KEPT, "\(message(r.error))")
        #expect(r.report.edit.kept_xmp == 1 && r.report.edit.dropped & SY_DROPPED_XMP.rawValue == 0,
                "the report: kept_xmp \(r.report.edit.kept_xmp), dropped 0x\(String(r.report.edit.dropped, radix: 16))")
        let seen = try xmp(out)
        expectTagsKept(seen.tags, "edited")
        try expectUltraHDR(ctx, out, packet: seen.packet, mapWidth: r.report.map_width)
        // edited again: the claims of the first save are replaced, not piled up
        let again = folder.file("again.jpg")
        var identity = sy_recipe()
        sy_recipe_init(&identity)
        #expect(gainMapEdit(ctx, out, again, &identity, format: SY_STILL_JPEG, hook: nil).status == SY_OK)
        let twice = try xmp(again)
        expectTagsKept(twice.tags, "edited twice")
        try expectUltraHDR(ctx, again, packet: twice.packet, mapWidth: r.report.map_width)
        #expect(twice.packet.utf8.count <= seen.packet.utf8.count + 8, "\(twice.packet.utf8.count) vs \(seen.packet.utf8.count)")
    }

    @Test("the same source saved as HEIC (gain map kept) and as SDR PNG (consent): its tags stay, its Ultra HDR claims go")
    func heicAndSDRKeepTags() throws {
        let folder = try HDRSampleFolder(width: 256, height: 192)
        let ctx = try Context()
        let source = try tagged(folder)
        var recipe = turnAndCropRecipe(colour: false)
        for (name, format) in [("out.heic", SY_STILL_HEIC), ("out.png", SY_STILL_PNG)] {
            let out = folder.file(name)
            let r = gainMapEdit(ctx, source, out, &recipe, format: format, hook: HookCounter(answer: true))
            #expect(r.status == SY_OK && r.report.edit.kept_xmp == 1, "\(name): \(message(r.error))")
            let seen = try xmp(out)
            expectTagsKept(seen.tags, name)
            #expect(!seen.packet.contains("hdrgm:") && !seen.packet.contains("Directory"),
                    "\(name): no Ultra HDR layout claimed: \(seen.packet.prefix(2000))")
        }
    }

    @Test("a source packet too big to share JPEG's one XMP segment with the Ultra HDR directory: map kept, the rest in extended XMP")
    func oversizedPacketIsSplit() throws {
        let folder = try HDRSampleFolder(width: 256, height: 192)
        let ctx = try Context()
        // a HEIC's XMP has no 64 KB limit; this one would fit a JPEG alone, not with the directory beside it
        let source = try tagged(folder, heic: true, longDescription: 64_300)
        let before = try xmp(source)
        let unpadded = try #require(before.packet.range(of: "<?xpacket end").map {
            before.packet[..<$0.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines).utf8.count
        })
        #expect((64_800...65_400).contains(unpadded), "the fixture's packet without its padding: \(unpadded) B")
        expectTagsKept(before.tags, "the fixture")
        var recipe = turnAndCropRecipe(colour: false)
        let out = folder.file("edited.jpg")
        let r = gainMapEdit(ctx, source, out, &recipe, format: SY_STILL_JPEG, hook: nil)
        #expect(r.status == SY_OK && r.report.outcome == SY_HDR_KEPT, "\(message(r.error))")
        #expect(r.report.edit.kept_xmp == 1 && r.report.edit.dropped & SY_DROPPED_XMP.rawValue == 0,
                "the report: kept_xmp \(r.report.edit.kept_xmp), dropped 0x\(String(r.report.edit.dropped, radix: 16))")
        let seen = try xmp(out) // the main packet: the directory, the rating, the note naming the extension
        expectTagsKept(seen.tags, "split")
        #expect("\(seen.tags["XMP-dc:Description"] ?? "")".count == 64_300, "the description, from the extension")
        #expect(seen.packet.utf8.count <= 65_504 && seen.packet.contains("HasExtendedXMP"), "\(seen.packet.utf8.count) B")
        try expectUltraHDR(ctx, out, packet: seen.packet, mapWidth: r.report.map_width, kind: SY_GAINMAP_APPLE_JPEG)
        // the same source with a description that leaves room: everything kept
        let roomy = try tagged(folder, heic: true, longDescription: 60_000)
        let kept = gainMapEdit(ctx, roomy, folder.file("roomy.jpg"), &recipe, format: SY_STILL_JPEG, hook: nil)
        #expect(kept.status == SY_OK && kept.report.edit.kept_xmp == 1 && kept.report.edit.dropped & SY_DROPPED_XMP.rawValue == 0)
        expectTagsKept(try xmp(folder.file("roomy.jpg")).tags, "roomy")
    }
}
