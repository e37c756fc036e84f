// A source XMP bigger than a JPEG's one XMP segment (65,504 bytes): a HEIC or PNG holds one packet of any size
// (long histories, develop settings, keywords, a long description). A JPEG save of it failed ("XMP (N bytes) too
// large for one APP1"), and an Ultra HDR save dropped the whole source packet ("xmp" dropped). Now the JPEG writer
// splits it per XMP Part 3 (exif/xmp_split.c): the Ultra HDR directory and small, commonly read properties stay in
// the main packet, the largest others go to extended XMP named by its MD5. exiftool is the independent reader.
import Foundation
@testable import Shiying
import ShiyingFixtures
import Testing

@Suite("Extended XMP written: a source XMP past one APP1 is split, every property kept",
       .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool"), "exiftool missing"))
struct ExtendedXMPSplitTests {
    static let exiftool = ExtendedXMPTests.exiftool

    /// `source` with a ~90 KB XMP set by exiftool: Rating, Label, title, 300 keywords, an 8 KB description, a
    /// 30 KB photoshop:Instructions and a 300-step xmpMM history; or (`oneHuge`) a 70 KB description alone.
    static func bigXMP(_ source: String, to out: String, in dir: TempDir, oneHuge: Bool = false) async throws {
        var args = ["-q", "-o", out, "-XMP-xmp:Rating=4", "-XMP-xmp:Label=Red", "-XMP-dc:Title=Harbour at dawn"]
        let text = dir.file("description.txt")
        let words = (0..<(oneHuge ? 11_000 : 1_000)).map { "word\($0 % 97)" }.joined(separator: " ")
        try Data(words.utf8).write(to: URL(fileURLWithPath: text))
        args.append("-XMP-dc:Description<=" + text)
        if !oneHuge {
            let notes = dir.file("instructions.txt")
            try Data(String(repeating: "Keep the shadows open; ", count: 1_300).utf8).write(to: URL(fileURLWithPath: notes))
            args.append("-XMP-photoshop:Instructions<=" + notes)
            for i in 0..<300 {
                args += ["-XMP-dc:Subject+=keyword \(i)", "-XMP-xmpMM:HistoryAction+=saved",
                         "-XMP-xmpMM:HistoryWhen+=2026:11:\(String(format: "%02d", i % 28 + 1)) 10:00:00",
                         "-XMP-xmpMM:HistorySoftwareAgent+=Shiying step \(i)"]
            }
        }
        let argfile = dir.file("args.txt")
        try Data((args + [source]).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: argfile))
        _ = try await exiftool(["-@", argfile])
    }

    /// The properties `bigXMP` sets, as exiftool reads them (an HDR HEIC's gain-map image has XMP of its own).
    static let fixtureKeys: Set<String> = ["Rating", "Label", "Title", "Description", "Subject", "Instructions", "History"]

    /// Those of the fixture's XMP properties exiftool reads in `file`.
    static func xmpProperties(_ file: String) async throws -> [String: String] {
        let json = try await exiftool(["-j", "-XMP:all", "-struct", file]).stdoutData
        guard let all = try JSONSerialization.jsonObject(with: json) as? [[String: Any]], let first = all.first else {
            throw TestFailure("exiftool -j \(file)")
        }
        var out: [String: String] = [:]
        for (key, value) in first where fixtureKeys.contains(key) { // structures compared with their keys sorted
            let canonical = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
            out[key] = String(decoding: canonical, as: UTF8.self)
        }
        return out
    }

    /// The main XMP packet (the first APP1 with the XMP signature) as bytes.
    static func mainPacket(_ file: String) throws -> Data {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let sig = Data("http://ns.adobe.com/xap/1.0/\0".utf8)
        guard let at = bytes.range(of: sig) else { return Data() }
        let length = Int(bytes[at.lowerBound - 2]) << 8 + Int(bytes[at.lowerBound - 1])
        return bytes[at.upperBound..<(at.lowerBound - 2 + length)]
    }

    static func count(_ needle: String, in data: Data) -> Int {
        var n = 0, from = data.startIndex
        while let r = data.range(of: Data(needle.utf8), in: from..<data.endIndex) { n += 1; from = r.upperBound }
        return n
    }

    /// What exiftool's validation says about XMP: nothing when the extension is whole and named right and the
    /// main packet has its xpacket wrapper (exif/xmp_wrapper.c; an Ultra HDR save's and a HEIC's packets have none).
    static func xmpWarnings(_ file: String) async throws -> [Substring] {
        let run = try await runTool("exiftool", ["-validate", "-warning", "-a", file])
        return run.stdout.split(separator: "\n").filter { $0.contains("XMP") || $0.contains("xtended") }
    }

    /// The checks every output passes: same properties as the source, a main packet in one APP1 naming the
    /// extension, no XMP warning, each property once in the file.
    static func expectKept(_ out: String, _ before: [String: String], _ what: String) async throws {
        let after = try await xmpProperties(out)
        for (key, value) in before {
            #expect(after[key] == value, "\(what): \(key) \(String(describing: after[key]?.prefix(60))) != \(value.prefix(60))")
        }
        let main = try mainPacket(out)
        #expect(main.count <= 65_504 && count("HasExtendedXMP", in: main) == 1, "\(what): main \(main.count) B")
        let warnings = try await xmpWarnings(out)
        #expect(warnings.isEmpty, "\(what): \(warnings)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
        for name in ["<xmp:Rating>", "<dc:description>", "<dc:title>", "<photoshop:Instructions>", "<xmpMM:History>"] {
            let expected = name.hasPrefix("<xmp:") || name.hasPrefix("<dc:") || before.count == fixtureKeys.count ? 1 : 0
            #expect(count(name, in: bytes) == expected, "\(what): \(name) \(count(name, in: bytes)) times")
        }
        #expect(count("<xmp:Rating>", in: main) == 1, "\(what): the rating stays in the main packet")
    }

    @Test("a HEIC's 90 KB XMP: a JPEG conversion and edit succeed, every property kept, re-saves keep one copy")
    func plainJPEG() async throws {
        let dir = try TempDir("xmpsplit-plain")
        defer { dir.remove() }
        let photo = try await Photos.small()[0]
        let heic = dir.file("photo.heic"), big = dir.file("big.heic")
        _ = try Conversion.convertBlocking(photo, to: heic, quality: 60)
        try await Self.bigXMP(heic, to: big, in: dir)
        let before = try await Self.xmpProperties(big)
        let bigSize = try Data(contentsOf: URL(fileURLWithPath: big)).count
        #expect(before.count == Self.fixtureKeys.count && bigSize > 90_000, "\(bigSize) B: \(before.keys)")
        let jpeg = dir.file("out.jpg"), edited = dir.file("edited.jpg"), again = dir.file("again.jpg"),
            png = dir.file("back.png"), graded = dir.file("graded.jpg")
        let converted = try Conversion.convertBlocking(big, to: jpeg)
        #expect(converted.kept.contains("xmp") && !converted.dropped.map(\.name).contains("xmp"), "\(converted)")
        try await Self.expectKept(jpeg, before, "convert")
        var warm = EditRecipe.identity
        warm.adjustments.exposure = 0.3
        var crop = warm
        crop.crop = EditRecipe.Crop(x: 0.1, y: 0.1, width: 0.7, height: 0.7)
        let edit = try Editor.saveBlocking(big, recipe: crop, to: edited)
        #expect(edit.kept.contains("xmp"), "\(edit)")
        try await Self.expectKept(edited, before, "edit")
        // the output read back: a re-save, a cropped edit of it and a PNG (our reader joins main and extension)
        _ = try Conversion.convertBlocking(jpeg, to: again)
        try await Self.expectKept(again, before, "re-save")
        _ = try Editor.saveBlocking(jpeg, recipe: crop, to: graded)
        try await Self.expectKept(graded, before, "cropped re-save")
        _ = try Conversion.convertBlocking(jpeg, to: png)
        let joined = try await Self.xmpProperties(png)
        for (key, value) in before { #expect(joined[key] == value, "PNG: \(key)") }
    }

    @Test("a property over 65 KB on its own moves whole to the extension; the rest stays in the main packet")
    func oneHugeProperty() async throws {
        let dir = try TempDir("xmpsplit-huge")
        defer { dir.remove() }
        let photo = try await Photos.small()[0]
        let heic = dir.file("photo.heic"), big = dir.file("big.heic"), out = dir.file("out.jpg")
        _ = try Conversion.convertBlocking(photo, to: heic, quality: 60)
        try await Self.bigXMP(heic, to: big, in: dir, oneHuge: true)
        let before = try await Self.xmpProperties(big)
        #expect((before["Description"]?.count ?? 0) > 65_504, "the fixture: \(before["Description"]?.count ?? 0)")
        let r = try Conversion.convertBlocking(big, to: out)
        #expect(r.kept.contains("xmp"), "\(r)")
        try await Self.expectKept(out, before, "one huge property")
        let main = try Self.mainPacket(out)
        #expect(Self.count("<dc:description>", in: main) == 0 && Self.count("<dc:title>", in: main) == 1,
                "\(main.count) B")
    }

    @Test("an HDR HEIC's 90 KB XMP beside the Ultra HDR directory: kept, split, hdrgm once in the main packet")
    func ultraHDR() async throws {
        let dir = try TempDir("xmpsplit-ultrahdr")
        defer { dir.remove() }
        let heic = try HDRSamplePhotos.write(width: 256, height: 192, to: dir.path)[1]
        let big = dir.file("big.heic"), out = dir.file("out.jpg"), again = dir.file("again.jpg")
        try await Self.bigXMP(heic, to: big, in: dir)
        let before = try await Self.xmpProperties(big)
        for (run, source, output) in [("convert", big, out), ("re-save", out, again)] {
            let r = try await CLI.run(["convert", "-o", output, source, "--json"])
            guard r.succeeded, let line = r.lastLine,
                  let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                Issue.record("\(run): \(r)")
                continue
            }
            let kept = json["kept"] as? [String] ?? []
            let dropped = (json["dropped"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            #expect(kept.contains("xmp") && kept.contains("ultra-hdr-gain-map") && !dropped.contains("xmp"),
                    "\(run): \(kept) \(dropped)")
            try await Self.expectKept(output, before, run)
            let main = try Self.mainPacket(output)
            #expect(Self.count("hdrgm:Version", in: main) == 1 && Self.count("Container:Directory", in: main) >= 1,
                    "\(run): the Ultra HDR description in the main packet, once")
            let seen = try await Self.exiftool(["-s3", "-XMP-xmp:Rating", "-XMP-hdrgm:Version", output]).stdout
            #expect(seen.split(separator: "\n") == ["4", "1.0"], "\(run): \(seen)")
        }
    }

    @Test("a JPEG's main packet has its xpacket wrapper, also when the packet came without one (a gain map's, a HEIC's)")
    func mainPacketWrapped() async throws {
        let dir = try TempDir("xmpsplit-wrapper")
        defer { dir.remove() }
        // the Ultra HDR JPEG's packet and the Apple-style HEIC's map packet are ours, written without a wrapper
        for (i, source) in try HDRSamplePhotos.write(width: 256, height: 192, to: dir.path).enumerated() {
            let out = dir.file("wrapped-\(i).jpg"), again = dir.file("again-\(i).jpg")
            for (input, output) in [(source, out), (out, again)] {
                let r = try await CLI.run(["convert", "-o", output, input])
                #expect(r.succeeded, "\(input): \(r)")
                let main = try Self.mainPacket(output)
                #expect(main.starts(with: Data("<?xpacket begin=".utf8)), "\(input): \(String(decoding: main.prefix(40), as: UTF8.self))")
                #expect(Self.count("<?xpacket begin", in: main) == 1 && Self.count("<?xpacket end", in: main) == 1,
                        "\(input): one wrapper, also after a re-save")
                let warnings = try await Self.xmpWarnings(output)
                #expect(warnings.isEmpty, "\(input): \(warnings)")
                let version = try await Self.exiftool(["-s3", "-XMP-hdrgm:Version", output]).stdout
                #expect(version.split(separator: "\n").first == "1.0", "\(input): the Ultra HDR packet still reads")
            }
        }
    }

    @Test("a Live still whose big XMP exiftool split: a cropped Live edit keeps every property (it lost the extension's)")
    func liveStillCropped() async throws {
        let dir = try TempDir("xmpsplit-live")
        defer { dir.remove() }
        let made = try await CLI.run(["sample-photos", "--live", "--count", "1", "--width", "320", "--height", "240",
                                      "-o", dir.file("pair")])
        #expect(made.succeeded, "\(made)")
        let still = dir.file("P.JPG"), movie = dir.file("P.MOV"), crop = dir.file("crop.json")
        try await Self.bigXMP(dir.file("pair/LIVE_0001.JPG"), to: still, in: dir) // exiftool writes extended XMP
        try FileManager.default.copyItem(atPath: dir.file("pair/LIVE_0001.MOV"), toPath: movie)
        let before = try await Self.xmpProperties(still)
        let note = try await Self.exiftool(["-s3", "-XMP-xmpNote:HasExtendedXMP", still]).stdout
        #expect(before.count == Self.fixtureKeys.count && note.count >= 32, "the fixture: \(before.keys), note \(note)")
        try Data(#"{"version":1,"crop":{"x":0.1,"y":0.1,"width":0.6,"height":0.6}}"#.utf8)
            .write(to: URL(fileURLWithPath: crop))
        let r = try await CLI.run(["live", "edit", "--recipe", crop, "-o", dir.file("out"), still, movie, "--json"],
                                  timeout: 300)
        guard r.succeeded, let line = r.lastLine,
              let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let save = json["save"] as? [String: Any], let out = json["still"] as? String else {
            Issue.record("\(r)")
            return
        }
        let dropped = (save["dropped"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(dropped.isEmpty, "no depth map or original to drop: \(dropped)")
        try await Self.expectKept(out, before, "Live crop")
    }
}
