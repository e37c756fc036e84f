// issue 22: every readable photo fingerprints within the 12 MB scan budget —
// 24 MP grid HEICs decode only at the analysis size and take their exact
// digest from the coded tiles — and movies fingerprint from a few frames.
import CShiying
import CShiyingFixtures
import CShiyingInternal
import Foundation
import Testing

private enum RealCorpus {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../shared/corpus/real").standardizedFileURL.path
    static func path(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }
    static func has(_ names: String...) -> Bool { names.allSatisfy { FileManager.default.fileExists(atPath: path($0)) } }
}

@Suite("Fingerprint scale (issue 22)")
struct FingerprintScaleTests {
    @Test("A 24 MP grid HEIC fingerprints within 12 MB; metadata-only copies keep its digest, its JPEG hashes alike")
    func iphoneProSizeHeic() throws {
        let folder = try SampleFolder(count: 0)
        var options = sy_sample_options()
        sy_sample_options_init(&options)
        options.width = 5712
        options.height = 4284
        options.seed = 2201
        options.orientation = 6
        let heic = folder.file("pro.heic"), jpeg = folder.file("pro.jpg")
        var err = sy_error()
        let writer = try Context()
        #expect(sy_sample_write_heic(writer.raw, &options, heic, &err) == SY_OK, "\(message(err))")
        #expect(sy_sample_write_jpeg(writer.raw, &options, jpeg, &err) == SY_OK, "\(message(err))")
        let ctx = try Context(budget: 12 << 20)
        let h = try fingerprint(ctx, heic)
        let heicPeak = ctx.stats.peak_bytes
        print("24 MP HEIC fingerprint: engine peak \(heicPeak) bytes")
        #expect(h.width == 4284 && h.height == 5712 && h.orientation == 6)
        #expect(heicPeak <= 12 << 20 && ctx.stats.current_bytes == 0)
        #expect(cString(h.pixel_sha256).count == 64 && h.quality > 0)
        let j = try fingerprint(ctx, jpeg)
        #expect(sy_phash_distance(h.phash, j.phash) <= 4, "HEIC vs JPEG of the same scene")
        #expect(ctx.stats.peak_bytes <= 12 << 20)
        // another scene of the same size does not share the digest
        options.seed = 2202
        let other = folder.file("other.heic")
        #expect(sy_sample_write_heic(writer.raw, &options, other, &err) == SY_OK, "\(message(err))")
        #expect(cString(try fingerprint(ctx, other).pixel_sha256) != cString(h.pixel_sha256))
    }

    @Test("Without the pixel digest a JPEG decodes at its DCT scale: same hashes and a comparable sharpness, less memory")
    func jpegAtAnalysisSize() throws {
        let folder = try SampleFolder(count: 1, width: 4032, height: 3024)
        let full = try Context(budget: 12 << 20), reduced = try Context(budget: 12 << 20)
        let f = try fingerprint(full, folder.photos[0])
        var r = sy_fingerprint()
        var err = sy_error()
        #expect(sy_fingerprint_file_ex(reduced.raw, folder.photos[0], UInt32(SY_FINGERPRINT_NO_PIXEL_DIGEST), &r, &err) == SY_OK,
                "\(message(err))")
        #expect(cString(r.pixel_sha256).isEmpty && cString(f.pixel_sha256).count == 64)
        #expect(cString(r.file_sha256) == cString(f.file_sha256) && r.width == f.width && r.has_camera == f.has_camera)
        #expect(sy_phash_distance(r.phash, f.phash) <= 2, "\(r.phash) vs \(f.phash)")
        #expect(abs(r.sharpness - f.sharpness) <= 0.1 * f.sharpness, "sharpness \(r.sharpness) vs \(f.sharpness)")
        print("12 MP JPEG engine peak: full digest \(full.stats.peak_bytes), analysis only \(reduced.stats.peak_bytes)")
        #expect(reduced.stats.peak_bytes < full.stats.peak_bytes && reduced.stats.current_bytes == 0)
    }

    @Test("Real iPhone HEICs (15 Plus, SE 2) fingerprint within 12 MB, upright")
    func realIphoneHeics() throws {
        guard RealCorpus.has("iphone15plus_IMG_3853.HEIC", "iphoneSE2_grid.heic") else {
            print("skipped: ../shared/corpus/real is not present")
            return
        }
        for name in ["iphone15plus_IMG_3853.HEIC", "iphoneSE2_grid.heic"] {
            let ctx = try Context(budget: 12 << 20)
            let fp = try fingerprint(ctx, RealCorpus.path(name))
            print("\(name): \(fp.width)x\(fp.height) engine peak \(ctx.stats.peak_bytes) bytes, quality \(fp.quality)")
            #expect(fp.format == SY_FORMAT_HEIF && fp.width * fp.height >= 8_000_000)
            #expect(fp.has_camera == 1 && cString(fp.capture_date).count == 19)
            #expect(ctx.stats.peak_bytes <= 12 << 20 && ctx.stats.current_bytes == 0)
        }
        // the same coded picture with its metadata stripped: same digest, other bytes
        guard ExternalTools.installed("exiftool") else { return }
        let folder = try SampleFolder(count: 0)
        let original = RealCorpus.path("iphoneSE2_grid.heic"), bare = folder.file("bare.heic")
        try ExternalTools.check("exiftool", ["-q", "-q", "-all=", "-o", bare, original])
        let ctx = try Context(budget: 12 << 20)
        let o = try fingerprint(ctx, original), b = try fingerprint(ctx, bare)
        #expect(cString(b.file_sha256) != cString(o.file_sha256))
        #expect(cString(b.pixel_sha256) == cString(o.pixel_sha256))
        #expect(b.has_camera == 0 && o.has_camera == 1 && b.phash == o.phash)
    }

    @Test("A movie fingerprints from a few frames: duration, upright size, a stable digest; junk names the file")
    func movie() throws {
        guard RealCorpus.has("iphone15plus_IMG_3853.MOV", "iphone15plus_IMG_3853.HEIC") else {
            print("skipped: ../shared/corpus/real is not present")
            return
        }
        let ctx = try Context()
        let path = RealCorpus.path("iphone15plus_IMG_3853.MOV")
        var a = sy_fingerprint(), b = sy_fingerprint()
        var err = sy_error()
        #expect(sy_fingerprint_movie(ctx.raw, path, &a, &err) == SY_OK, "\(message(err))")
        #expect(sy_fingerprint_movie(ctx.raw, path, &b, &err) == SY_OK, "\(message(err))")
        print("Live movie: \(a.width)x\(a.height) \(a.duration_ms) ms, \(a.frames_sampled) frames, peak \(ctx.stats.peak_bytes)")
        #expect(a.duration_ms > 1000 && a.duration_ms < 5000 && a.frames_sampled >= 2)
        let still = try fingerprint(ctx, RealCorpus.path("iphone15plus_IMG_3853.HEIC"))
        #expect(a.width * still.height == a.height * still.width, "the movie has its key photo's aspect")
        #expect(cString(a.pixel_sha256) == cString(b.pixel_sha256) && a.phash == b.phash)
        #expect(a.quality > 0 && a.quality <= 1 && ctx.stats.current_bytes == 0)
        let junk = SampleFolder.junk("junk.mov")
        #expect(sy_fingerprint_movie(ctx.raw, junk.path, &a, &err) != SY_OK && message(err).contains("junk.mov"))
    }
}

private extension SampleFolder {
    /// A folder holding one file of text under `name`.
    static func junk(_ name: String) -> (folder: SampleFolder, path: String) {
        let folder = try! SampleFolder(count: 0)
        let path = folder.file(name)
        try! ExternalTools.writeFile(path, Array("not a movie".utf8))
        return (folder, path)
    }
}
