// Issue 19: Android Motion Photos. Fixtures are assembled per Google's
// Motion Photo format 1.0: our sample JPEG (or HEIC) + an ffmpeg-made MP4,
// the JPEG's XMP saying Camera:MotionPhoto with a Container:Directory whose
// MotionPhoto item gives the MP4's length (or the older MicroVideoOffset),
// the HEIC carrying the MP4 as a top-level `mpvd` box. Proof: the movie is
// found and read as a movie; a Live pair made from one passes our verifier,
// exiftool reads one identifier in both files, the still decodes to the
// Motion Photo's pixels and the movie's samples are the embedded ones; hostile
// lengths are refused with a reason, never read blindly.
import CShiying
import CShiyingFixtures
import Foundation
import Testing

enum MotionPhotoFixtures {
    static var hasTools: Bool { ExternalTools.installed("ffmpeg", "ffprobe", "exiftool") }

    static let folder: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shiying-motion-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }()

    /// A 960x720 sample photo (the deterministic landscape scene).
    static let photo: Result<String, CTestFailure> = sample(heic: false)
    static let heicPhoto: Result<String, CTestFailure> = sample(heic: true)

    private static func sample(heic: Bool) -> Result<String, CTestFailure> {
        let path = folder + (heic ? "/photo.heic" : "/photo.jpg")
        do {
            let ctx = try Context()
            var o = sy_sample_options()
            sy_sample_options_init(&o)
            o.width = 960
            o.height = 720
            o.seed = 19
            var err = sy_error()
            let st = heic ? sy_sample_write_heic(ctx.raw, &o, path, &err) : sy_sample_write_jpeg(ctx.raw, &o, path, &err)
            return st == SY_OK ? .success(path) : .failure(CTestFailure("sample photo: \(message(err))"))
        } catch { return .failure(CTestFailure("\(error)")) }
    }

    /// 1 s of 480x360 HEVC (`hvc1`, B-frames) at 30 fps with AAC audio: a pan
    /// across the sample photo, as a phone's MP4 (moov after mdat).
    static let movie: Result<String, CTestFailure> = {
        let path = folder + "/motion.mp4"
        do {
            let src = try photo.get()
            try ExternalTools.check("ffmpeg", ["-v", "error", "-y", "-loop", "1", "-framerate", "30", "-i", src,
                                               "-f", "lavfi", "-i", "sine=frequency=440:duration=1",
                                               "-vf", "crop=480:360:x='100+t*120':y=200", "-t", "1",
                                               "-c:v", "libx265", "-x265-params", "bframes=3:log-level=error",
                                               "-tag:v", "hvc1", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", path])
            return .success(path)
        } catch { return .failure(CTestFailure("making motion.mp4: \(error)")) }
    }()

    static func xmp(movieLength: Int, presentationUs: Int = 500_000, lengthText: String? = nil,
                    extraItems: Int = 0) -> String {
        let filler = (0..<extraItems).map { _ in
            "<rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Mime=\"image/jpeg\" Item:Semantic=\"Depth\" Item:Length=\"0\"/></rdf:li>"
        }.joined()
        return """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" \
            xmlns:Container="http://ns.google.com/photos/1.0/container/" \
            xmlns:Item="http://ns.google.com/photos/1.0/container/item/" GCamera:MotionPhoto="1" \
            GCamera:MotionPhotoVersion="1" GCamera:MotionPhotoPresentationTimestampUs="\(presentationUs)">\
            <Container:Directory><rdf:Seq>\
            <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="image/jpeg" Item:Semantic="Primary" \
            Item:Length="0" Item:Padding="0"/></rdf:li>\(filler)\
            <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" \
            Item:Length="\(lengthText ?? String(movieLength))" Item:Padding="0"/></rdf:li>\
            </rdf:Seq></Container:Directory></rdf:Description></rdf:RDF></x:xmpmeta>
            """
    }

    static func microVideoXMP(offset: Int) -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
        <rdf:Description rdf:about="" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" \
        GCamera:MicroVideo="1" GCamera:MicroVideoVersion="1" GCamera:MicroVideoOffset="\(offset)" \
        GCamera:MicroVideoPresentationTimestampUs="250000"/></rdf:RDF></x:xmpmeta>
        """
    }

    /// The JPEG with an XMP APP1 after its first segment (the Exif), then `tail`.
    static func assemble(jpeg: [UInt8], xmp: String, tail: [UInt8]) -> [UInt8] {
        let payload = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array(xmp.utf8)
        let seg: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        let firstEnd = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5]))
        return Array(jpeg[0..<firstEnd]) + seg + Array(jpeg[firstEnd...]) + tail
    }

    /// A Motion Photo JPEG; `mutate` may change the XMP (hostile cases).
    static func jpeg(_ name: String, xmp: ((Int) -> String)? = nil, tail: (([UInt8]) -> [UInt8])? = nil) throws -> String {
        let mp4 = ExternalTools.readFile(try movie.get())
        let still = ExternalTools.readFile(try photo.get())
        let text = xmp?(mp4.count) ?? Self.xmp(movieLength: mp4.count)
        let path = folder + "/" + name
        try ExternalTools.writeFile(path, assemble(jpeg: still, xmp: text, tail: tail?(mp4) ?? mp4))
        return path
    }

    /// A HEIC Motion Photo: the sample HEIC with a top-level `mpvd` box holding the MP4.
    static func heic(_ name: String, declaredSize: UInt32? = nil, still stillPath: String? = nil) throws -> String {
        let mp4 = ExternalTools.readFile(try movie.get())
        let still = ExternalTools.readFile(try stillPath ?? heicPhoto.get())
        let size = declaredSize ?? UInt32(mp4.count + 8)
        let header: [UInt8] = [UInt8(size >> 24), UInt8((size >> 16) & 0xFF), UInt8((size >> 8) & 0xFF),
                               UInt8(size & 0xFF)] + Array("mpvd".utf8)
        let path = folder + "/" + name
        try ExternalTools.writeFile(path, still + header + mp4)
        return path
    }

    /// Samsung's SEF trailer holding `mp4`: its MotionPhoto_Data block (type 0x0A30), a capture-time block
    /// (0x0A01), the SEFH directory (version 106, each block's distance back from it and size), the
    /// directory's length and "SEFT" — the layout exiftool reads as EmbeddedVideoFile.
    static func samsungTrailer(_ mp4: [UInt8], motionType: UInt16 = 0x0A30) -> [UInt8] {
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        func block(_ type: UInt16, _ name: String, _ data: [UInt8]) -> [UInt8] {
            [0, 0] + le16(type) + le32(name.utf8.count) + Array(name.utf8) + data
        }
        let motion = block(motionType, "MotionPhoto_Data", mp4)
        let utc = block(0x0A01, "Image_UTC_Data", Array("1764921600000".utf8))
        let blocks = motion + utc
        var dir = Array("SEFH".utf8) + le32(106) + le32(2)
        dir += [0, 0] + le16(motionType) + le32(blocks.count) + le32(motion.count)
        dir += [0, 0] + le16(0x0A01) + le32(utc.count) + le32(utc.count)
        return blocks + dir + le32(dir.count) + Array("SEFT".utf8)
    }

    static func fresh(_ name: String) throws -> String {
        let dir = folder + "/out-" + name
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }
}

func motionProbe(_ ctx: Context, _ path: String) -> (status: sy_status, info: sy_motion_photo_info, message: String) {
    var info = sy_motion_photo_info()
    var err = sy_error()
    let st = sy_motion_photo_probe(ctx.raw, path, &info, &err)
    return (st, info, st == SY_OK ? "" : message(err))
}

/// Every sample of `path`'s main video track (through sy_mov, so a Motion Photo reads as its movie).
func motionVideoSamples(_ ctx: Context, _ path: String) throws -> [[UInt8]] {
    var mov: OpaquePointer?
    var err = sy_error()
    try #require(sy_mov_open(ctx.raw, path, &mov, &err) == SY_OK, "\(message(err))")
    defer { sy_mov_close(mov) }
    let track = sy_mov_main_video_track(mov)
    try #require(track >= 0)
    let count = sy_mov_track(mov, UInt32(track))!.pointee.sample_count
    var out: [[UInt8]] = []
    var buffer = [UInt8](repeating: 0, count: 4 << 20)
    for i in 0..<count {
        var len = 0
        try #require(sy_mov_read_sample(mov, UInt32(track), i, &buffer, buffer.count, &len, &err) == SY_OK,
                     "\(message(err))")
        out.append(Array(buffer[0..<len]))
    }
    return out
}

@Suite("Motion Photos (issue 19)", .enabled(if: MotionPhotoFixtures.hasTools, "ffmpeg/exiftool not installed (make deps)"))
struct MotionPhotoTests {
    @Test("a JPEG Motion Photo's movie is found by its Container:Directory and read as a movie")
    func locateJPEG() throws {
        let ctx = try Context()
        let path = try MotionPhotoFixtures.jpeg("mp.jpg")
        let mp4 = ExternalTools.readFile(try MotionPhotoFixtures.movie.get())
        let file = ExternalTools.readFile(path)
        let p = motionProbe(ctx, path)
        try #require(p.status == SY_OK, "\(p.message)")
        #expect(p.info.container == fourcc("jpeg") && p.info.located_by == fourcc("cdir"))
        #expect(p.info.movie_length == UInt64(mp4.count) && p.info.movie_offset == UInt64(file.count - mp4.count))
        #expect(p.info.presentation_us == 500_000 && p.info.version == 1)
        #expect(try motionVideoSamples(ctx, path) == motionVideoSamples(ctx, MotionPhotoFixtures.movie.get()))
        var mov: OpaquePointer?
        var err = sy_error()
        try #require(sy_mov_open(ctx.raw, path, &mov, &err) == SY_OK)
        defer { sy_mov_close(mov) }
        let info = sy_mov_info_get(mov)!.pointee
        #expect(info.embedded_in == fourcc("jpeg") && info.embedded_offset == p.info.movie_offset)
        #expect(info.track_count == 2 && info.file_size == UInt64(mp4.count))
    }

    @Test("the older MicroVideoOffset form and the HEIC mpvd form are found too")
    func locateOtherForms() throws {
        let ctx = try Context()
        let micro = try MotionPhotoFixtures.jpeg("micro.jpg", xmp: { MotionPhotoFixtures.microVideoXMP(offset: $0) })
        let m = motionProbe(ctx, micro)
        try #require(m.status == SY_OK, "\(m.message)")
        #expect(m.info.located_by == fourcc("mvof") && m.info.presentation_us == 250_000)
        let heic = try MotionPhotoFixtures.heic("mp.heic")
        let h = motionProbe(ctx, heic)
        try #require(h.status == SY_OK, "\(h.message)")
        #expect(h.info.container == fourcc("heic") && h.info.located_by == fourcc("mpvd"))
        #expect(try motionVideoSamples(ctx, heic) == motionVideoSamples(ctx, MotionPhotoFixtures.movie.get()))
    }

    @Test("SPEC S3: Samsung's SEF trailer: found with no Motion Photo XMP (older Galaxy phones), the MP4 exactly where exiftool finds it; with Samsung's XMP counting the trailer in, the MP4 ends where the trailer says")
    func samsungTrailer() throws {
        let ctx = try Context()
        let mp4 = ExternalTools.readFile(try MotionPhotoFixtures.movie.get())
        let still = ExternalTools.readFile(try MotionPhotoFixtures.photo.get())
        let trailer = MotionPhotoFixtures.samsungTrailer(mp4)
        let bare = MotionPhotoFixtures.folder + "/samsung-sef.jpg"
        try ExternalTools.writeFile(bare, still + trailer)
        let p = motionProbe(ctx, bare)
        try #require(p.status == SY_OK, "\(p.message)")
        #expect(p.info.container == fourcc("jpeg") && p.info.located_by == fourcc("seft"))
        #expect(p.info.movie_offset == UInt64(still.count + 24) && p.info.movie_length == UInt64(mp4.count))
        #expect(p.info.still_length == UInt64(still.count) && p.info.presentation_us == -1)
        #expect(try motionVideoSamples(ctx, bare) == motionVideoSamples(ctx, MotionPhotoFixtures.movie.get()))
        let exiftool = MotionPhotoFixtures.folder + "/samsung-sef-exiftool.mp4"
        try? FileManager.default.removeItem(atPath: exiftool)
        _ = try ExternalTools.check("sh", ["-c", "exiftool -b -EmbeddedVideoFile '\(bare)' > '\(exiftool)'"])
        let file = ExternalTools.readFile(bare)
        #expect(ExternalTools.readFile(exiftool) == Array(file[Int(p.info.movie_offset)..<Int(p.info.movie_offset + p.info.movie_length)]),
                "our movie is exiftool's EmbeddedVideoFile")
        let dir = try MotionPhotoFixtures.fresh("samsung-sef")
        var report = sy_live_motion_report()
        var err = sy_error()
        try #require(sy_live_from_motion_photo(ctx.raw, bare, dir + "/s.jpg", dir + "/m.mov", nil, &report, &err) == SY_OK,
                     "\(message(err))")
        #expect(try liveVerify(ctx, dir + "/s.jpg", dir + "/m.mov").ok)
        #expect(ExternalTools.readFile(dir + "/s.jpg").count < still.count + 4096, "the still leaves the trailer behind")

        // Newer Galaxy phones: Google's XMP too, its MotionPhoto item running to the end of the file.
        let both = try MotionPhotoFixtures.jpeg("samsung-xmp-sef.jpg", xmp: { _ in MotionPhotoFixtures.xmp(movieLength: trailer.count - 24) },
                                                tail: { _ in trailer })
        let q = motionProbe(ctx, both)
        try #require(q.status == SY_OK, "\(q.message)")
        #expect(q.info.located_by == fourcc("cdir") && q.info.movie_length == UInt64(mp4.count), "the MP4's own length")
        #expect(try motionVideoSamples(ctx, both) == motionVideoSamples(ctx, MotionPhotoFixtures.movie.get()))

        // A trailer without a MotionPhoto_Data block, or one that does not parse, makes no Motion Photo;
        // a MotionPhoto_Data block that is not one is refused with the reason.
        var broken = trailer
        broken[broken.count - 8] = 0xFF // the directory's length, now past the directory
        for (name, bytes) in [("samsung-utc-only.jpg", MotionPhotoFixtures.samsungTrailer(mp4, motionType: 0x0A02)),
                              ("samsung-broken.jpg", broken)] {
            let path = MotionPhotoFixtures.folder + "/" + name
            try ExternalTools.writeFile(path, still + bytes)
            let r = motionProbe(ctx, path)
            #expect(r.status == SY_OK && r.info.container == 0, "\(name): \(r.message)")
        }
        var liar = trailer
        liar[2] = 0x31 // the block's own type no longer MotionPhoto_Data
        let lying = MotionPhotoFixtures.folder + "/samsung-liar.jpg"
        try ExternalTools.writeFile(lying, still + liar)
        let l = motionProbe(ctx, lying)
        #expect(l.status == SY_E_INVALID_INPUT && l.message.contains("Samsung trailer"), "\(l.message)")
    }

    @Test("ordinary stills are not Motion Photos; a plain JPEG is not a movie, said plainly")
    func notMotionPhotos() throws {
        let ctx = try Context()
        for path in [try MotionPhotoFixtures.photo.get(), try MotionPhotoFixtures.heicPhoto.get(),
                     try MotionPhotoFixtures.movie.get()] {
            let p = motionProbe(ctx, path)
            #expect(p.status == SY_OK && p.info.container == 0, "\(path): \(p.message)")
        }
        var mov: OpaquePointer?
        var err = sy_error()
        #expect(sy_mov_open(ctx.raw, try MotionPhotoFixtures.photo.get(), &mov, &err) == SY_E_INVALID_INPUT)
        #expect(message(err).contains("without a Motion Photo video"), "\(message(err))")
        let dir = try MotionPhotoFixtures.fresh("plain")
        var report = sy_live_motion_report()
        let st = sy_live_from_motion_photo(ctx.raw, try MotionPhotoFixtures.photo.get(), dir + "/s.jpg", dir + "/m.mov",
                                           nil, &report, &err)
        #expect(st == SY_E_UNSUPPORTED && message(err).contains("not a Motion Photo"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test("the corpus Samsung camera JPEG is checked: it carries no Motion Photo")
    func corpusSamsung() throws {
        let path = LiveFixtures.corpus + "/samsung_camera.jpeg"
        guard FileManager.default.fileExists(atPath: path) else { return }
        let p = motionProbe(try Context(), path)
        #expect(p.status == SY_OK && p.info.container == 0)
    }

    @Test("hostile lengths are refused with the reason, for the probe, the demuxer and the conversion",
          arguments: ["past-end", "off-by-100", "not-a-number", "overflow", "zero", "no-directory", "many-items",
                      "micro-past-end", "heic-past-end"])
    func hostile(kind: String) throws {
        let ctx = try Context()
        let path: String
        switch kind {
        case "past-end": path = try MotionPhotoFixtures.jpeg("h-\(kind).jpg", xmp: { MotionPhotoFixtures.xmp(movieLength: $0 * 40) })
        case "off-by-100": path = try MotionPhotoFixtures.jpeg("h-\(kind).jpg", xmp: { MotionPhotoFixtures.xmp(movieLength: $0 + 100) })
        case "not-a-number": path = try MotionPhotoFixtures.jpeg("h-\(kind).jpg", xmp: { MotionPhotoFixtures.xmp(movieLength: $0, lengthText: "12ab") })
        case "overflow": path = try MotionPhotoFixtures.jpeg("h-\(kind).jpg", xmp: { MotionPhotoFixtures.xmp(movieLength: $0, lengthText: "99999999999999999999999") })
        case "zero": path = try MotionPhotoFixtures.jpeg("h-\(kind).jpg", xmp: { _ in MotionPhotoFixtures.xmp(movieLength: 0) })
        case "no-directory": path = try MotionPhotoFixtures.jpeg("h-\(kind).jpg", xmp: { _ in
            "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description xmlns:GCamera=\"http://ns.google.com/photos/1.0/camera/\" GCamera:MotionPhoto=\"1\"/></rdf:RDF></x:xmpmeta>" })
        case "many-items": path = try MotionPhotoFixtures.jpeg("h-\(kind).jpg", xmp: { MotionPhotoFixtures.xmp(movieLength: $0, extraItems: 12) })
        case "micro-past-end": path = try MotionPhotoFixtures.jpeg("h-\(kind).jpg", xmp: { MotionPhotoFixtures.microVideoXMP(offset: $0 * 3) })
        default: path = try MotionPhotoFixtures.heic("h-\(kind).heic", declaredSize: 0x7FFF_FFF0)
        }
        let p = motionProbe(ctx, path)
        #expect(p.status == SY_E_INVALID_INPUT, "\(kind): \(p.status)")
        #expect(p.message.contains("Motion Photo:"), "\(kind): \(p.message)")
        var mov: OpaquePointer?
        var err = sy_error()
        #expect(sy_mov_open(ctx.raw, path, &mov, &err) == SY_E_INVALID_INPUT && mov == nil, "\(kind)")
        let dir = try MotionPhotoFixtures.fresh("hostile-\(kind)")
        var report = sy_live_motion_report()
        #expect(sy_live_from_motion_photo(ctx.raw, path, dir + "/s.jpg", dir + "/m.mov", nil, &report, &err)
                == SY_E_INVALID_INPUT)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test("Motion Photo -> Live: verified pair, one identifier for exiftool, the photo's pixels, the embedded packets")
    func toLiveJPEG() throws {
        let ctx = try Context()
        let path = try MotionPhotoFixtures.jpeg("tolive.jpg")
        let dir = try MotionPhotoFixtures.fresh("tolive")
        let still = dir + "/IMG.jpg", movie = dir + "/IMG.mov"
        var report = sy_live_motion_report()
        var err = sy_error()
        try #require(sy_live_from_motion_photo(ctx.raw, path, still, movie, nil, &report, &err) == SY_OK, "\(message(err))")
        let id = withUnsafeBytes(of: report.content_identifier) { String(decoding: $0.prefix(36), as: UTF8.self) }
        #expect(report.still_reencoded == 0 && report.still_time_from_photo == 1)
        #expect(abs(report.still_time - 0.5) <= 1.0 / 30 + 1e-9, "still time \(report.still_time)")
        let verdict = try liveVerify(ctx, still, movie)
        #expect(verdict.ok, "\(verdict.reason)")
        #expect(verdict.id == id)
        #expect(try liveExiftoolStillID(still) == id)
        #expect(try liveExiftoolMovieID(movie) == id)
        // no Motion Photo claims left on the still; the rest of the Exif (Make) kept
        let tags = try ExternalTools.check("exiftool", ["-s3", "-XMP-GCamera:MotionPhoto", "-DirectoryItemSemantic", still])
        #expect(tags.trimmingCharacters(in: .whitespacesAndNewlines) == "Primary", "\(tags)")
        #expect(try ExternalTools.check("exiftool", ["-s3", "-Make", still]).contains("Shiying"))
        // the pixels are the Motion Photo's: the image data was copied, not re-encoded
        let a = try liveDecodeStill(ctx, still), b = try liveDecodeStill(ctx, MotionPhotoFixtures.photo.get())
        #expect(a.width == b.width && a.height == b.height && a.pixels == b.pixels)
        let photo = ExternalTools.readFile(try MotionPhotoFixtures.photo.get()), out = ExternalTools.readFile(still)
        let scan: ([UInt8]) -> [UInt8] = { bytes in
            let i = (0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }!
            return Array(bytes[i...])
        }
        #expect(scan(out) == scan(photo))
        // movie: the embedded samples, unchanged, audio kept; ffprobe agrees
        #expect(try motionVideoSamples(ctx, movie) == motionVideoSamples(ctx, path))
        #expect(report.movie.audio_codec == fourcc("mp4a") && report.movie.audio_samples > 0)
        let streams = try ExternalTools.check("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", movie])
        #expect(streams.contains("hevc") && streams.contains("aac"), "\(streams)")
    }

    // Found by a movie sweep (2026-12-06): a Motion Photo whose timestamp is -1 ("unspecified") became a Live
    // photo whose key photo was the middle frame, not the frame the photo shows.
    @Test("a Motion Photo without a timestamp: the key photo is the frame that shows what the photo shows")
    func unspecifiedTimestampMatchesTheFrame() throws {
        let ctx = try Context()
        let dir = try MotionPhotoFixtures.fresh("tolive-matched")
        let frame = dir + "/frame20.jpg"
        try ExternalTools.check("ffmpeg", ["-v", "error", "-y", "-i", try MotionPhotoFixtures.movie.get(), "-vf",
                                           "select=eq(n\\,20)", "-frames:v", "1", "-q:v", "2", frame])
        let mp4 = ExternalTools.readFile(try MotionPhotoFixtures.movie.get())
        let path = dir + "/MP.jpg"
        try ExternalTools.writeFile(path, MotionPhotoFixtures.assemble(
            jpeg: ExternalTools.readFile(frame), xmp: MotionPhotoFixtures.xmp(movieLength: mp4.count, presentationUs: -1),
            tail: mp4))
        let still = dir + "/IMG.jpg", movie = dir + "/IMG.mov"
        var report = sy_live_motion_report()
        var err = sy_error()
        try #require(sy_live_from_motion_photo(ctx.raw, path, still, movie, nil, &report, &err) == SY_OK, "\(message(err))")
        #expect(report.still_time_from_photo == 2 && report.still_frame == 20,
                "source \(report.still_time_from_photo), frame \(report.still_frame) (the middle would be 15)")
        #expect(try liveVerify(ctx, still, movie).ok)
    }

    @Test("a HEIC Motion Photo becomes a verified pair; its still the photo's own bytes, only Exif/XMP repointed")
    func toLiveHEIC() throws {
        let ctx = try Context()
        let path = try MotionPhotoFixtures.heic("tolive.heic")
        let dir = try MotionPhotoFixtures.fresh("tolive-heic")
        let still = dir + "/IMG.heic", movie = dir + "/IMG.mov"
        var report = sy_live_motion_report()
        var err = sy_error()
        try #require(sy_live_from_motion_photo(ctx.raw, path, still, movie, nil, &report, &err) == SY_OK, "\(message(err))")
        #expect(report.still_reencoded == 0 && report.still_time_from_photo != 1) // no timestamp: matched or the middle
        let verdict = try liveVerify(ctx, still, movie)
        #expect(verdict.ok, "\(verdict.reason)")
        #expect(try liveExiftoolStillID(still) == verdict.id)
        #expect(try motionVideoSamples(ctx, movie) == motionVideoSamples(ctx, path))
        // Byte for byte: the photo before its mpvd box is the still's start, except the repointed iloc fields.
        let source = ExternalTools.readFile(try MotionPhotoFixtures.heicPhoto.get()), written = ExternalTools.readFile(still)
        try #require(written.count > source.count)
        let differing = zip(source, written.prefix(source.count)).filter { $0 != $1 }.count
        #expect(differing > 0 && differing <= 24, "\(differing) bytes differ in the copied part")
        let a = try liveDecodeStill(ctx, still), b = try liveDecodeStill(ctx, path)
        #expect(a.width == b.width && a.height == b.height && a.pixels == b.pixels)
        // Debian's libheif reads it, with the rewritten Exif (the identifier's MakerNote makes it larger)
        let info = try ExternalTools.check("heif-info", [still])
        #expect(info.contains("\(a.width)x\(a.height)") && info.contains("Exif:"), "\(info)")
    }

    @Test("a HEIC Motion Photo that cannot be copied (boxes after the movie) is re-encoded at >= 50 dB")
    func toLiveHEICReencoded() throws {
        let ctx = try Context()
        let mp = try MotionPhotoFixtures.heic("tolive-trailing.heic")
        let path = mp + ".trailing.heic"
        try Data(ExternalTools.readFile(mp) + [0, 0, 0, 12] + Array("free".utf8) + [1, 2, 3, 4]).write(to: URL(fileURLWithPath: path))
        let dir = try MotionPhotoFixtures.fresh("tolive-heic-reencoded")
        let still = dir + "/IMG.heic", movie = dir + "/IMG.mov"
        var report = sy_live_motion_report()
        var err = sy_error()
        try #require(sy_live_from_motion_photo(ctx.raw, path, still, movie, nil, &report, &err) == SY_OK, "\(message(err))")
        #expect(report.still_reencoded == 1)
        let verdict = try liveVerify(ctx, still, movie)
        #expect(verdict.ok, "\(verdict.reason)")
        #expect(try liveExiftoolStillID(still) == verdict.id)
        let a = try liveDecodeStill(ctx, still), b = try liveDecodeStill(ctx, path)
        try #require(a.width == b.width && a.height == b.height)
        #expect(livePSNR(a.pixels, b.pixels) >= 50, "PSNR \(livePSNR(a.pixels, b.pixels))")
    }

    @Test("SPEC E6: a HEIC Motion Photo with a gain map becomes a Live pair whose still keeps the map")
    func toLiveHEICKeepsGainMap() throws {
        let ctx = try Context()
        let hdr = try HDRSampleFolder()
        let path = try MotionPhotoFixtures.heic("tolive-hdr.heic", still: hdr.heic)
        let source = try DecodedGainMap(ctx, path)
        let dir = try MotionPhotoFixtures.fresh("tolive-hdr")
        let still = dir + "/IMG.heic", movie = dir + "/IMG.mov"
        var report = sy_live_motion_report()
        var err = sy_error()
        try #require(sy_live_from_motion_photo(ctx.raw, path, still, movie, nil, &report, &err) == SY_OK, "\(message(err))")
        #expect(report.still_hdr == SY_HDR_KEPT)
        let verdict = try liveVerify(ctx, still, movie)
        #expect(verdict.ok, "\(verdict.reason)")
        #expect(try liveExiftoolStillID(still) == verdict.id)
        // The map is the photo's own (copied with the rest): same size and samples.
        let kept = try DecodedGainMap(ctx, still)
        #expect(kept.info.kind == source.info.kind)
        try #require(kept.width == source.width && kept.height == source.height && kept.channels == source.channels)
        #expect(psnr8(kept.pixels, source.pixels) >= 40, "gain map PSNR \(psnr8(kept.pixels, source.pixels))")
        let a = try liveDecodeStill(ctx, still), b = try liveDecodeStill(ctx, path)
        #expect(livePSNR(a.pixels, b.pixels) >= 45, "base PSNR \(livePSNR(a.pixels, b.pixels))")
    }
}
