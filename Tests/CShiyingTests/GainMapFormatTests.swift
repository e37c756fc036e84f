// Issue 7 (SPEC E6): the gain-map containers we write and read — Ultra HDR
// JPEG (MPF + hdrgm XMP) checked with exiftool, Apple HEIC (auxiliary
// hdrgainmap item + XMP) checked with heif-info / heif-convert, the real Apple
// and iPhone files of ../shared/corpus, and forms we must detect but not
// misread (an ISO 21496-1 'tmap' item, an unknown hdrgm version).
import CShiying
import Foundation
import Testing

private enum GainMapCorpus {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus")
    static func file(_ name: String) -> String { root.appendingPathComponent(name).path }
    static var available: Bool { FileManager.default.fileExists(atPath: file("gainmap/apple_gainmap_old.jpg")) }
}

private func cText<T>(_ tuple: T) -> String {
    var copy = tuple
    return withUnsafeBytes(of: &copy) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
}

private func probe(_ ctx: Context, _ path: String) throws -> sy_gainmap_info {
    var info = sy_gainmap_info()
    var err = sy_error()
    guard sy_gainmap_probe(ctx.raw, path, &info, &err) == SY_OK else { throw CTestFailure("probe \(path): \(message(err))") }
    return info
}

/// Replaces the first occurrence of `old` after `from` with `new` (same length).
private func patch(_ bytes: inout [UInt8], _ old: String, _ new: String, after from: Int = 0) throws {
    let o = Array(old.utf8), n = Array(new.utf8)
    precondition(o.count == n.count)
    guard let at = (from...(bytes.count - o.count)).first(where: { Array(bytes[$0..<$0 + o.count]) == o }) else {
        throw CTestFailure("\(old) not found")
    }
    bytes.replaceSubrange(at..<at + o.count, with: n)
}

/// The value of `[group] name : value` in `exiftool -s -G1` output, or nil.
private func exifTag(_ out: String, _ group: String, _ name: String) -> String? {
    for line in out.split(separator: "\n") {
        guard let colon = line.range(of: " : ") else { continue }
        let key = line[..<colon.lowerBound].split(separator: " ", omittingEmptySubsequences: true)
        if key.count == 2, key[0] == "[\(group)]", key[1] == name {
            return line[colon.upperBound...].trimmingCharacters(in: .whitespaces)
        }
    }
    return nil
}

@Suite("Gain map formats (issue 7, SPEC E6)")
struct GainMapFormatTests {
    @Test("E6: our Ultra HDR JPEG — exiftool sees MPF with 2 images, the map at the MPF offset, hdrgm tags on both images")
    func ultraHDRJPEGInExiftool() throws {
        guard ExternalTools.installed("exiftool") else { return }
        let folder = try HDRSampleFolder()
        let out = try ExternalTools.check("exiftool", ["-a", "-s", "-G3:1", "-ee", "-NumberOfImages", "-MPImageType",
                                                       "-MPImageStart", "-MPImageLength", "-XMP-hdrgm:all",
                                                       "-XMP-Container:all", folder.jpeg])
        #expect(exifTag(out, "MPF0", "NumberOfImages") == "2", "\(out)")
        #expect(exifTag(out, "MPImage1", "MPImageType") == "Baseline MP Primary Image")
        #expect(exifTag(out, "MPImage2", "MPImageType") == "Undefined")
        #expect(exifTag(out, "XMP-hdrgm", "Version") == "1.0")
        #expect(exifTag(out, "Doc2:XMP-hdrgm", "Version") == "1.0")
        #expect(exifTag(out, "Doc2:XMP-hdrgm", "GainMapMax") == "3")
        #expect(exifTag(out, "Doc2:XMP-hdrgm", "HDRCapacityMax") == "3")
        #expect(exifTag(out, "Doc2:XMP-hdrgm", "OffsetSDR") == "0.015625")
        // The MPF offset and the Container length both point at the map JPEG we wrote.
        let bytes = ExternalTools.readFile(folder.jpeg)
        let ctx = try Context()
        let info = try probe(ctx, folder.jpeg)
        #expect(info.kind == SY_GAINMAP_ULTRAHDR_JPEG)
        let start = Int(info.map_offset), length = Int(info.map_length)
        #expect(start + length == bytes.count && bytes[start] == 0xFF && bytes[start + 1] == 0xD8)
        #expect(exifTag(out, "MPImage2", "MPImageStart") == "\(start)")
        #expect(exifTag(out, "MPImage2", "MPImageLength") == "\(length)")
        #expect(exifTag(out, "XMP-Container", "DirectoryItemLength") == "\(length)")
        let map = try ExternalTools.run("exiftool", ["-b", "-MPImage2", folder.jpeg])
        #expect(map.status == 0 && !map.err.contains("Error reading MPImage2"), "\(map.err)")
        #expect(info.map_width == 320 && info.map_height == 240 && info.map_channels == 1)
        #expect(info.params.max_log2.0 == 3 && info.params.gamma.0 == 1 && info.params.offset_sdr.0 == 1.0 / 64)
    }

    @Test("E6: our Apple HEIC — heif-info shows the auxC hdrgainmap type, heif-convert --with-aux writes the map, exiftool reads its XMP")
    func appleHEICInHeifTools() throws {
        guard ExternalTools.installed("heif-info", "heif-convert", "exiftool") else { return }
        let folder = try HDRSampleFolder()
        let info = try ExternalTools.check("heif-info", ["-d", folder.heic])
        #expect(info.contains("aux type: urn:com:apple:photo:2020:aux:hdrgainmap"), "\(info.suffix(2000))")
        let png = folder.file("out.png")
        let conv = try ExternalTools.check("heif-convert", ["--with-aux", "--no-colons", folder.heic, png])
        #expect(conv.contains("Auxiliary image written"), "\(conv)")
        let aux = folder.file("out-urn_com_apple_photo_2020_aux_hdrgainmap.png")
        if ExternalTools.installed("identify") {
            let size = try ExternalTools.check("identify", ["-format", "%wx%h", aux])
            #expect(size == "320x240", "aux map is \(size)")
        }
        let tags = try ExternalTools.check("exiftool", ["-a", "-s", "-G1", "-AuxiliaryImageType", "-XMP-HDRGainMap:all", folder.heic])
        #expect(tags.contains("urn:com:apple:photo:2020:aux:hdrgainmap"))
        #expect(exifTag(tags, "XMP-HDRGainMap", "HDRGainMapVersion") == "131072", "\(tags)")
        #expect(exifTag(tags, "XMP-HDRGainMap", "HDRGainMapHeadroom") == "8")
        // Our reader agrees, and the map decodes at its ispe size.
        let ctx = try Context()
        let map = try DecodedGainMap(ctx, folder.heic)
        #expect(map.info.kind == SY_GAINMAP_APPLE_HEIC && map.width == 320 && map.height == 240)
        #expect(map.info.apple_headroom == 8 && map.info.apple_headroom_source == 1)
        #expect(map.pixels.max()! > 200 && map.pixels.min()! < 10, "the map holds real highlights and plain areas")
    }

    @Test("E6: real Apple JPEGs — MPF image 2 with HDRGainMap XMP; headroom from XMP v2 (4.53) or MakerNote 33/48 (8)",
          .enabled(if: GainMapCorpus.available, "../shared/corpus/gainmap is not present"))
    func appleCorpusJPEGs() throws {
        let ctx = try Context()
        let new = try DecodedGainMap(ctx, GainMapCorpus.file("gainmap/apple_gainmap_new.jpg"))
        #expect(new.info.kind == SY_GAINMAP_APPLE_JPEG && new.width == 192 && new.height == 256)
        #expect(new.info.apple_version == 131072 && new.info.apple_headroom_source == 1)
        #expect(abs(new.info.apple_headroom - 4.532783) < 1e-4)
        let old = try DecodedGainMap(ctx, GainMapCorpus.file("gainmap/apple_gainmap_old.jpg"))
        #expect(old.info.kind == SY_GAINMAP_APPLE_JPEG && old.info.apple_version == 65536)
        #expect(old.info.apple_headroom_source == 2 && abs(old.info.maker33 - 1.518932) < 1e-4 && old.info.maker48 == 0)
        #expect(old.info.apple_headroom == 8, "m33 >= 1, m48 = 0: 3 stops")
    }

    @Test("E6: an Apple JPEG whose MPF gain-map image is cut short is uninterpretable, never 'no gain map'; convert refuses without consent (issue 20)",
          .enabled(if: GainMapCorpus.available, "../shared/corpus/gainmap is not present"))
    func truncatedAppleMap() throws {
        let ctx = try Context()
        let source = GainMapCorpus.file("gainmap/apple_gainmap_new.jpg")
        let whole = try probe(ctx, source)
        try #require(whole.kind == SY_GAINMAP_APPLE_JPEG)
        let bytes = ExternalTools.readFile(source)
        let folder = try HDRSampleFolder(width: 128, height: 96)
        for keep in [Int(whole.map_offset) + 2, Int(whole.map_offset + whole.map_length / 2), bytes.count - 1] {
            let path = folder.file("apple-cut-\(keep).jpg")
            try ExternalTools.writeFile(path, Array(bytes.prefix(keep)))
            let info = try probe(ctx, path)
            #expect(info.kind == SY_GAINMAP_UNINTERPRETABLE, "cut at \(keep) of \(bytes.count): kind \(info.kind), \(cText(info.detail))")
            var options = sy_convert_options()
            sy_convert_options_init(&options)
            var report = sy_convert_report()
            var err = sy_error()
            let out = folder.file("apple-cut-\(keep)-converted.jpg")
            #expect(sy_convert(ctx.raw, path, out, &options, &report, &err) != SY_OK, "converted to SDR without asking")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    @Test("E6: real iPhone HEICs — Apple aux map (next to an ISO tmap item) found by our reader; the SE2 file has none",
          .enabled(if: FileManager.default.fileExists(atPath: GainMapCorpus.file("real/iphone15plus_IMG_3853.HEIC")),
                   "../shared/corpus/real is not present"))
    func iphoneCorpusHEICs() throws {
        let ctx = try Context()
        let info = try probe(ctx, GainMapCorpus.file("real/iphone15plus_IMG_3853.HEIC"))
        #expect(info.kind == SY_GAINMAP_APPLE_HEIC && info.has_iso21496 == 1)
        #expect(info.map_width == info.base_width / 2 && info.map_height == info.base_height / 2)
        #expect(info.apple_headroom > 1)
        let none = try probe(ctx, GainMapCorpus.file("real/iphoneSE2_grid.heic"))
        #expect(none.kind == SY_GAINMAP_NONE)
    }

    @Test("E6: an unreadable tmap item without an Apple map and an unknown hdrgm version are uninterpretable, never misread")
    func uninterpretableForms() throws {
        let folder = try HDRSampleFolder(width: 256, height: 192)
        let ctx = try Context()
        // HEIC: the aux URN becomes an unknown one. The tmap item on that map
        // still describes it fully (ISO readers need no Apple type): ISO-only.
        var heic = ExternalTools.readFile(folder.heic)
        try patch(&heic, "aux:hdrgainmap", "aux:hdrgainmaX")
        let unknownAux = folder.file("unknown-aux.heic")
        try ExternalTools.writeFile(unknownAux, heic)
        #expect(try probe(ctx, unknownAux).kind == SY_GAINMAP_ISO_HEIC)
        // ... and with the Exif item turned into a second 'tmap' (no inputs) and
        // the real tmap's data (it leads the mdat) of an item version we do not know:
        try patch(&heic, "Exif", "tmap")
        let mdat = try #require((4..<(heic.count - 4)).first { Array(heic[$0..<$0 + 4]) == Array("mdat".utf8) })
        heic[mdat + 4] = 1
        let tmap = folder.file("tmap.heic")
        try ExternalTools.writeFile(tmap, heic)
        let t = try probe(ctx, tmap)
        #expect(t.kind == SY_GAINMAP_UNINTERPRETABLE && t.has_iso21496 == 1)
        #expect(cText(t.detail).contains("tmap") && cText(t.detail).contains("version 1"), "\(cText(t.detail))")
        // JPEG: the gain map's own hdrgm:Version (after the primary's) says 2.0.
        var jpeg = ExternalTools.readFile(folder.jpeg)
        let info = try probe(ctx, folder.jpeg)
        try patch(&jpeg, "hdrgm:Version=\"1.0\"", "hdrgm:Version=\"2.0\"", after: Int(info.map_offset))
        let v2 = folder.file("v2.jpg")
        try ExternalTools.writeFile(v2, jpeg)
        let u = try probe(ctx, v2)
        #expect(u.kind == SY_GAINMAP_UNINTERPRETABLE && cText(u.detail).contains("2.0"), "\(cText(u.detail))")
        // An ordinary JPEG has no gain map.
        let plain = try SampleFolder(count: 1)
        #expect(try probe(ctx, plain.photos[0]).kind == SY_GAINMAP_NONE)
    }

    @Test("E6: broken containers are errors naming the file; no engine memory is left")
    func brokenInput() throws {
        let folder = try HDRSampleFolder(width: 128, height: 96)
        let ctx = try Context()
        let bytes = ExternalTools.readFile(folder.jpeg)
        for cut in [3, 40, bytes.count / 3] {
            let path = folder.file("cut-\(cut).jpg")
            try ExternalTools.writeFile(path, Array(bytes.prefix(cut)))
            var info = sy_gainmap_info()
            var err = sy_error()
            let st = sy_gainmap_probe(ctx.raw, path, &info, &err)
            if st != SY_OK { #expect(message(err).contains(path), "\(message(err))") }
            if st == SY_OK, info.kind == SY_GAINMAP_ULTRAHDR_JPEG || info.kind == SY_GAINMAP_APPLE_JPEG {
                var img = sy_gainmap_image()
                #expect(sy_gainmap_decode(ctx.raw, path, &info, &img, &err) != SY_OK)
            }
        }
        #expect(ctx.stats.current_bytes == 0)
    }
}
