// SPEC C4 end to end through the facade and the CLI: a pair that fails
// verification is delivered as a plain still (no identifier for exiftool,
// identical pixels) and its movie is deleted; an identifier that cannot be
// removed is an error that leaves no still and no movie. Plus the `shiying
// live` commands' JSON (make, validate incl. timeout, strip, frame, edit + E1).
import Foundation
import Shiying
import Testing

enum LiveMovies {
    static var toolsPresent: Bool {
        ["ffmpeg", "exiftool", "convert"].allSatisfy { FileManager.default.isExecutableFile(atPath: "/usr/bin/\($0)") }
            && Paths.corpusAvailable
    }

    /// 1.2 s of 480x360 HEVC with AAC: a pan across the corpus camera photo.
    static func source() async throws -> String {
        let dir = try await FixtureCache.shared.dir("live-pan-480") { scratch in
            let photo = Paths.corpus.appendingPathComponent("real/samsung_camera.jpeg").path
            let r = try await runTool("ffmpeg", ["-v", "error", "-y", "-loop", "1", "-framerate", "30", "-i", photo,
                                                 "-f", "lavfi", "-i", "sine=frequency=330:duration=1.2",
                                                 "-vf", "scale=960:-2,crop=480:360:x='100+t*60':y=120", "-t", "1.2",
                                                 "-c:v", "libx265", "-x265-params", "log-level=error", "-tag:v", "hvc1",
                                                 "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", scratch + "/pan.mov"])
            guard r.status == 0 else { throw TestFailure("ffmpeg: \(r.stderr)") }
        }
        return dir + "/pan.mov"
    }
}

/// Runs blocking engine work on a thread of its own, keeping the 2-thread
/// cooperative pool free for the timing-sensitive verifier tests.
func liveOffPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { c in Thread.detachNewThread { c.resume(with: Result { try work() }) } }
}

func liveExiftoolStill(_ path: String) async throws -> String {
    try await runTool("exiftool", ["-s3", "-Apple:ContentIdentifier", "-Apple:MediaGroupUUID", path]).stdout
        .trimmingCharacters(in: .whitespacesAndNewlines)
}

func liveWholeImage(_ path: String) async throws -> [UInt8] {
    let size = try await Magick.size(path)
    return try await Magick.pixels(path, Rect(x: 0, y: 0, width: size.width, height: size.height))
}

func liveJSON(_ line: String) throws -> [String: Any] {
    guard let last = line.split(separator: "\n").last,
          let object = try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any] else {
        throw TestFailure("not a JSON line: \(line)")
    }
    return object
}

@Suite("Live delivery and CLI (SPEC C3, C4, C8, E1, E2, S3)", .enabled(if: LiveMovies.toolsPresent, "ffmpeg/exiftool/convert or corpus missing"))
struct LiveDeliveryTests {
    @Test("C4: a failing pair → plain still with identical pixels and no identifier; the movie is deleted")
    func fallback() async throws {
        let src = try await LiveMovies.source()
        let dir = try TempDir("live-fallback")
        defer { dir.remove() }
        let a = try await liveOffPool { try LivePhoto.saveBlocking(movie: src, stillOut: dir.file("a.jpg"), movieOut: dir.file("a.mov")) }
        let b = try await liveOffPool { try LivePhoto.saveBlocking(movie: src, stillOut: dir.file("b.jpg"), movieOut: dir.file("b.mov")) }
        #expect(a.live && b.live && a.contentIdentifier != b.contentIdentifier)
        let verifier = LiveVerifier(clock: LiveTestClock(), deadline: LiveVerifier<ContinuousClock>.collageDeadline)
        let good = try await LivePhoto.deliver(still: dir.file("a.jpg"), movie: dir.file("a.mov"), plainStill: dir.file("a-plain.jpg"),
                                               verifier: verifier, failedMovie: .delete)
        let aID = try #require(a.contentIdentifier)
        #expect(good == .live(still: dir.file("a.jpg"), movie: dir.file("a.mov"), contentIdentifier: aID))
        // a caller's own movie stays unless it asks for C4's deletion
        let kept = try await LivePhoto.deliver(still: dir.file("a.jpg"), movie: dir.file("b.mov"), plainStill: dir.file("kept.jpg"),
                                               verifier: verifier, failedMovie: .keep)
        guard case .still = kept else { throw TestFailure("expected a still, got \(kept)") }
        #expect(FileManager.default.fileExists(atPath: dir.file("b.mov")), "a movie the caller keeps must stay")
        let bad = try await LivePhoto.deliver(still: dir.file("a.jpg"), movie: dir.file("b.mov"), plainStill: dir.file("plain.jpg"),
                                              verifier: verifier, failedMovie: .delete)
        guard case let .still(path, failure, reason) = bad else { throw TestFailure("expected a still, got \(bad)") }
        #expect(path == dir.file("plain.jpg") && failure == .mismatch && reason?.contains("content identifiers differ") == true)
        #expect(!FileManager.default.fileExists(atPath: dir.file("b.mov")), "the movie of a failing pair must be gone")
        #expect(try await liveExiftoolStill(dir.file("plain.jpg")) == "")
        #expect(try LivePhoto.stillIdentifier(dir.file("plain.jpg")) == nil)
        let before = try await liveWholeImage(dir.file("a.jpg")), after = try await liveWholeImage(dir.file("plain.jpg"))
        #expect(before == after, "pixels changed")
    }

    @Test("C4: an identifier that cannot be removed → error; no plain still, no movie")
    func unremovable() async throws {
        let src = try await LiveMovies.source()
        let dir = try TempDir("live-refuse")
        defer { dir.remove() }
        let a = try await liveOffPool { try LivePhoto.saveBlocking(movie: src, stillOut: dir.file("a.jpg"), movieOut: dir.file("a.mov")) }
        let id = try #require(a.contentIdentifier)
        // the identifier also sits in a JPEG comment: the rewrite cannot make it disappear
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.file("a.jpg"))))
        let text = Array("paired with \(id)".utf8)
        bytes.insert(contentsOf: [0xFF, 0xFE, UInt8((text.count + 2) >> 8), UInt8((text.count + 2) & 0xFF)] + text, at: 2)
        try Data(bytes).write(to: URL(fileURLWithPath: dir.file("tagged.jpg")))
        try FileManager.default.removeItem(atPath: dir.file("a.jpg"))
        // a movie with another identifier: the pair fails
        _ = try await liveOffPool { try LivePhoto.saveBlocking(movie: src, stillOut: dir.file("other.jpg"), movieOut: dir.file("other.mov")) }
        try FileManager.default.removeItem(atPath: dir.file("other.jpg"))
        let verifier = LiveVerifier(clock: LiveTestClock(), deadline: .seconds(45))
        await #expect(throws: ShiyingError.self) {
            _ = try await LivePhoto.deliver(still: dir.file("tagged.jpg"), movie: dir.file("other.mov"),
                                            plainStill: dir.file("plain.jpg"), verifier: verifier, failedMovie: .delete)
        }
        #expect(dir.contents() == ["a.mov", "tagged.jpg"], "left behind: \(dir.contents())")
    }

    @Test("CLI: live make → validate → strip → frame; edit with a border → still only")
    func cli() async throws {
        let src = try await LiveMovies.source()
        let dir = try TempDir("live-cli")
        defer { dir.remove() }
        let made = try await CLI.run(["live", "make", "--video", src, "--at", "0.6", "-o", dir.path, "--json"])
        #expect(made.status == 0, "\(made)")
        let m = try liveJSON(made.stdout)
        #expect(m["result"] as? String == "live")
        let still = try #require(m["still"] as? String), movie = try #require(m["movie"] as? String)
        let id = try #require(m["content_identifier"] as? String)
        #expect(try await liveExiftoolStill(still) == id)
        let keys = try await runTool("exiftool", ["-s3", "-Keys:ContentIdentifier", movie]).stdout
        #expect(keys.trimmingCharacters(in: .whitespacesAndNewlines) == id)

        let ok = try await CLI.run(["live", "validate", still, movie, "--json"])
        let v = try liveJSON(ok.stdout)
        #expect(ok.status == 0 && v["result"] as? String == "ok" && v["content_identifier"] as? String == id, "\(ok)")
        #expect(abs((v["still_time"] as? Double ?? -1) - 0.6) < 0.001)

        let real = Paths.corpus.appendingPathComponent("real").path
        let crossed = try await CLI.run(["live", "validate", still, real + "/iphone15plus_IMG_3853.MOV", "--json"])
        let c = try liveJSON(crossed.stdout)
        #expect(crossed.status == 1 && c["result"] as? String == "mismatch" && c["content_identifier"] as? String == id)
        #expect((c["reason"] as? String)?.hasPrefix("content identifiers differ") == true)
        #expect(c["title"] as? String == LiveFailure.mismatch.title && c["message"] as? String == LiveFailure.mismatch.message)

        let stripped = try await CLI.run(["live", "strip", still, "-o", dir.file("plain.jpg"), "--json"])
        let s = try liveJSON(stripped.stdout)
        #expect(stripped.status == 0 && s["removed_identifier"] as? Bool == true)
        #expect(try await liveExiftoolStill(dir.file("plain.jpg")) == "")

        let frame = try await CLI.run(["live", "frame", still, movie, "--at", "0.3", "-o", dir.file("frame.jpg"), "--json"])
        let f = try liveJSON(frame.stdout)
        #expect(frame.status == 0 && f["frame"] as? Int == 9 && f["width"] as? Int == 480, "\(frame)")
        #expect(try await liveExiftoolStill(dir.file("frame.jpg")) == "", "a frame saved as a photo is a plain photo")

        // "set as key photo" (E2): the still-image time moves, the still is re-rendered, a new pair verifies
        let key = try await CLI.run(["live", "keyphoto", still, movie, "--at", "0.9", "-o", dir.file("key"), "--json"])
        let k = try liveJSON(key.stdout)
        #expect(key.status == 0 && k["result"] as? String == "live", "\(key)")
        let keySave = try #require(k["save"] as? [String: Any])
        #expect(abs((keySave["still_time"] as? Double ?? -1) - 0.9) < 0.001 && keySave["still_frame"] as? Int == 27)
        #expect(k["content_identifier"] as? String != id)

        try Data(#"{"version":1,"border":{"width":0.05}}"#.utf8).write(to: URL(fileURLWithPath: dir.file("border.json")))
        let framed = try await CLI.run(["live", "edit", still, movie, "--recipe", dir.file("border.json"), "-o", dir.file("out"), "--json"])
        let e = try liveJSON(framed.stdout)
        #expect(framed.status == 0 && e["result"] as? String == "still" && e["movie"] == nil, "\(framed)")
        let outputs = try FileManager.default.contentsOfDirectory(atPath: dir.file("out"))
        #expect(outputs.count == 1 && outputs.allSatisfy { !$0.hasSuffix(".mov") }, "\(outputs)")
    }

    @Test("CLI: validate with a deadline shorter than the check → timeout with the SPEC C8 texts")
    func cliTimeout() async throws {
        let real = Paths.corpus.appendingPathComponent("real").path
        let r = try await CLI.run(["live", "validate", real + "/iphone15plus_IMG_3853.HEIC", real + "/iphone15plus_IMG_3853.MOV",
                                   "--timeout", "0.001", "--json"])
        let t = try liveJSON(r.stdout)
        #expect(r.status == 1 && t["result"] as? String == "timeout", "\(r)")
        #expect(t["title"] as? String == "这次没能生成实况" && t["message"] as? String == "实况准备超时了，稍后再试。")
    }
}
