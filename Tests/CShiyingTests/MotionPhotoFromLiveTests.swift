// Issue 19: a Live pair -> an Android Motion Photo (Google's Motion Photo
// format 1.0 for JPEG; Samsung's `mpvd` box for HEIC). Fixtures: the sample
// Live pairs (sy_sample_write_live, JPEG or HEIC still, HEVC movie with the
// identifier and still-image time). Proof from outside and inside: exiftool
// reads the Motion Photo XMP and no Apple identifier, the offsets point at a
// movie ffprobe reads, our reader gives back the Live movie's samples byte
// for byte, and Motion Photo -> Live turns the result into a verified pair.
import CShiying
import CShiyingFixtures
import Foundation
import Testing

private enum FromLiveFixtures {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus/real").path
    static func pair(_ name: String, heic: Bool = false, seed: UInt64 = 41) throws -> (still: String, movie: String) {
        let dir = try MotionPhotoFixtures.fresh("fromlive-" + name)
        let still = dir + (heic ? "/IMG.HEIC" : "/IMG.JPG"), movie = dir + "/IMG.MOV"
        let ctx = try Context()
        var o = sy_sample_live_options()
        sy_sample_live_options_init(&o)
        o.seed = seed
        o.frames = 30
        o.still_format = heic ? SY_STILL_HEIC : SY_STILL_JPEG
        var err = sy_error()
        try #require(sy_sample_write_live(ctx.raw, &o, still, movie, &err) == SY_OK, "\(message(err))")
        return (still, movie)
    }

    static func convert(_ ctx: Context, _ still: String, _ movie: String, _ out: String,
                        configure: (inout sy_motion_photo_options) -> Void = { _ in })
        -> (status: sy_status, report: sy_motion_photo_report, message: String) {
        var o = sy_motion_photo_options()
        sy_motion_photo_options_init(&o)
        configure(&o)
        var r = sy_motion_photo_report()
        var err = sy_error()
        let st = sy_motion_photo_from_live(ctx.raw, still, movie, out, &o, &r, &err)
        return (st, r, st == SY_OK ? "" : message(err))
    }

    static func liveMovie(_ ctx: Context, _ path: String) throws -> sy_live_movie_info {
        var info = sy_live_movie_info()
        var err = sy_error()
        try #require(sy_live_movie_read(ctx.raw, path, &info, &err) == SY_OK, "\(message(err))")
        return info
    }

    /// The embedded bytes as a file of their own, for ffprobe.
    static func extract(_ path: String, offset: UInt64, length: UInt64) throws -> String {
        let bytes = ExternalTools.readFile(path)
        let out = path + ".embedded.mp4"
        try ExternalTools.writeFile(out, Array(bytes[Int(offset)..<Int(offset + length)]))
        return out
    }

    static func ffprobeFrames(_ path: String) throws -> (codecs: String, frames: Int) {
        let codecs = try ExternalTools.check("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name",
                                                         "-of", "csv=p=0", path])
        let n = try ExternalTools.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_packets",
                                                    "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", path])
        return (codecs, Int(n.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1)
    }

    /// Motion Photo -> Live on `path`: a verified pair whose movie has `samples`.
    static func roundTrip(_ ctx: Context, _ path: String, samples: [[UInt8]], stillTime: Double?) throws {
        // named after the output's own folder: tests run in parallel and several outputs are called MP.heic
        let folder = ((path as NSString).deletingLastPathComponent as NSString).lastPathComponent
        let dir = try MotionPhotoFixtures.fresh("roundtrip-" + folder)
        let ext = path.lowercased().hasSuffix(".heic") ? "heic" : "jpg"
        let still = dir + "/IMG." + ext, movie = dir + "/IMG.mov"
        var report = sy_live_motion_report()
        var err = sy_error()
        try #require(sy_live_from_motion_photo(ctx.raw, path, still, movie, nil, &report, &err) == SY_OK, "\(message(err))")
        let verdict = try liveVerify(ctx, still, movie)
        #expect(verdict.ok, "\(verdict.reason)")
        #expect(stillTime != nil ? report.still_time_from_photo == 1 : report.still_time_from_photo != 1) // none: matched or the middle
        if let stillTime {
            #expect(abs(report.still_time - stillTime) < 1e-6, "still time \(report.still_time) vs \(stillTime)")
        }
        #expect(try motionVideoSamples(ctx, movie) == samples)
    }
}

private func lines(_ text: String) -> [String] {
    text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
}

/// exiftool's reading of the Container:Directory items' `field` (Semantic, Mime, Length), in order.
private func directory(_ path: String, _ field: String) throws -> [String] {
    lines(try ExternalTools.check("exiftool", ["-a", "-s3", "-DirectoryItem" + field, path]))
}

@Suite("Motion Photos from Live pairs (issue 19)", .enabled(if: MotionPhotoFixtures.hasTools, "ffmpeg/exiftool not installed (make deps)"))
struct MotionPhotoFromLiveTests {
    @Test("a JPEG Live pair becomes a Motion Photo JPEG exiftool, ffprobe and our reader agree on; it round-trips")
    func jpeg() throws {
        let ctx = try Context()
        let pair = try FromLiveFixtures.pair("jpeg")
        let out = try MotionPhotoFixtures.fresh("mp-jpeg") + "/MP.jpg"
        let (st, r, msg) = FromLiveFixtures.convert(ctx, pair.still, pair.movie, out)
        try #require(st == SY_OK, "\(msg)")
        #expect(r.still_reencoded == 0 && r.identifier_removed == 1)
        let live = try FromLiveFixtures.liveMovie(ctx, pair.movie)
        #expect(live.has_still_time == 1 && r.presentation_us == Int64((live.still_time * 1e6).rounded()))

        // exiftool reads the Motion Photo XMP; no Apple identifier is left (nothing claimed that is not there)
        let tags = try ExternalTools.check("exiftool", ["-s3", "-n", "-XMP-GCamera:MotionPhoto",
                                                        "-XMP-GCamera:MotionPhotoVersion",
                                                        "-XMP-GCamera:MotionPhotoPresentationTimestampUs", out])
        #expect(lines(tags) == ["1", "1", "\(r.presentation_us)"], "\(tags)")
        #expect(try directory(out, "Semantic") == ["Primary", "MotionPhoto"])
        #expect(try directory(out, "Mime") == ["image/jpeg", "video/mp4"])
        #expect(try directory(out, "Length").last == "\(r.movie_length)")
        #expect(try liveExiftoolStillID(out) == "")
        #expect(try liveExiftoolStillID(pair.still) != "")

        // the directory's length counts back from the end of the file to a movie ffprobe reads
        let size = UInt64(ExternalTools.readFile(out).count)
        #expect(r.movie_offset + r.movie_length == size)
        let embedded = try FromLiveFixtures.extract(out, offset: r.movie_offset, length: r.movie_length)
        let probe = try FromLiveFixtures.ffprobeFrames(embedded)
        #expect(probe.codecs.contains("hevc") && probe.frames == 30, "\(probe)")
        #expect(try ExternalTools.check("ffprobe", ["-v", "error", "-show_entries", "format=format_name", "-of",
                                                    "csv=p=0", embedded]).contains("mp4"))

        // our reader: the same movie samples, byte for byte; the still's image data untouched
        let samples = try motionVideoSamples(ctx, pair.movie)
        #expect(try motionVideoSamples(ctx, out) == samples)
        let a = try liveDecodeStill(ctx, out), b = try liveDecodeStill(ctx, pair.still)
        #expect(a.width == b.width && a.height == b.height && a.pixels == b.pixels)

        try FromLiveFixtures.roundTrip(ctx, out, samples: samples, stillTime: live.still_time)
    }

    @Test("a HEIC Live pair becomes Samsung's mpvd form: still bytes kept, movie found, round-trips")
    func heic() throws {
        let ctx = try Context()
        let pair = try FromLiveFixtures.pair("heic", heic: true)
        let out = try MotionPhotoFixtures.fresh("mp-heic") + "/MP.heic"
        let (st, r, msg) = FromLiveFixtures.convert(ctx, pair.still, pair.movie, out)
        try #require(st == SY_OK, "\(msg)")
        #expect(r.still_reencoded == 0 && r.identifier_removed == 1)
        let info = motionProbe(ctx, out)
        #expect(info.info.located_by == fourcc("mpvd") && info.info.movie_offset == r.movie_offset)
        #expect(try liveExiftoolStillID(out) == "")
        let embedded = try FromLiveFixtures.extract(out, offset: r.movie_offset, length: r.movie_length)
        #expect(try FromLiveFixtures.ffprobeFrames(embedded).frames == 30)
        let samples = try motionVideoSamples(ctx, pair.movie)
        #expect(try motionVideoSamples(ctx, out) == samples)
        let a = try liveDecodeStill(ctx, out), b = try liveDecodeStill(ctx, pair.still)
        #expect(a.width == b.width && a.height == b.height && a.pixels == b.pixels)
        // the sample still has no XMP item to carry the Motion Photo XMP: Motion Photo -> Live falls back to the
        // middle frame, the sample's key frame
        #expect(r.xmp_written == 0)
        try FromLiveFixtures.roundTrip(ctx, out, samples: samples, stillTime: nil)
    }

    @Test("the real iPhone pair -> HEIC Motion Photo: its XMP item says the timestamp and directory; round-trips",
          .enabled(if: FileManager.default.fileExists(atPath: FromLiveFixtures.corpus + "/iphone15plus_IMG_3853.HEIC"),
                   "../shared/corpus/real is not present"))
    func heicXMPFromIPhone() throws {
        let ctx = try Context()
        let still = FromLiveFixtures.corpus + "/iphone15plus_IMG_3853.HEIC"
        let movie = FromLiveFixtures.corpus + "/iphone15plus_IMG_3853.MOV"
        let out = try MotionPhotoFixtures.fresh("mp-heic-iphone") + "/MP.heic"
        let (st, r, msg) = FromLiveFixtures.convert(ctx, still, movie, out)
        try #require(st == SY_OK, "\(msg)")
        #expect(r.xmp_written == 1 && r.still_reencoded == 0 && r.presentation_us > 0)
        let tags = lines(try ExternalTools.check("exiftool", ["-s3", "-XMP-GCamera:MotionPhoto",
                                                              "-XMP-GCamera:MotionPhotoPresentationTimestampUs", out]))
        #expect(tags == ["1", "\(r.presentation_us)"], "\(tags)")
        #expect(try directory(out, "Semantic") == ["Primary", "MotionPhoto"])
        #expect(try directory(out, "Mime") == ["image/heic", "video/mp4"])
        #expect(try directory(out, "Length").last == "\(r.movie_length)")
        let info = motionProbe(ctx, out) // the mpvd box and the XMP agree
        #expect(info.info.located_by == fourcc("mpvd") && info.info.movie_offset == r.movie_offset)
        #expect(info.info.presentation_us == r.presentation_us)
        let attributes = try FileManager.default.attributesOfItem(atPath: out)
        #expect((attributes[.size] as? NSNumber)?.uint64Value == r.movie_offset + r.movie_length)
        let a = try liveDecodeStill(ctx, out), b = try liveDecodeStill(ctx, still)
        #expect(a.width == b.width && a.height == b.height && a.pixels == b.pixels)
        try FromLiveFixtures.roundTrip(ctx, out, samples: try motionVideoSamples(ctx, movie),
                                       stillTime: Double(r.presentation_us) / 1e6)
    }

    @Test("a HEIC still into a .jpg is re-encoded only when asked; otherwise refused and nothing written")
    func reencodeOnlyWhenAsked() throws {
        let ctx = try Context()
        let pair = try FromLiveFixtures.pair("heic-to-jpg", heic: true)
        let out = try MotionPhotoFixtures.fresh("mp-heic-jpg") + "/MP.jpg"
        let refused = FromLiveFixtures.convert(ctx, pair.still, pair.movie, out)
        #expect(refused.status == SY_E_UNSUPPORTED && refused.message.contains("HEIC"), "\(refused.message)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let (st, r, msg) = FromLiveFixtures.convert(ctx, pair.still, pair.movie, out) { $0.reencode_still = 1 }
        try #require(st == SY_OK, "\(msg)")
        #expect(r.still_reencoded == 1)
        #expect(try liveExiftoolStillID(out) == "")
        let tags = try ExternalTools.check("exiftool", ["-s3", "-XMP-GCamera:MotionPhoto", out])
        #expect(tags.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(tags)")
        #expect(try motionVideoSamples(ctx, out) == motionVideoSamples(ctx, pair.movie))
        let a = try liveDecodeStill(ctx, out), b = try liveDecodeStill(ctx, pair.still)
        try #require(a.width == b.width && a.height == b.height)
        #expect(livePSNR(a.pixels, b.pixels) >= 40, "PSNR \(livePSNR(a.pixels, b.pixels))")
    }

    @Test("SPEC E6: an Ultra HDR still's gain map stays, listed in the joint Container:Directory")
    func gainMapKept() throws {
        let ctx = try Context()
        let hdr = try HDRSampleFolder(width: 360, height: 480)
        let pair = try FromLiveFixtures.pair("hdr")
        let out = try MotionPhotoFixtures.fresh("mp-hdr") + "/MP.jpg"
        let (st, r, msg) = FromLiveFixtures.convert(ctx, hdr.jpeg, pair.movie, out)
        try #require(st == SY_OK, "\(msg)")
        #expect(try directory(out, "Semantic") == ["Primary", "GainMap", "MotionPhoto"])
        let kept = try DecodedGainMap(ctx, out), source = try DecodedGainMap(ctx, hdr.jpeg)
        #expect(kept.width == source.width && kept.height == source.height && kept.pixels == source.pixels)
        #expect(r.still_hdr == SY_HDR_KEPT, "the report says the map in the kept bytes is kept")
        // the MPF index's primary size grew with the Motion Photo XMP: the primary ends where the map starts
        // (a sweep found it still saying the size before the XMP was added)
        if ExternalTools.installed("exiftool") {
            let mpf = try ExternalTools.check("exiftool", ["-n", "-s3", "-MPImage1:MPImageLength", "-MPImage2:MPImageStart", out])
            let numbers = mpf.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            #expect(numbers.count == 2 && numbers[0] == numbers[1], "MPF: \(mpf)")
        }
        #expect(motionProbe(ctx, out).info.movie_offset == r.movie_offset)
        #expect(try motionVideoSamples(ctx, out) == motionVideoSamples(ctx, pair.movie))
        // and back to a Live pair: the still's bytes are kept, and the report says its map is kept (it said "none")
        let back = try MotionPhotoFixtures.fresh("mp-hdr-back")
        var lr = sy_live_motion_report()
        var err = sy_error()
        try #require(sy_live_from_motion_photo(ctx.raw, out, back + "/L.jpg", back + "/L.mov", nil, &lr, &err) == SY_OK,
                     "\(message(err))")
        let backMap = try DecodedGainMap(ctx, back + "/L.jpg")
        #expect(lr.still_hdr == SY_HDR_KEPT && backMap.pixels == source.pixels)
    }

    @Test("a still and a movie of two different Live photos are refused, naming both")
    func mismatchedPair() throws {
        let ctx = try Context()
        let a = try FromLiveFixtures.pair("one", seed: 1), b = try FromLiveFixtures.pair("two", seed: 2)
        let out = try MotionPhotoFixtures.fresh("mp-mismatch") + "/MP.jpg"
        let r = FromLiveFixtures.convert(ctx, a.still, b.movie, out)
        #expect(r.status == SY_E_INVALID_INPUT && r.message.contains("identifiers differ"), "\(r.message)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let bad = FromLiveFixtures.convert(ctx, a.still, a.movie, out + ".png")
        #expect(bad.status == SY_E_USAGE)
    }
}
