// Extended XMP (XMP Part 3: a JPEG's XMP past one APP1, in "http://ns.adobe.com/xmp/extension/" chunks named by
// the main packet's xmpNote:HasExtendedXMP) is where Google Camera keeps a portrait's depth map (GDepth:Data) and
// unblurred original (GImage:Data). It was never read: every save dropped it while the report said "xmp" kept,
// and the main packet still named it. Now it goes on while the frame is the source's (a conversion, colour edits:
// JPEG as chunks again, HEIC/PNG joined into the one packet) and is dropped, said so and unnamed once the frame
// changes (crop, turn, made upright). exiftool is the independent reader.
import Foundation
@testable import Shiying
import Testing

/// A Google Camera portrait's shape, built around a generated photo: the main XMP with GDepth Format/Near/Far/Mime,
/// GImage Mime, an xmp:Rating and xmpNote:HasExtendedXMP (the MD5 of the extension, as the spec says); the extension
/// with GDepth:Data (a depth JPEG) and GImage:Data (the original JPEG), in APP1 chunks of 65,400 bytes.
struct PortraitJPEG {
    let path: String
    let guid: String
    let depth: Data
    let chunks: Int

    static func make(photo: String, depth depthPath: String, to out: String, dropLastChunk: Bool = false) async throws
        -> PortraitJPEG {
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
        let main = "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
            + "<rdf:Description rdf:about=\"\" xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\" "
            + "xmlns:xmpNote=\"http://ns.adobe.com/xmp/note/\" xmlns:GDepth=\"http://ns.google.com/photos/1.0/depthmap/\" "
            + "xmlns:GImage=\"http://ns.google.com/photos/1.0/image/\" xmp:Rating=\"4\" xmpNote:HasExtendedXMP=\"\(guid)\" "
            + "GDepth:Format=\"RangeInverse\" GDepth:Near=\"0.61\" GDepth:Far=\"3.2\" GDepth:Mime=\"image/jpeg\" "
            + "GImage:Mime=\"image/jpeg\"/></rdf:RDF></x:xmpmeta>"
        var segments = segment(Data("http://ns.adobe.com/xap/1.0/\0".utf8) + Data(main.utf8))
        var offsets = Array(stride(from: 0, to: ext.count, by: 65_400))
        if dropLastChunk { offsets.removeLast() }
        for at in offsets {
            var header = Data("http://ns.adobe.com/xmp/extension/\0".utf8) + Data(guid.utf8)
            for word in [UInt32(ext.count), UInt32(at)] { withUnsafeBytes(of: word.bigEndian) { header.append(contentsOf: $0) } }
            segments += segment(header + ext[at..<min(at + 65_400, ext.count)])
        }
        // after the source's own APPn segments (its Exif APP1 stays first, as Exif asks)
        var at = 2
        while at + 4 <= source.count, source[at] == 0xFF, (0xE0...0xEF).contains(source[at + 1]) {
            at += 2 + Int(source[at + 2]) << 8 + Int(source[at + 3])
        }
        try (source[..<at] + segments + source[at...]).write(to: URL(fileURLWithPath: out))
        return PortraitJPEG(path: out, guid: guid, depth: depth, chunks: offsets.count)
    }

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
