// One moving-collage cell's player (sy__motion_player_*, motion_player.c) called directly: a movie shown to
// its end gives its decoder back at once (its last frame stays in the canvas), not when the collage's movie ends.
import CShiying
import CShiyingInternal
import Foundation
import Testing

private enum PlayerPaths {
    static let iphone = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/corpus/real/iphone15plus_IMG_3853.MOV").path
    static var hasIphone: Bool { FileManager.default.fileExists(atPath: iphone) }
}

@Suite("Motion player: a finished cell's decoder is released")
struct MotionPlayerTests {
    @Test("the real iPhone movie shown to its end: reader closed, its decoder's bytes back, the last frame kept",
          .enabled(if: PlayerPaths.hasIphone))
    func finishedMovieReleasesDecoder() throws {
        let ctx = try Context()
        var player = sy__motion_player()
        var err = sy_error()
        let width: UInt32 = 64, height: UInt32 = 48
        var st = sy__motion_player_open(ctx.raw, PlayerPaths.iphone, width, height, 0, 0, 1, nil, &player, &err)
        try #require(st == SY_OK, "\(message(err))")
        defer { sy__motion_player_close(&player) }
        let opened = ctx.stats.current_bytes
        var canvas = [UInt8](repeating: 0, count: Int(width * height * 3))
        var scratch = sy__render_scratch()
        defer { sy__render_scratch_free(&scratch) }
        let shown = canvas.withUnsafeMutableBufferPointer { buf -> sy_status in
            var target = sy__motion_target(renderer: player.to_cell, dst: buf.baseAddress, stride: Int(width * 3),
                                           rows: height)
            var s = sy_status(SY_OK)
            for k in 0..<120 where s == SY_OK { // 4 s at 30 fps: past the movie's end
                s = sy__motion_player_show(&player, Double(k) / 30, &target, 1, &scratch, &err)
                if k == 30 { #expect(player.reader != nil, "still playing at 1 s") }
            }
            return s
        }
        st = shown
        try #require(st == SY_OK, "\(message(err))")
        let ended = ctx.stats.current_bytes
        print("motion player: \(opened) bytes in use while playing, \(ended) after the end, \(player.draws) frames drawn")
        #expect(player.reader == nil, "the reader is closed once the movie has ended")
        #expect(player.have_next == 0 && player.draws > 30)
        #expect(ended + 8 << 20 < opened, "the decoder's pictures are given back: \(opened) -> \(ended) bytes")
        #expect(canvas.contains { $0 != 0 }, "the last frame stays drawn")
    }
}
