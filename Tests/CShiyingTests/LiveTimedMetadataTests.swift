// Issue 16 item 4: a Live edit keeps what the camera wrote into the movie —
// every timed-metadata (`mebx`) track but the still-image time (re-made at the
// key photo), sample for sample with its times, its key table and handler
// name, its `tref cdsc` pointing at the new video track; the video track's own
// `meta`; the creation date. Proof from outside (ffprobe's data streams and
// handler names, exiftool -ee's timed values, ffmpeg decodes silently, our
// verifier) and inside (our MOV reader: the samples are the source's bytes).
// Fixtures: a sample Live pair with Apple-like extras (sy_sample_write_live
// timed_metadata) and, when the corpus is present, the real iPhone 15 Plus pair.
import CShiying
import CShiyingFixtures
import Foundation
import Testing

private enum TimedFixtures {
    static let stillTimeKey = "com.apple.quicktime.still-image-time"

    static func pair(_ name: String) throws -> (still: String, movie: String, dir: String) {
        let dir = try LiveFixtures.fresh("timed-" + name)
        let still = dir + "/IMG.JPG", movie = dir + "/IMG.MOV"
        let ctx = try Context()
        var o = sy_sample_live_options()
        sy_sample_live_options_init(&o)
        o.width = 192
        o.height = 256
        o.frames = 24
        o.seed = 16
        o.timed_metadata = 1
        var err = sy_error()
        try #require(sy_sample_write_live(ctx.raw, &o, still, movie, &err) == SY_OK, "\(message(err))")
        return (still, movie, dir)
    }

    /// codec tag and handler name of every data stream, as ffprobe lists them.
    static func dataStreams(_ movie: String) throws -> [String] {
        try ExternalTools.check("ffprobe", ["-v", "error", "-select_streams", "d", "-show_entries",
                                            "stream=codec_tag_string:stream_tags=handler_name", "-of", "csv=p=0", movie])
            .split(separator: "\n").map(String.init)
    }

    /// exiftool -ee -G3's timed-metadata documents (one per sample), without
    /// the still-image time's (re-made, so not the source's bytes), in order.
    static func timedValues(_ movie: String) throws -> [[String]] {
        let out = try ExternalTools.check("exiftool", ["-ee", "-G3", "-a", "-s", movie])
        var docs: [(String, [String])] = []
        for line in out.split(separator: "\n") where line.hasPrefix("[Doc") {
            let tag = String(line.prefix { $0 != "]" })
            let body = line.dropFirst(tag.count + 1).trimmingCharacters(in: .whitespaces)
            if docs.last?.0 == tag { docs[docs.count - 1].1.append(body) } else { docs.append((tag, [body])) }
        }
        return docs.map(\.1).filter { !$0.contains { $0.hasPrefix("StillImageTime") } }
    }

    static func ffmpegErrors(_ movie: String) throws -> String {
        let r = try ExternalTools.run("ffmpeg", ["-v", "error", "-i", movie, "-f", "null", "-"])
        return r.status == 0 ? r.err : "exit \(r.status): \(r.err)"
    }
}

/// One opened movie, read with our own demuxer.
private final class Movie {
    let raw: OpaquePointer

    init(_ ctx: Context, _ path: String) throws {
        var mov: OpaquePointer?
        var err = sy_error()
        try #require(sy_mov_open(ctx.raw, path, &mov, &err) == SY_OK, "\(message(err))")
        raw = try #require(mov)
    }

    deinit { sy_mov_close(raw) }

    var trackCount: UInt32 { sy_mov_track_count(raw) }
    func info(_ t: UInt32) -> sy_mov_track_info { sy_mov_track(raw, t)!.pointee }

    func keys(_ t: UInt32) -> [String] {
        (0..<sy_mov_mebx_key_count(raw, t)).map { String(cString: sy_mov_mebx_key_at(raw, t, $0)!.pointee.name) }
    }

    /// The timed-metadata tracks other than the still-image time.
    var timedTracks: [UInt32] {
        (0..<trackCount).filter {
            info($0).codec == fourCC("mebx") && info($0).sample_count > 0 && !keys($0).contains(TimedFixtures.stillTimeKey)
        }
    }

    func bytes(_ p: UnsafePointer<UInt8>?, _ len: Int) -> [UInt8] { p.map { Array(UnsafeBufferPointer(start: $0, count: len)) } ?? [] }

    func entry(_ t: UInt32) -> [UInt8] {
        var len = 0
        var e = bytes(sy_mov_sample_entry(raw, t, &len), len)
        if e.count > 15 { e[14] = 0; e[15] = 1 } // the data reference index is the writer's own
        return e
    }

    func trackMeta(_ t: UInt32) -> [UInt8] {
        var len = 0
        return bytes(sy_mov_track_meta(raw, t, &len), len)
    }

    /// Every sample: presentation time (s, on the track's own media timeline), duration (s) and bytes.
    func samples(_ t: UInt32) throws -> [(pts: Double, duration: Double, data: [UInt8])] {
        let scale = Double(info(t).timescale)
        return try (0..<info(t).sample_count).map { i in
            var s = sy_mov_sample_info()
            var err = sy_error()
            try #require(sy_mov_sample(raw, t, i, &s, &err) == SY_OK, "\(message(err))")
            var data = [UInt8](repeating: 0, count: Int(s.size))
            var len = 0
            try #require(sy_mov_read_sample(raw, t, i, &data, data.count, &len, &err) == SY_OK, "\(message(err))")
            return (Double(s.pts) / scale, Double(s.duration) / scale, data)
        }
    }

    /// Movie-timeline seconds where the track's media starts (its leading empty edit).
    func start(_ t: UInt32) throws -> Double {
        let ti = info(t)
        guard ti.edit_count > 0 else { return 0 }
        var segment: UInt64 = 0
        var media: Int64 = 0
        var rate: Int32 = 0
        var err = sy_error()
        try #require(sy_mov_edit(raw, t, 0, &segment, &media, &rate, &err) == SY_OK, "\(message(err))")
        let movieScale = Double(sy_mov_info_get(raw)!.pointee.timescale)
        return media < 0 ? Double(segment) / movieScale : -Double(media) / Double(ti.timescale)
    }
}

private func fourCC(_ s: String) -> UInt32 { s.utf8.reduce(0) { $0 << 8 | UInt32($1) } }

/// What a Live output must have kept of its source: the same timed tracks in
/// order (keys, sample entry, handler name), every sample's bytes, time and
/// duration (≤ 1 ms after the movie-timescale round trip), the `tref` on the
/// new video track, and the video track's own meta box.
private func expectTimedKept(_ ctx: Context, source: String, output: String) throws {
    let src = try Movie(ctx, source), out = try Movie(ctx, output)
    let (a, b) = (src.timedTracks, out.timedTracks)
    try #require(!a.isEmpty && a.count == b.count, "timed tracks: source \(a.count), output \(b.count)")
    let srcVideo = UInt32(sy_mov_main_video_track(src.raw)), outVideo = UInt32(sy_mov_main_video_track(out.raw))
    for (s, o) in zip(a, b) {
        #expect(out.keys(o) == src.keys(s))
        #expect(out.entry(o) == src.entry(s), "sample entry (keys table) of track \(out.info(o).id)")
        #expect(out.info(o).handler == src.info(s).handler)
        let (sn, on) = (withUnsafeBytes(of: src.info(s).handler_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) },
                        withUnsafeBytes(of: out.info(o).handler_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        #expect(on == sn && !on.isEmpty, "handler name \(on) vs \(sn)")
        let described = src.info(s).describes_id
        #expect(described == 0 ? out.info(o).describes_id == 0 : out.info(o).describes_id == out.info(outVideo).id,
                "tref cdsc: source describes \(described) (video \(src.info(srcVideo).id)), output \(out.info(o).describes_id)")
        let (ss, os) = (try src.samples(s), try out.samples(o))
        try #require(ss.count == os.count, "samples: \(ss.count) vs \(os.count)")
        let (s0, o0) = (try src.start(s), try out.start(o))
        for (k, (x, y)) in zip(ss, os).enumerated() {
            #expect(x.data == y.data, "track \(out.info(o).id) sample \(k): bytes differ")
            #expect(abs((x.pts + s0) - (y.pts + o0)) <= 0.001 && abs(x.duration - y.duration) <= 0.001,
                    "sample \(k) at \(y.pts + o0) s for \(y.duration) s, source \(x.pts + s0) s for \(x.duration) s")
        }
    }
    #expect(out.trackMeta(outVideo) == src.trackMeta(srcVideo) && !src.trackMeta(srcVideo).isEmpty,
            "the video track's own meta box")
}

private func cropRecipe(_ body: (UnsafePointer<sy_recipe>) throws -> Void) rethrows {
    var recipe = sy_recipe()
    sy_recipe_init(&recipe)
    recipe.crop = sy_recipe_rect(x: 0.125, y: 0.125, width: 0.75, height: 0.75)
    try body(&recipe)
}

/// The outside view: same data streams and handler names, same timed values,
/// a silent ffmpeg decode, a verified pair.
private func expectOutsideViewKept(_ ctx: Context, source: String, still: String, output: String) throws {
    #expect(try TimedFixtures.dataStreams(output) == TimedFixtures.dataStreams(source))
    let (sv, ov) = (try TimedFixtures.timedValues(source), try TimedFixtures.timedValues(output))
    #expect(!sv.isEmpty && ov == sv, "exiftool -ee: \(ov.count) timed samples vs \(sv.count); first \(ov.first ?? []) vs \(sv.first ?? [])")
    #expect(try TimedFixtures.ffmpegErrors(output) == "")
    let v = try liveVerify(ctx, still, output)
    #expect(v.ok, "\(v.reason)")
}

private let movieDroppedTimed = UInt32(SY_DROPPED_TIMED_METADATA.rawValue)

@Suite("Live edits keep the movie's timed metadata (issue 16)", .enabled(if: LiveFixtures.hasTools, "ffmpeg/exiftool not installed"))
struct LiveTimedMetadataTests {
    @Test("a cropped Live edit copies the extra mebx tracks byte for byte, re-makes the still-image time once")
    func cropKeepsTimedTracks() throws {
        let (still, movie, dir) = try TimedFixtures.pair("crop")
        let ctx = try Context()
        try cropRecipe { recipe in
            let e = liveSave(ctx, movie: movie, still: still, stillOut: dir + "/e.jpg", movieOut: dir + "/e.mov",
                             recipe: recipe)
            try #require(e.status == SY_OK, "\(message(e.error))")
            let m = e.report.movie
            #expect(m.width == 144 && m.height == 192, "the frames were re-encoded cropped: \(m.width)x\(m.height)")
            #expect(m.timed_metadata_tracks == 2 && m.dropped & movieDroppedTimed == 0, "dropped \(m.dropped)")
            let kept = UInt32(SY_MOVIE_KEPT_TIMED_METADATA.rawValue | SY_MOVIE_KEPT_VIDEO_TRACK_METADATA.rawValue)
            #expect(m.kept & kept == kept, "kept \(m.kept)")
            try expectTimedKept(ctx, source: movie, output: dir + "/e.mov")
            try expectOutsideViewKept(ctx, source: movie, still: dir + "/e.jpg", output: dir + "/e.mov")
            let stillTracks = try Movie(ctx, dir + "/e.mov")
            #expect((0..<stillTracks.trackCount).filter { stillTracks.keys($0).contains(TimedFixtures.stillTimeKey) }.count == 1,
                    "one still-image-time track")
        }
    }

    @Test("a new key photo (remux) keeps them too, and the marker moves to the new frame")
    func keyPhotoKeepsTimedTracks() throws {
        let (still, movie, dir) = try TimedFixtures.pair("keyphoto")
        let ctx = try Context()
        let k = liveSave(ctx, movie: movie, stillOut: dir + "/k.jpg", movieOut: dir + "/k.mov", at: 0.3)
        try #require(k.status == SY_OK, "\(message(k.error))")
        #expect(abs(k.report.still_time - 0.3) < 0.02 && k.report.movie.timed_metadata_tracks == 2)
        try expectTimedKept(ctx, source: movie, output: dir + "/k.mov")
        try expectOutsideViewKept(ctx, source: movie, still: dir + "/k.jpg", output: dir + "/k.mov")
        _ = still
    }

    @Test("a plain video transcode keeps the video track's meta but no timed metadata, and says so")
    func plainTranscodeReportsDrop() throws {
        let (_, movie, dir) = try TimedFixtures.pair("plain")
        let ctx = try Context()
        var o = sy_video_transcode_options()
        sy_video_transcode_options_init(&o)
        o.copy_video = 1
        var r = sy_video_transcode_report()
        var err = sy_error()
        try #require(sy_video_transcode(ctx.raw, movie, dir + "/p.mov", &o, &r, &err) == SY_OK, "\(message(err))")
        #expect(r.dropped & movieDroppedTimed != 0 && r.timed_metadata_tracks == 0)
        #expect(r.kept & UInt32(SY_MOVIE_KEPT_VIDEO_TRACK_METADATA.rawValue) != 0)
        let out = try Movie(ctx, dir + "/p.mov")
        #expect(out.timedTracks.isEmpty)
    }

    @Test("the real iPhone 15 Plus pair: a cropped Live edit keeps its timed metadata, lens keys and creation date",
          .enabled(if: FileManager.default.fileExists(atPath: LiveFixtures.corpus + "/iphone15plus_IMG_3853.MOV"),
                   "the real corpus is not present"))
    func realIphoneEdit() throws {
        let movie = LiveFixtures.corpus + "/iphone15plus_IMG_3853.MOV", still = LiveFixtures.corpus + "/iphone15plus_IMG_3853.HEIC"
        let dir = try LiveFixtures.fresh("timed-real")
        let ctx = try Context()
        var recipe = sy_recipe()
        sy_recipe_init(&recipe)
        recipe.crop = sy_recipe_rect(x: 0.25, y: 0.25, width: 0.5, height: 0.5) // a small movie keeps the test short
        var source = sy_live_movie_info()
        var err = sy_error()
        try #require(sy_live_movie_read(ctx.raw, movie, &source, &err) == SY_OK, "\(message(err))")
        let e = liveSave(ctx, movie: movie, still: still, stillOut: dir + "/e.jpg", movieOut: dir + "/e.mov",
                         recipe: &recipe, at: source.still_time) // the key photo stays where it was, as `live edit` keeps it
        try #require(e.status == SY_OK, "\(message(e.error))")
        #expect(e.report.movie.timed_metadata_tracks == 2 && e.report.movie.dropped == 0, "dropped \(e.report.movie.dropped)")
        #expect(abs(e.report.still_time - source.still_time) < 0.001, "still time \(e.report.still_time) vs \(source.still_time)")
        try expectTimedKept(ctx, source: movie, output: dir + "/e.mov")
        try expectOutsideViewKept(ctx, source: movie, still: dir + "/e.jpg", output: dir + "/e.mov")
        for tag in ["-CreateDate", "-CreationDate", "-CameraLensModel", "-CameraFocalLength35mmEquivalent"] {
            let (s, o) = (try ExternalTools.check("exiftool", ["-s3", tag, movie]),
                          try ExternalTools.check("exiftool", ["-s3", tag, dir + "/e.mov"]))
            #expect(o == s && !s.isEmpty, "\(tag): \(o) vs \(s)")
        }
    }
}
