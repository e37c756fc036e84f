// Unreadable inputs become neutral grey cells; no readable input fails — SPEC C12.
import Foundation
import Shiying
import Testing

/// Broken inputs made from real sample photos, one of each kind SPEC C12 must survive.
enum BrokenInputs {
    /// Copy of a JPEG whose SOF dimensions say 65535x65535.
    static func absurdSOF(from source: String, to path: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        var i = 2
        var patched = false
        while i + 9 < bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if (0xC0...0xC2).contains(marker) {
                for k in 5...8 { bytes[i + k] = 0xFF } // height, width = 65535
                patched = true
                break
            }
            i += 2 + length
        }
        guard patched else { throw TestFailure("no SOF marker in \(source)") }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// The first `fraction` of a file.
    static func truncated(from source: String, to path: String, fraction: Double) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: source))
        try data.prefix(Int(Double(data.count) * fraction)).write(to: URL(fileURLWithPath: path))
    }

    /// A valid PNG (made by ImageMagick from `source`), then one byte of its IHDR CRC flipped.
    static func badIHDRCRC(from source: String, to path: String) async throws {
        let make = try await runTool("convert", [source, "-resize", "64x48!", "PNG24:" + path])
        guard make.succeeded else { throw TestFailure("convert: \(make)") }
        _ = try ImageInfo.probe(path) // precondition: the intact PNG is readable
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard bytes.count > 33, bytes[12...15].elementsEqual("IHDR".utf8) else { throw TestFailure("no IHDR") }
        bytes[29] ^= 0xFF // CRC of IHDR is bytes 29..32
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}

@Suite("Grey cells and unreadable inputs")
struct GreyCellTests {
    // SPEC C12: a missing path, a zero-byte file, a text file, a truncated JPEG
    // (first 40%), a JPEG whose SOF says 65535x65535 and a PNG with a corrupted
    // IHDR CRC each become a neutral grey (128,128,128) cell; the rest exports.
    // Long layout gives inputs without a readable header a 4:3 slot; the
    // truncated JPEG keeps its real (header) aspect. Run through the CLI: exit 0,
    // no signal; grey_cells lists exactly those indices with reasons naming each file.
    @Test("broken inputs become exact grey cells, are reported by index and file, the good cells are right")
    func brokenInputsBecomeGrey() async throws {
        let photos = try await Photos.small()
        let dir = try TempDir("grey")
        defer { dir.remove() }
        let missing = dir.file("missing.jpg")
        let empty = dir.file("empty.jpg")
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        let text = dir.file("notes.jpg")
        try Data("just some text, not a photo\n".utf8).write(to: URL(fileURLWithPath: text))
        let truncated = dir.file("truncated.jpg")
        try BrokenInputs.truncated(from: photos[2], to: truncated, fraction: 0.4)
        let absurd = dir.file("absurd.jpg")
        try BrokenInputs.absurdSOF(from: photos[3], to: absurd)
        let badPNG = dir.file("badcrc.png")
        try await BrokenInputs.badIHDRCRC(from: photos[4], to: badPNG)

        let inputs = [photos[0], missing, empty, photos[1], text, truncated, absurd, badPNG, photos[5]]
        let greyIndices = [1, 2, 4, 5, 6, 7]
        let sizes: [(w: Int, h: Int)?] = [(640, 480), nil, nil, (480, 640), nil, (640, 480), nil, nil, (640, 480)]
        let width = 540
        let rects = ExpectedLayout.long(sizes, width: width, even: false)
        let out = dir.file("out.png")
        let (run, json) = try await CLI.collage(["--layout", "long", "--width", "\(width)", "--format", "png", "-o", out] + inputs)
        #expect(!run.signaled && !run.timedOut, "the CLI crashed or hung: \(run)")
        #expect(run.status == 0, "\(run)")
        let report = try #require(json, "no JSON report: \(run)")
        #expect(report.cells == inputs.count)
        #expect(report.greyCells == greyIndices, "grey cells \(report.greyCells), reasons \(report.greyReasons)")
        #expect(report.greyReasons.count == report.greyCells.count)
        for (index, reason) in zip(report.greyCells, report.greyReasons) where index < inputs.count {
            #expect(reason.contains(inputs[index]), "reason for input \(index) does not name \(inputs[index]): \(reason)")
        }
        if let r = zip(report.greyCells, report.greyReasons).first(where: { $0.0 == 5 })?.1 {
            #expect(r.lowercased().contains("truncated"), "truncated JPEG reason: \(r)")
        }
        for index in greyIndices {
            #expect(run.stderr.contains("input \(index) painted grey"), "stderr does not mention input \(index): \(run.stderr)")
        }
        let expectedHeight = rects.reduce(0) { $0 + $1.height }
        #expect(report.width == width && report.height == expectedHeight, "\(report.width)x\(report.height)")
        let im = try await Magick.size(out)
        #expect(im.width == width && im.height == expectedHeight)

        for index in greyIndices {
            try await expectExactColour(out, rects[index], (128, 128, 128), "grey cell \(index) (\(inputs[index]))")
        }
        let good = [0, 3, 8].map { (index: $0, source: inputs[$0], rect: rects[$0]) }
        try await expectCellsMatch(output: out, cells: good, tolerance: 4) { r in
            ["-auto-orient", "-resize", "\(r.width)x\(r.height)!"]
        }
    }

    // SPEC C12 through the facade: CollageReport.greyCells carries index and reason.
    @Test("Collage.render reports a missing photo as a grey cell with its path")
    func facadeReportsGreyCell() async throws {
        let photos = try await Photos.small()
        let dir = try TempDir("greyapi")
        defer { dir.remove() }
        let missing = dir.file("gone.jpg")
        var request = CollageRequest(layout: .long, inputs: [photos[0], missing], output: dir.file("o.png"))
        request.width = 320
        request.format = .png
        let report = try await Collage.render(request)
        #expect(report.greyCells.map(\.index) == [1])
        #expect(report.greyCells.first?.reason.contains(missing) == true, "\(report.greyCells)")
        #expect(report.height == 240 + 240)
        try await expectExactColour(request.output, Rect(x: 0, y: 240, width: 320, height: 240), (128, 128, 128), "grey cell")
    }

    // SPEC C12: none readable → the export fails: exit status 1, a message naming
    // the problem, no output file, no temporary file, and a file already at the
    // output path stays byte-identical.
    @Test("no readable input: exit 1, clear message, nothing written, existing output untouched")
    func noReadableInputFails() async throws {
        let dir = try TempDir("none")
        defer { dir.remove() }
        let empty = dir.file("empty.jpg")
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        let text = dir.file("text.png")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: text))
        let missing = dir.file("missing.jpg")

        // 1. No output file before: none after.
        let out = dir.file("out.jpg")
        let (run, json) = try await CLI.collage(["--layout", "long", "-o", out, missing, empty, text])
        #expect(run.exitedNormally, "\(run)")
        #expect(run.status == 1, "\(run)")
        #expect(json == nil, "a success report was printed: \(run.stdout)")
        #expect(run.stderr.contains("none of the 3 inputs is readable"), "stderr: \(run.stderr)")
        #expect(run.stderr.contains(missing), "stderr should name the first unreadable file: \(run.stderr)")
        #expect(run.stdout.contains("\"code\":\"invalid input\""), "JSON error line: \(run.stdout)")
        #expect(!FileManager.default.fileExists(atPath: out))

        // 2. An existing file at the output path is left byte-identical (grid and PNG too).
        let existing = dir.file("existing.png")
        let original = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try original.write(to: URL(fileURLWithPath: existing))
        let (run2, _) = try await CLI.collage(["--layout", "grid", "--format", "png", "-o", existing, missing, empty, text])
        #expect(run2.exitedNormally && run2.status == 1, "\(run2)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == original, "existing output was modified")
        let left = dir.contents().filter { $0.contains(".tmp-") }
        #expect(left.isEmpty, "temporary files left behind: \(left)")
        #expect(Set(dir.contents()) == ["empty.jpg", "text.png", "existing.png"], "\(dir.contents())")
    }

    // SPEC C12: "none readable" also covers inputs whose header reads fine but
    // whose pixels do not decode (every input truncated): the export must fail,
    // not deliver an all-grey image, and an existing output file is kept.
    @Test("inputs that probe fine but none decodes: exit 1, nothing written")
    func noDecodableInputFails() async throws {
        let photos = try await Photos.small()
        let dir = try TempDir("nodecode")
        defer { dir.remove() }
        let a = dir.file("a.jpg"), b = dir.file("b.jpg")
        try BrokenInputs.truncated(from: photos[0], to: a, fraction: 0.4)
        try BrokenInputs.truncated(from: photos[1], to: b, fraction: 0.3)
        _ = try ImageInfo.probe(a) // precondition: the header is readable
        let out = dir.file("out.jpg")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: out))
        let (run, _) = try await CLI.collage(["--layout", "long", "--width", "320", "-o", out, a, b])
        #expect(run.exitedNormally, "\(run)")
        #expect(run.status == 1, "an all-grey collage was delivered: \(run)")
        #expect(run.stderr.contains(a) || run.stderr.contains(b), "stderr should name a file: \(run.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "keep me", "existing output was replaced")
        #expect(dir.contents().filter { $0.contains(".tmp-") }.isEmpty, "\(dir.contents())")
    }
}
