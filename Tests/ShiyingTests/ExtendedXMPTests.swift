// Extended XMP (XMP Part 3: a JPEG's XMP past one APP1, in "http://ns.adobe.com/xmp/extension/" chunks named by
// the main packet's xmpNote:HasExtendedXMP) is where Google Camera keeps a portrait's depth map (GDepth:Data) and
// unblurred original (GImage:Data). It was never read: every save dropped it while the report said "xmp" kept,
// and the main packet still named it. Now it goes on while the frame is the source's (a conversion, colour edits:
// JPEG as chunks again, HEIC/PNG joined into the one packet) and is dropped, said so and unnamed once the frame
// changes (crop, turn, made upright). exiftool is the independent reader.
import Foundation
@testable import Shiying
import ShiyingFixtures
import Testing

/// A Google Camera portrait's shape, built around a generated photo: the main XMP with GDepth Format/Near/Far/Mime,
/// GImage Mime, an xmp:Rating and xmpNote:HasExtendedXMP (the MD5 of the extension, as the spec says); the extension
/// with GDepth:Data (a depth JPEG) and GImage:Data (the original JPEG), in APP1 chunks of 65,400 bytes.
struct PortraitJPEG {
    let path: String
    let guid: String
    let depth: Data
    let chunks: Int

    /// `intoSourceXMP`: the note and GDepth/GImage properties go into the photo's own XMP packet (an Ultra HDR
    /// photo's hdrgm directory, as a Pixel portrait in Ultra HDR has them) instead of a packet of their own.
    static func make(photo: String, depth depthPath: String, to out: String, dropLastChunk: Bool = false,
                     intoSourceXMP: Bool = false) async throws -> PortraitJPEG {
        let source = try Data(contentsOf: URL(fileURLWithPath: photo))
        let depth = try Data(contentsOf: URL(fileURLWithPath: depthPath))
        let ext = Data(("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
            + "<rdf:Description rdf:about=\"\" xmlns:GDepth=\"http://ns.google.com/photos/1.0/depthmap/\" "
            + "xmlns:GImage=\"http://ns.google.com/photos/1.0/image/\" GDepth:Data=\"\(depth.base64EncodedString())\" "
            + "GImage:Data=\"\(source.base64EncodedString())\"/></rdf:RDF></x:xmpmeta>").utf8)
        let extFile = out + ".ext"
        try ext.write(to: URL(fileURLWithPath: extFile))
        defer { try? FileManager.default.removeItem(atPath: extFile) }
        let md5 = try await runTool("md5sum", [extFile])
        guard md5.succeeded, let sum = md5.stdout.split(separator: " ").first, sum.count == 32 else {
            throw TestFailure("md5sum: \(md5)")
        }
        let guid = sum.uppercased()
        let properties = "xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\" "
            + "xmlns:xmpNote=\"http://ns.adobe.com/xmp/note/\" xmlns:GDepth=\"http://ns.google.com/photos/1.0/depthmap/\" "
            + "xmlns:GImage=\"http://ns.google.com/photos/1.0/image/\" xmp:Rating=\"4\" xmpNote:HasExtendedXMP=\"\(guid)\" "
            + "GDepth:Format=\"RangeInverse\" GDepth:Near=\"0.61\" GDepth:Far=\"3.2\" GDepth:Mime=\"image/jpeg\" "
            + "GImage:Mime=\"image/jpeg\""
        let main = "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
            + "<rdf:Description rdf:about=\"\" " + properties + "/></rdf:RDF></x:xmpmeta>"
        var segments = intoSourceXMP ? Data() : segment(xmpSignature + Data(main.utf8))
        var offsets = Array(stride(from: 0, to: ext.count, by: 65_400))
        if dropLastChunk { offsets.removeLast() }
        for at in offsets {
            var header = Data("http://ns.adobe.com/xmp/extension/\0".utf8) + Data(guid.utf8)
            for word in [UInt32(ext.count), UInt32(at)] { withUnsafeBytes(of: word.bigEndian) { header.append(contentsOf: $0) } }
            segments += segment(header + ext[at..<min(at + 65_400, ext.count)])
        }
        // after the source's own APPn segments (its Exif APP1 stays first, as Exif asks); or the source's XMP
        // packet given the properties, the chunks right after it (an MPF index later on counts from its own header)
        var head = source[..<2]
        var at = 2
        while at + 4 <= source.count, source[at] == 0xFF, (0xE0...0xEF).contains(source[at + 1]) {
            let next = at + 2 + Int(source[at + 2]) << 8 + Int(source[at + 3])
            let payload = source[(at + 4)..<next]
            if intoSourceXMP, payload.starts(with: xmpSignature),
               let packet = String(data: payload.dropFirst(xmpSignature.count), encoding: .utf8),
               let open = packet.range(of: "<rdf:Description ") {
                let patched = packet[..<open.upperBound] + properties + " " + packet[open.upperBound...]
                head += segment(xmpSignature + Data(patched.utf8)) + segments
                segments = Data()
            } else {
                head += source[at..<next]
            }
            at = next
        }
        guard segments.isEmpty || !intoSourceXMP else { throw TestFailure("\(photo): no XMP packet to extend") }
        try (head + segments + source[at...]).write(to: URL(fileURLWithPath: out))
        return PortraitJPEG(path: out, guid: guid, depth: depth, chunks: offsets.count)
    }

    private static let xmpSignature = Data("http://ns.adobe.com/xap/1.0/\0".utf8)

    private static func segment(_ payload: Data) -> Data {
        let n = payload.count + 2
        return Data([0xFF, 0xE1, UInt8(n >> 8), UInt8(n & 0xFF)]) + payload
    }
}

@Suite("Extended XMP: kept with the frame, dropped and unnamed when the frame changes",
       .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool"), "exiftool missing"))
struct ExtendedXMPTests {
    static func exiftool(_ args: [String]) async throws -> ProcessResult {
        let run = try await runTool("exiftool", args)
        guard run.succeeded else { throw TestFailure("exiftool \(args): \(run)") }
        return run
    }

    static func portrait(_ dir: TempDir, photo index: Int = 0, dropLastChunk: Bool = false) async throws -> PortraitJPEG {
        let photos = try await Photos.small()
        return try await PortraitJPEG.make(photo: photos[index], depth: photos[2], to: dir.file("portrait-\(index).jpg"),
                                           dropLastChunk: dropLastChunk)
    }

    /// The depth map exiftool reads out of `file` (empty when none), and its xmpNote:HasExtendedXMP.
    static func depthAndNote(_ file: String) async throws -> (depth: Data, note: String) {
        let depth = try await exiftool(["-b", "-XMP-GDepth:DepthImage", file]).stdoutData
        let note = try await exiftool(["-s3", "-XMP-xmpNote:HasExtendedXMP", file]).stdout
        return (depth, note.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("the source as exiftool reads it: depth map through the extension, more than one chunk")
    func fixture() async throws {
        let dir = try TempDir("xmpx-fixture")
        defer { dir.remove() }
        let p = try await Self.portrait(dir)
        #expect(p.chunks >= 2, "the extension must span chunks (\(p.chunks))")
        let seen = try await Self.depthAndNote(p.path)
        #expect(seen.depth == p.depth && seen.note == p.guid, "\(seen.depth.count) B, \(seen.note)")
    }

    @Test("a conversion and a colour edit keep the depth map: JPEG as chunks under the same GUID, HEIC/PNG in one packet")
    func keptWithTheFrame() async throws {
        let dir = try TempDir("xmpx-kept")
        defer { dir.remove() }
        let p = try await Self.portrait(dir)
        let jpeg = dir.file("out.jpg"), graded = dir.file("graded.jpg"), heic = dir.file("out.heic"),
            png = dir.file("out.png"), small = dir.file("small.jpg")
        let converted = try Conversion.convertBlocking(p.path, to: jpeg)
        #expect(converted.dropped.isEmpty && converted.kept.contains("xmp"), "\(converted)")
        var warm = EditRecipe.identity
        warm.adjustments.exposure = 0.4
        warm.adjustments.warmth = 0.3
        let edit = try Editor.saveBlocking(p.path, recipe: warm, to: graded, maxSize: (width: 320, height: 320))
        #expect(edit.dropped.isEmpty && edit.kept.contains("xmp") && edit.width == 320, "\(edit)")
        for out in [jpeg, graded] {
            let seen = try await Self.depthAndNote(out)
            #expect(seen.depth == p.depth, "\(out): depth \(seen.depth.count) B of \(p.depth.count)")
            #expect(seen.note == p.guid, "\(out): the main XMP names the same extension: \(seen.note)")
            let rating = try await Self.exiftool(["-s3", "-XMP-xmp:Rating", "-XMP-GDepth:Far", out]).stdout
            #expect(rating.split(separator: "\n") == ["4", "3.2"], "\(out): \(rating)")
        }
        _ = try Editor.saveBlocking(p.path, recipe: warm, to: small, maxSize: (width: 200, height: 200))
        #expect(try await Self.depthAndNote(small).depth == p.depth, "a smaller picture of the same frame keeps it")
        for out in [heic, png] { // XMP Part 3: outside JPEG the XMP is one packet; no note naming a split
            let r = try Conversion.convertBlocking(p.path, to: out, quality: 60)
            #expect(!r.dropped.map(\.name).contains("extended-xmp") && r.kept.contains("xmp"), "\(r)")
            let seen = try await Self.depthAndNote(out)
            #expect(seen.depth == p.depth && seen.note.isEmpty, "\(out): \(seen.depth.count) B, note '\(seen.note)'")
            let far = try await Self.exiftool(["-s3", "-XMP-GDepth:Far", "-XMP-xmp:Rating", out]).stdout
            #expect(far.split(separator: "\n") == ["3.2", "4"], "\(out): \(far)")
        }
    }

    @Test("a crop, a turn and a picture made upright drop it: listed, unnamed, its GDepth/GImage gone, the rest kept")
    func droppedWithTheFrame() async throws {
        let dir = try TempDir("xmpx-dropped")
        defer { dir.remove() }
        let p = try await Self.portrait(dir)
        let turned = try await Self.portrait(dir, photo: 1) // stored with orientation 6
        var crop = EditRecipe.identity
        crop.crop = EditRecipe.Crop(x: 0.1, y: 0.2, width: 0.6, height: 0.5)
        let cases: [(String, EditRecipe, String, String)] = [
            (p.path, crop, "crop.jpg", "crop"), (p.path, EditRecipe(quarterTurns: 1), "turn.jpg", "turn"),
            (p.path, EditRecipe(quarterTurns: 1), "turn.heic", "turn to HEIC"),
            (turned.path, .identity, "upright.jpg", "made upright"),
        ]
        for (source, recipe, name, what) in cases {
            let out = dir.file(name)
            let r = try Editor.saveBlocking(source, recipe: recipe, to: out, quality: 70)
            #expect(r.dropped.map(\.name).contains("extended-xmp") && r.kept.contains("xmp"), "\(what): \(r)")
            let seen = try await Self.depthAndNote(out)
            #expect(seen.depth.isEmpty && seen.note.isEmpty, "\(what): depth \(seen.depth.count) B, note '\(seen.note)'")
            let left = try await Self.exiftool(["-s", "-XMP-GDepth:all", "-XMP-GImage:all", out]).stdout
            #expect(left.isEmpty, "\(what): nothing describes a depth map that is not there: \(left)")
            #expect(try await Self.exiftool(["-s3", "-XMP-xmp:Rating", out]).stdout.hasPrefix("4"), "\(what)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
            #expect(bytes.range(of: Data("http://ns.adobe.com/xmp/extension/".utf8)) == nil, "\(what): no chunk left")
        }
    }

    @Test("an Ultra HDR portrait (the note in its hdrgm packet, which every save writes anew): dropped, listed once, unnamed")
    func ultraHDRSource() async throws {
        let dir = try TempDir("xmpx-ultrahdr")
        defer { dir.remove() }
        let hdr = try HDRSamplePhotos.write(width: 512, height: 384, to: dir.path)[0]
        let photos = try await Photos.small()
        let p = try await PortraitJPEG.make(photo: hdr, depth: photos[2], to: dir.file("portrait.jpg"), intoSourceXMP: true)
        let source = try await Self.depthAndNote(p.path)
        #expect(source.depth == p.depth && source.note == p.guid, "the fixture: \(source.depth.count) B, \(source.note)")
        let recipe = dir.file("warm.json")
        try Data(#"{"version":1,"adjustments":{"exposure":0.3}}"#.utf8).write(to: URL(fileURLWithPath: recipe))
        let runs: [(args: [String], out: String, map: Bool)] = [
            (["convert", "-o", dir.file("c.jpg")], dir.file("c.jpg"), true),
            (["convert", "-o", dir.file("c.heic")], dir.file("c.heic"), true),
            (["convert", "--allow-sdr", "-o", dir.file("c.png")], dir.file("c.png"), false),
            (["edit", "--recipe", recipe, "-o", dir.file("e.jpg")], dir.file("e.jpg"), true),
        ]
        for run in runs {
            let r = try await CLI.run(run.args + [p.path, "--json"])
            guard r.succeeded, let line = r.lastLine,
                  let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                Issue.record("\(run.args): \(r)")
                continue
            }
            let dropped = (json["dropped"] as? [[String: Any]] ?? []).filter { $0["name"] as? String == "extended-xmp" }
            let kept = json["kept"] as? [String] ?? []
            #expect(dropped.count == 1 && (dropped.first?["reason"] as? String)?.contains("Ultra HDR") == true,
                    "\(run.args): \(json["dropped"] ?? "nil")")
            #expect(kept.contains("hdr-gain-map") == run.map && kept.contains("xmp"), "\(run.args): \(kept)")
            // the rest of the source's packet goes on (it was once replaced whole by the new Ultra HDR or an empty packet)
            let rating = try await Self.exiftool(["-s3", "-XMP-xmp:Rating", "-XMP-hdrgm:Version", run.out]).stdout
            #expect(rating.split(separator: "\n") == (run.map && !run.out.hasSuffix("heic") ? ["4", "1.0"] : ["4"]),
                    "\(run.args): \(rating)")
            let seen = try await Self.depthAndNote(run.out)
            #expect(seen.depth.isEmpty && seen.note.isEmpty, "\(run.args): depth \(seen.depth.count) B, note '\(seen.note)'")
            let left = try await Self.exiftool(["-s", "-XMP-GDepth:all", "-XMP-GImage:all", run.out]).stdout
            #expect(left.isEmpty, "\(run.args): \(left)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: run.out))
            #expect(bytes.range(of: Data("http://ns.adobe.com/xmp/extension/".utf8)) == nil, "\(run.args): no chunk")
            #expect(bytes.range(of: Data(p.guid.utf8)) == nil, "\(run.args): the GUID is named nowhere")
        }
    }

    @Test("a Live pair's still: a colour edit keeps it; a cropped edit and a new key photo (a movie frame) drop it, listed")
    func liveStill() async throws {
        let dir = try TempDir("xmpx-live")
        defer { dir.remove() }
        let made = try await CLI.run(["sample-photos", "--live", "--count", "1", "--width", "320", "--height", "240",
                                      "-o", dir.file("pair")])
        #expect(made.succeeded, "\(made)")
        let still = dir.file("P.JPG"), movie = dir.file("P.MOV")
        let p = try await PortraitJPEG.make(photo: dir.file("pair/LIVE_0001.JPG"), depth: try await Photos.small()[2],
                                            to: still)
        try FileManager.default.copyItem(atPath: dir.file("pair/LIVE_0001.MOV"), toPath: movie)
        let warm = dir.file("warm.json"), crop = dir.file("crop.json")
        try Data(#"{"version":1,"adjustments":{"exposure":0.3}}"#.utf8).write(to: URL(fileURLWithPath: warm))
        try Data(#"{"version":1,"crop":{"x":0.1,"y":0.1,"width":0.6,"height":0.6}}"#.utf8)
            .write(to: URL(fileURLWithPath: crop))
        let runs: [(args: [String], kept: Bool)] = [
            (["live", "edit", "--recipe", warm], true), (["live", "edit", "--recipe", crop], false),
            (["live", "keyphoto", "--at", "0.5"], false),
        ]
        for (index, run) in runs.enumerated() {
            let r = try await CLI.run(run.args + ["-o", dir.file("out\(index)"), still, movie, "--json"], timeout: 300)
            guard r.succeeded, let line = r.lastLine,
                  let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let save = json["save"] as? [String: Any], let out = json["still"] as? String else {
                Issue.record("\(run.args): \(r)")
                continue
            }
            let names = (save["dropped"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            #expect(names.filter { $0 == "extended-xmp" }.count == (run.kept ? 0 : 1), "\(run.args): \(names)")
            let seen = try await Self.depthAndNote(out)
            if run.kept {
                #expect(seen.depth == p.depth && seen.note == p.guid, "\(run.args): \(seen.depth.count) B, \(seen.note)")
            } else {
                #expect(seen.depth.isEmpty && seen.note.isEmpty, "\(run.args): \(seen.depth.count) B, '\(seen.note)'")
                let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
                #expect(bytes.range(of: Data("http://ns.adobe.com/xmp/extension/".utf8)) == nil, "\(run.args)")
                #expect(bytes.range(of: Data(p.guid.utf8)) == nil, "\(run.args): the GUID is named nowhere")
            }
            #expect(try await Self.exiftool(["-s3", "-XMP-xmp:Rating", out]).stdout.hasPrefix("4"), "\(run.args)")
        }
    }

    @Test("an extension with a chunk missing is not carried half, and the note naming it goes")
    func damagedExtension() async throws {
        let dir = try TempDir("xmpx-damaged")
        defer { dir.remove() }
        let p = try await Self.portrait(dir, dropLastChunk: true)
        let out = dir.file("out.jpg")
        let r = try Conversion.convertBlocking(p.path, to: out)
        #expect(r.dropped.map(\.name) == ["extended-xmp"], "\(r.dropped)")
        let seen = try await Self.depthAndNote(out)
        #expect(seen.depth.isEmpty && seen.note.isEmpty, "depth \(seen.depth.count) B, note '\(seen.note)'")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(bytes.range(of: Data("http://ns.adobe.com/xmp/extension/".utf8)) == nil)
    }
}
