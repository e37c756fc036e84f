// The HEIF writer's tile lanes (heif/sy_heif_tile_lanes.h; issue 15) called
// directly: two x265 still encoders take the tiles of each row in turn. A row
// of five tiles is three for one lane and two for the other; the lane with two
// must go on to its part of the next row (already handed over in the second
// buffer) instead of waiting for the other lane at the row's end — a barrier
// per row left a core idle a tenth of the HEIC save of a real iPhone crop.
// Whatever the timing, the tiles reach the sink in order and the bytes are
// those of the same lanes taking turns on one thread.
import CShiying
import CShiyingInternal
import Foundation
import Testing

/// What the sink received: each tile's pts and bytes, in the order sunk.
private final class Sunk {
    var pts: [Int64] = []
    var bytes: [[UInt8]] = []
}

private let collect: sy__hevc_sink = { user, packet, _ in
    guard let user, let packet else { return sy_status(SY_E_USAGE) }
    let sunk = Unmanaged<Sunk>.fromOpaque(user).takeUnretainedValue()
    sunk.pts.append(packet.pointee.pts)
    sunk.bytes.append(Array(UnsafeBufferPointer(start: packet.pointee.data, count: packet.pointee.len)))
    return sy_status(SY_OK)
}

/// A 4:2:0 picture of `cols` x `rows` tiles cut from a photo-like RGB image (BT.601 full range).
private struct TiledPicture {
    let tile: Int, cols: Int, rows: Int
    var y: [UInt8], cb: [UInt8], cr: [UInt8]

    init(tile: Int, cols: Int, rows: Int) {
        self.tile = tile
        self.cols = cols
        self.rows = rows
        let w = tile * cols, h = tile * rows
        let rgb = HW.photo(width: w, height: h, seed: 11)
        y = [UInt8](repeating: 0, count: w * h)
        cb = [UInt8](repeating: 128, count: w * h / 4)
        cr = [UInt8](repeating: 128, count: w * h / 4)
        func clamp(_ v: Double) -> UInt8 { UInt8(max(0, min(255, v.rounded()))) }
        for py in 0..<h {
            for px in 0..<w {
                let i = (py * w + px) * 3
                let r = Double(rgb[i]), g = Double(rgb[i + 1]), b = Double(rgb[i + 2])
                y[py * w + px] = clamp(0.299 * r + 0.587 * g + 0.114 * b)
                if py % 2 == 0 && px % 2 == 0 {
                    let c = (py / 2) * (w / 2) + px / 2
                    cb[c] = clamp(128 - 0.168736 * r - 0.331264 * g + 0.5 * b)
                    cr[c] = clamp(128 + 0.5 * r - 0.418688 * g - 0.081312 * b)
                }
            }
        }
    }

    /// Tile row `row`'s samples copied into `buffer` (luma, then the two chroma planes).
    func copyRow(_ row: Int, into buffer: inout [UInt8]) {
        let w = tile * cols, luma = w * tile, chroma = luma / 4
        buffer.replaceSubrange(0..<luma, with: y[(row * luma)..<((row + 1) * luma)])
        buffer.replaceSubrange(luma..<(luma + chroma), with: cb[(row * chroma)..<((row + 1) * chroma)])
        buffer.replaceSubrange((luma + chroma)..<(luma + 2 * chroma), with: cr[(row * chroma)..<((row + 1) * chroma)])
    }
}

/// Encodes `picture` on two lanes as the HEIF writer does: two row buffers, a row started, then
/// the row before it finished before its buffer is refilled. Returns the sunk tiles and the lanes'
/// early starts.
private func encode(_ picture: TiledPicture, threads: UInt32) throws -> (sunk: Sunk, earlyStarts: UInt64) {
    let ctx = try Context()
    let sunk = Sunk()
    let user = Unmanaged.passUnretained(sunk).toOpaque()
    var err = sy_error()
    let preset = strdup("ultrafast")
    defer { free(preset) }
    var o = sy__hevc_encoder_options()
    o.use = SY__HEVC_STILLS
    o.width = UInt32(picture.tile)
    o.height = UInt32(picture.tile)
    o.preset = UnsafePointer(preset)
    o.threads = threads
    o.still.quality = 90
    o.still.pictures = UInt32(picture.cols * picture.rows)
    o.still.min_cu_size = 32
    o.still.rd_level = 1
    o.colour = sy_cicp(present: 1, primaries: 1, transfer: 13, matrix: 6, full_range: 1, peak: 0)
    var lanes: OpaquePointer?
    try #require(sy__tile_lanes_open(ctx.raw, &o, 2, collect, user, &lanes, &err) == SY_OK, "open: \(message(err))")
    defer { sy__tile_lanes_destroy(lanes) }

    let w = picture.tile * picture.cols, luma = w * picture.tile
    var buffers = [[UInt8]](repeating: [UInt8](repeating: 0, count: luma * 3 / 2), count: 2)
    for row in 0..<picture.rows {
        picture.copyRow(row, into: &buffers[row % 2])
        let status = buffers[row % 2].withUnsafeMutableBufferPointer { b -> sy_status in
            let base = b.baseAddress!
            let planes: (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?) =
                (base, base + luma, base + luma + luma / 4)
            let strides: (Int, Int, Int) = (w, w / 2, w / 2)
            return withUnsafePointer(to: planes) { p in
                p.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 3) { planePtr in
                    withUnsafePointer(to: strides) { s in
                        s.withMemoryRebound(to: Int.self, capacity: 3) { stridePtr in
                            sy__tile_lanes_start_row(lanes, planePtr, stridePtr, UInt32(picture.cols), UInt32(picture.tile),
                                                     Int64(row * picture.cols))
                            // the other buffer is refilled next: its row must be done
                            return sy__tile_lanes_finish_rows(lanes, 1, &err)
                        }
                    }
                }
            }
        }
        try #require(status == SY_OK, "row \(row): \(message(err))")
    }
    try #require(sy__tile_lanes_flush(lanes, &err) == SY_OK, "flush: \(message(err))")
    return (sunk, sy__tile_lanes_early_starts(lanes))
}

@Suite("HEIF tile lanes")
struct HeifTileLanesTests {
    @Test("a lane goes on to the next row without waiting for the other; tiles sunk in order, the bytes of one thread")
    func noBarrierPerRow() throws {
        let picture = TiledPicture(tile: 128, cols: 5, rows: 8)
        let turns = try encode(picture, threads: 1)
        #expect(turns.sunk.pts == Array(0..<40), "one thread: \(turns.sunk.pts)")
        #expect(turns.earlyStarts == 0, "one thread: the lanes take turns, none starts early")
        for run in 0..<2 {
            let parallel = try encode(picture, threads: 2)
            #expect(parallel.sunk.pts == Array(0..<40), "run \(run): sunk out of order: \(parallel.sunk.pts)")
            #expect(parallel.sunk.bytes == turns.sunk.bytes, "run \(run): two threads give other bytes than one")
            // rows of 3 + 2 tiles, 8 rows: the lane with two tiles starts the next row early
            // about once a row; a barrier at each row's end makes this 0
            #expect(parallel.earlyStarts >= 2, "run \(run): \(parallel.earlyStarts) early starts in 8 rows")
        }
    }
}
