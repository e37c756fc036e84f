// Hostile and real-world files from ../shared/corpus — SPEC C12 (an unreadable
// photo is a grey cell, never a crash), corpus/README.md expectations.
import Foundation
import Shiying
import Testing

@Suite("Shared corpus", .enabled(if: Paths.corpusAvailable, "../shared/corpus is not present next to the package"))
struct CorpusTests {
    static func files(_ folder: String, extensions: Set<String>? = nil) -> [String] {
        let dir = Paths.corpus.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.sorted()
            .filter { !$0.hasPrefix(".") }
            .filter { extensions == nil || extensions!.contains(($0 as NSString).pathExtension.lowercased()) }
            .map { dir.appendingPathComponent($0).path }
    }

    // SPEC C12 over the libheif fuzz corpus: every hostile file, 40 per run plus one
    // good photo, in a long PNG: exit 0 (the good photo is readable), no signal, no
    // hang (120 s per run); every hostile index is either listed grey (with a reason
    // naming it) or decoded; the good photo is never grey; identify accepts the output.
    @Test("hostile corpus: grey or decoded, never a crash or hang", .timeLimit(.minutes(10)))
    func hostileCorpus() async throws {
        let hostile = Self.files("hostile")
        #expect(hostile.count >= 100, "hostile corpus has only \(hostile.count) files")
        let good = try await Photos.small()[0]
        let dir = try TempDir("hostile")
        defer { dir.remove() }
        var decoded: [String] = [], grey = 0
        let batches = stride(from: 0, to: hostile.count, by: 40).map { Array(hostile[$0..<min($0 + 40, hostile.count)]) }
        for (b, batch) in batches.enumerated() {
            let out = dir.file("batch\(b).png")
            let inputs = batch + [good]
            let (run, json) = try await CLI.collage(["--layout", "long", "--width", "256", "--format", "png", "-o", out] + inputs,
                                                    timeout: 120)
            #expect(!run.timedOut, "batch \(b) hung (killed after 120 s): \(batch)")
            #expect(!run.signaled, "batch \(b) crashed with signal \(run.status): \(run)")
            #expect(run.status == 0, "batch \(b): \(run)")
            guard let report = json else {
                Issue.record("batch \(b): no JSON report: \(run)")
                continue
            }
            #expect(report.cells == inputs.count)
            #expect(!report.greyCells.contains(batch.count), "the good photo was painted grey: \(report.greyReasons)")
            #expect(report.greyCells.allSatisfy { (0..<batch.count).contains($0) }, "\(report.greyCells)")
            #expect(Set(report.greyCells).count == report.greyCells.count, "duplicate grey indices \(report.greyCells)")
            for (index, reason) in zip(report.greyCells, report.greyReasons) where index < batch.count {
                let name = (batch[index] as NSString).lastPathComponent
                #expect(reason.contains(name), "reason for \(name) does not name it: \(reason)")
                #expect(!reason.contains("\u{FFFD}"), "reason for \(name) has garbage bytes: \(reason)")
            }
            grey += report.greyCells.count
            decoded += batch.indices.filter { !report.greyCells.contains($0) }.map { (batch[$0] as NSString).lastPathComponent }
            let im = try await Magick.size(out)
            #expect(im.width == report.width && im.height == report.height, "identify: \(im.width)x\(im.height)")
            try? FileManager.default.removeItem(atPath: out)
        }
        #expect(grey + decoded.count == hostile.count)
        print("hostile corpus: \(hostile.count) files, \(grey) grey, \(decoded.count) decoded: \(decoded.joined(separator: ", "))")
    }

    // corpus/README: every real JPEG is read with the right size and orientation
    // (checked against identify and its EXIF orientation); samsung_camera.jpeg is 4032x3024.
    @Test("probe: real and gain-map JPEGs report identify's size and orientation")
    func probeRealJPEGs() async throws {
        let jpegs = Self.files("real", extensions: ["jpg", "jpeg"]) + Self.files("gainmap", extensions: ["jpg"])
        #expect(jpegs.count >= 4, "\(jpegs)")
        for path in jpegs {
            let run = try await CLI.run(["probe", "--json", path], timeout: 60)
            #expect(run.succeeded, "\(path): \(run)")
            guard let line = run.lastLine, let info = try? ProbeJSON.parse(line) else {
                Issue.record("\(path): no probe JSON: \(run)")
                continue
            }
            let im = try await runTool("identify", ["-format", "%w %h %[EXIF:Orientation]", path + "[0]"])
            let v = im.stdout.split(separator: " ").compactMap { Int($0) }
            let stored = (w: v.first ?? -1, h: v.count > 1 ? v[1] : -1)
            let orientation = v.count > 2 ? v[2] : 1
            #expect(info.format == "jpeg", "\(path): \(info)")
            #expect(info.storedWidth == stored.w && info.storedHeight == stored.h,
                    "\(path): probe stored \(info.storedWidth)x\(info.storedHeight), identify \(stored.w)x\(stored.h)")
            #expect(info.orientation == orientation, "\(path): orientation \(info.orientation), EXIF \(orientation)")
            let turned = orientation >= 5
            #expect(info.width == (turned ? stored.h : stored.w) && info.height == (turned ? stored.w : stored.h),
                    "\(path): upright \(info.width)x\(info.height)")
            if path.hasSuffix("samsung_camera.jpeg") {
                #expect(info.width == 4032 && info.height == 3024, "samsung_camera.jpeg: \(info.width)x\(info.height)")
            }
        }
    }

    // corpus/README: HEICs either probe fine (a plausible size, agreeing with
    // heif-info where it can read the file) or fail with a clear message that names
    // the file. Debian 12's libheif 1.15 cannot open iphone15plus_IMG_3853.HEIC —
    // expected here; its message must still name the file and be readable text.
    @Test("probe: real HEICs probe fine or fail with a clear message naming the file")
    func probeRealHEICs() async throws {
        let heics = Self.files("real", extensions: ["heic"])
        #expect(heics.count >= 2, "\(heics)")
        for path in heics {
            let name = (path as NSString).lastPathComponent
            let run = try await CLI.run(["probe", "--json", path], timeout: 60)
            #expect(run.exitedNormally, "\(name): \(run)")
            if run.status == 0 {
                let info = try #require(run.lastLine.flatMap { try? ProbeJSON.parse($0) }, "\(name): \(run)")
                #expect(info.format == "heif" && info.width > 0 && info.height > 0, "\(name): \(info)")
                if name == "iphoneSE2_grid.heic" {
                    #expect(info.width == 4032 && info.height == 3024, "\(name): \(info.width)x\(info.height)")
                }
            } else {
                #expect(run.status == 1, "\(name): \(run)")
                let message = run.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(message.contains(name), "\(name): the error does not name the file: \(message)")
                #expect(!message.contains("\u{FFFD}") && message.unicodeScalars.allSatisfy { $0.value >= 0x20 || $0 == "\n" },
                        "\(name): the error has garbage bytes: \(message.debugDescription)")
                #expect(message.count > name.count + 12, "\(name): the error gives no reason: \(message)")
            }
            if name == "iphone15plus_IMG_3853.HEIC" && run.status != 0 {
                #expect(run.stderr.contains("libheif"), "\(name): \(run.stderr)")
            }
        }
    }

    // corpus/README and a user-level sweep (2026-12-05): a truncated copy of a real photo reads its header
    // fine, so `probe` said 4032x3024 for the first 4,000 bytes of a HEIC. The whole-file probe walks a
    // JPEG to its end marker and checks a HEIF's tiles lie in the file: every real photo passes, and its
    // first half fails naming where it ends (the header-only probe still reads that half).
    @Test("probe: a truncated copy of every real photo is refused; the photo itself passes")
    func probeTruncatedCopies() throws {
        let stills = Self.files("real", extensions: ["jpg", "jpeg", "heic"]) + Self.files("gainmap", extensions: ["jpg"])
        #expect(stills.count >= 6, "\(stills)")
        let dir = try TempDir("truncated")
        defer { dir.remove() }
        for path in stills {
            let name = (path as NSString).lastPathComponent
            _ = try ImageInfo.probe(path, whole: true)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let half = dir.file("half-" + name)
            try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: half))
            #expect(throws: ShiyingError.self, "\(name): its first half probes as whole") {
                _ = try ImageInfo.probe(half, whole: true)
            }
            do {
                _ = try ImageInfo.probe(half, whole: true)
            } catch let error as ShiyingError {
                #expect(error.message.contains("truncated") || error.message.contains("outside its file"), "\(name): \(error.message)")
            }
        }
    }
}
