// Live edits on the C API: every frame through the one frame renderer, the
// still re-rendered with the same recipe and a new shared identifier, C14
// bitrate, audio copied; SPEC E1 (border -> still only) and SPEC E2 (a frame as
// a photo is byte-identical to the frame the Live save encodes).
import CShiying
import Foundation
import Testing

/// A recipe with every kind of step (crop, straighten, adjustments, filter).
private func typicalRecipe(_ body: (UnsafePointer<sy_recipe>) throws -> Void) throws {
    var info = sy_filter_info()
    try #require(sy_filter_at(0, &info) == 0, "no built-in filter")
    var recipe = sy_recipe()
    sy_recipe_init(&recipe)
    recipe.crop = sy_recipe_rect(x: 0.1, y: 0.05, width: 0.8, height: 0.85)
    recipe.straighten = 4
    recipe.adjustments.exposure = 0.4
    recipe.adjustments.contrast = 0.2
    recipe.adjustments.saturation = 0.25
    recipe.filter_id = info.id
    recipe.filter_intensity = 0.7
    try withExtendedLifetime(info) { try body(&recipe) }
}

private func probeDuration(_ movie: String) throws -> Double {
    let out = try ExternalTools.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames",
                                                  "-show_entries", "stream=duration,nb_read_frames", "-of", "csv=p=0", movie])
    return Double(out.split(separator: ",").first ?? "") ?? -1
}

private func probeFrames(_ movie: String) throws -> Int {
    let out = try ExternalTools.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames",
                                                  "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", movie])
    return Int(out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
}

@Suite("Live edit (SPEC E1, E2, C14)", .enabled(if: LiveFixtures.hasTools, "ffmpeg/exiftool not installed"))
struct LiveEditTests {
    @Test("E2: frame -> photo renders the bytes the Live save encodes for that frame")
    func frameIsTheSaveFrame() throws {
        let src = try LiveFixtures.source.get()
        let dir = try LiveFixtures.fresh("frame")
        let ctx = try Context()
        try typicalRecipe { recipe in
            let log = LiveFrameLog()
            let r = liveSave(ctx, movie: src, stillOut: dir + "/live.jpg", movieOut: dir + "/live.mov", recipe: recipe,
                             at: 1.0, log: log)
            try #require(r.status == SY_OK, "\(message(r.error))")
            #expect(log.frames.count == 45)
            // Past the end is refused (issue 20), not clamped to the last frame.
            var past = sy_edit_image()
            var pastFrame: UInt32 = 0
            var pastErr = sy_error()
            #expect(sy_live_render_frame(ctx.raw, src, 9.0, recipe, &past, &pastFrame, &pastErr) == SY_E_USAGE)
            #expect(message(pastErr).contains("past the movie's end"), "\(message(pastErr))")
            for t in [1.0, 0.3, 0.0, 44.0 / 30] { // the last frame's own time
                var img = sy_edit_image()
                var frame: UInt32 = 0
                var err = sy_error()
                try #require(sy_live_render_frame(ctx.raw, src, t, recipe, &img, &frame, &err) == SY_OK, "\(message(err))")
                defer { sy_edit_image_free(ctx.raw, &img) }
                let expectedIndex: UInt32 = t == 1.0 ? r.report.still_frame : UInt32((t * 30).rounded())
                #expect(frame == expectedIndex)
                #expect(Int(img.width) == log.width && Int(img.height) == log.height)
                var bytes = [UInt8]()
                for y in 0..<Int(img.height) {
                    bytes += UnsafeBufferPointer(start: img.pixels + y * img.stride, count: Int(img.width) * 3)
                }
                #expect(bytes == log.frames[frame], "frame \(frame) at \(t) s differs from the Live save's")
            }
        }
    }

    @Test("Live edit: same frames and duration, audio copied, C14 bitrate, new shared id, frames match the renderer")
    func editPair() throws {
        let src = try LiveFixtures.source.get()
        let dir = try LiveFixtures.fresh("edit")
        let ctx = try Context()
        let pair = liveSave(ctx, movie: src, stillOut: dir + "/live.jpg", movieOut: dir + "/live.mov")
        try #require(pair.status == SY_OK, "\(message(pair.error))")
        try typicalRecipe { recipe in
            let log = LiveFrameLog()
            let e = liveSave(ctx, movie: dir + "/live.mov", still: dir + "/live.jpg", stillOut: dir + "/edited.jpg",
                             movieOut: dir + "/edited.mov", recipe: recipe, log: log)
            try #require(e.status == SY_OK, "\(message(e.error))")
            #expect(e.report.live == 1 && e.id != pair.id)
            #expect(try liveExiftoolStillID(dir + "/edited.jpg") == e.id)
            #expect(try liveExiftoolMovieID(dir + "/edited.mov") == e.id)
            #expect(try probeFrames(dir + "/edited.mov") == probeFrames(dir + "/live.mov"))
            let d0 = try probeDuration(dir + "/live.mov"), d1 = try probeDuration(dir + "/edited.mov")
            #expect(abs(d0 - d1) < 0.001, "duration \(d0) -> \(d1)")
            let audio = try ExternalTools.check("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries",
                                                            "stream=codec_name", "-of", "csv=p=0", dir + "/edited.mov"])
            #expect(audio.trimmingCharacters(in: .whitespacesAndNewlines) == "aac" && e.report.movie.audio_samples > 0)
            #expect(e.report.movie.bitrate == sy_video_bitrate_c14(Int64(e.report.movie.width), Int64(e.report.movie.height)))
            // a frame sampled from the output equals the renderer's output for it (after coding loss)
            for k: UInt32 in [5, 30] {
                let decoded = try liveFFmpegFrame(dir + "/edited.mov", k)
                let rendered = try #require(log.frames[k])
                try #require(decoded.count == rendered.count, "frame size")
                let db = livePSNR(decoded, rendered)
                #expect(db >= 38, "frame \(k): \(db) dB")
            }
            // the still: re-rendered from the same recipe, same aspect as the movie
            let still = try liveDecodeStill(ctx, dir + "/edited.jpg")
            let movieAspect = Double(e.report.movie.width) / Double(e.report.movie.height)
            #expect(abs(Double(still.width) / Double(still.height) - movieAspect) < 0.01)
            let v = try liveVerify(ctx, dir + "/edited.jpg", dir + "/edited.mov")
            #expect(v.ok && v.id == e.id, "\(v.reason)")
            // the key photo's frame is coded as an IDR: the SPEC C3 check decodes from it
            let packets = try ExternalTools.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                              "packet=pts_time,flags", "-of", "csv=p=0", dir + "/edited.mov"])
            let keys = packets.split(separator: "\n").filter { $0.contains("K") }.compactMap { Double($0.split(separator: ",")[0]) }
            #expect(keys.contains { abs($0 - e.report.still_time) < 0.002 }, "keyframes \(keys), still at \(e.report.still_time)")
        }
    }

    /// Every video packet of `movie` as ffmpeg demuxes it: pts, dts, size, flags and MD5 of the bytes.
    private func videoPackets(_ movie: String) throws -> [Substring] {
        try ExternalTools.check("ffmpeg", ["-v", "error", "-i", movie, "-map", "0:v:0", "-c", "copy", "-f", "framemd5", "-"])
            .split(separator: "\n").filter { !$0.hasPrefix("#") }
    }

    @Test("issue 15: set as key photo keeps the pixels, so the movie is remuxed: packets are the source's bytes")
    func keyPhotoRemuxes() throws {
        let src = try LiveFixtures.source.get()
        let dir = try LiveFixtures.fresh("keyphoto")
        let ctx = try Context()
        let pair = liveSave(ctx, movie: src, stillOut: dir + "/live.jpg", movieOut: dir + "/live.mov", at: 0.2)
        try #require(pair.status == SY_OK, "\(message(pair.error))")
        let key = liveSave(ctx, movie: dir + "/live.mov", stillOut: dir + "/key.jpg", movieOut: dir + "/key.mov", at: 1.0)
        try #require(key.status == SY_OK, "\(message(key.error))")
        let source = try videoPackets(src), moved = try videoPackets(dir + "/key.mov")
        #expect(source.count == 45 && moved == source, "the key-photo movie's packets differ from the source's")
        #expect(key.report.still_frame == 30 && abs(key.report.still_time - 1.0) < 0.001, "\(key.report.still_time)")
        let movieID = try liveExiftoolMovieID(dir + "/key.mov")
        #expect(key.id != pair.id && movieID == key.id)
        var info = sy_live_movie_info()
        var err = sy_error()
        try #require(sy_live_movie_read(ctx.raw, dir + "/key.mov", &info, &err) == SY_OK, "\(message(err))")
        #expect(info.has_still_time == 1 && abs(info.still_time - 1.0) < 0.001, "still-image time \(info.still_time)")
        let audio = try ExternalTools.check("ffmpeg", ["-v", "error", "-i", dir + "/key.mov", "-map", "0:a:0", "-f", "md5", "-"])
        let sourceAudio = try ExternalTools.check("ffmpeg", ["-v", "error", "-i", src, "-map", "0:a:0", "-f", "md5", "-"])
        #expect(audio == sourceAudio, "decoded audio differs")
        // the still is the frame at the new time, as sy_live_render_frame renders it
        var frame = sy_edit_image()
        try #require(sy_live_render_frame(ctx.raw, dir + "/live.mov", 1.0, nil, &frame, nil, &err) == SY_OK, "\(message(err))")
        defer { sy_edit_image_free(ctx.raw, &frame) }
        let still = try liveDecodeStill(ctx, dir + "/key.jpg")
        #expect(still.width == Int(frame.width) && still.height == Int(frame.height))
        let v = try liveVerify(ctx, dir + "/key.jpg", dir + "/key.mov")
        #expect(v.ok && v.id == key.id, "\(v.reason)")
        // a recipe that changes pixels still re-encodes (new packets)
        var recipe = sy_recipe()
        sy_recipe_init(&recipe)
        recipe.adjustments.exposure = 0.3
        let edited = liveSave(ctx, movie: dir + "/live.mov", still: dir + "/live.jpg", stillOut: dir + "/edit.jpg",
                              movieOut: dir + "/edit.mov", recipe: &recipe)
        try #require(edited.status == SY_OK, "\(message(edited.error))")
        let reencoded = try videoPackets(dir + "/edit.mov")
        #expect(reencoded.count == source.count && reencoded != source)
    }

    @Test("portrait movie stored landscape: the pair comes out upright, still and movie both portrait")
    func portraitStoredLandscape() throws {
        let src = try LiveFixtures.source.get()
        let dir = try LiveFixtures.fresh("portrait")
        let rotated = dir + "/rotated.mov"
        try ExternalTools.check("ffmpeg", ["-v", "error", "-y", "-i", src, "-map", "0", "-c", "copy",
                                           "-metadata:s:v:0", "rotate=90", rotated])
        let ctx = try Context()
        let r = liveSave(ctx, movie: rotated, stillOut: dir + "/live.heic", movieOut: dir + "/live.mov", format: SY_STILL_HEIC)
        try #require(r.status == SY_OK, "\(message(r.error))")
        #expect(r.report.movie.source_rotation == 90 || r.report.movie.source_rotation == 270)
        #expect(r.report.movie.width == 360 && r.report.movie.height == 480)
        #expect(r.report.still_width == 360 && r.report.still_height == 480)
        #expect(try liveVerify(ctx, dir + "/live.heic", dir + "/live.mov").ok)
    }

    @Test("E1: a recipe with a border saves the still only, without an identifier")
    func borderMeansStill() throws {
        let src = try LiveFixtures.source.get()
        let dir = try LiveFixtures.fresh("border")
        let ctx = try Context()
        let pair = liveSave(ctx, movie: src, stillOut: dir + "/live.jpg", movieOut: dir + "/live.mov")
        try #require(pair.status == SY_OK, "\(message(pair.error))")
        var recipe = sy_recipe()
        sy_recipe_init(&recipe)
        recipe.border_width = 0.05
        let e = liveSave(ctx, movie: dir + "/live.mov", still: dir + "/live.jpg", stillOut: dir + "/framed.jpg",
                         movieOut: dir + "/framed.mov", recipe: &recipe)
        try #require(e.status == SY_OK, "\(message(e.error))")
        #expect(e.report.live == 0)
        #expect(!FileManager.default.fileExists(atPath: dir + "/framed.mov"))
        #expect(try liveExiftoolStillID(dir + "/framed.jpg") == "")
        let still = try liveDecodeStill(ctx, dir + "/framed.jpg")
        #expect(still.width > 480 && still.height > 360, "the border adds to the frame: \(still.width)x\(still.height)")
        // the original pair is untouched
        #expect(try liveVerify(ctx, dir + "/live.jpg", dir + "/live.mov").ok)
    }

    @Test("SPEC E6: a Live edit keeps the still's HDR gain map through the crop, with no consent asked")
    func gainMapKeptThroughLiveEdit() throws {
        let src = try LiveFixtures.source.get()
        let dir = try LiveFixtures.fresh("hdr")
        let hdr = try HDRSampleFolder(width: 480, height: 360)
        let ctx = try Context()
        var recipe = sy_recipe()
        sy_recipe_init(&recipe)
        recipe.crop = sy_recipe_rect(x: 0.25, y: 0, width: 0.5, height: 1)
        recipe.adjustments.exposure = 0.3
        // Apple HEIC -> HEIC (Apple aux map) and -> JPEG (Ultra HDR); Ultra HDR JPEG -> JPEG.
        for (n, (still, format)) in [(hdr.heic, SY_STILL_HEIC), (hdr.heic, SY_STILL_JPEG), (hdr.jpeg, SY_STILL_JPEG)].enumerated() {
            let ext = format == SY_STILL_HEIC ? "heic" : "jpg"
            let stillOut = dir + "/e\(n).\(ext)", movieOut = dir + "/e\(n).mov"
            let e = liveSave(ctx, movie: src, still: still, stillOut: stillOut, movieOut: movieOut, recipe: &recipe,
                             format: format)
            try #require(e.status == SY_OK, "\(still) -> \(ext): \(message(e.error))")
            #expect(e.report.hdr == SY_HDR_KEPT)
            #expect(try liveVerify(ctx, stillOut, movieOut).ok)
            #expect(try liveStillID(ctx, stillOut) == e.id)
            let map = try DecodedGainMap(ctx, stillOut)
            // HEIC: the Apple auxiliary map for an Apple source, the ISO form alone for an Ultra HDR one;
            // JPEG: an MPF map in the source's family (Apple or Ultra HDR)
            let expected = format == SY_STILL_HEIC ? (still == hdr.heic ? SY_GAINMAP_APPLE_HEIC : SY_GAINMAP_ISO_HEIC)
                : still == hdr.heic ? SY_GAINMAP_APPLE_JPEG : SY_GAINMAP_ULTRAHDR_JPEG
            #expect(map.info.kind == expected, "\(still) -> \(ext)")
            // the map went through the same crop: half the source map's width, all of its height
            let source = try DecodedGainMap(ctx, still)
            #expect(abs(map.width * 2 - source.width) <= 2 && abs(map.height - source.height) <= 1,
                    "map \(map.width)x\(map.height) vs source \(source.width)x\(source.height)")
        }
    }

    @Test("SPEC E6: Ultra HDR -> HEIC keeps the map (ISO tmap alone, issue 16); where it cannot be kept (a key photo from the SDR movie) the save asks first")
    func gainMapLossNeedsConsent() throws {
        let src = try LiveFixtures.source.get()
        let dir = try LiveFixtures.fresh("hdr-consent")
        let hdr = try HDRSampleFolder(width: 480, height: 360)
        let ctx = try Context()
        let kept = liveSave(ctx, movie: src, still: hdr.jpeg, stillOut: dir + "/e.heic", movieOut: dir + "/e.mov",
                            format: SY_STILL_HEIC)
        try #require(kept.status == SY_OK, "\(message(kept.error))")
        #expect(kept.report.hdr == SY_HDR_KEPT)
        #expect(try liveVerify(ctx, dir + "/e.heic", dir + "/e.mov").ok)
        let map = try DecodedGainMap(ctx, dir + "/e.heic")
        // an Ultra HDR map has no exact Apple description: the ISO form alone
        #expect(map.info.kind == SY_GAINMAP_ISO_HEIC && map.info.iso_valid == 1 && map.info.tmap_item != 0)
        // "set as key photo": the new still is a movie frame; the old still's map cannot describe it
        for allow in [false, true] {
            var o = sy_live_save_options()
            sy_live_save_options_init(&o)
            o.still_time = 0.5
            o.allow_sdr = allow ? 1 : 0
            var report = sy_live_save_report()
            var err = sy_error()
            let st = hdr.heic.withCString { meta in
                o.metadata_source = meta
                return sy_live_save(ctx.raw, src, nil, dir + "/k.jpg", dir + "/k.mov", &o, &report, &err)
            }
            if allow {
                try #require(st == SY_OK, "\(message(err))")
                #expect(report.hdr == SY_HDR_DROPPED_WITH_CONSENT)
            } else {
                #expect(st == SY_E_UNSUPPORTED && message(err).contains("key photo"), "\(message(err))")
                #expect(!FileManager.default.fileExists(atPath: dir + "/k.jpg"))
            }
        }
    }

    @Test("SPEC E6 on a real iPhone still: the Live edit keeps the Apple gain map; heif-info sees its aux type")
    func realIPhoneStillKeepsGainMap() throws {
        let heic = LiveFixtures.corpus + "/iphone15plus_IMG_3853.HEIC"
        try #require(FileManager.default.fileExists(atPath: heic), "corpus missing at \(LiveFixtures.corpus)")
        let src = try LiveFixtures.source.get() // the movie side is the same path for any movie; kept small
        let dir = try LiveFixtures.fresh("hdr-iphone")
        let ctx = try Context()
        var recipe = sy_recipe()
        sy_recipe_init(&recipe)
        recipe.crop = sy_recipe_rect(x: 0.1, y: 0.1, width: 0.8, height: 0.8)
        let e = liveSave(ctx, movie: src, still: heic, stillOut: dir + "/e.heic", movieOut: dir + "/e.mov",
                         recipe: &recipe, format: SY_STILL_HEIC)
        try #require(e.status == SY_OK, "\(message(e.error))")
        #expect(e.report.hdr == SY_HDR_KEPT)
        #expect(try liveVerify(ctx, dir + "/e.heic", dir + "/e.mov").ok)
        let info = try ExternalTools.check("heif-info", ["-d", dir + "/e.heic"])
        #expect(info.contains("urn:com:apple:photo:2020:aux:hdrgainmap"), "\(info.prefix(2000))")
        #expect(try liveExiftoolStillID(dir + "/e.heic") == e.id)
    }

    @Test("SPEC E1 + E6: a bordered Live edit is a still alone that keeps its gain map")
    func borderedStillKeepsGainMap() throws {
        let src = try LiveFixtures.source.get()
        let dir = try LiveFixtures.fresh("hdr-border")
        let hdr = try HDRSampleFolder(width: 480, height: 360)
        let ctx = try Context()
        var recipe = sy_recipe()
        sy_recipe_init(&recipe)
        recipe.border_width = 0.05
        let e = liveSave(ctx, movie: src, still: hdr.heic, stillOut: dir + "/b.heic", movieOut: dir + "/b.mov",
                         recipe: &recipe, format: SY_STILL_HEIC)
        try #require(e.status == SY_OK, "\(message(e.error))")
        #expect(e.report.live == 0 && e.report.hdr == SY_HDR_KEPT)
        #expect(!FileManager.default.fileExists(atPath: dir + "/b.mov"))
        #expect(try liveStillID(ctx, dir + "/b.heic") == nil)
        #expect(try DecodedGainMap(ctx, dir + "/b.heic").info.kind == SY_GAINMAP_APPLE_HEIC)
    }

    @Test("a user .cube filter (\"cube:<path>\") works in Live saves and frames, the same bytes as the loaded LUT")
    func cubeFilter() throws {
        let src = try LiveFixtures.source.get()
        let dir = try LiveFixtures.fresh("cube")
        let ctx = try Context()
        // A warm look: red lifted, blue lowered, green through a gentle curve.
        var text = "TITLE \"warm\"\nLUT_3D_SIZE 9\n"
        for b in 0..<9 { for g in 0..<9 { for r in 0..<9 {
            let (x, y, z) = (Double(r) / 8, Double(g) / 8, Double(b) / 8)
            text += String(format: "%.6f %.6f %.6f\n", min(1, x * 1.1 + 0.02), pow(y, 0.9), z * 0.85)
        } } }
        let cube = dir + "/warm.cube"
        try ExternalTools.writeFile(cube, Array(text.utf8))
        var lut: OpaquePointer?
        var err = sy_error()
        try #require(sy_lut_load_cube(ctx.raw, cube, &lut, &err) == SY_OK, "\(message(err))")
        defer { sy_lut_destroy(lut) }
        func frame(_ recipe: inout sy_recipe) throws -> [UInt8] {
            var img = sy_edit_image()
            try #require(sy_live_render_frame(ctx.raw, src, 0.5, &recipe, &img, nil, &err) == SY_OK, "\(message(err))")
            defer { sy_edit_image_free(ctx.raw, &img) }
            return [UInt8](UnsafeBufferPointer(start: img.pixels, count: Int(img.stride) * Int(img.height)))
        }
        var loaded = sy_recipe()
        sy_recipe_init(&loaded)
        loaded.filter_lut = lut
        let viaLUT = try frame(&loaded)
        try ("cube:" + cube).withCString { id in
            var named = sy_recipe()
            sy_recipe_init(&named)
            named.filter_id = id
            #expect(try frame(&named) == viaLUT)
            var plain = sy_recipe()
            sy_recipe_init(&plain)
            #expect(try frame(&plain) != viaLUT) // the look does something
            let saved = liveSave(ctx, movie: src, stillOut: dir + "/c.jpg", movieOut: dir + "/c.mov", recipe: &named)
            try #require(saved.status == SY_OK, "\(message(saved.error))")
            #expect(try liveVerify(ctx, dir + "/c.jpg", dir + "/c.mov").ok)
        }
    }
}
