// The HEIF writer (sy_heif_writer_*) called directly, checked with outside
// programs: a 1300x900 photo-like image (not a multiple of the 512 px tiles)
// with Exif (DateTimeOriginal + GPS), XMP, an ICC profile and a monochrome
// 325x225 Apple gain-map auxiliary image must be read by heif-info,
// heif-convert (PSNR >= 40 dB at quality 90), exiftool, ImageMagick and vips;
// failed writes (missing folder, cancellation, abandoned writer) leave no file
// and keep an existing one. Issue 3.
import CShiying
import CShiyingInternal
import Foundation
import Testing

// MARK: - Helpers

enum HW {
    static let gainMapURN = "urn:com:apple:photo:2020:aux:hdrgainmap"

    static func run(_ tool: String, _ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try ExternalTools.run(tool, args)
    }

    static func readFile(_ path: String) -> [UInt8] { ExternalTools.readFile(path) }

    /// A fresh temporary folder, removed on deinit.
    final class Folder {
        let path: String
        init() throws {
            let url = FileManager.default.temporaryDirectory
                .appendingPathComponent("shiying-heifw-\(getpid())-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            path = url.path
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func file(_ name: String) -> String { path + "/" + name }
        var entries: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
    }

    /// Deterministic photo-like RGB: smooth gradients, a soft disc, fine
    /// texture and mild luma noise (not flat, not colour noise).
    static func photo(width: Int, height: Int, seed: UInt64 = 7) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var state = seed
        func noise() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(Int((state >> 33) % 9) - 4)
        }
        for y in 0..<height {
            let fy = Double(y) / Double(height)
            for x in 0..<width {
                let fx = Double(x) / Double(width)
                var r = 40 + 170 * fx + 25 * sin(fy * 11)
                var g = 60 + 140 * fy + 20 * cos(fx * 8)
                var b = 120 + 70 * sin((fx + fy) * 5)
                let d = ((Double(x) - Double(width) * 0.62) * (Double(x) - Double(width) * 0.62)
                    + (Double(y) - Double(height) * 0.4) * (Double(y) - Double(height) * 0.4)).squareRoot()
                let disc = max(0, min(1, (Double(height) * 0.22 - d) / 12))
                r = r * (1 - disc) + 235 * disc
                g = g * (1 - disc) + 190 * disc
                b = b * (1 - disc) + 60 * disc
                let texture = 6 * sin(Double(x) * 0.35) * cos(Double(y) * 0.27)
                let n = noise() + texture
                let i = (y * width + x) * 3
                pixels[i] = UInt8(max(0, min(255, r + n)))
                pixels[i + 1] = UInt8(max(0, min(255, g + n)))
                pixels[i + 2] = UInt8(max(0, min(255, b + n)))
            }
        }
        return pixels
    }

    /// A smooth single-channel map (like a gain map).
    static func grey(width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let fx = Double(x) / Double(width), fy = Double(y) / Double(height)
                let v = 128 + 90 * sin(fx * 4 + fy * 2) * cos(fy * 3)
                pixels[y * width + x] = UInt8(max(0, min(255, v)))
            }
        }
        return pixels
    }

    static func writePNM(_ pixels: [UInt8], width: Int, height: Int, channels: Int, to path: String) throws {
        var data = Data("\(channels == 3 ? "P6" : "P5")\n\(width) \(height)\n255\n".utf8)
        data.append(contentsOf: pixels)
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// Calls `body` with `height` row pointers into `pixels`.
    static func withRows<R>(_ pixels: [UInt8], width: Int, height: Int, channels: Int,
                            _ body: (UnsafePointer<UnsafePointer<UInt8>?>) -> R) -> R {
        pixels.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            let rows: [UnsafePointer<UInt8>?] = (0..<height).map { base + $0 * width * channels }
            return rows.withUnsafeBufferPointer { body($0.baseAddress!) }
        }
    }

    /// Little-endian TIFF with IFD0 -> Exif IFD (DateTimeOriginal) and GPS IFD
    /// (N 31°13'48", E 121°28'12": Shanghai).
    static func exifTIFF() -> [UInt8] {
        struct Entry { let tag: UInt16; let type: UInt16; let count: UInt32; let data: [UInt8] }
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        func rationals(_ values: [(UInt32, UInt32)]) -> [UInt8] { values.flatMap { le32($0.0) + le32($0.1) } }
        // Lays out one IFD at `offset`: entries, next-IFD 0, then out-of-line values.
        func ifd(_ entries: [Entry], at offset: Int) -> [UInt8] {
            var head = le16(UInt16(entries.count)), tail: [UInt8] = []
            let dataStart = offset + 2 + entries.count * 12 + 4
            for e in entries {
                head += le16(e.tag) + le16(e.type) + le32(e.count)
                if e.data.count <= 4 {
                    head += e.data + [UInt8](repeating: 0, count: 4 - e.data.count)
                } else {
                    head += le32(UInt32(dataStart + tail.count))
                    tail += e.data
                    if tail.count % 2 == 1 { tail.append(0) }
                }
            }
            return head + le32(0) + tail
        }
        let date = Array("2024:05:06 07:08:09".utf8) + [0]
        let ifd0Size = 2 + 2 * 12 + 4
        let exifOffset = 8 + ifd0Size
        let exifIFD = ifd([Entry(tag: 0x9003, type: 2, count: 20, data: date)], at: exifOffset)
        let gpsOffset = exifOffset + exifIFD.count
        let gpsIFD = ifd([
            Entry(tag: 0x0000, type: 1, count: 4, data: [2, 3, 0, 0]),
            Entry(tag: 0x0001, type: 2, count: 2, data: Array("N".utf8) + [0]),
            Entry(tag: 0x0002, type: 5, count: 3, data: rationals([(31, 1), (13, 1), (48, 1)])),
            Entry(tag: 0x0003, type: 2, count: 2, data: Array("E".utf8) + [0]),
            Entry(tag: 0x0004, type: 5, count: 3, data: rationals([(121, 1), (28, 1), (12, 1)])),
        ], at: gpsOffset)
        let ifd0 = ifd([
            Entry(tag: 0x8769, type: 4, count: 1, data: le32(UInt32(exifOffset))),
            Entry(tag: 0x8825, type: 4, count: 1, data: le32(UInt32(gpsOffset))),
        ], at: 8)
        precondition(ifd0.count == ifd0Size)
        return Array("II".utf8) + le16(42) + le32(8) + ifd0 + exifIFD + gpsIFD
    }

    static let xmp = """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
        <xmp:Rating>4</xmp:Rating><dc:creator><rdf:Seq><rdf:li>Shiying HEIF writer test</rdf:li></rdf:Seq></dc:creator>
        </rdf:Description></rdf:RDF></x:xmpmeta>
        <?xpacket end="w"?>
        """

    /// A small hand-made ICC v2 RGB display profile (sRGB primaries, gamma 2.2)
    /// described as "Shiying test RGB".
    /// D50-adapted colorants of sRGB / BT.709 and of Display P3.
    static let srgbColorants = [(0.4361, 0.2225, 0.0139), (0.3851, 0.7169, 0.0971), (0.1431, 0.0606, 0.7141)]
    static let p3Colorants = [(0.5151, 0.2412, -0.0011), (0.2920, 0.6922, 0.0419), (0.1571, 0.0666, 0.7841)]

    /// An RGB display profile; `srgbCurve` = the sRGB 'para' curve, else gamma 2.2.
    static func iccProfile(colorants: [(Double, Double, Double)] = srgbColorants, srgbCurve: Bool = false) -> [UInt8] {
        func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func be32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (24 - 8 * $0)) & 0xFF) } }
        func s15(_ v: Double) -> [UInt8] { be32(UInt32(bitPattern: Int32((v * 65536).rounded()))) }
        func sig(_ s: String) -> [UInt8] { Array(s.utf8) }
        func xyz(_ x: Double, _ y: Double, _ z: Double) -> [UInt8] { sig("XYZ ") + be32(0) + s15(x) + s15(y) + s15(z) }
        let name = "Shiying test RGB"
        let desc = sig("desc") + be32(0) + be32(UInt32(name.utf8.count + 1)) + Array(name.utf8) + [0]
            + be32(0) + be32(0) + be16(0) + [0] + [UInt8](repeating: 0, count: 67)
        let curve = srgbCurve
            ? sig("para") + be32(0) + be16(3) + be16(0) + s15(2.4) + s15(1 / 1.055) + s15(0.055 / 1.055) + s15(1 / 12.92)
                + s15(0.04045)
            : sig("curv") + be32(0) + be32(1) + be16(0x0233) // gamma 2.2 (u8Fixed8)
        let text = sig("text") + be32(0) + Array("No copyright, test data".utf8) + [0]
        let tags: [(String, [UInt8])] = [
            ("desc", desc), ("wtpt", xyz(0.9642, 1.0, 0.8249)), ("cprt", text),
            ("rXYZ", xyz(colorants[0].0, colorants[0].1, colorants[0].2)),
            ("gXYZ", xyz(colorants[1].0, colorants[1].1, colorants[1].2)),
            ("bXYZ", xyz(colorants[2].0, colorants[2].1, colorants[2].2)), ("rTRC", curve), ("gTRC", curve), ("bTRC", curve),
        ]
        var table = be32(UInt32(tags.count)), body: [UInt8] = []
        let bodyStart = 128 + 4 + tags.count * 12
        for (name, data) in tags {
            table += sig(name) + be32(UInt32(bodyStart + body.count)) + be32(UInt32(data.count))
            body += data
            while body.count % 4 != 0 { body.append(0) }
        }
        let size = 128 + table.count + body.count
        var header = be32(UInt32(size)) + be32(0) + be32(0x0210_0000) + sig("mntr") + sig("RGB ") + sig("XYZ ")
        header += be16(2024) + be16(5) + be16(6) + be16(7) + be16(8) + be16(9) // date
        header += sig("acsp") + be32(0) + be32(0) + be32(0) + be32(0) + be32(0) + be32(0) + be32(0)
        header += s15(0.9642) + s15(1.0) + s15(0.8249) // PCS illuminant D50
        header += be32(0) + [UInt8](repeating: 0, count: 16 + 28)
        precondition(header.count == 128)
        return header + table + body
    }

    static func psnr(_ a: String, _ b: String) throws -> Double {
        let r = try run("compare", ["-metric", "PSNR", a, b, "null:"])
        // ImageMagick prints the metric on stderr ("48.3" or "48.3 (0.483)"); exit 1 just means "different".
        let text = r.err.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("inf") { return .infinity }
        guard let value = Double(text.split(separator: " ").first ?? "") else {
            throw CTestFailure("compare \(a) \(b): unexpected output \(text)")
        }
        return value
    }

    static func options(width: Int, height: Int) -> sy_heif_writer_options {
        var o = sy_heif_writer_options()
        sy_heif_writer_options_init(&o)
        o.width = UInt32(width)
        o.height = UInt32(height)
        return o
    }
}

// MARK: - Tests

@Suite(.serialized)
struct HeifWriterTests {
    @Test("options defaults, NULL safety, bad options")
    func apiShape() throws {
        var o = sy_heif_writer_options()
        sy_heif_writer_options_init(&o)
        #expect(o.version == 1 && o.quality == 90 && o.tile_size == 512 && o.chroma == 420)
        #expect(o.colour_primaries == 1 && o.transfer_characteristics == 13 && o.matrix_coefficients == 6)
        #expect(o.full_range == 1 && o.write_nclx == 1 && o.threads == 0)
        sy_heif_writer_destroy(nil)

        let ctx = try Context()
        let folder = try HW.Folder()
        var w: OpaquePointer?
        var err = sy_error()
        var bad = HW.options(width: 100, height: 100)
        bad.tile_size = 100
        #expect(sy_heif_writer_create(ctx.raw, folder.file("a.heic"), &bad, &w, &err) == SY_E_USAGE)
        #expect(w == nil && message(err).contains("tile_size"))
        #expect(o.tile_height == 0, "square tiles by default")
        bad = HW.options(width: 100, height: 100)
        bad.tile_height = 100
        #expect(sy_heif_writer_create(ctx.raw, folder.file("a.heic"), &bad, &w, &err) == SY_E_USAGE)
        #expect(w == nil && message(err).contains("tile_height"))
        bad = HW.options(width: 100, height: 100)
        bad.quality = 101
        #expect(sy_heif_writer_create(ctx.raw, folder.file("a.heic"), &bad, &w, &err) == SY_E_USAGE)
        bad = HW.options(width: 0, height: 100)
        #expect(sy_heif_writer_create(ctx.raw, folder.file("a.heic"), &bad, &w, &err) == SY_E_USAGE)
        bad = HW.options(width: 100, height: 100)
        bad.matrix_coefficients = 0
        #expect(sy_heif_writer_create(ctx.raw, folder.file("a.heic"), &bad, &w, &err) == SY_E_UNSUPPORTED)
        #expect(sy_heif_writer_create(ctx.raw, folder.file("a.heic"), nil, &w, &err) == SY_E_USAGE)

        // A budget too small for x265's estimate is refused up front.
        let small = try Context(budget: 4 << 20)
        var ok = HW.options(width: 100, height: 100)
        #expect(sy_heif_writer_create(small.raw, folder.file("a.heic"), &ok, &w, &err) == SY_E_BUDGET)
        #expect(small.stats.current_bytes == 0)

        // Usage errors on a live writer: finish before all rows, then it is failed.
        #expect(sy_heif_writer_create(ctx.raw, folder.file("a.heic"), &ok, &w, &err) == SY_OK)
        #expect(sy_heif_writer_set_exif(w, [1, 2, 3, 4, 5, 6, 7, 8, 9], 9, &err) == SY_E_INVALID_INPUT)
        #expect(sy_heif_writer_finish(w, &err) == SY_E_USAGE)
        #expect(message(err).contains("0 of 100 rows"))
        sy_heif_writer_destroy(w)
        #expect(folder.entries.isEmpty, "nothing written: \(folder.entries)")
        #expect(ctx.stats.current_bytes == 0)
    }

    // Issue 16: a file with a profile must not name other primaries in its nclx box or VUI.
    @Test("with an ICC profile the nclx names the profile's primaries and curve, or unspecified (sRGB, P3, gamma 2.2, other)")
    func nclxFollowsProfile() throws {
        let cases: [(String, [UInt8], [UInt16])] = [
            ("p3-srgb-curve", HW.iccProfile(colorants: HW.p3Colorants, srgbCurve: true), [12, 13]),
            ("srgb-srgb-curve", HW.iccProfile(srgbCurve: true), [1, 13]),
            ("srgb-gamma22", HW.iccProfile(), [1, 2]),
            ("other", HW.iccProfile(colorants: [(0.6, 0.3, 0.0), (0.2, 0.6, 0.05), (0.16, 0.1, 0.77)]), [2, 2]),
        ]
        let folder = try HW.Folder()
        let pixels = HW.photo(width: 96, height: 64)
        for (name, icc, want) in cases {
            let ctx = try Context()
            var options = HW.options(width: 96, height: 64)
            var writer: OpaquePointer?
            var err = sy_error()
            let output = folder.file(name + ".heic")
            try #require(sy_heif_writer_create(ctx.raw, output, &options, &writer, &err) == SY_OK, "\(message(err))")
            defer { sy_heif_writer_destroy(writer) }
            #expect(sy_heif_writer_set_icc(writer, icc, icc.count, &err) == SY_OK, "\(message(err))")
            let status = HW.withRows(pixels, width: 96, height: 64, channels: 3) { rows in
                sy_heif_writer_write_rows(writer, rows, 64, &err)
            }
            try #require(status == SY_OK, "\(message(err))")
            #expect(sy_heif_writer_set_icc(writer, icc, icc.count, &err) == SY_E_USAGE, "too late once rows are in")
            try #require(sy_heif_writer_finish(writer, &err) == SY_OK, "\(message(err))")
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
            let at = try #require(bytes.indices.first { i in i + 11 <= bytes.count && bytes[i..<i + 4] == [0x6E, 0x63, 0x6C, 0x78] })
            let nclx = (0..<3).map { UInt16(bytes[at + 4 + 2 * $0]) << 8 | UInt16(bytes[at + 5 + 2 * $0]) }
            #expect(Array(nclx[0..<2]) == want && nclx[2] == 6, "\(name): nclx \(nclx)")
        }
    }

    @Test("1300x900 + Exif/GPS + XMP + ICC + 325x225 monochrome gain map, read by outside tools")
    func fullFile() throws {
        let width = 1300, height = 900, mapWidth = 325, mapHeight = 225
        let folder = try HW.Folder()
        let output = folder.file("photo.heic")
        let pixels = HW.photo(width: width, height: height)
        let map = HW.grey(width: mapWidth, height: mapHeight)
        try HW.writePNM(pixels, width: width, height: height, channels: 3, to: folder.file("source.ppm"))
        try HW.writePNM(map, width: mapWidth, height: mapHeight, channels: 1, to: folder.file("map.pgm"))

        let ctx = try Context()
        var options = HW.options(width: width, height: height)
        var writer: OpaquePointer?
        var err = sy_error()
        var status = sy_heif_writer_create(ctx.raw, output, &options, &writer, &err)
        try #require(status == SY_OK, "create: \(message(err))")
        defer { sy_heif_writer_destroy(writer) }

        let exif = HW.exifTIFF(), xmp = Array(HW.xmp.utf8), icc = HW.iccProfile()
        #expect(sy_heif_writer_set_exif(writer, exif, exif.count, &err) == SY_OK, "\(message(err))")
        #expect(sy_heif_writer_set_xmp(writer, xmp, xmp.count, &err) == SY_OK, "\(message(err))")
        #expect(sy_heif_writer_set_icc(writer, icc, icc.count, &err) == SY_OK, "\(message(err))")

        // Rows in uneven batches (not aligned to the 512 px tile rows).
        let clock = ContinuousClock()
        let started = clock.now
        status = HW.withRows(pixels, width: width, height: height, channels: 3) { rows in
            var y = 0
            while y < height {
                let n = min(137, height - y)
                let s = sy_heif_writer_write_rows(writer, rows + y, UInt32(n), &err)
                if s != SY_OK { return s }
                y += n
            }
            return sy_status(SY_OK)
        }
        try #require(status == SY_OK, "write_rows: \(message(err))")
        var index: UInt32 = 99
        status = HW.withRows(map, width: mapWidth, height: mapHeight, channels: 1) { rows in
            sy_heif_writer_add_auxiliary(writer, HW.gainMapURN, UInt32(mapWidth), UInt32(mapHeight), 1, rows,
                                         &index, &err)
        }
        try #require(status == SY_OK, "add_auxiliary: \(message(err))")
        #expect(index == 0)
        #expect(FileManager.default.fileExists(atPath: output) == false, "nothing at the target before finish")
        status = sy_heif_writer_finish(writer, &err)
        try #require(status == SY_OK, "finish: \(message(err))")
        let elapsed = clock.now - started
        let size = (try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        print("HEIF writer: \(width)x\(height) + \(mapWidth)x\(mapHeight) map in \(elapsed), \(size) bytes,"
            + " engine peak \(ctx.stats.peak_bytes) bytes")
        #expect(folder.entries == ["map.pgm", "photo.heic", "source.ppm"], "no temp files: \(folder.entries)")

        // heif-info: the primary with its size, Exif/XMP, and (with -d) the auxC type.
        let info = try HW.run("heif-info", [output])
        #expect(info.status == 0, "heif-info: \(info.err)")
        #expect(info.out.contains("image: 1300x900") && info.out.contains("primary"), "\(info.out)")
        #expect(info.out.contains("Exif") && info.out.contains("XMP"), "\(info.out)")
        let dump = try HW.run("heif-info", ["-d", output])
        #expect(dump.out.contains("aux type: \(HW.gainMapURN)"), "auxC missing from heif-info -d")
        #expect(dump.out.contains("colour_type: nclx") && dump.out.contains("colour_type: prof"))

        // heif-convert decodes the primary and the auxiliary image.
        let decoded = folder.file("decoded.png")
        let convert = try HW.run("heif-convert", ["--with-aux", "--no-colons", output, decoded])
        #expect(convert.status == 0, "heif-convert: \(convert.out) \(convert.err)")
        #expect(convert.out.contains("Auxiliary image written"), "\(convert.out)")
        let psnr = try HW.psnr(folder.file("source.ppm"), decoded)
        print("HEIF writer: primary PSNR \(psnr) dB at quality 90")
        #expect(psnr >= 40, "primary PSNR \(psnr) dB")
        let auxPNG = folder.entries.first { $0.hasPrefix("decoded-") && $0.hasSuffix(".png") }
        let auxFile = try #require(auxPNG, "no auxiliary PNG in \(folder.entries)")
        let auxIdentify = try HW.run("identify", ["-format", "%w %h", folder.file(auxFile)])
        #expect(auxIdentify.out == "325 225", "aux size \(auxIdentify.out)")
        let auxPSNR = try HW.psnr(folder.file("map.pgm"), folder.file(auxFile))
        print("HEIF writer: gain map PSNR \(auxPSNR) dB")
        #expect(auxPSNR >= 40, "gain map PSNR \(auxPSNR) dB")

        // exiftool: Exif date, GPS, XMP, ICC description, aux type; no warnings.
        let tags = try HW.run("exiftool", ["-n", "-s", "-DateTimeOriginal", "-GPSLatitude", "-GPSLongitude",
                                           "-Rating", "-Creator", "-ProfileDescription", "-AuxiliaryImageType",
                                           "-Warning", "-Error", output])
        #expect(tags.out.contains("DateTimeOriginal                : 2024:05:06 07:08:09"), "\(tags.out)")
        let lat = tags.out.split(separator: "\n").first { $0.hasPrefix("GPSLatitude ") }
        let lon = tags.out.split(separator: "\n").first { $0.hasPrefix("GPSLongitude ") }
        #expect(lat.map { $0.hasSuffix(": 31.23") } == true, "\(tags.out)")
        #expect(lon.map { $0.hasSuffix(": 121.47") } == true, "\(tags.out)")
        #expect(tags.out.contains("Rating                          : 4"), "\(tags.out)")
        #expect(tags.out.contains("Shiying HEIF writer test"), "\(tags.out)")
        #expect(tags.out.contains("ProfileDescription              : Shiying test RGB"), "\(tags.out)")
        #expect(tags.out.contains("AuxiliaryImageType              : \(HW.gainMapURN)"), "\(tags.out)")
        #expect(!tags.out.contains("Warning") && !tags.out.contains("Error"), "\(tags.out)")
        let validate = try HW.run("exiftool", ["-validate", "-warning", "-a", output])
        #expect(validate.out.contains("Validate                        : OK"), "\(validate.out)")

        // ImageMagick and vips read it.
        let identify = try HW.run("identify", ["-format", "%m %w %h", output])
        #expect(identify.status == 0 && identify.out == "HEIC 1300 900", "identify: \(identify.out) \(identify.err)")
        let vips = try HW.run("vipsheader", [output])
        #expect(vips.status == 0 && vips.out.contains("1300x900"), "vipsheader: \(vips.out) \(vips.err)")
    }

    /// Writes `pixels` with the default options but `quality`; returns the file's bytes.
    private func save(_ pixels: [UInt8], width: Int, height: Int, quality: Int32?, threads: UInt32 = 0,
                      encoders: UInt32? = nil, preset: String? = nil, to path: String) throws -> Int {
        let ctx = try Context()
        var options = HW.options(width: width, height: height)
        if let quality { options.quality = quality }
        if let encoders { options.encoders = encoders }
        options.threads = threads
        var writer: OpaquePointer?
        var err = sy_error()
        func create(_ name: UnsafePointer<CChar>?) -> sy_status {
            options.x265_preset = name
            return sy_heif_writer_create(ctx.raw, path, &options, &writer, &err)
        }
        let created = preset.map { $0.withCString(create) } ?? create(nil)
        try #require(created == SY_OK, "create: \(message(err))")
        defer { sy_heif_writer_destroy(writer) }
        let status = HW.withRows(pixels, width: width, height: height, channels: 3) { rows in
            sy_heif_writer_write_rows(writer, rows, UInt32(height), &err)
        }
        try #require(status == SY_OK, "write_rows: \(message(err))")
        try #require(sy_heif_writer_finish(writer, &err) == SY_OK, "finish: \(message(err))")
        return (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    // issue 15: the default (quality 90 -> CRF 22, preset ultrafast) keeps a photo at about a
    // camera HEIC's size per pixel with no visible loss. Measured on this image (its per-pixel
    // grain costs more than a camera photo's): 1.58 bits/pixel at 44.7 dB; libheif's table
    // (quality 90 -> CRF 5, preset medium) gave 5.13 bits/pixel at 51.4 dB, which the bound
    // catches. Quality still orders size: 80 < 90 < 95.
    @Test("default quality: bits/pixel bound and >= 40 dB on a photo-like image; quality orders size")
    func defaultQualitySize() throws {
        let width = 1536, height = 1024
        let folder = try HW.Folder()
        let pixels = HW.photo(width: width, height: height, seed: 11)
        try HW.writePNM(pixels, width: width, height: height, channels: 3, to: folder.file("source.ppm"))
        let bytes = try save(pixels, width: width, height: height, quality: nil, to: folder.file("q90.heic"))
        let bpp = Double(bytes * 8) / Double(width * height)
        let decoded = folder.file("q90.png")
        let convert = try HW.run("heif-convert", [folder.file("q90.heic"), decoded])
        try #require(convert.status == 0, "heif-convert: \(convert.err)")
        let psnr = try HW.psnr(folder.file("source.ppm"), decoded)
        let low = try save(pixels, width: width, height: height, quality: 80, to: folder.file("q80.heic"))
        let high = try save(pixels, width: width, height: height, quality: 95, to: folder.file("q95.heic"))
        print("HEIF writer default: \(bytes) bytes = \(bpp) bits/pixel, PSNR \(psnr) dB; q80 \(low), q95 \(high) bytes")
        #expect(bpp <= 2.0, "\(bpp) bits/pixel at the default quality")
        #expect(psnr >= 40, "PSNR \(psnr) dB at the default quality")
        #expect(low < bytes && bytes < high, "q80 \(low), q90 \(bytes), q95 \(high) bytes")
    }

    /// The first tile of `path`'s primary as an Annex-B stream: its hvcC parameter sets, then its NAL units.
    private func firstTileAnnexB(_ path: String) throws -> [UInt8] {
        let ctx = try Context()
        var file: OpaquePointer?
        var err = sy_error()
        try #require(sy_heif_open(ctx.raw, path, &file, &err) == SY_OK, "open \(path): \(message(err))")
        defer { sy_heif_close(file) }
        var count: UInt32 = 0
        let tiles = try #require(sy_heif_derived(file, sy_heif_primary_id(file), &count))
        try #require(count > 0, "the primary is a grid")
        var hvccLength = 0
        let hvcc = try #require(sy_heif_hvcc(file, tiles[0], &hvccLength))
        var data: UnsafeMutablePointer<UInt8>?
        var length = 0
        try #require(sy_heif_read_item(file, tiles[0], &data, &length, &err) == SY_OK, "tile: \(message(err))")
        defer { sy_heif_free_data(file, data) }
        return try annexB(hvcc: Array(UnsafeBufferPointer(start: hvcc, count: hvccLength)),
                          samples: [Array(UnsafeBufferPointer(start: data, count: length))])
    }

    /// log2 of the smallest coding unit in an Annex-B stream's SPS, as ffmpeg's trace_headers reads it.
    private func log2SmallestCU(_ stream: [UInt8], folder: HW.Folder, name: String) throws -> Int {
        let path = folder.file(name + ".hevc")
        try Data(stream).write(to: URL(fileURLWithPath: path))
        let r = try HW.run("ffmpeg", ["-v", "verbose", "-i", path, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"])
        try #require(r.status == 0, "ffmpeg: \(r.err.suffix(400))")
        let line = try #require(r.err.split(separator: "\n").first { $0.contains("log2_min_luma_coding_block_size_minus3") },
                                "no SPS traced")
        let value = try #require(line.split(separator: "=").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
        return value + 3
    }

    // issue 15: the default still encoder searches no CU below 32x32 (docs/heic-quality.md: a third
    // less x265 work for 2-6 % more bytes); a preset the caller names is x265's own (ultrafast: 16x16).
    @Test("the default encodes 32x32 smallest CUs; a named preset keeps x265's own (ultrafast: 16x16)")
    func defaultSmallestCU() throws {
        let width = 512, height = 512
        let folder = try HW.Folder()
        let pixels = HW.photo(width: width, height: height, seed: 5)
        _ = try save(pixels, width: width, height: height, quality: nil, to: folder.file("default.heic"))
        _ = try save(pixels, width: width, height: height, quality: nil, preset: "ultrafast", to: folder.file("named.heic"))
        #expect(try log2SmallestCU(firstTileAnnexB(folder.file("default.heic")), folder: folder, name: "default") == 5)
        #expect(try log2SmallestCU(firstTileAnnexB(folder.file("named.heic")), folder: folder, name: "named") == 4)
    }

    // issue 15: two x265 encoders (the default) take the tiles in turn and, with more than one
    // thread, encode two at once; the file is byte-identical to a one-thread encode, every time
    // (tiles reach the file in tile order whichever encoder finishes first).
    @Test("two tiles at once: the same bytes as one thread")
    func threadsSameBytes() throws {
        let width = 1536, height = 1024
        let folder = try HW.Folder()
        let pixels = HW.photo(width: width, height: height, seed: 5)
        _ = try save(pixels, width: width, height: height, quality: nil, threads: 1, to: folder.file("one.heic"))
        let one = HW.readFile(folder.file("one.heic"))
        try #require(one.count > 1000)
        for k in 0..<2 {
            _ = try save(pixels, width: width, height: height, quality: nil, threads: 2, to: folder.file("two\(k).heic"))
            #expect(HW.readFile(folder.file("two\(k).heic")) == one, "2-thread encode \(k) differs from the 1-thread file")
        }
    }

    // issue 15: 1 to 4 encoders on a grid whose rows do not divide among them (7 x 4 tiles of 192,
    // the last row and column partial; from 16 tiles on the writer uses more than one): libheif decodes every file to the source within 40 dB, each
    // count gives the same bytes on 1 and 3 threads, and a count outside 1...4 is refused.
    @Test("1-4 encoders: valid grids, the same bytes on any thread count; 0 or 5 refused")
    func encoderCounts() throws {
        let width = 1200, height = 700
        let folder = try HW.Folder()
        let pixels = HW.photo(width: width, height: height, seed: 9)
        try HW.writePNM(pixels, width: width, height: height, channels: 3, to: folder.file("source.ppm"))
        for encoders: UInt32 in 1...4 {
            let name = folder.file("e\(encoders).heic")
            _ = try saveTiled(pixels, width: width, height: height, tileSize: 192, threads: 1, encoders: encoders, to: name)
            let single = HW.readFile(name)
            _ = try saveTiled(pixels, width: width, height: height, tileSize: 192, threads: 3, encoders: encoders,
                              to: folder.file("t\(encoders).heic"))
            #expect(HW.readFile(folder.file("t\(encoders).heic")) == single, "\(encoders) encoders: 3 threads differ from 1")
            let decoded = folder.file("e\(encoders).png")
            let convert = try HW.run("heif-convert", [name, decoded])
            try #require(convert.status == 0, "heif-convert (\(encoders) encoders): \(convert.err)")
            let psnr = try HW.psnr(folder.file("source.ppm"), decoded)
            #expect(psnr >= 40, "\(encoders) encoders: PSNR \(psnr) dB")
        }
        #expect(HW.readFile(folder.file("e1.heic")) != HW.readFile(folder.file("e2.heic")),
                "two encoders in use: their rate control sees other tiles than one encoder's")
        for bad: UInt32 in [0, 5] {
            let ctx = try Context()
            var options = HW.options(width: width, height: height)
            options.encoders = bad
            var writer: OpaquePointer?
            var err = sy_error()
            #expect(sy_heif_writer_create(ctx.raw, folder.file("bad.heic"), &options, &writer, &err) == SY_E_USAGE)
            #expect(message(err).contains("encoders"), "\(message(err))")
            sy_heif_writer_destroy(writer)
        }
    }

    private func saveTiled(_ pixels: [UInt8], width: Int, height: Int, tileSize: UInt32, threads: UInt32,
                           encoders: UInt32, to path: String) throws -> Int {
        let ctx = try Context()
        var options = HW.options(width: width, height: height)
        options.tile_size = tileSize
        options.threads = threads
        options.encoders = encoders
        var writer: OpaquePointer?
        var err = sy_error()
        try #require(sy_heif_writer_create(ctx.raw, path, &options, &writer, &err) == SY_OK, "create: \(message(err))")
        defer { sy_heif_writer_destroy(writer) }
        // rows in uneven batches, as a strip-wise caller gives them
        var y = 0, batch = 37
        while y < height {
            let n = min(batch, height - y)
            let slice = Array(pixels[(y * width * 3)..<((y + n) * width * 3)])
            let status = HW.withRows(slice, width: width, height: n, channels: 3) { rows in
                sy_heif_writer_write_rows(writer, rows, UInt32(n), &err)
            }
            try #require(status == SY_OK, "write_rows: \(message(err))")
            y += n
            batch = batch == 37 ? 300 : 37
        }
        try #require(sy_heif_writer_finish(writer, &err) == SY_OK, "finish: \(message(err))")
        return HW.readFile(path).count
    }

    @Test("failed writes leave no file and keep an existing one")
    func failures() throws {
        let ctx = try Context()
        let folder = try HW.Folder()
        var err = sy_error()
        var writer: OpaquePointer?
        var options = HW.options(width: 700, height: 600)

        // Missing destination folder: refused at create, before any encoding.
        let missing = folder.file("no-such-folder/x.heic")
        #expect(sy_heif_writer_create(ctx.raw, missing, &options, &writer, &err) == SY_E_IO)
        #expect(writer == nil && message(err).contains("no-such-folder"), "\(message(err))")
        #expect(!FileManager.default.fileExists(atPath: folder.file("no-such-folder")))

        // Cancellation mid-way (after the first row of tiles): an existing file stays as it was.
        let target = folder.file("existing.heic")
        let old = Array("old contents".utf8)
        try Data(old).write(to: URL(fileURLWithPath: target))
        let pixels = HW.photo(width: 700, height: 600, seed: 3)
        try #require(sy_heif_writer_create(ctx.raw, target, &options, &writer, &err) == SY_OK, "\(message(err))")
        let status = HW.withRows(pixels, width: 700, height: 600, channels: 3) { rows -> sy_status in
            var s = sy_heif_writer_write_rows(writer, rows, 512, &err)
            guard s == SY_OK else { return s }
            sy_context_cancel(ctx.raw)
            s = sy_heif_writer_write_rows(writer, rows + 512, 88, &err)
            return s
        }
        #expect(status == SY_E_CANCELLED, "\(status) \(message(err))")
        #expect(sy_heif_writer_finish(writer, &err) == SY_E_USAGE, "a failed writer cannot finish")
        sy_heif_writer_destroy(writer)
        writer = nil
        sy_context_clear_cancel(ctx.raw)
        #expect(HW.readFile(target) == old)
        #expect(folder.entries == ["existing.heic"], "no temp files: \(folder.entries)")

        // A writer destroyed without finish (all rows written) leaves nothing either.
        try #require(sy_heif_writer_create(ctx.raw, target, &options, &writer, &err) == SY_OK)
        let written = HW.withRows(pixels, width: 700, height: 600, channels: 3) { rows in
            sy_heif_writer_write_rows(writer, rows, 600, &err)
        }
        #expect(written == SY_OK, "\(message(err))")
        sy_heif_writer_destroy(writer)
        #expect(HW.readFile(target) == old)
        #expect(folder.entries == ["existing.heic"], "no temp files: \(folder.entries)")
        #expect(ctx.stats.current_bytes == 0, "everything freed, x265 estimate discharged")
    }

    @Test("small and odd sizes: grid crops, RGB and tiny auxiliary images, auxiliary XMP")
    func oddSizes() throws {
        let ctx = try Context()
        let folder = try HW.Folder()
        let output = folder.file("small.heic")
        var options = HW.options(width: 97, height: 61)
        options.tile_size = 64
        var writer: OpaquePointer?
        var err = sy_error()
        try #require(sy_heif_writer_create(ctx.raw, output, &options, &writer, &err) == SY_OK, "\(message(err))")
        defer { sy_heif_writer_destroy(writer) }
        let pixels = HW.photo(width: 97, height: 61)
        try HW.writePNM(pixels, width: 97, height: 61, channels: 3, to: folder.file("small.ppm"))
        #expect(HW.withRows(pixels, width: 97, height: 61, channels: 3) { sy_heif_writer_write_rows(writer, $0, 61, &err) }
            == SY_OK)
        // RGB auxiliary with odd sizes (becomes a grid) and a 9x5 greyscale one (under one CTU).
        let rgb = HW.photo(width: 45, height: 31, seed: 11)
        var index: UInt32 = 0
        #expect(HW.withRows(rgb, width: 45, height: 31, channels: 3) {
            sy_heif_writer_add_auxiliary(writer, "urn:example:rgb", 45, 31, 3, $0, &index, &err)
        } == SY_OK, "\(message(err))")
        let tiny = HW.grey(width: 9, height: 5)
        #expect(HW.withRows(tiny, width: 9, height: 5, channels: 1) {
            sy_heif_writer_add_auxiliary(writer, "urn:example:tiny", 9, 5, 1, $0, &index, &err)
        } == SY_OK, "\(message(err))")
        #expect(index == 1)
        let auxXMP = Array(HW.xmp.utf8)
        #expect(sy_heif_writer_set_auxiliary_xmp(writer, 1, auxXMP, auxXMP.count, &err) == SY_OK)
        #expect(sy_heif_writer_set_auxiliary_xmp(writer, 2, auxXMP, auxXMP.count, &err) == SY_E_USAGE)
        try #require(sy_heif_writer_finish(writer, &err) == SY_OK, "\(message(err))")

        let convert = try HW.run("heif-convert", ["--with-aux", "--no-colons", output, folder.file("d.png")])
        #expect(convert.status == 0, "\(convert.out) \(convert.err)")
        let sizes = try folder.entries.filter { $0.hasSuffix(".png") }.map {
            try HW.run("identify", ["-format", "%w %h", folder.file($0)]).out
        }
        #expect(Set(sizes) == ["97 61", "45 31", "9 5"], "\(sizes)")
        let psnr = try HW.psnr(folder.file("small.ppm"), folder.file("d.png"))
        #expect(psnr >= 38, "small primary PSNR \(psnr)")
        let types = try HW.run("exiftool", ["-a", "-s", "-AuxiliaryImageType", output]).out
        #expect(types.contains("urn:example:rgb") && types.contains("urn:example:tiny"), "\(types)")
    }

    @Test("non-square grid tiles (an iPhone Pro's 24 MP grid has 640x896): libheif decodes the grid")
    func tallTiles() throws {
        let ctx = try Context()
        let folder = try HW.Folder()
        let output = folder.file("tall.heic")
        var options = HW.options(width: 200, height: 300)
        options.tile_size = 64
        options.tile_height = 128
        var writer: OpaquePointer?
        var err = sy_error()
        try #require(sy_heif_writer_create(ctx.raw, output, &options, &writer, &err) == SY_OK, "\(message(err))")
        defer { sy_heif_writer_destroy(writer) }
        let pixels = HW.photo(width: 200, height: 300)
        try HW.writePNM(pixels, width: 200, height: 300, channels: 3, to: folder.file("tall.ppm"))
        #expect(HW.withRows(pixels, width: 200, height: 300, channels: 3) { sy_heif_writer_write_rows(writer, $0, 300, &err) }
            == SY_OK)
        try #require(sy_heif_writer_finish(writer, &err) == SY_OK, "\(message(err))")
        // tiles of 64 x 128 (one shared ispe), the grid cropped to 200 x 300
        let info = try HW.run("heif-info", [output])
        #expect(info.status == 0 && info.out.contains("200x300"), "\(info.out) \(info.err)")
        let tiles = try HW.run("exiftool", ["-a", "-s", "-ImageSpatialExtent", output]).out
        #expect(tiles.contains("64x128") && tiles.contains("200x300"), "\(tiles)")
        let convert = try HW.run("heif-convert", [output, folder.file("d.png")])
        #expect(convert.status == 0, "\(convert.out) \(convert.err)")
        let psnr = try HW.psnr(folder.file("tall.ppm"), folder.file("d.png"))
        #expect(psnr >= 38, "tall-tile primary PSNR \(psnr)")
    }
}
