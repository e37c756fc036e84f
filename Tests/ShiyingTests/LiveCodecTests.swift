// Found by a movie sweep (2026-12-06): a movie tagged 'hev1' (parameter sets in its samples) or in H.264 4:4:4 was
// copied into a Live movie as it was, and `live validate` passed it; Photos plays neither (live-photo.md pitfall 4).
// Now such a movie is re-encoded as HEVC 'hvc1' 4:2:0, and the validator refuses a pair that has one.
import Foundation
@testable import Shiying
import Testing

@Suite("Live movies are what Photos plays: hvc1 or avc1, 4:2:0",
       .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "ffmpeg/ffprobe are not installed"))
struct LiveCodecTests {
    static func tag(_ movie: String) async throws -> String {
        let run = try await runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                "stream=codec_tag_string,pix_fmt", "-of", "csv=p=0", movie])
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("video -> Live of an 'hev1' or an H.264 4:4:4 movie writes 'hvc1' 4:2:0; a pair whose movie says 'hev1' does not validate",
          arguments: [["-c:v", "libx265", "-x265-params", "log-level=error", "-tag:v", "hev1", "-pix_fmt", "yuv420p"],
                      ["-c:v", "libx264", "-pix_fmt", "yuv444p"]])
    func playableLiveMovies(_ codec: [String]) async throws {
        let dir = try TempDir("live-codec")
        defer { dir.remove() }
        let source = dir.file("clip.mov")
        let made = try await runTool("ffmpeg", ["-y", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=1"] + codec + [source])
        #expect(made.succeeded, "\(made)")
        let out = dir.file("live")
        let run = try await CLI.run(["live", "make", "--video", source, "-o", out])
        #expect(run.succeeded, "\(run)")
        let movie = out + "/clip_live.mov", still = out + "/clip_live.jpg"
        let tag = try await Self.tag(movie)
        #expect(tag == "hvc1,yuv420p", "\(tag)")
        #expect(try await CLI.run(["live", "validate", still, movie]).succeeded)
        // the same pair with its sample entry renamed 'hev1' (same bytes otherwise): refused
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: movie)))
        let hvc1 = Array("hvc1".utf8)
        let at = (0...(bytes.count - 4)).filter { Array(bytes[$0..<$0 + 4]) == hvc1 }
        try #require(at.count == 1, "one 'hvc1' sample entry: \(at.count)")
        bytes.replaceSubrange(at[0]..<at[0] + 4, with: Array("hev1".utf8))
        let retagged = out + "/retagged.mov"
        try Data(bytes).write(to: URL(fileURLWithPath: retagged))
        let refused = try await CLI.run(["live", "validate", still, retagged])
        #expect(!refused.succeeded && (refused.stdout + refused.stderr).contains("hev1"), "\(refused)")
    }
}
