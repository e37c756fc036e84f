// Issue 6 proof on the C API (sy_live.h): a Live pair we write is read back by
// exiftool (the same ContentIdentifier in still and movie, StillImageTime with
// -ee) and decoded fully by ffmpeg; our reader agrees with exiftool on real
// iPhone files; verification (SPEC C3) names what is broken; the fallback
// (SPEC C4) removes the identifier without touching pixels or refuses; Live
// edits (SPEC E1, E2) go through the one frame renderer.
import CShiying
import Foundation
import Testing

enum LiveFixtures {
    static var hasTools: Bool { ExternalTools.installed("ffmpeg", "ffprobe", "exiftool") }

    static let folder: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shiying-live-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }()

    /// 1.5 s of 480x360 HEVC (`hvc1`, B-frames) at 30 fps with AAC audio: a
    /// slow pan across the corpus' camera photo (real texture: grass, roofs,
    /// sky), made by ffmpeg the same way every run.
    static let source: Result<String, CTestFailure> = {
        let path = folder + "/src.mov"
        do {
            try ExternalTools.check("ffmpeg", ["-v", "error", "-y", "-loop", "1", "-framerate", "30",
                                               "-i", corpus + "/samsung_camera.jpeg",
                                               "-f", "lavfi", "-i", "sine=frequency=330:duration=1.5",
                                               "-vf", "scale=960:-2,crop=480:360:x='100+t*60':y=120", "-t", "1.5",
                                               "-c:v", "libx265", "-x265-params", "bframes=3:log-level=error", "-tag:v", "hvc1",
                                               "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", path])
            return .success(path)
        } catch { return .failure(CTestFailure("making src.mov: \(error)")) }
    }()

    static func fresh(_ name: String) throws -> String {
        let dir = folder + "/out-" + name
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static var corpus: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../shared/corpus/real")
            .standardizedFileURL.path
    }
}

/// The still's identifier as exiftool prints it (either tag name, live-photo.md §6).
func liveExiftoolStillID(_ path: String) throws -> String {
    try ExternalTools.check("exiftool", ["-s3", "-Apple:ContentIdentifier", "-Apple:MediaGroupUUID", path])
        .trimmingCharacters(in: .whitespacesAndNewlines)
}

func liveExiftoolMovieID(_ path: String) throws -> String {
    try ExternalTools.check("exiftool", ["-s3", "-Keys:ContentIdentifier", path]).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Frames the transcoder handed to the encoder, by index.
final class LiveFrameLog {
    var frames: [UInt32: [UInt8]] = [:]
    var width = 0, height = 0
}

let liveObserve: sy_video_frame_observer = { user, index, rgb, stride, width, height, _ in
    let log = Unmanaged<LiveFrameLog>.fromOpaque(user!).takeUnretainedValue()
    var bytes = [UInt8](repeating: 0, count: Int(width) * Int(height) * 3)
    bytes.withUnsafeMutableBytes { out in
        for y in 0..<Int(height) { memcpy(out.baseAddress! + y * Int(width) * 3, rgb! + y * stride, Int(width) * 3) }
    }
    log.frames[index] = bytes
    log.width = Int(width)
    log.height = Int(height)
    return sy_status(SY_OK)
}

struct LiveSave {
    var report = sy_live_save_report()
    var status: sy_status = 0
    var error = sy_error()
    var id: String { withUnsafeBytes(of: report.content_identifier) { String(decoding: $0.prefix(36), as: UTF8.self) } }
}

func liveSave(_ ctx: Context, movie: String, still: String? = nil, stillOut: String, movieOut: String,
              recipe: UnsafePointer<sy_recipe>? = nil, at: Double = -1, format: sy_still_format = SY_STILL_JPEG,
              log: LiveFrameLog? = nil, allowSDR: Bool = false) -> LiveSave {
    var o = sy_live_save_options()
    sy_live_save_options_init(&o)
    o.allow_sdr = allowSDR ? 1 : 0
    o.recipe = recipe
    o.still_time = at
    o.still_format = format
    o.preset = nil
    if let log {
        o.observer = liveObserve
        o.observer_user = Unmanaged.passUnretained(log).toOpaque()
    }
    var r = LiveSave()
    r.status = withExtendedLifetime(log) { sy_live_save(ctx.raw, movie, still, stillOut, movieOut, &o, &r.report, &r.error) }
    return r
}

func liveVerify(_ ctx: Context, _ still: String, _ movie: String) throws -> (ok: Bool, reason: String, id: String) {
    var v = sy_live_verdict()
    var err = sy_error()
    let st = sy_live_verify(ctx.raw, still, movie, &v, &err)
    try #require(st == SY_OK, "sy_live_verify: \(message(err))")
    let reason = withUnsafeBytes(of: v.reason) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    let id = withUnsafeBytes(of: v.content_identifier) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    return (v.ok != 0, reason, id)
}

func liveStillID(_ ctx: Context, _ path: String) throws -> String? {
    var id = [CChar](repeating: 0, count: 37)
    var found: Int32 = 0
    var err = sy_error()
    try #require(sy_live_still_read_id(ctx.raw, path, &id, &found, &err) == SY_OK, "\(message(err))")
    return found != 0 ? String(decoding: id.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
}

/// Decoded RGB of a still through the engine (upright, full size).
func liveDecodeStill(_ ctx: Context, _ path: String) throws -> (pixels: [UInt8], width: Int, height: Int) {
    var recipe = sy_recipe()
    sy_recipe_init(&recipe)
    var img = sy_edit_image()
    var err = sy_error()
    try #require(sy_edit_render(ctx.raw, path, &recipe, 0, 0, UInt32(SY_EDIT_FULL_DECODE), &img, nil, &err) == SY_OK,
                 "\(message(err))")
    defer { sy_edit_image_free(ctx.raw, &img) }
    let bytes = Array(UnsafeBufferPointer(start: img.pixels, count: img.stride * Int(img.height)))
    return (bytes, Int(img.width), Int(img.height))
}

func livePSNR(_ a: [UInt8], _ b: [UInt8]) -> Double {
    precondition(a.count == b.count && !a.isEmpty)
    var sum: UInt64 = 0
    for i in 0..<a.count {
        let d = Int(a[i]) - Int(b[i])
        sum &+= UInt64(d * d)
    }
    return sum == 0 ? 99 : 10 * log10(255 * 255 / (Double(sum) / Double(a.count)))
}

/// ffmpeg's decode of frame `index` of `movie` as rgb24.
func liveFFmpegFrame(_ movie: String, _ index: UInt32) throws -> [UInt8] {
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("live-frame-\(getpid())-\(UUID().uuidString.prefix(8)).rgb").path
    defer { unlink(out) }
    try ExternalTools.check("ffmpeg", ["-v", "error", "-y", "-i", movie, "-vf", "select=eq(n\\,\(index))", "-vsync", "0",
                                       "-frames:v", "1", "-sws_flags", "accurate_rnd+full_chroma_int",
                                       "-f", "rawvideo", "-pix_fmt", "rgb24", out])
    return ExternalTools.readFile(out)
}

@Suite("Live pairs (SPEC C2, C3, S3)", .enabled(if: LiveFixtures.hasTools, "ffmpeg/exiftool not installed (make deps)"))
struct LivePairTests {
    @Test("video -> Live (S3): exiftool reads one identifier from both files, StillImageTime, ffmpeg decodes all",
          arguments: [SY_STILL_JPEG, SY_STILL_HEIC])
    func makeInterop(format: sy_still_format) throws {
        let src = try LiveFixtures.source.get()
        let dir = try LiveFixtures.fresh("make-\(format.rawValue)")
        let still = dir + (format == SY_STILL_JPEG ? "/live.jpg" : "/live.heic"), movie = dir + "/live.mov"
        let ctx = try Context()
        let log = LiveFrameLog()
        let r = liveSave(ctx, movie: src, stillOut: still, movieOut: movie, at: 0.8, format: format, log: log)
        try #require(r.status == SY_OK, "sy_live_save: \(message(r.error))")
        #expect(r.report.live == 1 && r.report.still_frame == 24 && abs(r.report.still_time - 0.8) < 1e-9)
        #expect(r.report.movie.frames == 45 && r.report.movie.audio_samples > 0)
        // live-photo.md §2: an uppercase canonical UUID
        #expect(r.id.range(of: "^[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$", options: .regularExpression) != nil)
        #expect(try liveExiftoolStillID(still) == r.id)
        #expect(try liveExiftoolMovieID(movie) == r.id)
        #expect(try liveStillID(ctx, still) == r.id)
        // §6: the marker track and its time (TrackDuration − SampleDuration), ffprobe honours elst
        let json = try ExternalTools.check("exiftool", ["-j", "-G1", "-ee", "-n", "-StillImageTime", "-TrackDuration",
                                                        "-SampleDuration", "-MetaFormat", "-ContentDescribes", movie])
        let tags = try #require((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])?.first)
        let track = try #require(tags.keys.first { $0.hasSuffix(":StillImageTime") }?.split(separator: ":").first)
        func number(_ k: String) -> Double? {
            (tags["\(track):\(k)"] as? NSNumber)?.doubleValue ?? (tags["\(track):\(k)"] as? String).flatMap(Double.init)
        }
        #expect(number("StillImageTime") == -1)
        #expect(tags["\(track):MetaFormat"] as? String == "mebx")
        #expect(number("ContentDescribes") == 1)
        let marked = try #require(number("TrackDuration")) - (try #require(number("SampleDuration")))
        #expect(abs(marked - 0.8) < 0.002, "still time from exiftool: \(marked)")
        let streams = try ExternalTools.check("ffprobe", ["-v", "error", "-show_entries", "stream=codec_tag_string,start_time",
                                                          "-of", "csv=p=0", movie])
        #expect(streams.contains("hvc1") && streams.contains("mebx,0.800000"), "ffprobe: \(streams)")
        for file in [movie, still] {
            let validate = try ExternalTools.check("exiftool", ["-validate", "-warning", "-a", "-ee", file])
            #expect(validate.trimmingCharacters(in: .newlines).hasSuffix(": OK"), "exiftool -validate \(file): \(validate)")
        }
        let decoded = try ExternalTools.run("ffmpeg", ["-v", "error", "-i", movie, "-map", "0:v", "-map", "0:a",
                                                       "-f", "null", "-"])
        #expect(decoded.status == 0 && decoded.err.isEmpty, "ffmpeg decode: \(decoded.err)")
        // P4: the still shows the frame at the still-image time (the encoder's input, before coding loss)
        let frame = try #require(log.frames[r.report.still_frame])
        let shown = try liveDecodeStill(ctx, still)
        #expect(shown.width == log.width && shown.height == log.height)
        #expect(livePSNR(shown.pixels, frame) >= 38, "still vs frame \(r.report.still_frame)")
        // C3: the pair verifies
        let v = try liveVerify(ctx, still, movie)
        #expect(v.ok && v.id == r.id, "\(v.reason)")
    }

    @Test("real iPhone files: our identifiers equal exiftool's; the iPhone pair verifies; a key photo without id does not")
    func corpusPairs() throws {
        let dir = LiveFixtures.corpus
        let heic = dir + "/iphone15plus_IMG_3853.HEIC", mov = dir + "/iphone15plus_IMG_3853.MOV"
        try #require(FileManager.default.fileExists(atPath: heic), "corpus missing at \(dir)")
        let ctx = try Context()
        let id = try #require(try liveStillID(ctx, heic))
        let exifID = try liveExiftoolStillID(heic)
        #expect(id == exifID)
        var info = sy_live_movie_info()
        var err = sy_error()
        try #require(sy_live_movie_read(ctx.raw, mov, &info, &err) == SY_OK, "\(message(err))")
        let movieID = withUnsafeBytes(of: info.content_identifier) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let exifMovieID = try liveExiftoolMovieID(mov)
        #expect(info.has_identifier == 1 && movieID == id && movieID == exifMovieID)
        #expect(info.has_still_time == 1 && info.still_time > 0 && info.still_time < info.duration)
        // the still time exiftool implies (TrackDuration − SampleDuration of the still-image-time track)
        let json = try ExternalTools.check("exiftool", ["-j", "-G1", "-ee", "-n", "-StillImageTime", "-TrackDuration",
                                                        "-SampleDuration", mov])
        let tags = try #require((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])?.first)
        let track = try #require(tags.keys.first { $0.hasSuffix(":StillImageTime") }?.split(separator: ":").first)
        func number(_ k: String) -> Double {
            (tags["\(track):\(k)"] as? NSNumber)?.doubleValue ?? (tags["\(track):\(k)"] as? String).flatMap(Double.init) ?? -1
        }
        let implied = number("TrackDuration") - number("SampleDuration")
        #expect(abs(implied - info.still_time) < 0.002, "exiftool \(implied) vs ours \(info.still_time)")
        let v = try liveVerify(ctx, heic, mov)
        #expect(v.ok && v.id == id, "\(v.reason)")
        // LimitPoint's key photo has no MakerNote: not a pair we may call Live
        let h264 = try liveVerify(ctx, dir + "/h264_live_keyPhoto.jpg", dir + "/h264_live_pairedVideo.mov")
        #expect(!h264.ok && h264.reason.contains("the still has no content identifier"), "\(h264.reason)")
    }

    @Test("mismatch, with a reason: crossed identifiers, no still-image-time track, truncated movie, undecodable still")
    func mismatches() throws {
        let src = try LiveFixtures.source.get()
        let dir = try LiveFixtures.fresh("mismatch")
        let ctx = try Context()
        let a = liveSave(ctx, movie: src, stillOut: dir + "/a.jpg", movieOut: dir + "/a.mov")
        let b = liveSave(ctx, movie: src, stillOut: dir + "/b.jpg", movieOut: dir + "/b.mov")
        try #require(a.status == SY_OK && b.status == SY_OK, "\(message(a.error)) \(message(b.error))")
        #expect(a.id != b.id)
        let crossed = try liveVerify(ctx, dir + "/a.jpg", dir + "/b.mov")
        #expect(!crossed.ok && crossed.reason == "content identifiers differ: still \(a.id), movie \(b.id)", "\(crossed.reason)")

        // identifier but no still-image-time track: a metadata plan that only adds the identifier
        var o = sy_video_transcode_options()
        sy_video_transcode_options_init(&o)
        var err = sy_error()
        let noTrack = dir + "/notrack.mov"
        let idBytes = Array(a.id.utf8)
        let st = "com.apple.quicktime.content.identifier".withCString { key in
            idBytes.withUnsafeBytes { value in
                var item = sy_video_mdta_item(key: key, type: 1, value: value.baseAddress, len: value.count)
                return withUnsafePointer(to: &item) { add in
                    var plan = sy_video_metadata_plan(drop: nil, drop_count: 0, add: add, add_count: 1, marker: nil,
                                                      copy_timed_metadata: 0)
                    return withUnsafePointer(to: &plan) { planPointer in
                        o.metadata = planPointer
                        return sy_video_transcode(ctx.raw, src, noTrack, &o, nil, &err)
                    }
                }
            }
        }
        try #require(st == SY_OK, "\(message(err))")
        #expect(try liveExiftoolMovieID(noTrack) == a.id)
        let missing = try liveVerify(ctx, dir + "/a.jpg", noTrack)
        #expect(!missing.ok && missing.reason.hasSuffix("the movie has no still-image-time metadata track"), "\(missing.reason)")

        // truncated movie: moov is last, so the movie no longer parses
        let bytes = ExternalTools.readFile(dir + "/a.mov")
        try ExternalTools.writeFile(dir + "/cut.mov", Array(bytes.prefix(bytes.count * 6 / 10)))
        let cut = try liveVerify(ctx, dir + "/a.jpg", dir + "/cut.mov")
        #expect(!cut.ok && cut.reason.hasPrefix("movie unreadable: "), "\(cut.reason)")

        // undecodable still: the identifier is intact, the image data is cut
        let still = ExternalTools.readFile(dir + "/a.jpg")
        try ExternalTools.writeFile(dir + "/broken.jpg", Array(still.prefix(still.count / 2)))
        #expect(try liveStillID(ctx, dir + "/broken.jpg") == a.id)
        let broken = try liveVerify(ctx, dir + "/broken.jpg", dir + "/a.mov")
        #expect(!broken.ok && broken.reason.hasPrefix("still does not decode: "), "\(broken.reason)")

        // the intact pair still passes
        #expect(try liveVerify(ctx, dir + "/a.jpg", dir + "/a.mov").ok)
    }
}
