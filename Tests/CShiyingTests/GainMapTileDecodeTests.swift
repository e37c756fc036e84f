// A gridded HEIF gain map (as iPhones store theirs: 512x512 HEVC tiles)
// decodes through one libavcodec context kept warm across its tiles, not one
// per tile (a whole photo's map, sy_gainmap_decode: one per worker, two
// workers on two cores): the same pixels as a fresh context per tile
// (sy__gainmap_decode_fresh_tiles), and the same error for a damaged tile.
// The generated Apple-style HEIC's 640x576 map is a 2x2 grid.
import CShiying
import CShiyingFixtures
import CShiyingInternal
import Foundation
import Testing

/// How the map is decoded: a collage's way (sy__gainmap_decode_reduced, one
/// warm context), a whole photo's (sy_gainmap_decode, up to two workers), or
/// the fresh-context-per-tile reference.
private enum Way { case reduced, whole, fresh }

/// The map decoded one way, with the libavcodec contexts it opened; or its failure.
private struct MapDecode: Equatable {
    var status: sy_status
    var message: String
    var pixels: [UInt8]
    var opens: UInt64

    static func == (a: MapDecode, b: MapDecode) -> Bool {
        a.status == b.status && a.message == b.message && a.pixels == b.pixels
    }
}

private func decodeMap(_ ctx: Context, _ path: String, _ way: Way, reduce: UInt32 = 1) throws -> MapDecode {
    var info = sy_gainmap_info()
    var err = sy_error()
    guard sy_gainmap_probe(ctx.raw, path, &info, &err) == SY_OK else { throw CTestFailure("probe: \(message(err))") }
    var img = sy_gainmap_image()
    let before = sy__codec_opens(ctx.raw)
    let st = switch way {
    case .fresh: sy__gainmap_decode_fresh_tiles(ctx.raw, path, &info, reduce, &img, &err)
    case .reduced: sy__gainmap_decode_reduced(ctx.raw, path, &info, reduce, &img, &err)
    case .whole: sy_gainmap_decode(ctx.raw, path, &info, &img, &err)
    }
    let opens = sy__codec_opens(ctx.raw) - before
    guard st == SY_OK else { return MapDecode(status: st, message: message(err), pixels: [], opens: opens) }
    defer { sy_gainmap_image_free(ctx.raw, &img) }
    var pixels: [UInt8] = []
    for y in 0..<Int(img.height) {
        pixels += UnsafeBufferPointer(start: img.pixels + y * Int(img.stride), count: Int(img.width * img.channels))
    }
    return MapDecode(status: st, message: "", pixels: pixels, opens: opens)
}

/// The map's tile items (the grid's), read from the file.
private func mapTiles(_ ctx: Context, _ path: String) throws -> (hvcc: [UInt8], tiles: [[UInt8]]) {
    var info = sy_gainmap_info()
    var err = sy_error()
    guard sy_gainmap_probe(ctx.raw, path, &info, &err) == SY_OK else { throw CTestFailure("probe: \(message(err))") }
    var file: OpaquePointer?
    guard sy_heif_open(ctx.raw, path, &file, &err) == SY_OK, let file else { throw CTestFailure(message(err)) }
    defer { sy_heif_close(file) }
    var count: UInt32 = 0
    guard let ids = sy_heif_derived(file, UInt32(info.map_offset), &count), count > 1 else {
        throw CTestFailure("the sample's gain map is not a grid")
    }
    var hl = 0
    guard let hvcc = sy_heif_hvcc(file, ids[0], &hl) else { throw CTestFailure("no hvcC") }
    var tiles: [[UInt8]] = []
    for id in UnsafeBufferPointer(start: ids, count: Int(count)) {
        var data: UnsafeMutablePointer<UInt8>?
        var len = 0
        guard sy_heif_read_item(file, id, &data, &len, &err) == SY_OK, let data else { throw CTestFailure(message(err)) }
        tiles.append(Array(UnsafeBufferPointer(start: data, count: len)))
        sy_heif_free_data(file, data)
    }
    return (Array(UnsafeBufferPointer(start: hvcc, count: hl)), tiles)
}

/// A copy of `path` whose tile `index` of the map is rewritten in place by `damage`.
private func damagedCopy(_ ctx: Context, _ folder: HDRSampleFolder, _ name: String, tile index: Int,
                         _ damage: (inout [UInt8], Int) -> Void) throws -> String {
    let (hvcc, tiles) = try mapTiles(ctx, folder.heic)
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.heic)))
    guard let at = Data(bytes).range(of: Data(tiles[index]))?.lowerBound else { throw CTestFailure("tile not found") }
    var tile = tiles[index]
    damage(&tile, Int(hvcc[21] & 3) + 1)
    bytes.replaceSubrange(at..<(at + tile.count), with: tile)
    let out = folder.file(name)
    try Data(bytes).write(to: URL(fileURLWithPath: out))
    return out
}

@Suite("Gain-map grid tiles through one warm libavcodec context")
struct GainMapTileDecodeTests {
    /// A 1280x1152 HDR sample (its own temp folder, removed with it): a 640x576 map of 2x2 512x512 tiles.
    static func sample() throws -> HDRSampleFolder { try HDRSampleFolder(width: 1280, height: 1152, seed: 21) }

    @Test func gridMapOpensOneDecoderAndGivesTheFreshPixels() throws {
        let folder = try Self.sample()
        let ctx = try Context()
        let tiles = try mapTiles(ctx, folder.heic).tiles.count
        #expect(tiles == 4, "the 640x576 map is a 2x2 grid of 512x512 tiles")
        let idle = ctx.stats.current_bytes
        for reduce: UInt32 in [1, 2] {
            let fresh = try decodeMap(ctx, folder.heic, .fresh, reduce: reduce)
            let warm = try decodeMap(ctx, folder.heic, .reduced, reduce: reduce)
            #expect(fresh.status == SY_OK && !fresh.pixels.isEmpty, "\(fresh.message)")
            #expect(warm == fresh, "reduce \(reduce): the warm decode gives the fresh-per-tile pixels")
            #expect(fresh.opens == UInt64(tiles), "the reference opens a context per tile (\(fresh.opens))")
            #expect(warm.opens == 1, "reduce \(reduce): one libavcodec context for \(tiles) tiles, not \(warm.opens)")
        }
        // A whole photo's map: the tiles on two workers (two cores), one warm context each.
        let whole = try decodeMap(ctx, folder.heic, .whole)
        #expect(whole == (try decodeMap(ctx, folder.heic, .fresh)), "two workers give the fresh-per-tile pixels")
        let workers: UInt64 = sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 ? 2 : 1
        #expect(whole.opens >= 1 && whole.opens <= workers, "one context per worker at most: \(whole.opens)")
        #expect(ctx.stats.current_bytes == idle, "the kept contexts and their charges go with the decode")
    }

    // The budget rule: a kept context stays charged between tiles, so under a
    // budget that could not also hold a second tile's decode the tiles are
    // decoded as before, a fresh context each — and the same pixels.
    @Test func tightBudgetDecodesFreshPerTile() throws {
        let folder = try Self.sample()
        let reference = try decodeMap(try Context(), folder.heic, .fresh)
        let tile = sy__hevc_decode_peak_bytes(512, 512, 0, 8)  // a 512x512 4:0:0 tile
        let tight = try Context(budget: tile + tile / 2 + (3 << 19))
        for way in [Way.reduced, .whole] {
            let warm = try decodeMap(tight, folder.heic, way)
            #expect(warm == reference, "\(way): \(warm.message)")
            #expect(warm.opens == 4, "\(way): no room for a kept context: one per tile (\(warm.opens))")
        }
    }

    // A damaged second tile fails the map exactly as before, warm or fresh:
    // cut short (its last NAL unit's length runs past the item) or garbled
    // (slice data overwritten, so libavcodec itself sees the damage on the
    // context the first tile warmed); nothing is left allocated.
    @Test(arguments: ["truncated", "garbled"])
    func damagedSecondTileFailsAsBefore(_ kind: String) throws {
        let folder = try Self.sample()
        let ctx = try Context()
        let path = try damagedCopy(ctx, folder, "\(kind).heic", tile: 1) { tile, lengthSize in
            if kind == "truncated" {  // the last NAL unit claims 64 bytes more than the item holds
                var pos = 0, last = 0
                while pos + lengthSize <= tile.count {
                    last = pos
                    pos += lengthSize + tile[pos..<(pos + lengthSize)].reduce(0) { $0 << 8 | Int($1) }
                }
                let n = tile[last..<(last + lengthSize)].reduce(0) { $0 << 8 | Int($1) } + 64
                for i in 0..<lengthSize { tile[last + i] = UInt8((n >> (8 * (lengthSize - 1 - i))) & 0xFF) }
            } else {
                for i in (tile.count / 2)..<min(tile.count / 2 + 48, tile.count) { tile[i] = 0xA5 }
            }
        }
        let idle = ctx.stats.current_bytes
        let fresh = try decodeMap(ctx, path, .fresh)
        let warm = try decodeMap(ctx, path, .reduced)
        #expect(warm == fresh, "warm: \(warm.status) \(warm.message); fresh: \(fresh.status) \(fresh.message)")
        let whole = try decodeMap(ctx, path, .whole)
        #expect(whole == fresh, "two workers: \(whole.status) \(whole.message); fresh: \(fresh.message)")
        if kind == "truncated" {
            #expect(warm.status == SY_E_INVALID_INPUT && warm.message.contains("truncated"), "\(warm.message)")
        }
        print("damaged (\(kind)) second tile: \(warm.status) \(warm.message)")
        #expect(ctx.stats.current_bytes == idle, "nothing is left allocated")
        // The intact photo decodes warm afterwards, as before.
        #expect(try decodeMap(ctx, folder.heic, .reduced).opens == 1)
    }
}
