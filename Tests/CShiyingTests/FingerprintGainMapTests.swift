// SPEC D7 evidence with HDR photos: the exact-content fingerprint covers the
// gain map and the numbers that apply it, so two photos that agree only in SDR
// are never exact duplicates (a "keep one" would throw an HDR rendition away),
// while byte copies and metadata-only edits still are.
import CShiying
import CShiyingFixtures
import Foundation
import Testing

@Suite("Fingerprint: gain maps in the exact-content evidence")
struct FingerprintGainMapTests {
    /// An HDR sample whose gain map is `mapScale` times smaller per side than the base.
    private func hdrSample(_ folder: SampleFolder, _ name: String, _ format: sy_still_format, mapScale: UInt32) throws
        -> String {
        let ctx = try Context()
        var o = sy_hdr_sample_options()
        sy_hdr_sample_options_init(&o)
        o.width = 640
        o.height = 480
        o.seed = 11
        o.map_scale = mapScale
        var err = sy_error()
        let path = folder.file(name)
        guard sy_hdr_sample_write(ctx.raw, &o, format, path, &err) == SY_OK else {
            throw CTestFailure("sy_hdr_sample_write: \(message(err))")
        }
        return path
    }

    /// The primary image alone as a PNG, decoded by an outside program.
    private func primaryPNG(_ path: String, _ out: String) throws {
        if path.hasSuffix(".heic") {
            try ExternalTools.check("heif-convert", [path, out])
        } else {
            try ExternalTools.check("convert", [path + "[0]", "-strip", out])
        }
    }

    @Test("Same primary, another gain map: not the same content; a byte copy and an Exif edit are", arguments: ["jpg", "heic"])
    func sameBaseOtherMap(ext: String) throws {
        guard ExternalTools.installed("convert"), ExternalTools.installed("heif-convert"),
              ExternalTools.installed("exiftool") else { return }
        let folder = try SampleFolder(count: 0)
        let format = ext == "heic" ? SY_STILL_HEIC : SY_STILL_JPEG
        let half = try hdrSample(folder, "half.\(ext)", format, mapScale: 2)
        let quarter = try hdrSample(folder, "quarter.\(ext)", format, mapScale: 4)
        let copy = folder.file("copy.\(ext)"), edited = folder.file("edited.\(ext)")
        try ExternalTools.writeFile(copy, ExternalTools.readFile(half))
        try ExternalTools.writeFile(edited, ExternalTools.readFile(half))
        try ExternalTools.check("exiftool", ["-q", "-overwrite_original", "-Artist=someone else", edited])
        let ctx = try Context()
        let a = try fingerprint(ctx, half), b = try fingerprint(ctx, quarter)
        let c = try fingerprint(ctx, copy), e = try fingerprint(ctx, edited)
        // The control: both files hold the same primary pixels.
        let pa = folder.file("half.png"), pb = folder.file("quarter.png"), bare = folder.file("bare.\(ext)")
        try primaryPNG(half, pa)
        try primaryPNG(quarter, pb)
        #expect(cString(try fingerprint(ctx, pa).pixel_sha256) == cString(try fingerprint(ctx, pb).pixel_sha256),
                "the two samples should share their primary image")
        #expect(cString(a.pixel_sha256) != cString(b.pixel_sha256), "another gain map, same evidence")
        #expect(cString(a.pixel_sha256) == cString(c.pixel_sha256))
        #expect(cString(e.file_sha256) != cString(a.file_sha256))
        #expect(cString(a.pixel_sha256) == cString(e.pixel_sha256), "an Exif edit changed the content evidence")
        // The primary re-saved without its map (the PNG, or the JPEG cut at the
        // primary's end) is the SDR picture only: not the HDR photo's content.
        #expect(cString(try fingerprint(ctx, pa).pixel_sha256) != cString(a.pixel_sha256))
        if ext == "jpg" {
            try ExternalTools.check("convert", [half + "[0]", "-quality", "95", bare])
            #expect(cString(try fingerprint(ctx, bare).pixel_sha256) != cString(a.pixel_sha256))
        }
        #expect(ctx.stats.current_bytes == 0)
    }

    @Test("The two Apple gain-map JPEGs of the corpus: one primary, two headrooms and maps, two photos")
    func appleCorpusPair() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus/gainmap")
        let old = root.appendingPathComponent("apple_gainmap_old.jpg").path
        let new = root.appendingPathComponent("apple_gainmap_new.jpg").path
        guard FileManager.default.fileExists(atPath: old), ExternalTools.installed("convert") else { return }
        let folder = try SampleFolder(count: 0)
        let ctx = try Context()
        let po = folder.file("old.png"), pn = folder.file("new.png")
        try primaryPNG(old, po)
        try primaryPNG(new, pn)
        #expect(cString(try fingerprint(ctx, po).pixel_sha256) == cString(try fingerprint(ctx, pn).pixel_sha256))
        #expect(cString(try fingerprint(ctx, old).pixel_sha256) != cString(try fingerprint(ctx, new).pixel_sha256))
    }
}
