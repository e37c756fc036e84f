// The API edge (issue 24): request values are refused instead of being
// ignored, and only file URLs are accepted.
import Foundation
import Shiying
import ShiyingFixtures
import Testing

@Suite("API edge: validation and URLs")
struct APIEdgeTests {
    @Test("a collage background that is not three bytes, or an out-of-range value, is refused naming the field")
    func collageRequestValidates() async throws {
        var request = CollageRequest(layout: .grid, inputs: ["a.jpg"], output: "/tmp/never-written.jpg")
        request.background = [10, 20]
        #expect { try request.validate() } throws: {
            ($0 as? ShiyingError)?.code == .usage && "\($0)".contains("background has 2 values")
        }
        // the render refuses it before touching any file
        await #expect { _ = try await Collage.render(request) } throws: { ($0 as? ShiyingError)?.code == .usage }
        request.background = [10, 20, 30]
        request.quality = 0
        #expect { try request.validate() } throws: { "\($0)".contains("quality 0 is outside 1...100") }
        request.quality = 90
        try request.validate()
    }

    @Test("a URL that is not a file URL is refused, naming it")
    func fileURLsOnly() async throws {
        let web = try #require(URL(string: "https://example.com/a.jpg"))
        #expect { _ = try CollageRequest(layout: .long, inputs: [web], output: URL(fileURLWithPath: "/tmp/x.jpg")) }
            throws: { ($0 as? ShiyingError)?.code == .usage && "\($0)".contains("https://example.com/a.jpg") }
        await #expect {
            _ = try await VideoTranscode.run(URL(fileURLWithPath: "/tmp/in.mov"), to: web)
        } throws: { ($0 as? ShiyingError)?.code == .usage && "\($0)".contains("output must be a file URL") }
    }

    @Test("ShiyingProgress clamps its fraction into 0...1")
    func progressClamps() {
        #expect(ShiyingProgress(fraction: 1.5, phase: "x").fraction == 1)
        #expect(ShiyingProgress(fraction: -0.2, phase: "x").fraction == 0)
        #expect(ShiyingProgress(fraction: .nan, phase: "x").fraction == 0)
        #expect(ShiyingProgress(fraction: 0.25, phase: "rows", phaseDone: 3, phaseTotal: 12).description == "rows 3/12 (25%)")
    }

    @Test("URL forms: probing many files names the bad one and keeps going; a session and a render refuse a web URL")
    func urlForms() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("api-edge-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = URL(fileURLWithPath: try SamplePhotos.write(count: 1, seed: 24, width: 320, height: 240, to: dir.path)[0])
        let missing = dir.appendingPathComponent("missing.jpg")
        let infos = try await ImageInfo.probe([photo, missing])
        #expect(try infos[0].get() == ImageInfo.probe(photo))
        #expect(try infos[0].get().width == 320)
        guard case .failure(let error) = infos[1] else { Issue.record("a missing file probed"); return }
        #expect(error.message.contains("missing.jpg"))
        let web = URL(string: "https://example.com/a.jpg")!
        #expect { _ = try EditSession(web) } throws: { ($0 as? ShiyingError)?.code == .usage }
        #expect { _ = try Editor.render(web, recipe: .identity) } throws: { "\($0)".contains("https://example.com/a.jpg") }
        let session = try EditSession(photo, maxSize: (width: 160, height: 120))
        #expect(session.inputURL.standardizedFileURL == photo.standardizedFileURL)
        #expect(try session.render(.identity) == Editor.render(photo, recipe: .identity, maxSize: (width: 160, height: 120)))
    }
}
