// Issue 16 items 6 and 7: a saved still never fails on an Exif too large for
// JPEG (it sheds the thumbnail, then the MakerNote, and says so), and it claims
// nothing it does not carry: no Live identifier once apart from the movie, no
// Motion Photo XMP once the video is gone. exiftool is the independent reader.
import Foundation
@testable import Shiying
import Testing

@Suite("Metadata honesty (issue 16: oversized Exif, Live identifier, Motion Photo)",
       .enabled(if: LiveMovies.toolsPresent, "ffmpeg/exiftool/convert or corpus missing"))
struct MetadataHonestyTests {
    static func exiftool(_ args: [String]) async throws -> String {
        let run = try await runTool("exiftool", args)
        guard run.succeeded else { throw TestFailure("exiftool \(args): \(run)") }
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("a HEIC with 400+ KB of Exif converts and edits to JPEG: thumbnail shed and reported, date and GPS kept")
    func oversizedExif() async throws {
        let dir = try TempDir("md-big-exif")
        defer { dir.remove() }
        let photos = try await FixtureCache.shared.samples("md-thumb", count: 2, seed: 31, width: 1600, height: 1200)
        let heic = dir.file("big.heic")
        _ = try Conversion.convertBlocking(try await Photos.small()[0], to: heic, quality: 60)
        _ = try await Self.exiftool(["-q", "-overwrite_original", "-DateTimeOriginal=2024:05:06 07:08:09",
                                     "-GPSLatitude=31.23", "-GPSLatitudeRef=N", "-GPSLongitude=121.47",
                                     "-GPSLongitudeRef=E", "-ThumbnailImage<=" + photos[1], heic])
        let thumb = try #require(Int(try await Self.exiftool(["-s3", "-ThumbnailLength", heic])))
        #expect(thumb > 65_536, "the fixture's Exif must exceed one APP1 (thumbnail \(thumb) B)")
        let before = try Data(contentsOf: URL(fileURLWithPath: heic))

        let out = dir.file("out.jpg")
        let report = try Conversion.convertBlocking(heic, to: out)
        #expect(report.dropped.map(\.name) == ["exif-thumbnail"], "\(report.dropped)")
        #expect(report.kept.contains("gps") && report.captureDate == "2024:05:06 07:08:09", "\(report)")
        let seen = try await Self.exiftool(["-s3", "-n", "-DateTimeOriginal", "-GPSLatitude", "-ThumbnailLength", out])
        #expect(seen.split(separator: "\n").map(String.init) == ["2024:05:06 07:08:09", "31.23"], "exiftool: \(seen)")
        #expect(try await Self.exiftool(["-s3", "-validate", out]) == "OK")
        #expect(try Data(contentsOf: URL(fileURLWithPath: heic)) == before, "the source is untouched")

        let edited = dir.file("edit.jpg") // the editor's save takes the same exit path
        let e = try Editor.saveBlocking(heic, recipe: EditRecipe(quarterTurns: 1), to: edited)
        #expect(e.dropped.map(\.name) == ["exif-thumbnail"] && e.kept.contains("gps"), "\(e)")
        // HEIC holds any Exif size: nothing is shed there.
        let same = try Conversion.convertBlocking(heic, to: dir.file("same.heic"), quality: 60)
        #expect(same.dropped.isEmpty, "\(same.dropped)")
    }

    // Found by a user-level sweep (2026-12-05): `convert` of the Samsung camera JPEG lost its IPTC keywords
    // and did not say so. A JPEG save now keeps the APP13 block; a HEIC lists it dropped (it has no place there).
    @Test("IPTC keywords: kept by a JPEG save (exiftool reads them), listed dropped by a HEIC save")
    func iptcKeptOrListed() async throws {
        let dir = try TempDir("md-iptc")
        defer { dir.remove() }
        let source = dir.file("tagged.jpg")
        _ = try Conversion.convertBlocking(try await Photos.small()[0], to: source, quality: 80)
        _ = try await Self.exiftool(["-q", "-overwrite_original", "-IPTC:Keywords=拾映", "-IPTC:Keywords=harbour",
                                     "-IPTC:Caption-Abstract=evening", "-charset", "iptc=UTF8", source])
        let jpeg = dir.file("out.jpg"), heic = dir.file("out.heic")
        let kept = try Conversion.convertBlocking(source, to: jpeg)
        #expect(kept.dropped.isEmpty, "\(kept.dropped)")
        #expect(try await Self.exiftool(["-s3", "-IPTC:Caption-Abstract", jpeg]) == "evening")
        #expect(try await Self.exiftool(["-s3", "-sep", ",", "-IPTC:Keywords", jpeg]).contains("harbour"))
        let listed = try Conversion.convertBlocking(source, to: heic)
        #expect(listed.dropped.map(\.name) == ["iptc"], "\(listed.dropped)")
    }

    // Found by a user-level sweep (2026-12-06): the Exif orientation became 1 with the upright pixels, but an XMP
    // tiff:Orientation of 6 stayed, so apps reading XMP turned the picture a second time.
    @Test("an XMP orientation follows the pixels made upright (JPEG and HEIC outputs)")
    func xmpOrientationUpright() async throws {
        let dir = try TempDir("md-xmp-orientation")
        defer { dir.remove() }
        let source = dir.file("turned.jpg")
        _ = try Conversion.convertBlocking(try await Photos.small()[0], to: source, quality: 80)
        _ = try await Self.exiftool(["-q", "-overwrite_original", "-n", "-IFD0:Orientation=6", "-XMP-tiff:Orientation=6",
                                     source])
        #expect(try await Self.exiftool(["-s3", "-n", "-XMP-tiff:Orientation", source]) == "6", "fixture")
        for out in [dir.file("out.jpg"), dir.file("out.heic")] {
            _ = try Editor.saveBlocking(source, recipe: .identity, to: out)
            #expect(try await Self.exiftool(["-s3", "-n", "-XMP-tiff:Orientation", out]) == "1", "\(out)")
            #expect(try await Self.exiftool(["-s3", "-n", "-IFD0:Orientation", out]) == "1", "\(out)")
        }
    }

    // Found by a user-level sweep (2026-12-06): a half-transparent PNG came out flattened onto white, "dropped": [].
    @Test("transparency the output cannot keep is listed as dropped (alpha); an opaque PNG lists nothing")
    func alphaListed() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/convert") else { return }
        let dir = try TempDir("md-alpha")
        defer { dir.remove() }
        let clear = dir.file("clear.png"), opaque = dir.file("opaque.png")
        for (path, alpha) in [(clear, ["-alpha", "set", "-channel", "A", "-evaluate", "set", "50%", "+channel"]),
                              (opaque, [])] {
            let r = try await runTool("convert", ["-size", "120x80", "gradient:red-blue"] + alpha + [path])
            #expect(r.succeeded, "\(r)")
        }
        let flattened = try Editor.saveBlocking(clear, recipe: .identity, to: dir.file("out.png"))
        #expect(flattened.dropped.map(\.name) == ["alpha"], "\(flattened.dropped)")
        let converted = try Conversion.convertBlocking(clear, to: dir.file("out.heic"))
        #expect(converted.dropped.map(\.name) == ["alpha"], "\(converted.dropped)")
        #expect(try Editor.saveBlocking(opaque, recipe: .identity, to: dir.file("o.png")).dropped.isEmpty)
    }

    @Test("a plain edit of a Live still carries no content identifier (generated pair and the real iPhone still)")
    func liveStillEdit() async throws {
        let dir = try TempDir("md-live-id")
        defer { dir.remove() }
        let made = try await CLI.run(["live", "make", "--video", try await LiveMovies.source(), "--at", "0.6",
                                      "-o", dir.path, "--json"])
        let still = try #require(try liveJSON(made.stdout)["still"] as? String, "\(made)")
        #expect(try await liveExiftoolStill(still) != "")
        try Data("{\"quarterTurns\":1}".utf8).write(to: URL(fileURLWithPath: dir.file("turn.json")))
        let plain = try await CLI.run(["edit", still, "--recipe", dir.file("turn.json"), "-o", dir.file("plain.jpg"),
                                       "--json"])
        let p = try liveJSON(plain.stdout)
        #expect(plain.status == 0, "\(plain)")
        #expect((p["dropped"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["content-identifier"])
        #expect(try await liveExiftoolStill(dir.file("plain.jpg")) == "")

        let real = Paths.corpus.appendingPathComponent("real/iphone15plus_IMG_3853.HEIC").path
        guard FileManager.default.fileExists(atPath: real) else { return }
        #expect(try await liveExiftoolStill(real) != "")
        let out = dir.file("iphone.heic")
        let r = try HDREditor.saveBlocking(real, recipe: EditRecipe(quarterTurns: 1), to: out, format: .heic, quality: 60)
        // iOS 18 stores an ISO 21496-1 'tmap' item (carried with the map) and a 'thmb' thumbnail (rendered anew).
        #expect(r.edit.dropped.map(\.name) == ["content-identifier"] && r.hdr == "kept", "\(r)")
        #expect(Set(r.edit.kept).isSuperset(of: ["heic-thumbnail", "hdr-gain-map", "apple-gain-map", "iso-21496-gain-map"]),
                "\(r.edit.kept)")
        // the thumbnail has the source's long side (416) and the edit's shape (turned: 312x416); Debian's
        // libheif lists it, a current one (pillow-heif) decodes it, and it shows the edited picture
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/heif-info") {
            let info = try await runTool("heif-info", [out])
            #expect(info.stdout.contains("thumbnail: 312x416"), "\(info.stdout)")
        }
        if ColourOracle.available {
            let script = """
            import sys, numpy as np, pillow_heif
            from PIL import Image
            f = pillow_heif.open_heif(sys.argv[1])
            t = np.asarray(f[0].get_thumbnail(0).to_pillow().convert("RGB"), dtype=float)
            m = np.asarray(f.to_pillow().convert("RGB").resize((t.shape[1], t.shape[0]), Image.BOX), dtype=float)
            print(t.shape[1], t.shape[0], 10 * np.log10(255 ** 2 / np.mean((t - m) ** 2)))
            """
            let run = try await ColourOracle.python(["-W", "ignore", "-c", script, out])
            let f = (run.lastLine ?? "").split(separator: " ").compactMap { Double($0) }
            #expect(f.count == 3 && f[0] == 312 && f[1] == 416 && f[2] >= 30, "pillow-heif: \(run)")
        }
        #expect(try await liveExiftoolStill(out) == "")
        #expect(try await Self.exiftool(["-s3", "-Apple:MakerNoteVersion", out]) == "15",
                "the rest of the Apple MakerNote stays")
    }

    @Test("a Live movie made from a real iPhone movie keeps its timed metadata, lens keys and shooting date, and says so")
    func movieKeepsAreReported() async throws {
        let dir = try TempDir("md-movie-drops")
        defer { dir.remove() }
        let mov = Paths.corpus.appendingPathComponent("real/iphone15plus_IMG_3853.MOV").path
        let report = try LivePhoto.saveBlocking(movie: mov, stillOut: dir.file("l.jpg"), movieOut: dir.file("l.mov"))
        #expect(report.movieDropped.isEmpty, "\(report.movieDropped)")
        #expect(report.movieKept == ["audio", "movie-metadata", "creation-date", "video-track-metadata",
                                     "timed-metadata-tracks"], "\(report.movieKept)")
        // the source's orientation and live-photo-info tracks are copied; the still-image time is ours, once
        let tracks = try await runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_tag_string",
                                                   "-of", "csv=p=0", dir.file("l.mov")])
        #expect(tracks.stdout.split(separator: "\n").filter { $0 == "mebx" }.count == 3, "\(tracks.stdout)")
        let source = try await Self.exiftool(["-s3", "-CreateDate", mov])
        #expect(try await Self.exiftool(["-s3", "-CreateDate", dir.file("l.mov")]) == source)
    }

    @Test("convert of an HDR photo to PNG: refused without --allow-sdr (nothing written), with it SDR and 'dropped' says so")
    func convertAllowSDR() async throws {
        let dir = try TempDir("md-allow-sdr")
        defer { dir.remove() }
        let real = Paths.corpus.appendingPathComponent("real/iphone15plus_IMG_3853.HEIC").path
        let refused = try await CLI.run(["convert", real, "-o", dir.file("a.png")])
        #expect(refused.status == 1 && refused.stderr.contains("--allow-sdr"), "\(refused)")
        #expect(dir.contents().isEmpty, "nothing written: \(dir.contents())")
        let allowed = try await CLI.run(["convert", real, "-o", dir.file("a.png"), "--allow-sdr", "--json"])
        let a = try liveJSON(allowed.stdout)
        let names = (a["dropped"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
        #expect(allowed.status == 0 && names.contains("hdr-gain-map"), "\(allowed)")
        #expect(!((a["kept"] as? [String]) ?? []).contains("hdr-gain-map"))
        #expect(dir.contents() == ["a.png"])
    }

    @Test("a Motion Photo JPEG edited loses its Motion Photo XMP (the video is gone) and keeps the rest of its XMP")
    func motionPhoto() async throws {
        let dir = try TempDir("md-motion")
        defer { dir.remove() }
        let src = dir.file("motion.jpg")
        try FileManager.default.copyItem(atPath: try await Photos.small()[2], toPath: src)
        let xmp = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/"
              xmlns:Container="http://ns.google.com/photos/1.0/container/"
              xmlns:Item="http://ns.google.com/photos/1.0/container/item/" xmlns:dc="http://purl.org/dc/elements/1.1/"
              GCamera:MotionPhoto="1" GCamera:MotionPhotoVersion="1" GCamera:MotionPhotoPresentationTimestampUs="566000">
             <dc:subject><rdf:Bag><rdf:li>harbour</rdf:li></rdf:Bag></dc:subject>
             <Container:Directory><rdf:Seq>
              <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="image/jpeg" Item:Semantic="Primary" Item:Length="0"/></rdf:li>
              <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" Item:Length="4096"/></rdf:li>
             </rdf:Seq></Container:Directory>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """
        try Data(xmp.utf8).write(to: URL(fileURLWithPath: dir.file("mp.xmp")))
        _ = try await Self.exiftool(["-q", "-overwrite_original", "-xmp<=" + dir.file("mp.xmp"), src])
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: src)) // the "video" after EOI
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37) }))
        try handle.close()
        #expect(try await Self.exiftool(["-s3", "-XMP-GCamera:MotionPhoto", src]) == "1", "fixture carries the claim")

        let out = dir.file("edited.jpg")
        let report = try Editor.saveBlocking(src, recipe: EditRecipe(crop: .init(x: 0.1, y: 0.1, width: 0.8, height: 0.8)), to: out)
        #expect(report.dropped.map(\.name) == ["motion-photo"] && report.kept.contains("xmp"), "\(report)")
        let seen = try await Self.exiftool(["-s", "-XMP:all", out])
        #expect(!seen.contains("MotionPhoto") && !seen.contains("video/mp4"), "exiftool still sees: \(seen)")
        #expect(seen.contains("harbour") && seen.contains("Primary"), "the rest of the XMP stays: \(seen)")
    }
}

/// Issue 16 item 1: Samsung HEICs carry their ICC profile only on the grid's
/// tiles; the grid item (the primary) has none. Our writer's file is patched
/// to that shape, and an edit of it must still carry the profile.
@Suite("Tile-only ICC (Samsung HEIC shape)", .enabled(if: LiveMovies.toolsPresent, "exiftool or corpus missing"))
struct TileProfileTests {
    static func u32(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
    static func u16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
    static func find(_ b: [UInt8], _ type: String) -> Int? {
        let t = Array(type.utf8)
        return b.indices.first { $0 >= 4 && $0 + 4 <= b.count && Array(b[$0..<$0 + 4]) == t }
    }

    /// Moves the primary grid's 'prof' association to its first tile; false if the shape is not found.
    static func dropPrimaryProfile(_ b: inout [UInt8]) -> Bool {
        guard let pitm = find(b, "pitm"), let ipco = find(b, "ipco"), let ipma = find(b, "ipma") else { return false }
        let primary = u16(b, pitm + 8)
        var at = ipco + 4, index = 0, prof = 0, pixi = 0
        let end = ipco - 4 + u32(b, ipco - 4)
        while at + 8 <= end {
            let size = u32(b, at)
            index += 1
            let type = String(decoding: b[at + 4..<at + 8], as: UTF8.self)
            if type == "colr" && String(decoding: b[at + 8..<at + 12], as: UTF8.self) == "prof" { prof = index }
            if type == "pixi" && pixi == 0 { pixi = index }
            guard size >= 8 else { return false }
            at += size
        }
        guard prof > 0, pixi > 0 else { return false }
        // Our writer puts the profile on the grid only: the grid's association
        // moves to the first tile (which gives up its 'pixi' slot for it).
        var p = ipma + 8 // version/flags
        let count = u32(b, p)
        p += 4
        var moved = 0
        for _ in 0..<count {
            let id = u16(b, p), n = Int(b[p + 2])
            let (from, to) = id == primary ? (prof, pixi) : id == primary + 1 ? (pixi, prof) : (0, 0)
            for k in 0..<n where from > 0 && Int(b[p + 3 + k] & 0x7F) == from {
                b[p + 3 + k] = UInt8(to)
                moved += 1
                break
            }
            p += 3 + n
        }
        return moved == 2
    }

    @Test("an edit of a HEIC whose profile sits on the tiles only keeps it (exiftool: Display P3)")
    func tileProfile() async throws {
        let dir = try TempDir("md-tile-icc")
        defer { dir.remove() }
        let real = Paths.corpus.appendingPathComponent("real/iphone15plus_IMG_3853.HEIC").path
        let icc = dir.file("p3.icc"), jpeg = dir.file("p3.jpg")
        let extracted = try await runTool("sh", ["-c", "exiftool -b -ICC_Profile '\(real)' > '\(icc)'"])
        #expect(extracted.succeeded, "\(extracted)")
        try FileManager.default.copyItem(atPath: try await Photos.small()[3], toPath: jpeg)
        _ = try await MetadataHonestyTests.exiftool(["-q", "-overwrite_original", "-ICC_Profile<=" + icc, jpeg])
        let heic = dir.file("grid.heic")
        _ = try Conversion.convertBlocking(jpeg, to: heic, quality: 50)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: heic)))
        try #require(Self.dropPrimaryProfile(&bytes), "the writer's HEIC has a grid primary with a 'prof' property")
        let samsung = dir.file("samsung-shape.heic")
        try Data(bytes).write(to: URL(fileURLWithPath: samsung))
        let heifInfo = try await runTool("heif-info", [samsung])
        #expect(heifInfo.succeeded, "libheif reads the patched file: \(heifInfo)")

        let out = dir.file("edited.jpg")
        let report = try Editor.saveBlocking(samsung, recipe: EditRecipe(quarterTurns: 1), to: out)
        #expect(report.kept.contains("icc"), "\(report.kept)")
        let description = try await MetadataHonestyTests.exiftool(["-s3", "-ProfileDescription", out])
        #expect(description.contains("P3"), "profile of the edit: \(description)")
    }
}

extension MetadataHonestyTests {
    // Found by a metadata sweep (2026-12-06): edits kept the source's Exif thumbnail (IFD1) byte for byte, so a
    // greyscale crop still carried the full colour frame, and an upright-ed orientation-6 JPEG a sideways one.
    @Test("a stale Exif thumbnail goes: crop + filter (JPEG, HEIC), upright-ing, resize; an unedited save keeps it")
    func staleExifThumbnail() async throws {
        let dir = try TempDir("md-stale-thumb")
        defer { dir.remove() }
        let photos = try await FixtureCache.shared.samples("md-stale-thumb", count: 2, seed: 43, width: 1200, height: 900)
        let thumb = dir.file("thumb.jpg"), source = dir.file("source.jpg"), turned = dir.file("turned.jpg")
        _ = try Editor.saveBlocking(photos[1], recipe: .identity, to: thumb, quality: 80, maxSize: (160, 120))
        try FileManager.default.copyItem(atPath: photos[0], toPath: source)
        _ = try await Self.exiftool(["-q", "-overwrite_original", "-ThumbnailImage<=" + thumb, source])
        try FileManager.default.copyItem(atPath: source, toPath: turned)
        _ = try await Self.exiftool(["-q", "-overwrite_original", "-n", "-IFD0:Orientation=6", turned])
        let thumbBytes = try Data(contentsOf: URL(fileURLWithPath: thumb))
        func carries(_ path: String) throws -> Bool {
            try Data(contentsOf: URL(fileURLWithPath: path)).range(of: thumbBytes) != nil
        }
        #expect(try carries(source) && carries(turned), "fixtures carry the thumbnail")

        let crop = EditRecipe(crop: .init(x: 0, y: 0, width: 0.25, height: 1), adjustments: .init(saturation: -1))
        var outputs: [(String, [String])] = []
        for name in ["crop.jpg", "crop.heic"] {
            let r = try Editor.saveBlocking(source, recipe: crop, to: dir.file(name))
            outputs.append((dir.file(name), r.dropped.map(\.name)))
        }
        let upright = try Conversion.convertBlocking(turned, to: dir.file("upright.jpg"), quality: 70)
        outputs.append((dir.file("upright.jpg"), upright.dropped.map(\.name)))
        let small = try Editor.saveBlocking(source, recipe: .identity, to: dir.file("small.jpg"), maxSize: (600, 450))
        outputs.append((dir.file("small.jpg"), small.dropped.map(\.name)))
        for (out, dropped) in outputs {
            #expect(dropped.contains("exif-thumbnail"), "\(out): \(dropped)")
            #expect(try await Self.exiftool(["-s3", "-ThumbnailLength", "-ThumbnailOffset", out]) == "", "\(out)")
            #expect(try !carries(out), "\(out): the old thumbnail's bytes are gone, not only unlinked")
            #expect(try await Self.exiftool(["-s3", "-DateTimeOriginal", out]) != "", "\(out): the rest of the Exif stays")
        }
        #expect(try await Self.exiftool(["-s3", "-n", "-Orientation", dir.file("upright.jpg")]) == "1")
        #expect(try await Self.exiftool(["-s3", "-validate", dir.file("crop.jpg")]) == "OK")

        let same = try Conversion.convertBlocking(source, to: dir.file("same.jpg"), quality: 70)
        #expect(same.dropped.isEmpty, "\(same.dropped)")
        #expect(try carries(dir.file("same.jpg")), "the same picture keeps its thumbnail")
    }

    // A still made of a Live movie's frame (live frame, live keyphoto) takes the pair still's Exif and XMP, but
    // its pixels are another instant: the pair still's Exif thumbnail and its face regions / subject described
    // the old picture (found by the metadata sweep: `live frame` kept the face region). Both go; the date stays.
    @Test("a frame or new key photo of a Live pair keeps no stale Exif thumbnail, face region or subject")
    func liveFrameStillsDropThePairStillsPlaces() async throws {
        let dir = try TempDir("md-live-frame")
        defer { dir.remove() }
        let made = try await CLI.run(["sample-photos", "--live", "--count", "1", "--width", "480", "--height", "360",
                                      "--frames", "45", "-o", dir.path])
        #expect(made.succeeded, "\(made)")
        let still = dir.file("LIVE_0001.JPG"), movie = dir.file("LIVE_0001.MOV"), thumb = dir.file("thumb.jpg")
        _ = try Editor.saveBlocking(still, recipe: .identity, to: thumb, quality: 80, maxSize: (160, 120))
        _ = try await Self.exiftool(["-q", "-overwrite_original", "-ThumbnailImage<=" + thumb, "-SubjectArea=240 180 60 40",
                                     "-DateTimeOriginal=2024:05:01 10:00:00",
                                     "-RegionInfo={AppliedToDimensions={W=480,H=360,Unit=pixel},RegionList=[" +
                                     "{Area={X=0.3,Y=0.4,W=0.1,H=0.1,Unit=normalized},Name=Alice,Type=Face}]}", still])
        #expect(try await Self.exiftool(["-s3", "-ThumbnailLength", still]) != "", "the fixture carries a thumbnail")
        let frame = dir.file("frame.jpg")
        let saved = try await CLI.run(["live", "frame", "--at", "0.2", "-o", frame, still, movie])
        #expect(saved.succeeded, "\(saved)")
        let key = try await CLI.run(["live", "keyphoto", "--at", "1.0", "-o", dir.file("key"), still, movie, "--json"])
        #expect(key.succeeded, "\(key)")
        let keyStill = try #require(try FileManager.default.contentsOfDirectory(atPath: dir.file("key"))
            .first { $0.uppercased().hasSuffix(".JPG") }.map { dir.file("key/" + $0) }, "\(key)")
        for out in [frame, keyStill] {
            #expect(try await Self.exiftool(["-s3", "-ThumbnailLength", out]) == "", "\(out): a stale thumbnail")
            let facts = try await Self.regionFacts(out)
            #expect(facts["RegionName"] == nil && facts["SubjectArea"] == nil, "\(out): \(facts)")
            #expect(try await Self.exiftool(["-s3", "-DateTimeOriginal", out]) == "2024:05:01 10:00:00", "\(out)")
        }
    }

    static func regionFacts(_ path: String) async throws -> [String: String] {
        let text = try await exiftool(["-n", "-s", "-sep", ",", "-SubjectArea", "-RegionName", "-RegionAreaX",
                                       "-RegionAreaY", "-RegionAreaW", "-RegionAreaH", "-RegionAppliedToDimensionsW",
                                       "-RegionAppliedToDimensionsH", path])
        var facts: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { facts[parts[0]] = parts[1] }
        }
        return facts
    }

    static func numbers(_ text: String?) -> [Double] {
        (text ?? "").split(whereSeparator: { $0 == "," || $0 == " " }).compactMap { Double($0) }
    }

    // Found by a metadata sweep (2026-12-06): crop, turns, flips and borders left XMP face regions and Exif
    // SubjectArea where they were, so after a crop a named face pointed at the half that was cut away.
    @Test("face regions (XMP mwg-rs) and SubjectArea follow crop, quarter turn, flip and border; cut away = gone")
    func faceRegionsFollowGeometry() async throws {
        let dir = try TempDir("md-regions")
        defer { dir.remove() }
        let source = dir.file("faces.jpg")
        let photos = try await FixtureCache.shared.samples("md-regions", count: 1, seed: 44, width: 1200, height: 900)
        try FileManager.default.copyItem(atPath: photos[0], toPath: source)
        _ = try await Self.exiftool(["-q", "-overwrite_original", "-SubjectArea=240 270 120 90",
                                     "-RegionInfo={AppliedToDimensions={W=1200,H=900,Unit=pixel},RegionList=[" +
                                     "{Area={X=0.2,Y=0.3,W=0.1,H=0.1,Unit=normalized},Name=Alice,Type=Face}," +
                                     "{Area={X=0.75,Y=0.5,W=0.1,H=0.2,Unit=normalized},Name=Bob,Type=Face}]}", source])
        // expected: names, x, y, w, h per region, AppliedToDimensions, SubjectArea (nil = gone)
        let cases: [(String, EditRecipe, [String], [[Double]], [Double], [Double]?)] = [
            ("right-half.jpg", EditRecipe(crop: .init(x: 0.5, y: 0, width: 0.5, height: 1)), ["Bob"],
             [[0.5, 0.5, 0.2, 0.2]], [600, 900], nil),
            ("turned.jpg", EditRecipe(quarterTurns: 1), ["Alice", "Bob"],
             [[0.7, 0.2, 0.1, 0.1], [0.5, 0.75, 0.2, 0.1]], [900, 1200], [630, 240, 90, 120]),
            ("flipped.heic", EditRecipe(flipHorizontal: true), ["Alice", "Bob"],
             [[0.8, 0.3, 0.1, 0.1], [0.25, 0.5, 0.1, 0.2]], [1200, 900], [960, 270, 120, 90]),
            ("border.jpg", EditRecipe(border: .init(width: 0.1)), ["Alice", "Bob"],
             [[330.0 / 1380, 360.0 / 1080, 120.0 / 1380, 90.0 / 1080],
              [990.0 / 1380, 540.0 / 1080, 120.0 / 1380, 180.0 / 1080]], [1380, 1080], [330, 360, 120, 90]),
        ]
        for (name, recipe, names, areas, dims, subject) in cases {
            let out = dir.file(name)
            _ = try Editor.saveBlocking(source, recipe: recipe, to: out)
            let f = try await Self.regionFacts(out)
            #expect(f["RegionName"] == names.joined(separator: ","), "\(name): \(f)")
            let xs = Self.numbers(f["RegionAreaX"]), ys = Self.numbers(f["RegionAreaY"])
            let ws = Self.numbers(f["RegionAreaW"]), hs = Self.numbers(f["RegionAreaH"])
            #expect(xs.count == areas.count && ys.count == areas.count && ws.count == areas.count, "\(name): \(f)")
            for (i, a) in areas.enumerated() where i < xs.count && i < ys.count && i < ws.count && i < hs.count {
                let got = [xs[i], ys[i], ws[i], hs[i]]
                #expect(zip(got, a).allSatisfy { abs($0 - $1) < 1e-4 }, "\(name) region \(i): \(got) vs \(a)")
            }
            #expect(Self.numbers(f["RegionAppliedToDimensionsW"]) + Self.numbers(f["RegionAppliedToDimensionsH"]) == dims,
                    "\(name): \(f)")
            if let subject {
                #expect(Self.numbers(f["SubjectArea"]) == subject, "\(name): \(f)")
            } else {
                #expect(f["SubjectArea"] == nil, "\(name): the subject was cut away: \(f)")
            }
        }
        // an iPhone HEIC's Apple face region and SubjectArea, both in the quarter the crop cuts away
        let real = Paths.corpus.appendingPathComponent("real/iphone15plus_IMG_3853.HEIC").path
        let quarter = dir.file("quarter.jpg")
        _ = try Editor.saveBlocking(real, recipe: EditRecipe(crop: .init(x: 0.5, y: 0.5, width: 0.5, height: 0.5)),
                                    to: quarter, maxSize: (800, 600))
        let q = try await Self.regionFacts(quarter)
        #expect(q["RegionAreaX"] == nil && q["SubjectArea"] == nil, "\(q)")
        #expect(try await Self.exiftool(["-s3", "-XMP-xmp:CreateDate", quarter]) == "2025:01:01 11:06:47", "the rest stays")
    }

    static func facts(_ path: String, _ tags: [String]) async throws -> [String: [String]] {
        let text = try await exiftool(["-n", "-s", "-sep", ";"] + tags.map { "-" + $0 } + [path])
        var facts: [String: [String]] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { facts[parts[0]] = parts[1].components(separatedBy: ";") }
        }
        return facts
    }

    // The metadata sweep's left-overs (2026-12-06): face regions in pixels (mwg-rs with stArea:unit="pixel") and
    // Microsoft People Tagging regions (MP:RegionInfo, MPReg:Rectangle) stayed where they were after a crop or a
    // turn, pointing at the wrong face. They follow the geometry as the normalized MWG regions do; a pixel area
    // without the size it counts in cannot be mapped and goes.
    @Test("pixel MWG areas and Microsoft MP rectangles follow a crop and a turn; an unmappable area goes")
    func pixelAndMicrosoftRegionsFollowGeometry() async throws {
        let dir = try TempDir("md-regions-px")
        defer { dir.remove() }
        let source = dir.file("faces.jpg"), loose = dir.file("loose.jpg")
        let photos = try await FixtureCache.shared.samples("md-regions", count: 1, seed: 44, width: 1200, height: 900)
        try FileManager.default.copyItem(atPath: photos[0], toPath: source)
        try FileManager.default.copyItem(atPath: photos[0], toPath: loose)
        let mp = "-RegionInfoMP={Regions=[{PersonDisplayName=Carol,Rectangle=0.15|, 0.25|, 0.1|, 0.1}," +
            "{PersonDisplayName=Dan,Rectangle=0.7|, 0.4|, 0.1|, 0.2},{PersonDisplayName=Eve}]}"
        _ = try await Self.exiftool(["-q", "-overwrite_original", mp,
                                     "-RegionInfo={AppliedToDimensions={W=1200,H=900,Unit=pixel},RegionList=[" +
                                     "{Area={X=240,Y=270,W=120,H=90,Unit=pixel},Name=Alice,Type=Face}," +
                                     "{Area={X=900,Y=450,W=120,H=180,Unit=pixel},Name=Bob,Type=Face}]}", source])
        _ = try await Self.exiftool(["-q", "-overwrite_original", "-RegionInfo={RegionList=[" +
                                     "{Area={X=240,Y=270,W=120,H=90,Unit=pixel},Name=Alice,Type=Face}]}", loose])
        let tags = ["RegionName", "RegionAreaX", "RegionAreaY", "RegionAreaW", "RegionAreaH", "RegionAreaUnit",
                    "RegionAppliedToDimensionsW", "RegionPersonDisplayName", "RegionRectangle"]
        // MWG areas in the output's pixels (x, y the centre); MP rectangles normalized from the top left
        let cases: [(String, EditRecipe, [String], [[String]], [String], [String])] = [
            ("right-half.jpg", EditRecipe(crop: .init(x: 0.5, y: 0, width: 0.5, height: 1)), ["Bob"],
             [["300"], ["450"], ["120"], ["180"]], ["Dan", "Eve"], ["0.4, 0.4, 0.2, 0.2"]),
            ("turned.heic", EditRecipe(quarterTurns: 1), ["Alice", "Bob"],
             [["630", "450"], ["240", "900"], ["90", "180"], ["120", "120"]], ["Carol", "Dan", "Eve"],
             ["0.65, 0.15, 0.1, 0.1", "0.4, 0.7, 0.2, 0.1"]),
        ]
        for (name, recipe, names, xywh, people, rectangles) in cases {
            let out = dir.file(name)
            _ = try Editor.saveBlocking(source, recipe: recipe, to: out, quality: 70)
            let f = try await Self.facts(out, tags)
            #expect(f["RegionName"] == names, "\(name): \(f)")
            let got = ["RegionAreaX", "RegionAreaY", "RegionAreaW", "RegionAreaH"].map { f[$0] ?? [] }
            #expect(got == xywh, "\(name): \(got) vs \(xywh)")
            #expect(f["RegionAreaUnit"] == names.map { _ in "pixel" }, "\(name): \(f)")
            #expect(f["RegionPersonDisplayName"] == people && f["RegionRectangle"] == rectangles, "\(name): \(f)")
        }
        let out = dir.file("loose-turned.jpg")
        _ = try Editor.saveBlocking(loose, recipe: EditRecipe(quarterTurns: 1), to: out, quality: 70)
        let f = try await Self.facts(out, tags)
        #expect(f["RegionName"] == nil && f["RegionAreaX"] == nil, "pixels counted in an unknown size: \(f)")
    }
}

extension MetadataHonestyTests {
    // Found by exiftool's validation of HEIC → JPEG saves (2026-12-06): a HEIC's Exif need not carry the tags Exif 2.3
    // makes mandatory in a JPEG (YCbCrPositioning, ExifVersion, ComponentsConfiguration, FlashpixVersion,
    // GPSVersionID), and the save kept the Exif as it was. Every JPEG save now adds the missing ones; nothing else in
    // the Exif changes (the real iPhone HEIC's Apple MakerNote reads the same).
    @Test("a HEIC's Exif without the JPEG-mandatory tags saves as a JPEG exiftool validates; the MakerNote is intact")
    func jpegMandatoryExifTags() async throws {
        let dir = try TempDir("md-jpeg-tags")
        defer { dir.remove() }
        let heic = dir.file("bare.heic")
        _ = try Conversion.convertBlocking(try await Photos.small()[0], to: heic, quality: 60)
        _ = try await Self.exiftool(["-q", "-overwrite_original", "-YCbCrPositioning=", "-ExifVersion=",
                                     "-ComponentsConfiguration=", "-FlashpixVersion=", "-GPSLatitude=31.23",
                                     "-GPSLatitudeRef=N", "-GPSLongitude=121.47", "-GPSLongitudeRef=E",
                                     "-GPSHPositioningError=4.5", "-GPSVersionID=", heic])
        let bare = try await Self.exiftool(["-s3", "-YCbCrPositioning", "-ExifVersion", "-ComponentsConfiguration",
                                            "-FlashpixVersion", "-GPSVersionID", heic])
        #expect(bare.isEmpty, "the fixture lacks the tags: \(bare)")
        let tags = ["-s3", "-n", "-YCbCrPositioning", "-ExifVersion", "-ComponentsConfiguration", "-FlashpixVersion",
                    "-GPSVersionID", "-GPSLatitude", "-GPSHPositioningError", "-Make", "-Model"]
        let edited = dir.file("edited.jpg")
        _ = try Editor.saveBlocking(heic, recipe: EditRecipe(crop: .init(x: 0, y: 0, width: 0.5, height: 1)), to: edited)
        for out in [dir.file("converted.jpg"), edited] {
            if out != edited { _ = try Conversion.convertBlocking(heic, to: out) }
            #expect(try await Self.exiftool(["-s3", "-validate", out]) == "OK", "\(out)")
            let seen = try await Self.exiftool(tags + [out]).split(separator: "\n").map(String.init)
            #expect(seen == ["1", "0232", "1 2 3 0", "0100", "2 3 0 0", "31.23", "4.5", "Shiying", "SampleCam"],
                    "\(out): \(seen) (GPS 2.3 for its HPositioningError)")
        }
        let again = dir.file("again.jpg")
        _ = try Conversion.convertBlocking(dir.file("converted.jpg"), to: again)
        #expect(try await Self.exiftool(["-s3", "-validate", again]) == "OK", "a re-save adds nothing twice")

        // an iPhone's: every Exif and MakerNote value as the HEIC has it, the added tags aside
        let iphone = Paths.corpus.appendingPathComponent("real/iphone15plus_IMG_3853.HEIC").path
        guard FileManager.default.fileExists(atPath: iphone) else { return }
        let out = dir.file("iphone.jpg")
        _ = try Conversion.convertBlocking(iphone, to: out)
        let read = ["-j", "-n", "-EXIF:all", "-MakerNotes:all", "-x", "ExifImageWidth", "-x", "ExifImageHeight"]
        func values(_ path: String) async throws -> [String: String] {
            let json = try await Self.exiftool(read + [path])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]]).first ?? [:]
            return object.filter { $0.key != "SourceFile" }.mapValues { "\($0)" }
        }
        let source = try await values(iphone), saved = try await values(out)
        #expect(source["RunTimeValue"] != nil, "the HEIC's MakerNote reads")
        let added: Set = ["YCbCrPositioning", "ComponentsConfiguration", "FlashpixVersion", "GPSVersionID"]
        #expect(Set(saved.keys).subtracting(source.keys) == added.subtracting(source.keys), "\(saved.keys)")
        // the Live identifiers go by design: the still is saved apart from its movie (reported dropped)
        let live: Set = ["ContentIdentifier", "MediaGroupUUID"]
        for (key, value) in source where !added.contains(key) && !live.contains(key) {
            #expect(saved[key] == value, "\(key): \(saved[key] ?? "missing") != \(value)")
        }
    }
}
