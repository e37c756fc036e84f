// The moving collage's QP offsets from its timeline (motion_offsets.c): the plan's numbers, and x265 honouring
// them — a part of the picture that stands still is coded better for about the same bytes.
import CShiying
import CShiyingInternal
import Foundation
import Testing

/// 256x192, 90 frames: the left half a fixed photo-like texture, the right half the same texture panning for
/// `moving` frames, then holding its last one (a cell whose movie has ended).
private struct HalfStillScene {
    let width = 256, height = 192, frames = 90, moving = 30
    private var pictures: [[UInt8]] = []

    init() { pictures = (0..<frames).map(render) }

    func frame(_ t: Int) -> [UInt8] { pictures[t] }

    /// Grey-toned (constant chroma: 4:2:0 loses nothing, so the PSNR measures the coding alone).
    private func pixel(_ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8) {
        let a = sin(Double(x) * 0.21 + Double(y) * 0.07) * 40, b = sin(Double(x * y) * 0.0019) * 30
        let c = Double((x &* 73 &+ y &* 151) % 7) - 3 // fine detail, the texture x265 has to spend bits on
        let v = Int(120 + a + b + c)
        return (UInt8(clamping: v + 6), UInt8(clamping: v), UInt8(clamping: v - 6))
    }

    private func render(_ t: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let m = min(t, moving - 1)
                let p = x < width / 2 ? pixel(x, y) : pixel(x + 3 * m, y + m)
                let o = (y * width + x) * 3
                out[o] = p.0
                out[o + 1] = p.1
                out[o + 2] = p.2
            }
        }
        return out
    }
}

@Suite("Moving collage: QP offsets from the timeline")
struct TimelineOffsetsTests {
    static var hasFFmpeg: Bool { ExternalTools.installed("ffmpeg") }

    private func plan(frames: UInt32, key: UInt32, cols: UInt32, rows: UInt32,
                      _ grid: UnsafeMutablePointer<Float>) -> sy__motion_offsets {
        var mo = sy__motion_offsets()
        sy__motion_offsets_plan(&mo, frames, key, 10)
        mo.grid = grid
        mo.cols = cols
        mo.rows = rows
        mo.block = 16
        return mo
    }

    @Test("the plan: still runs beyond the look-ahead get s log2 offsets; moving cells, the IDR's edge, none")
    func planNumbers() {
        let cols: UInt32 = 8, rows: UInt32 = 4
        var grid = [Float](repeating: 99, count: Int(cols * rows))
        grid.withUnsafeMutableBufferPointer { g in
            var mo = plan(frames: 100, key: 45, cols: cols, rows: rows, g.baseAddress!)
            // left cell (blocks 0-2) moves in frames 0-20; right cell (blocks 4-7) waits until frame 30
            sy__motion_offsets_add_cell(&mo, sy__rect(x: 0, y: 0, width: 48, height: 64), 1, 0, 20, 0, 0)
            sy__motion_offsets_add_cell(&mo, sy__rect(x: 64, y: 0, width: 64, height: 64), 1, 30, 60, 0, 0)
            let s = mo.strength
            func expected(_ run: Double) -> Float { Float(-s * (log2(1 + run) - log2(11))) }
            sy__motion_offsets_fill(&mo, 0)
            #expect(abs(s - 4) < 1e-9, "twice cuTree's strength 5 (1 - 0.6)")
            #expect(g[0] == 0 && g[2] == 0, "the moving cell: no offset")
            #expect(abs(g[3] - expected(44)) < 1e-4, "a margin block stands still until the IDR at 45: \(g[3])")
            #expect(abs(g[5] - expected(29)) < 1e-4, "the waiting cell until frame 30: \(g[5])")
            sy__motion_offsets_fill(&mo, 25)
            #expect(g[5] == 0, "4 frames before it moves: within the look-ahead, cuTree's own")
            #expect(abs(g[0] - expected(19)) < 1e-4, "the first cell has ended: still until the IDR")
            sy__motion_offsets_fill(&mo, 45)
            #expect(g[0] == 0 && g[5] == 0, "the key frame shows the still; Live cells change right after")
            #expect(abs(g[3] - expected(54)) < 1e-4, "margins: from the IDR to the end")
            sy__motion_offsets_fill(&mo, 61)
            #expect(abs(g[5] - expected(38)) < 1e-4, "after its end: still to the end of the movie")
            sy__motion_offsets_fill(&mo, 92)
            #expect(g.allSatisfy { $0 == 0 }, "7 frames from the end: nothing beyond the look-ahead")
        }
        // relay: at the key frame (frame 10, the first cell's turn), a cell waiting for its turn shows its still on
        // both sides, so the IDR's copy of it stands until its turn; the playing cell changes right after
        var relay = [Float](repeating: 99, count: 4)
        relay.withUnsafeMutableBufferPointer { g in
            var mo = plan(frames: 120, key: 10, cols: 4, rows: 1, g.baseAddress!)
            sy__motion_offsets_add_cell(&mo, sy__rect(x: 0, y: 0, width: 32, height: 16), 1, 0, 40, 1, 1)
            sy__motion_offsets_add_cell(&mo, sy__rect(x: 32, y: 0, width: 32, height: 16), 1, 41, 119, 1, 0)
            sy__motion_offsets_fill(&mo, 10)
            let s = mo.strength
            #expect(g[0] == 0 && g[1] == 0, "the playing cell")
            #expect(abs(g[2] - Float(-s * (log2(31) - log2(11)))) < 1e-4, "the waiting cell, still until frame 41: \(g[2])")
            // the same cell in together mode (a movie frame beside the key frame) changes right after it
            var together = plan(frames: 120, key: 10, cols: 4, rows: 1, g.baseAddress!)
            sy__motion_offsets_add_cell(&together, sy__rect(x: 32, y: 0, width: 32, height: 16), 1, 41, 119, 0, 0)
            sy__motion_offsets_fill(&together, 10)
            #expect(g[2] == 0, "together: the still's frame, then the cell's first movie frame")
        }
        // a block shared by a still part and a moving cell stands still only as long as the cell
        var shared = [Float](repeating: 99, count: 4)
        shared.withUnsafeMutableBufferPointer { g in
            var mo = plan(frames: 100, key: 0, cols: 4, rows: 1, g.baseAddress!)
            sy__motion_offsets_add_cell(&mo, sy__rect(x: 8, y: 0, width: 16, height: 16), 1, 0, 99, 0, 0)
            sy__motion_offsets_add_cell(&mo, sy__rect(x: 32, y: 0, width: 32, height: 16), 0, 0, 0, 0, 0)
            sy__motion_offsets_fill(&mo, 1)
            #expect(g[0] == 0 && g[1] == 0, "blocks 0 and 1 both touch the moving cell")
            #expect(g[2] < -5 && g[2] == g[3], "a static cell stands still to the end: \(g[2])")
        }
    }

    /// Encodes the scene at 150 kbit/s (where x265's rate control binds); with `offsets`, the left half's blocks get the plan's offsets (a static
    /// cell beside a cell that moves throughout). Returns the Annex-B stream.
    private func encodeScene(_ scene: HalfStillScene, offsets: Bool) throws -> [UInt8] {
        let ctx = try Context()
        var opts = defaultEncoderOptions(width: scene.width, height: scene.height)
        opts.bitrate = 150_000
        opts.keyint = UInt32(scene.frames)
        let collector = PacketCollector()
        var err = sy_error()
        var enc: OpaquePointer?
        let user = Unmanaged.passUnretained(collector).toOpaque()
        guard sy_video_encoder_create(ctx.raw, &opts, collectPacket, user, &enc, &err) == SY_OK, let enc else {
            throw CTestFailure("sy_video_encoder_create: \(message(err))")
        }
        defer { sy_video_encoder_destroy(enc) }
        var mo = sy__motion_offsets()
        if offsets {
            guard let grid = sy__video_encoder_block_offsets(enc, &mo.cols, &mo.rows, &mo.block, &err) else {
                throw CTestFailure("block offsets: \(message(err))")
            }
            let (cols, rows, block) = (mo.cols, mo.rows, mo.block)
            sy__motion_offsets_plan(&mo, UInt32(scene.frames), 0, 10)
            (mo.grid, mo.cols, mo.rows, mo.block) = (grid, cols, rows, block)
            sy__motion_offsets_add_cell(&mo, sy__rect(x: 128, y: 0, width: 128, height: 192), 1, 0,
                                        UInt32(scene.moving), 0, 0)
            #expect(mo.cols == 16 && mo.rows == 12 && mo.block == 16, "x265's 16x16 grid: \(mo.cols)x\(mo.rows)")
        }
        for t in 0..<scene.frames {
            let rgb = scene.frame(t)
            var st = rgb.withUnsafeBufferPointer {
                sy__video_encoder_stage_rgb(enc, $0.baseAddress, scene.width * 3, Int64(t) * 20, &err)
            }
            if offsets { sy__motion_offsets_fill(&mo, UInt32(t)) }
            if st == SY_OK { st = sy__video_encoder_encode_staged(enc, &err) }
            guard st == SY_OK else { throw CTestFailure("frame \(t): \(message(err))") }
        }
        guard sy_video_encoder_flush(enc, &err) == SY_OK else { throw CTestFailure("flush: \(message(err))") }
        var hvccLength = 0
        let hvcc = Array(UnsafeBufferPointer(start: sy_video_encoder_hvcc(enc, &hvccLength), count: hvccLength))
        return try annexB(hvcc: hvcc, samples: collector.packets.map(\.data))
    }

    /// PSNR of each half (RGB, every frame) of the decoded stream against the scene.
    private func halvesPSNR(_ stream: [UInt8], _ scene: HalfStillScene, _ folder: TempFolder,
                            _ name: String) throws -> (still: Double, moving: Double) {
        let path = folder.file(name + ".hevc"), raw = folder.file(name + ".rgb")
        try ExternalTools.writeFile(path, stream)
        try ExternalTools.check("ffmpeg", ["-v", "error", "-y", "-i", path, "-fps_mode", "passthrough",
                                           "-f", "rawvideo", "-pix_fmt", "rgb24", raw])
        let decoded = ExternalTools.readFile(raw)
        let frameBytes = scene.width * scene.height * 3
        guard decoded.count == frameBytes * scene.frames else { throw CTestFailure("decoded \(decoded.count) bytes") }
        var sse = [0.0, 0.0]
        for t in 0..<scene.frames {
            let source = scene.frame(t)
            for i in 0..<frameBytes {
                let d = Double(Int(decoded[t * frameBytes + i]) - Int(source[i]))
                sse[(i / 3) % scene.width < scene.width / 2 ? 0 : 1] += d * d
            }
        }
        let samples = Double(frameBytes * scene.frames / 2)
        return (10 * log10(255 * 255 / (sse[0] / samples)), 10 * log10(255 * 255 / (sse[1] / samples)))
    }

    @Test("x265 takes the offsets: the still half gains over 1 dB, the moving half keeps its PSNR, no more bytes", .enabled(if: hasFFmpeg))
    func stillHalfCodedBetter() throws {
        let scene = HalfStillScene()
        let folder = try TempFolder()
        let plain = try encodeScene(scene, offsets: false), offset = try encodeScene(scene, offsets: true)
        let a = try halvesPSNR(plain, scene, folder, "plain"), b = try halvesPSNR(offset, scene, folder, "offset")
        print(String(format: "timeline offsets: still half %.2f -> %.2f dB, moving half %.2f -> %.2f dB, %d -> %d bytes",
                     a.still, b.still, a.moving, b.moving, plain.count, offset.count))
        #expect(b.still > a.still + 1, "the still half is coded better: \(a.still) -> \(b.still) dB")
        #expect(b.moving > a.moving - 0.3, "the moving half (and its hold) no worse: \(a.moving) -> \(b.moving) dB")
        #expect(Double(offset.count) < Double(plain.count) * 1.05, "no more bytes: \(plain.count) -> \(offset.count)")
        #expect(try encodeScene(scene, offsets: true) == offset, "the same pictures and offsets, the same bytes")
    }

    @Test("offsets are given with every frame or with none: asked after the first frame, refused with the reason")
    func offsetsAfterTheFirstFrame() throws {
        let ctx = try Context()
        var opts = defaultEncoderOptions(width: 128, height: 96)
        let collector = PacketCollector()
        var err = sy_error()
        var enc: OpaquePointer?
        let user = Unmanaged.passUnretained(collector).toOpaque()
        try #require(sy_video_encoder_create(ctx.raw, &opts, collectPacket, user, &enc, &err) == SY_OK)
        defer { sy_video_encoder_destroy(enc) }
        let rgb = [UInt8](repeating: 90, count: 128 * 96 * 3)
        try #require(rgb.withUnsafeBufferPointer { sy_video_encoder_push_rgb(enc, $0.baseAddress, 128 * 3, 0, &err) } == SY_OK)
        var cols: UInt32 = 0, rows: UInt32 = 0, block: UInt32 = 0
        #expect(sy__video_encoder_block_offsets(enc, &cols, &rows, &block, &err) == nil)
        #expect(err.code == SY_E_USAGE && message(err).contains("after the first picture"), "\(message(err))")
        #expect(sy_video_encoder_flush(enc, &err) == SY_OK, "the encoder goes on: \(message(err))")
    }
}
