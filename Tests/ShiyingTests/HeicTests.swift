// HEIF stills through our own reader and writer (issue 3): decode matches
// libheif, iPhone HEICs that Debian's libheif rejects are read, conversions keep
// their metadata and are accepted by heif-info, exiftool, ImageMagick and vips.
import Foundation
import Shiying
import Testing

@Suite("HEIC read, write and convert")
struct HeicTests {
    /// 2 small photos (640x480 stored, the second a portrait with orientation 6) as JPEG, cached.
    static func jpegs() async throws -> [String] {
        try await FixtureCache.shared.samples("heic-src2", count: 2, seed: 21, width: 1300, height: 900)
    }

    static func psnr(_ a: String, _ b: String) async throws -> Double {
        let run = try await runTool("compare", ["-metric", "PSNR", a, b, "null:"])
        let text = run.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        if text == "inf" { return .infinity }
        guard let value = Double(text.split(separator: " ").first ?? "") else { throw TestFailure("compare: \(run)") }
        return value
    }

    // Our decoder vs libheif on a file libheif can open (heif-enc's and ours):
    // the whole image at full size, PSNR ≥ 45 dB.
    @Test("HEICs from heif-enc and from our writer decode like libheif (PSNR ≥ 45 dB)")
    func decodeMatchesLibheif() async throws {
        let dir = try TempDir("heic-decode")
        defer { dir.remove() }
        let src = try await Self.jpegs()[0]
        let png = dir.file("src.png")
        _ = try await runTool("convert", [src, png])
        let theirs = dir.file("heifenc.heic"), ours = dir.file("ours.heic")
        let enc = try await runTool("heif-enc", ["-q", "90", png, "-o", theirs])
        #expect(enc.succeeded, "heif-enc: \(enc)")
        _ = try Conversion.convertBlocking(src, to: ours, quality: 90)
        for heic in [theirs, ours] {
            let reference = dir.file("ref.png"), mine = dir.file("mine.png")
            let ref = try await runTool("heif-convert", [heic, reference])
            #expect(ref.succeeded, "heif-convert \(heic): \(ref)")
            _ = try Conversion.convertBlocking(heic, to: mine)
            let value = try await Self.psnr(mine, reference)
            print("decode \((heic as NSString).lastPathComponent): PSNR vs libheif \(value) dB")
            #expect(value >= 45, "\(heic): our decode differs from libheif: \(value) dB")
        }
    }

    // Round trip JPEG → HEIC → JPEG at quality 90: PSNR ≥ 40 dB against the source.
    @Test("round trip JPEG → HEIC → JPEG keeps ≥ 40 dB; outside tools accept our HEIC")
    func roundTripAndInterop() async throws {
        let dir = try TempDir("heic-roundtrip")
        defer { dir.remove() }
        let portrait = try await Self.jpegs()[1]   // stored landscape, orientation 6
        let heic = dir.file("p.heic"), back = dir.file("back.jpg"), upright = dir.file("upright.png")
        let report = try Conversion.convertBlocking(portrait, to: heic, quality: 90)
        #expect(report.appliedOrientation == 6 && report.width == 900 && report.height == 1300,
                "portrait made upright: \(report)")
        _ = try Conversion.convertBlocking(heic, to: back, quality: 95)
        _ = try await runTool("convert", [portrait, "-auto-orient", upright])
        let value = try await Self.psnr(back, upright)
        print("round trip PSNR \(value) dB")
        #expect(value >= 40, "JPEG → HEIC → JPEG: \(value) dB")

        let info = try await runTool("heif-info", [heic])
        #expect(info.succeeded && info.stdout.contains("900x1300") && info.stdout.contains("primary"), "heif-info: \(info)")
        #expect(info.stdout.contains("Exif"), "heif-info lists no Exif: \(info.stdout)")
        let vips = try await Magick.vipsSize(heic)
        #expect(vips.width == 900 && vips.height == 1300, "vipsheader: \(vips)")
        let im = try await Magick.size(heic)
        #expect(im.width == 900 && im.height == 1300, "identify: \(im)")
    }

    // SPEC S3: capture date, GPS, XMP and orientation survive a conversion into every format.
    @Test("convert keeps capture date, GPS and XMP (exiftool) in HEIC, JPEG and PNG; orientation reset to 1")
    func metadataKept() async throws {
        let dir = try TempDir("heic-meta")
        defer { dir.remove() }
        let src = dir.file("src.jpg")
        try FileManager.default.copyItem(atPath: try await Self.jpegs()[1], toPath: src)
        let tag = try await runTool("exiftool", ["-overwrite_original", "-GPSLatitude=31.2304", "-GPSLatitudeRef=N",
                                                 "-GPSLongitude=121.4737", "-GPSLongitudeRef=E", "-XMP:Rating=4", src])
        #expect(tag.succeeded, "exiftool: \(tag)")
        for ext in ["heic", "jpg", "png"] {
            let out = dir.file("out.\(ext)")
            let report = try Conversion.convertBlocking(src, to: out)
            #expect(Set(report.kept).isSuperset(of: ["exif", "capture-date", "gps", "xmp"]), "\(ext): kept \(report.kept)")
            let tags = try await runTool("exiftool", ["-s", "-Orientation#", "-DateTimeOriginal", "-GPSLatitude#",
                                                      "-Rating", out])
            #expect(tags.stdout.contains("Orientation                     : 1"), "\(ext) orientation: \(tags.stdout)")
            #expect(tags.stdout.contains(report.captureDate ?? "missing"), "\(ext) date: \(tags.stdout)")
            #expect(tags.stdout.contains("31.2304"), "\(ext) GPS: \(tags.stdout)")
            #expect(tags.stdout.contains("Rating") && tags.stdout.contains("4"), "\(ext) XMP: \(tags.stdout)")
        }
    }

    // A failed conversion never destroys an existing file and leaves no temp file.
    @Test("failed conversion: existing output untouched, no temp files")
    func failedConversionKeepsExisting() async throws {
        let dir = try TempDir("heic-fail")
        defer { dir.remove() }
        let out = dir.file("keep.heic")
        let original = Data("precious".utf8)
        _ = FileManager.default.createFile(atPath: out, contents: original)
        let broken = dir.file("broken.heic")
        _ = FileManager.default.createFile(atPath: broken, contents: Data([0, 0, 0, 24]) + Data("ftypheic".utf8) + Data(count: 40))
        #expect(throws: ShiyingError.self) { _ = try Conversion.convertBlocking(broken, to: out) }
        #expect(FileManager.default.contents(atPath: out) == original)
        #expect(!dir.contents().contains { $0.contains(".tmp-") }, "temp files left: \(dir.contents())")
        #expect(throws: ShiyingError.self) { _ = try Conversion.convertBlocking(out, to: out) }
    }

    // The iPhone 15 Plus HEIC (grid + tmap + gain map) that Debian's libheif 1.15
    // cannot open: our reader gives the right size, upright, with Exif, in a collage cell.
    @Test("iPhone 15 Plus HEIC: read by our reader (libheif 1.15 cannot); size, Exif, a real cell",
          .enabled(if: Paths.corpusAvailable, "../shared/corpus is not next to the package"))
    func iphone15HEIC() async throws {
        let path = Paths.corpus.appendingPathComponent("real/iphone15plus_IMG_3853.HEIC").path
        let info = try ImageInfo.probe(path)
        #expect(info.format == "heif" && info.width == 5712 && info.height == 4284, "\(info)")
        let dir = try TempDir("heic-iphone")
        defer { dir.remove() }
        let (run, json) = try await CLI.collage(["--layout", "long", "--width", "1080", "--format", "png", "--allow-sdr",
                                                 "-o", dir.file("c.png"), path], timeout: 300)
        #expect(run.succeeded && json?.greyCells.isEmpty == true, "\(run)")
        #expect(json?.height == 810, "5712x4284 at width 1080 is 810 tall: \(String(describing: json))")
        // A decoded photo, not a flat or grey cell: the sky (top) is brighter and bluer than the ground.
        let top = try await Magick.mean(dir.file("c.png"), Rect(x: 0, y: 0, width: 1080, height: 100))
        let bottom = try await Magick.mean(dir.file("c.png"), Rect(x: 0, y: 700, width: 1080, height: 100))
        #expect(top.b > bottom.b + 20, "top \(top) vs bottom \(bottom)")
        let converted = try Conversion.convertBlocking(path, to: dir.file("i.jpg"))
        #expect(converted.kept.contains("gps") && converted.kept.contains("icc"), "\(converted.kept)")
    }

    // A turned grid is read tile column by tile column (heif_tile_source.c,
    // transposed), at a box factor (k = 2 for a 1080-wide portrait) and at full
    // size (k = 1): the portrait cell is the landscape cell turned.
    @Test("iPhone 15 Plus HEIC turned (irot 90 and 270): the cell equals the upright cell turned (PSNR ≥ 45 dB)",
          .enabled(if: Paths.corpusAvailable, "../shared/corpus is not next to the package"),
          arguments: [(UInt8(1), "-90"), (UInt8(3), "90")])
    func turnedGridReadAcross(rotation: UInt8, turn: String) async throws {
        let path = Paths.corpus.appendingPathComponent("real/iphone15plus_IMG_3853.HEIC").path
        let dir = try TempDir("heic-turned")
        defer { dir.remove() }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let irot: [UInt8] = [0, 0, 0, 9] + Array("irot".utf8)
        let at = (0...(bytes.count - irot.count)).filter { Array(bytes[$0..<$0 + irot.count]) == irot }
        guard at.count == 1 else { throw TestFailure("expected one irot box, found \(at.count)") }
        bytes[at[0] + irot.count] = rotation
        let turned = dir.file("turned.heic")
        try Data(bytes).write(to: URL(fileURLWithPath: turned))
        for width in [1080, 2400] { // k = 2 and k = 1 (4284 / 2 < 2400): both read the turned grid across
            let upright = dir.file("upright-\(width).png"), portrait = dir.file("portrait-\(width).png")
            let expected = dir.file("expected-\(width).png")
            let tall = width * 5712 / 4284
            let (a, _) = try await CLI.collage(["--layout", "long", "--width", "\(tall)", "--format", "png", "--allow-sdr", "-o", upright, path],
                                               timeout: 300)
            let (b, json) = try await CLI.collage(["--layout", "long", "--width", "\(width)", "--format", "png", "--allow-sdr", "-o", portrait,
                                                   turned], timeout: 300)
            #expect(a.succeeded && b.succeeded, "\(a) \(b)")
            #expect(json?.height == tall, "portrait height \(String(describing: json?.height)), want \(tall)")
            _ = try await runTool("convert", [upright, "-rotate", turn, expected])
            let psnr = try await Self.psnr(portrait, expected)
            print("irot \(rotation) at \(width) wide: PSNR vs the upright cell turned \(psnr) dB")
            #expect(psnr >= 45, "irot \(rotation), width \(width): \(psnr) dB")
        }
    }
}
