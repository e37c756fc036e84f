// SPEC C4 on the C API: the failing-pair fallback removes the content
// identifier from the still by rewriting only its metadata (exiftool sees no
// identifier, every other byte — the compressed image included — is
// unchanged, so are the decoded pixels), or refuses and leaves nothing.
import CShiying
import Foundation
import Testing

private func strip(_ ctx: Context, _ input: String, _ output: String) -> (sy_status, Int32, String) {
    var err = sy_error()
    var removed: Int32 = 0
    let st = sy_live_still_strip(ctx.raw, input, output, &removed, &err)
    return (st, removed, message(err))
}

/// Offsets where two equally long files differ.
private func differences(_ a: [UInt8], _ b: [UInt8]) -> [Int] {
    precondition(a.count == b.count)
    return (0..<a.count).filter { a[$0] != b[$0] }
}

/// Byte range of the JPEG's Exif APP1 segment (marker included).
private func exifSegment(_ jpeg: [UInt8]) -> Range<Int>? {
    var at = 2
    while at + 4 <= jpeg.count, jpeg[at] == 0xFF, jpeg[at + 1] != 0xDA {
        let end = at + 2 + (Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3]))
        if jpeg[at + 1] == 0xE1, end <= jpeg.count, Array(jpeg[(at + 4)..<(at + 10)]) == Array("Exif\0\0".utf8) {
            return at..<end
        }
        at = end
    }
    return nil
}

@Suite("Live fallback: strip the identifier (SPEC C4)", .enabled(if: LiveFixtures.hasTools, "ffmpeg/exiftool not installed"))
struct LiveFallbackTests {
    @Test("JPEG still: identifier gone for exiftool, only the Exif APP1 changed, pixels identical")
    func stripJPEG() throws {
        let src = try LiveFixtures.source.get()
        let dir = try LiveFixtures.fresh("strip-jpeg")
        let ctx = try Context()
        let pair = liveSave(ctx, movie: src, stillOut: dir + "/live.jpg", movieOut: dir + "/live.mov")
        try #require(pair.status == SY_OK, "\(message(pair.error))")
        let (st, removed, msg) = strip(ctx, dir + "/live.jpg", dir + "/plain.jpg")
        try #require(st == SY_OK, "\(msg)")
        #expect(removed == 1)
        #expect(try liveExiftoolStillID(dir + "/plain.jpg") == "")
        #expect(try liveStillID(ctx, dir + "/plain.jpg") == nil)
        let before = ExternalTools.readFile(dir + "/live.jpg"), after = ExternalTools.readFile(dir + "/plain.jpg")
        try #require(before.count == after.count)
        // nothing outside the Exif APP1 segment moved (entropy-coded data included)
        let app1 = try #require(exifSegment(before))
        let changed = differences(before, after)
        #expect(!changed.isEmpty && changed.allSatisfy { app1.contains($0) }, "changed bytes outside APP1 \(app1)")
        // no byte of the identifier is left anywhere
        #expect(String(decoding: after, as: UTF8.self).range(of: pair.id) == nil)
        let a = try liveDecodeStill(ctx, dir + "/live.jpg"), b = try liveDecodeStill(ctx, dir + "/plain.jpg")
        #expect(a.pixels == b.pixels && a.width == b.width)
        let validate = try ExternalTools.check("exiftool", ["-validate", "-warning", "-a", dir + "/plain.jpg"])
        #expect(validate.trimmingCharacters(in: .newlines).hasSuffix(": OK"), "\(validate)")
    }

    @Test("real iPhone HEIC: identifier gone, the other Apple MakerNote tags kept, only Exif bytes changed, pixels identical")
    func stripIPhoneHEIC() throws {
        let heic = LiveFixtures.corpus + "/iphone15plus_IMG_3853.HEIC"
        try #require(FileManager.default.fileExists(atPath: heic))
        let dir = try LiveFixtures.fresh("strip-heic")
        let ctx = try Context()
        let (st, removed, msg) = strip(ctx, heic, dir + "/plain.heic")
        try #require(st == SY_OK, "\(msg)")
        #expect(removed == 1)
        #expect(try liveExiftoolStillID(dir + "/plain.heic") == "")
        let appleBefore = try ExternalTools.check("exiftool", ["-s", "-Apple:all", heic]).split(separator: "\n").count
        let appleAfter = try ExternalTools.check("exiftool", ["-s", "-Apple:all", dir + "/plain.heic"]).split(separator: "\n").count
        #expect(appleAfter == appleBefore - 1 && appleAfter > 10, "Apple tags \(appleBefore) -> \(appleAfter)")
        let before = ExternalTools.readFile(heic), after = ExternalTools.readFile(dir + "/plain.heic")
        try #require(before.count == after.count)
        let changed = differences(before, after)
        // one MakerNote inside the Exif item: the entries after 0x0011 and the 37-byte string
        #expect(!changed.isEmpty && changed.last! - changed.first! < 4096, "changes spread over \(changed.first!)...\(changed.last!)")
        let a = try liveDecodeStill(ctx, heic), b = try liveDecodeStill(ctx, dir + "/plain.heic")
        #expect(a.pixels == b.pixels)
        // libheif sees the same file structure before and after
        let infoBefore = try ExternalTools.run("heif-info", [heic]), infoAfter = try ExternalTools.run("heif-info", [dir + "/plain.heic"])
        #expect(infoBefore.status == infoAfter.status && infoBefore.out == infoAfter.out)
    }

    @Test("an identifier that cannot be removed (a copy outside the MakerNote) → error, no output, old file intact")
    func unremovable() throws {
        let src = try LiveFixtures.source.get()
        let dir = try LiveFixtures.fresh("strip-refuse")
        let ctx = try Context()
        let pair = liveSave(ctx, movie: src, stillOut: dir + "/live.jpg", movieOut: dir + "/live.mov")
        try #require(pair.status == SY_OK, "\(message(pair.error))")
        // a JPEG comment carrying the identifier too
        let bytes = ExternalTools.readFile(dir + "/live.jpg")
        let comment = Array("pair \(pair.id)".utf8)
        let com: [UInt8] = [0xFF, 0xFE, UInt8((comment.count + 2) >> 8), UInt8((comment.count + 2) & 0xFF)] + comment
        try ExternalTools.writeFile(dir + "/tagged.jpg", Array(bytes[0..<2]) + com + Array(bytes[2...]))
        try ExternalTools.writeFile(dir + "/out.jpg", Array("keep me".utf8))
        let (st, _, msg) = strip(ctx, dir + "/tagged.jpg", dir + "/out.jpg")
        #expect(st == SY_E_UNSUPPORTED && msg.contains("tagged.jpg: cannot remove the content identifier"), "\(msg)")
        #expect(ExternalTools.readFile(dir + "/out.jpg") == Array("keep me".utf8))
        let left = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(left == ["live.jpg", "live.mov", "out.jpg", "tagged.jpg"], "left behind: \(left)")
        // a still without an identifier strips to an identical copy
        let plain = dir + "/plain.jpg"
        let (st2, _, _) = strip(ctx, dir + "/live.jpg", plain)
        #expect(st2 == SY_OK)
        let (st3, removed3, msg3) = strip(ctx, plain, dir + "/again.jpg")
        #expect(st3 == SY_OK && removed3 == 0, "\(msg3)")
        #expect(ExternalTools.readFile(plain) == ExternalTools.readFile(dir + "/again.jpg"))
    }
}
