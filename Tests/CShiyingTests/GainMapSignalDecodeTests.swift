// The gain map of an HDR-signal photo (kind hdr-signal: a PQ / HLG HEIF, AVIF or PNG) is decoded from what its
// probe said. Before, sy_gainmap_decode probed the file a second time (sy_image_probe: our HEIF reader, or
// libheif for an AVIF) only to learn its container, which the probe had already read; now the probe records it
// (sy_gainmap_info.base_format) and the decode goes by it. Proof: the public decode allocates exactly what the
// signal decode it dispatches to does (a second probe's allocations are the difference on the old code), and an
// HDR AVIF's map comes out at the size the probe announced. Fixtures: scripts/hdr_still.py at 64x48.
import CShiying
import CShiyingInternal
import Foundation
import Testing

private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
private let canMake = ExternalTools.installed("python3", "ffmpeg")
    && (try? ExternalTools.run("python3", ["-c", "import numpy"]))?.status == 0

@Suite("HDR-signal gain maps decode from their probe", .enabled(if: canMake, "python3 with numpy and ffmpeg needed"))
struct GainMapSignalDecodeTests {
    /// A 64x48 HDR still (`hdr_still.py [avif] OUT pq|hlg --size 64x48`).
    static func still(_ dir: String, _ name: String, _ args: [String]) throws -> String {
        let out = (dir as NSString).appendingPathComponent(name)
        let script = packageRoot.appendingPathComponent("scripts/hdr_still.py").path
        let avif = name.hasSuffix(".avif")
        _ = try ExternalTools.check("python3", [script] + (avif ? ["avif"] : []) + [out] + args + ["--size", "64x48"])
        return out
    }

    @Test("sy_gainmap_decode adds nothing to the signal decode: no second probe",
          arguments: [("still.heic", ["hlg"]), ("still.avif", ["pq", "--peak", "4000"])])
    func noSecondProbe(_ name: String, _ args: [String]) throws {
        if name.hasSuffix(".avif") {
            let encoders = try ExternalTools.check("ffmpeg", ["-hide_banner", "-encoders"])
            guard encoders.contains("libaom-av1") else { return }
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shiying-signal-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Self.still(dir, name, args)
        let ctx = try Context()
        var err = sy_error()
        var info = sy_gainmap_info()
        #expect(sy_gainmap_probe(ctx.raw, path, &info, &err) == SY_OK, "\(message(err))")
        let detail = withUnsafeBytes(of: info.detail) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        #expect(info.kind == SY_GAINMAP_HDR_SIGNAL && info.map_width == 16 && info.map_height == 12, "\(detail)")
        let threads: UInt32 = ProcessInfo.processInfo.activeProcessorCount > 1 ? 2 : 1

        func allocations(_ decode: (inout sy_gainmap_image) -> sy_status) -> (UInt64, [UInt8]) {
            var img = sy_gainmap_image()
            sy_context_reset_peak(ctx.raw)
            let st = decode(&img)
            var stats = sy_memory_stats()
            sy_context_memory_stats(ctx.raw, &stats)
            #expect(st == SY_OK && img.width == 16 && img.height == 12, "\(st) \(message(err))")
            let codes = img.pixels.map { Array(UnsafeBufferPointer(start: $0, count: Int(img.stride * Int(img.height)))) } ?? []
            sy_gainmap_image_free(ctx.raw, &img)
            return (stats.allocations, codes)
        }
        let (direct, expected) = allocations { sy__gainmap_decode_signal(ctx.raw, path, &info, 1, threads, &$0, &err) }
        let (made, codes) = allocations { sy_gainmap_decode(ctx.raw, path, &info, &$0, &err) }
        #expect(made == direct, "sy_gainmap_decode made \(made) allocations, the signal decode alone \(direct)")
        #expect(codes == expected && Set(codes).count > 3, "the same map, not a flat one: \(codes.prefix(16))")
    }
}

// The map derived from a tiled HDR HEIF (a camera's HLG still in 512x512 tiles) keeps one libavcodec context per
// worker from tile to tile, as a stored gain map's grid and the main image do: before, every tile opened its own.
// The map is the same bytes on one worker and on two. (The budget rule is the stored map's, sy__gainmap_tile_decodes_in_budget:
// GainMapTileDecodeTests.tightBudgetDecodesFreshPerTile.)
@Suite("HDR-signal gain maps decode their tiles on warm decoders", .enabled(if: canMake, "python3 with numpy and ffmpeg needed"))
struct GainMapSignalWarmTests {
    @Test("a 4x3-tile HLG still: one context per worker, the same map on one worker and on two")
    func warmTiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shiying-signal-warm-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = (dir as NSString).appendingPathComponent("tiled.heic")
        let script = packageRoot.appendingPathComponent("scripts/hdr_still.py").path
        _ = try ExternalTools.check("python3", [script, out, "hlg", "--tile", "64", "--size", "240x176"])

        func decode(threads: UInt32) throws -> (codes: [UInt8], opens: UInt64) {
            let ctx = try Context()
            var err = sy_error()
            var info = sy_gainmap_info()
            try #require(sy_gainmap_probe(ctx.raw, out, &info, &err) == SY_OK, "\(message(err))")
            var img = sy_gainmap_image()
            let before = sy__codec_opens(ctx.raw)
            try #require(sy__gainmap_decode_signal(ctx.raw, out, &info, 1, threads, &img, &err) == SY_OK, "\(message(err))")
            defer { sy_gainmap_image_free(ctx.raw, &img) }
            let codes = Array(UnsafeBufferPointer(start: img.pixels, count: Int(img.stride) * Int(img.height)))
            return (codes, sy__codec_opens(ctx.raw) - before)
        }
        let one = try decode(threads: 1), two = try decode(threads: 2)
        #expect(one.opens == 1, "4x3 tiles on one worker: \(one.opens) contexts opened")
        #expect(two.opens <= 2, "on two workers: \(two.opens)")
        #expect(two.codes == one.codes && Set(one.codes).count > 3, "the same map, not a flat one")
    }
}
