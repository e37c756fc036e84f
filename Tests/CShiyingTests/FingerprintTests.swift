// issue 9: sy_fingerprint_file through the C API — exact-content identity
// (bytes and decoded pixels), the DCT perceptual hash (checked against Python
// imagehash when installed), the quality score on blurred and darkened
// variants made by ImageMagick, and the metadata flags of "Life" (SPEC D7, D9).
import CShiying
import CShiyingFixtures
import CShiyingInternal
import Foundation
import Testing

/// Fingerprints `path` or throws with the engine's message.
func fingerprint(_ ctx: Context, _ path: String) throws -> sy_fingerprint {
    var fp = sy_fingerprint()
    var err = sy_error()
    guard sy_fingerprint_file(ctx.raw, path, &fp, &err) == SY_OK else {
        throw CTestFailure("sy_fingerprint_file \(path): \(message(err))")
    }
    return fp
}

/// A fixed-size C char array (imported as a tuple) as a String.
func cString<T>(_ tuple: T) -> String {
    var copy = tuple
    return withUnsafeBytes(of: &copy) { raw in
        let end = raw.firstIndex(of: 0) ?? raw.count
        return String(decoding: raw[..<end], as: UTF8.self)
    }
}

@Suite("Fingerprint C API")
struct FingerprintTests {
    @Test("SPEC D7 evidence: a byte copy and a lossless re-encode share the pixel fingerprint; a resize does not")
    func exactContent() throws {
        guard ExternalTools.installed("convert") else { return }
        let folder = try SampleFolder(count: 1, width: 640, height: 480)
        let ctx = try Context()
        let original = folder.photos[0]
        let copy = folder.file("copy.jpg")
        try ExternalTools.writeFile(copy, ExternalTools.readFile(original))
        let png = folder.file("same.png"), png2 = folder.file("same-again.png"), half = folder.file("half.png")
        try ExternalTools.check("convert", [original, "-strip", png])
        try ExternalTools.check("convert", [png, "-define", "png:compression-level=1", "-strip", png2])
        try ExternalTools.check("convert", [png, "-resize", "50%", half])
        let a = try fingerprint(ctx, original), b = try fingerprint(ctx, copy)
        let p = try fingerprint(ctx, png), q = try fingerprint(ctx, png2), h = try fingerprint(ctx, half)
        #expect(cString(a.file_sha256) == cString(b.file_sha256) && cString(a.pixel_sha256) == cString(b.pixel_sha256))
        #expect(cString(a.file_sha256).count == 64 && a.file_bytes > 10_000)
        // ImageMagick decodes with libjpeg too: the PNG holds the JPEG's pixels
        #expect(cString(p.pixel_sha256) == cString(a.pixel_sha256), "JPEG and its PNG decode differ")
        #expect(cString(p.file_sha256) != cString(q.file_sha256))
        #expect(cString(p.pixel_sha256) == cString(q.pixel_sha256))
        #expect(cString(h.pixel_sha256) != cString(p.pixel_sha256))
        #expect(h.width == 320 && h.height == 240)
        #expect(ctx.stats.current_bytes == 0)
    }

    @Test("pHash: near-duplicates are close, different scenes far, orientation applied")
    func perceptualHash() throws {
        guard ExternalTools.installed("convert") else { return }
        let folder = try SampleFolder(count: 3, width: 800, height: 600)
        let ctx = try Context()
        let small = folder.file("small.jpg"), upright = folder.file("upright.jpg"), q60 = folder.file("q60.jpg")
        try ExternalTools.check("convert", [folder.photos[0], "-resize", "40%", small])
        try ExternalTools.check("convert", [folder.photos[0], "-quality", "60", q60])
        try ExternalTools.check("convert", [folder.photos[1], "-auto-orient", "-strip", upright])
        let a = try fingerprint(ctx, folder.photos[0])
        let other = try fingerprint(ctx, folder.photos[2])
        #expect(sy_phash_distance(a.phash, try fingerprint(ctx, small).phash) <= 4)
        #expect(sy_phash_distance(a.phash, try fingerprint(ctx, q60).phash) <= 4)
        #expect(sy_phash_distance(a.phash, other.phash) >= 16)
        // sample 1 is stored landscape with orientation 6; the upright re-save must hash alike
        let rotated = try fingerprint(ctx, folder.photos[1])
        #expect(rotated.orientation == 6 && rotated.width == 600)
        #expect(sy_phash_distance(rotated.phash, try fingerprint(ctx, upright).phash) <= 4)
        #expect(sy_phash_distance(0, UInt64.max) == 64)
    }

    @Test("pHash agrees with Python imagehash.phash on the same files (within a few bits)")
    func agreesWithImagehash() throws {
        // the python3 on PATH (make deps installs imagehash with its pip)
        guard (try? ExternalTools.run("env", ["python3", "-c", "import imagehash"]))?.status == 0 else {
            print("skipped: Python imagehash is not installed (make deps)")
            return
        }
        let folder = try SampleFolder(count: 3, width: 640, height: 480)
        let ctx = try Context()
        for photo in [folder.photos[0], folder.photos[2]] {
            let script = "import imagehash, PIL.Image as I; print(imagehash.phash(I.open('\(photo)')))"
            let hex = try ExternalTools.check("env", ["python3", "-c", script]).trimmingCharacters(in: .whitespacesAndNewlines)
            let theirs = try #require(UInt64(hex, radix: 16))
            let ours = try fingerprint(ctx, photo).phash
            #expect(sy_phash_distance(ours, theirs) <= 4, "ours \(String(ours, radix: 16)) vs imagehash \(hex)")
        }
    }

    @Test("Quality score: blurred and darkened variants score lower than the original")
    func qualityScore() throws {
        guard ExternalTools.installed("convert") else { return }
        let folder = try SampleFolder(count: 1, width: 800, height: 600)
        let ctx = try Context()
        let blurred = folder.file("blur.png"), dark = folder.file("dark.png"), plain = folder.file("plain.png")
        try ExternalTools.check("convert", [folder.photos[0], plain])
        try ExternalTools.check("convert", [folder.photos[0], "-blur", "0x3", blurred])
        try ExternalTools.check("convert", [folder.photos[0], "-evaluate", "multiply", "0.3", dark])
        let o = try fingerprint(ctx, plain), b = try fingerprint(ctx, blurred), d = try fingerprint(ctx, dark)
        #expect(o.quality > 0 && o.quality <= 1)
        #expect(b.sharpness < o.sharpness / 2, "blur: \(b.sharpness) vs \(o.sharpness)")
        #expect(b.quality < o.quality)
        #expect(d.mean_luma < o.mean_luma * 0.5)
        #expect(d.quality < o.quality, "dark: \(d.quality) vs \(o.quality)")
        // the blurred copy is still the same picture
        #expect(sy_phash_distance(o.phash, b.phash) <= 6)
    }

    @Test("SPEC D9 flags: screenshot marker from Exif UserComment or XMP; no camera data alone is not a screenshot")
    func lifeFlags() throws {
        guard ExternalTools.installed("convert", "exiftool", "ffmpeg") else { return }
        let folder = try SampleFolder(count: 1, width: 320, height: 240)
        let ctx = try Context()
        let bare = folder.file("bare.png"), exif = folder.file("exif.png"), xmp = folder.file("xmp.png")
        let anim = folder.file("anim.png")
        try ExternalTools.check("convert", [folder.photos[0], "-strip", bare])
        try ExternalTools.check("exiftool", ["-q", "-UserComment=Screenshot", "-o", exif, bare])
        try ExternalTools.check("exiftool", ["-q", "-XMP-exif:UserComment=Screenshot", "-o", xmp, bare])
        try ExternalTools.check("ffmpeg", ["-y", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=5",
                                           "-t", "1", "-plays", "0", "-f", "apng", anim])
        let camera = try fingerprint(ctx, folder.photos[0])
        #expect(camera.has_camera == 1 && camera.screenshot_marker == 0 && camera.animated == 0)
        #expect(cString(camera.capture_date).count == 19)
        let b = try fingerprint(ctx, bare)
        #expect(b.has_camera == 0 && b.screenshot_marker == 0, "no camera data must not mean screenshot")
        let e = try fingerprint(ctx, exif), x = try fingerprint(ctx, xmp)
        #expect(e.screenshot_marker == 1 && e.has_camera == 0)
        #expect(x.screenshot_marker == 1)
        #expect(cString(e.pixel_sha256) == cString(b.pixel_sha256), "metadata must not change the pixel fingerprint")
        #expect(try fingerprint(ctx, anim).animated == 1)
        #expect(ctx.stats.current_bytes == 0)
    }

    @Test("HEIC: the grid HEIC of a scene fingerprints upright and hashes like its JPEG")
    func heic() throws {
        let folder = try SampleFolder(count: 0)
        let ctx = try Context()
        var options = sy_sample_options()
        sy_sample_options_init(&options)
        options.width = 1024
        options.height = 768
        options.seed = 77
        options.orientation = 6
        let jpeg = folder.file("scene.jpg"), heic = folder.file("scene.heic")
        var err = sy_error()
        #expect(sy_sample_write_jpeg(ctx.raw, &options, jpeg, &err) == SY_OK, "\(message(err))")
        #expect(sy_sample_write_heic(ctx.raw, &options, heic, &err) == SY_OK, "\(message(err))")
        let j = try fingerprint(ctx, jpeg), h = try fingerprint(ctx, heic)
        #expect(h.format == SY_FORMAT_HEIF && h.width == 768 && h.height == 1024)
        #expect(h.has_camera == 1 && cString(h.capture_date) == cString(j.capture_date))
        #expect(sy_phash_distance(j.phash, h.phash) <= 4)
        #expect(cString(h.pixel_sha256) != cString(j.pixel_sha256), "lossy HEVC is not the same pixels")
        #expect(ctx.stats.current_bytes == 0)
    }

    @Test("Bad input names the file; a 12 MP photo stays within the 12 MB budget")
    func badInputAndBudget() throws {
        let folder = try SampleFolder(count: 1, width: 4032, height: 3024)
        let ctx = try Context(budget: 12 << 20)
        let fp = try fingerprint(ctx, folder.photos[0])
        #expect(fp.width == 4032 && ctx.stats.peak_bytes <= 12 << 20 && ctx.stats.current_bytes == 0)
        let bytes = ExternalTools.readFile(folder.photos[0])
        let cut = folder.file("cut.jpg"), junk = folder.file("junk.jpg")
        try ExternalTools.writeFile(cut, Array(bytes.prefix(bytes.count / 3)))
        try ExternalTools.writeFile(junk, Array("not an image at all".utf8))
        for path in [cut, junk, folder.file("missing.jpg")] {
            var out = sy_fingerprint()
            var err = sy_error()
            let status = sy_fingerprint_file(ctx.raw, path, &out, &err)
            #expect(status != SY_OK && message(err).contains(path), "\(path): \(message(err))")
        }
        var err = sy_error()
        #expect(sy_fingerprint_file(ctx.raw, nil, nil, &err) == SY_E_USAGE)
        #expect(ctx.stats.current_bytes == 0)
    }
}

@Suite("SHA-256 paths")
struct DigestTests {
    @Test("sy_digest_sha256: SHA-NI and portable rounds agree with each other and with sha256sum at every block boundary")
    func pathsAgree() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let data = (0..<70_000).map { _ -> UInt8 in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        func digest(_ bytes: ArraySlice<UInt8>, _ flags: UInt32) -> String {
            var out = [CChar](repeating: 0, count: 65)
            let status = Array(bytes).withUnsafeBytes { sy_digest_sha256($0.baseAddress, bytes.count, flags, &out) }
            #expect(status == SY_OK)
            return String(decoding: out.prefix(64).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        for n in [0, 1, 55, 56, 63, 64, 65, 127, 128, 129, 1000, 4800, 65_536, 70_000] {
            #expect(digest(data[..<n], 0) == digest(data[..<n], UInt32(SY_DIGEST_PORTABLE)), "length \(n)")
        }
        guard ExternalTools.installed("sha256sum") else { return }
        let folder = try SampleFolder(count: 0)
        let path = folder.file("random.bin")
        try ExternalTools.writeFile(path, data)
        let theirs = try ExternalTools.check("sha256sum", [path]).prefix(64)
        #expect(digest(data[...], 0) == String(theirs))
        var out = [CChar](repeating: 0, count: 65)
        #expect(sy_digest_sha256(nil, 5, 0, &out) == SY_E_USAGE)
    }
}
