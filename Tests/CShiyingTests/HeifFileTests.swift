// The HEIF structure reader (sy_heif_*, over the bounded BMFF cursor) called
// directly: real iPhone HEICs (grid + gain map + tmap, which Debian's libheif
// 1.15 cannot open), every libheif hostile case, and hand-built malformed files
// (lying sizes, size 0, largesize, huge grids, bad extents, bad property
// indices, dimg loops). Issue 3.
import CShiying
import CShiyingInternal
import Foundation
import Testing

// MARK: - Helpers

private enum HeifPaths {
    /// Package root: Tests/CShiyingTests/HeifFileTests.swift → ../../
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let corpus = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
    static func real(_ name: String) -> String { corpus.appendingPathComponent("real/\(name)").path }
    static let iphone15 = real("iphone15plus_IMG_3853.HEIC")
    static let iphoneSE2 = real("iphoneSE2_grid.heic")
    static var hasIphone15: Bool { FileManager.default.fileExists(atPath: iphone15) }
    static var hasIphoneSE2: Bool { FileManager.default.fileExists(atPath: iphoneSE2) }
    static var hasHostile: Bool {
        FileManager.default.fileExists(atPath: corpus.appendingPathComponent("hostile").path)
    }
    static let heifInfo = "/usr/bin/heif-info"
    static var hasHeifInfo: Bool { FileManager.default.isExecutableFile(atPath: heifInfo) }
}

/// A fixed-size C char array (imported as a tuple) as a String.
private func cText<T>(_ tuple: T) -> String {
    var copy = tuple
    return withUnsafeBytes(of: &copy) { raw in
        let bytes = raw.bindMemory(to: UInt8.self)
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}

/// An open sy_heif_file plus its context; closed on deinit.
private final class Heif {
    let ctx: Context
    let raw: OpaquePointer

    /// Opens `path`; returns the failing status and message instead when it does not open.
    static func open(_ path: String, budget: Int = 256 << 20) throws -> Result<Heif, OpenFailure> {
        let ctx = try Context(budget: budget)
        var file: OpaquePointer?
        var err = sy_error()
        let status = sy_heif_open(ctx.raw, path, &file, &err)
        if status == SY_OK, let file { return .success(Heif(ctx: ctx, raw: file)) }
        #expect(file == nil, "no handle on failure")
        #expect(ctx.stats.current_bytes == 0, "a failed open frees everything")
        return .failure(OpenFailure(status: status, message: message(err)))
    }

    static func mustOpen(_ path: String, budget: Int = 256 << 20) throws -> Heif {
        switch try open(path, budget: budget) {
        case .success(let heif): return heif
        case .failure(let f): throw CTestFailure("sy_heif_open(\(path)): \(f.status) \(f.message)")
        }
    }

    private init(ctx: Context, raw: OpaquePointer) {
        self.ctx = ctx
        self.raw = raw
    }

    deinit { sy_heif_close(raw) }

    var primary: UInt32 { sy_heif_primary_id(raw) }
    var items: [sy_heif_item_info] {
        (0..<sy_heif_item_count(raw)).compactMap { sy_heif_item_at(raw, $0)?.pointee }
    }
    func item(_ id: UInt32) -> sy_heif_item_info? { sy_heif_item(raw, id)?.pointee }
    func derived(_ id: UInt32) -> [UInt32] {
        var count: UInt32 = 0
        guard let p = sy_heif_derived(raw, id, &count) else { return [] }
        return Array(UnsafeBufferPointer(start: p, count: Int(count)))
    }
    func hvcc(_ id: UInt32) -> [UInt8]? {
        var len = 0
        guard let p = sy_heif_hvcc(raw, id, &len) else { return nil }
        return Array(UnsafeBufferPointer(start: p, count: len))
    }
    func icc(_ id: UInt32) -> [UInt8]? {
        var len = 0
        guard let p = sy_heif_icc(raw, id, &len) else { return nil }
        return Array(UnsafeBufferPointer(start: p, count: len))
    }
    func grid(_ id: UInt32) -> Result<sy_heif_grid, OpenFailure> {
        var g = sy_heif_grid()
        var err = sy_error()
        let status = sy_heif_read_grid(raw, id, &g, &err)
        return status == SY_OK ? .success(g) : .failure(OpenFailure(status: status, message: message(err)))
    }
    func data(_ id: UInt32) -> Result<[UInt8], OpenFailure> {
        var p: UnsafeMutablePointer<UInt8>?
        var len = 0
        var err = sy_error()
        let status = sy_heif_read_item(raw, id, &p, &len, &err)
        guard status == SY_OK, let p else { return .failure(OpenFailure(status: status, message: message(err))) }
        defer { sy_heif_free_data(raw, p) }
        return .success(Array(UnsafeBufferPointer(start: p, count: len)))
    }
}

private struct OpenFailure: Error, CustomStringConvertible {
    let status: sy_status
    let message: String
    var description: String { "\(status): \(message)" }
}

extension Result {
    fileprivate var value: Success? { if case .success(let v) = self { return v } else { return nil } }
    fileprivate var failure: Failure? { if case .failure(let f) = self { return f } else { return nil } }
}

extension Result where Failure == OpenFailure {
    /// The failing status, or SY_OK on success.
    fileprivate var failureStatus: sy_status { if case .failure(let f) = self { return f.status } else { return 0 } }
}

// MARK: - Hand-built files

/// Big-endian box bytes.
private enum B {
    static func u8(_ v: UInt8) -> [UInt8] { [v] }
    static func u16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func u32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (24 - 8 * UInt32($0))) & 0xFF) } }
    static func u64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8((v >> (56 - 8 * UInt64($0))) & 0xFF) } }
    static func i32(_ v: Int32) -> [UInt8] { u32(UInt32(bitPattern: v)) }
    static func cc(_ s: String) -> [UInt8] { Array(s.utf8) }
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { u32(UInt32(8 + payload.count)) + cc(type) + payload }
    static func full(_ type: String, _ version: UInt8, _ flags: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version] + Array(u32(flags).dropFirst()) + payload)
    }
    /// A box with a 64-bit largesize header.
    static func large(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        u32(1) + cc(type) + u64(UInt64(16 + payload.count)) + payload
    }
}

/// A small HEIF described by its items; `build()` lays out ftyp, meta and mdat.
private struct MiniHeif {
    struct Item {
        var id: UInt32
        var type: String
        var hidden = false
        var name = ""
    }
    struct Location {
        var id: UInt32
        var method: UInt16 // 0 = mdat (offset relative to the mdat payload), 1 = idat
        var offset: UInt32
        var length: UInt32
        var absolute = false // offset is a file offset as written
    }
    var brands = ["heic", "mif1"]
    var handler = "pict"
    var primary: UInt32 = 1
    var items: [Item] = []
    var properties: [[UInt8]] = [] // ipco children, 1-based in ipma
    var associations: [(UInt32, [UInt8])] = [] // item → property indices (essential bit included)
    var references: [(String, UInt32, [UInt32])] = []
    var locations: [Location] = []
    var idat: [UInt8]? = nil
    var mdat: [UInt8] = []
    var iinfDeclaredCount: UInt16? = nil
    var metaSizeZero = false
    var metaLargeSize = false
    var metaSizeDelta: Int = 0 // added to the meta box's 32-bit size (a lie)

    func meta(mdatPayloadOffset: UInt32) -> [UInt8] {
        var children: [UInt8] = []
        children += B.full("hdlr", 0, 0, B.u32(0) + B.cc(handler) + [UInt8](repeating: 0, count: 12) + [0])
        children += B.full("pitm", 0, 0, B.u16(UInt16(primary)))
        var infes: [UInt8] = []
        for it in items {
            infes += B.full("infe", 2, it.hidden ? 1 : 0, B.u16(UInt16(it.id)) + B.u16(0) + B.cc(it.type) + B.cc(it.name) + [0])
        }
        children += B.full("iinf", 0, 0, B.u16(iinfDeclaredCount ?? UInt16(items.count)) + infes)
        if !references.isEmpty {
            var refs: [UInt8] = []
            for (type, from, to) in references {
                refs += B.box(type, B.u16(UInt16(from)) + B.u16(UInt16(to.count)) + to.flatMap { B.u16(UInt16($0)) })
            }
            children += B.full("iref", 0, 0, refs)
        }
        var ipma: [UInt8] = B.u32(UInt32(associations.count))
        for (id, indices) in associations { ipma += B.u16(UInt16(id)) + [UInt8(indices.count)] + indices }
        children += B.box("iprp", B.box("ipco", properties.flatMap { $0 }) + B.full("ipma", 0, 0, ipma))
        if let idat { children += B.box("idat", idat) }
        var iloc: [UInt8] = [0x44, 0x00] + B.u16(UInt16(locations.count))
        for loc in locations {
            let offset = loc.method == 0 && !loc.absolute ? mdatPayloadOffset &+ loc.offset : loc.offset
            iloc += B.u16(UInt16(loc.id)) + B.u16(loc.method) + B.u16(0) + B.u16(1) + B.u32(offset) + B.u32(loc.length)
        }
        children += B.full("iloc", 1, 0, iloc)
        let payload: [UInt8] = [0, 0, 0, 0] + children
        if metaLargeSize { return B.large("meta", payload) }
        var box = B.box("meta", payload)
        if metaSizeZero { box.replaceSubrange(0..<4, with: B.u32(0)) }
        if metaSizeDelta != 0 { box.replaceSubrange(0..<4, with: B.u32(UInt32(Int(box.count) + metaSizeDelta))) }
        return box
    }

    func build() -> [UInt8] {
        let ftyp = B.box("ftyp", B.cc(brands[0]) + B.u32(0) + brands.flatMap { B.cc($0) })
        let first = meta(mdatPayloadOffset: 0)
        let mdatOffset = UInt32(ftyp.count + first.count + 8)
        let meta = self.meta(mdatPayloadOffset: mdatOffset)
        if metaSizeZero { return ftyp + meta } // meta runs to the end of the file: no mdat
        return ftyp + meta + B.box("mdat", mdat)
    }

    // Properties
    static func ispe(_ w: UInt32, _ h: UInt32) -> [UInt8] { B.full("ispe", 0, 0, B.u32(w) + B.u32(h)) }
    static let hvcC: [UInt8] = B.box("hvcC", [1, 1, 0x60, 0, 0, 0, 0xB0, 0, 0, 0, 0, 0, 90, 0xF0, 0, 0xFC, 0xFD, 0xF8, 0xF8, 0, 0, 0x0F, 0])
    static func clap(_ v: [Int32]) -> [UInt8] { B.box("clap", v.flatMap { B.i32($0) }) }
    /// A grid descriptor (ImageGrid): 16-bit or 32-bit output size.
    static func gridDescriptor(rows: UInt8, columns: UInt8, width: UInt32, height: UInt32) -> [UInt8] {
        if width > 0xFFFF || height > 0xFFFF {
            return [0, 1, rows - 1, columns - 1] + B.u32(width) + B.u32(height)
        }
        return [0, 0, rows - 1, columns - 1] + B.u16(UInt16(width)) + B.u16(UInt16(height))
    }

    /// A 2×1 grid (item 1, in idat) of two 64×64 hvc1 tiles (items 2, 3, in mdat).
    static func grid2x1() -> MiniHeif {
        var h = MiniHeif()
        h.items = [Item(id: 1, type: "grid"), Item(id: 2, type: "hvc1", hidden: true), Item(id: 3, type: "hvc1", hidden: true)]
        h.properties = [hvcC, ispe(64, 64), ispe(128, 64)]
        h.associations = [(1, [3]), (2, [0x81, 2]), (3, [0x81, 2])]
        h.references = [("dimg", 1, [2, 3])]
        h.idat = gridDescriptor(rows: 1, columns: 2, width: 128, height: 64)
        h.mdat = [UInt8](repeating: 0xAB, count: 10) + [UInt8](repeating: 0xCD, count: 12)
        h.locations = [Location(id: 1, method: 1, offset: 0, length: 8), Location(id: 2, method: 0, offset: 0, length: 10),
                       Location(id: 3, method: 0, offset: 10, length: 12)]
        return h
    }
}

/// A temp folder for hand-built files, removed on deinit.
private final class TempFiles {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("shiying-heif-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = url.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// Walks everything an opened file offers, reading item data up to `cap` bytes each. Never crashes.
private func exercise(_ heif: Heif, cap: UInt64 = 4 << 20) -> (items: Int, bytes: Int) {
    var bytes = 0
    for info in heif.items {
        _ = heif.hvcc(info.id)
        _ = heif.icc(info.id)
        let tiles = heif.derived(info.id)
        #expect(tiles.count == Int(info.derived_count))
        if case .success(let g) = heif.grid(info.id) {
            #expect(Int(g.rows * g.columns) == tiles.count)
            #expect(g.output_width <= 65535 && g.output_height <= 65535)
        }
        if info.has_clap != 0 {
            #expect(UInt64(info.clap_x) + UInt64(info.clap_width) <= UInt64(info.width))
            #expect(UInt64(info.clap_y) + UInt64(info.clap_height) <= UInt64(info.height))
        }
        if info.data_size <= cap, case .success(let d) = heif.data(info.id) {
            #expect(UInt64(d.count) == info.data_size)
            bytes += d.count
        }
    }
    return (heif.items.count, bytes)
}

// MARK: - Tests

@Suite("HEIF structure reader (sy_heif)")
struct HeifFileTests {
    @Test("iPhone 15 Plus: 5712×4284 grid, HDR gain map, tmap, Exif/XMP",
          .enabled(if: HeifPaths.hasIphone15, "../shared/corpus/real/iphone15plus_IMG_3853.HEIC is not present"))
    func iphone15Plus() throws {
        let heif = try Heif.mustOpen(HeifPaths.iphone15)
        // Only metadata is loaded: the 3 MB of tiles stay in the file.
        #expect(heif.ctx.stats.current_bytes < 256 << 10, "open costs \(heif.ctx.stats.current_bytes) bytes")
        #expect(heif.items.count == 67)

        let primaryID = heif.primary
        let primary = try #require(heif.item(primaryID))
        #expect(primary.type == fourcc("grid"))
        #expect(primary.width == 5712 && primary.height == 4284 && primary.has_ispe == 1)
        #expect(primary.rotation == 0 && primary.mirror == -1, "this photo has no irot/imir")
        #expect(primary.has_icc == 1 && primary.hidden == 0)
        let icc = try #require(heif.icc(primaryID))
        #expect(icc.count == 536 && Array(icc[36..<40]) == Array("acsp".utf8))

        let grid = try #require(heif.grid(primaryID).value)
        #expect(grid.columns == 9 && grid.rows == 5)
        #expect(grid.output_width == 5712 && grid.output_height == 4284)
        let tiles = heif.derived(primaryID)
        #expect(tiles.count == 45 && primary.derived_count == 45)
        for tile in tiles {
            let t = try #require(heif.item(tile))
            #expect(t.type == fourcc("hvc1") && t.hidden == 1)
            #expect(t.width == 640 && t.height == 896)
            let hvcc = try #require(heif.hvcc(tile), "tile \(tile) has hvcC")
            #expect(hvcc.count == 104 && hvcc[0] == 1, "HEVCDecoderConfigurationRecord version 1")
            #expect(t.data_size > 0)
        }
        #expect(9 * 640 >= 5712 && 5 * 896 >= 4284)

        // Apple HDR gain map: a hidden auxiliary grid of the primary.
        let gainMaps = heif.items.filter { cText($0.aux_type) == "urn:com:apple:photo:2020:aux:hdrgainmap" }
        #expect(gainMaps.count == 1)
        let gain = try #require(gainMaps.first)
        #expect(gain.aux_of == primaryID && gain.hidden == 1 && gain.type == fourcc("grid"))
        #expect(gain.width == 2856 && gain.height == 2142)
        #expect(gain.nclx.present == 1)
        let gainGrid = try #require(heif.grid(gain.id).value)
        #expect(gainGrid.columns == 5 && gainGrid.rows == 3 && gainGrid.output_width == 2856)

        // ISO 21496-1 tone map item: derived from the primary and the gain map.
        let tmaps = heif.items.filter { $0.type == fourcc("tmap") }
        #expect(tmaps.count == 1)
        let tmap = try #require(tmaps.first)
        #expect(heif.derived(tmap.id) == [primaryID, gain.id])
        #expect(tmap.width == 5712 && tmap.height == 4284)
        let tmapData = try #require(heif.data(tmap.id).value)
        #expect(tmapData.count == 62)

        // Exif and XMP describe the primary.
        let exif = try #require(heif.items.first { $0.type == fourcc("Exif") })
        #expect(exif.describes == primaryID)
        let exifData = try #require(heif.data(exif.id).value)
        #expect(exifData.count == 2840)
        let tiffOffset = Int(exifData[0]) << 24 | Int(exifData[1]) << 16 | Int(exifData[2]) << 8 | Int(exifData[3])
        let tiff = Array(exifData.dropFirst(4 + tiffOffset).prefix(4))
        #expect(tiff == [0x4D, 0x4D, 0, 0x2A] || tiff == [0x49, 0x49, 0x2A, 0], "TIFF header after the offset")
        let xmps = heif.items.filter { $0.type == fourcc("mime") && cText($0.content_type) == "application/rdf+xml" }
        #expect(xmps.map(\.describes).sorted() == [primaryID, gain.id].sorted())

        // Thumbnail.
        let thumb = try #require(heif.items.first { $0.thumbnail_of == primaryID })
        #expect(thumb.type == fourcc("hvc1") && thumb.width == 416 && thumb.height == 312)

        let walked = exercise(heif)
        #expect(walked.bytes > 3_000_000 && walked.bytes < 3_198_524)
    }

    @Test("iPhone SE 2: 4032×3024 grid of 512×512 tiles, ICC, thumbnail",
          .enabled(if: HeifPaths.hasIphoneSE2, "../shared/corpus/real/iphoneSE2_grid.heic is not present"))
    func iphoneSE2() throws {
        let heif = try Heif.mustOpen(HeifPaths.iphoneSE2)
        #expect(heif.items.count == 52)
        let primary = try #require(heif.item(heif.primary))
        #expect(heif.primary == 49 && primary.type == fourcc("grid"))
        #expect(primary.width == 4032 && primary.height == 3024)
        let grid = try #require(heif.grid(heif.primary).value)
        #expect(grid.columns == 8 && grid.rows == 6 && grid.output_width == 4032 && grid.output_height == 3024)
        let tiles = heif.derived(heif.primary)
        #expect(tiles == Array(1...48))
        for tile in tiles {
            let t = try #require(heif.item(tile))
            #expect(t.width == 512 && t.height == 512 && heif.hvcc(tile) != nil)
        }
        #expect(heif.icc(heif.primary)?.count == 536)
        let thumb = try #require(heif.items.first { $0.thumbnail_of == heif.primary })
        #expect(thumb.id == 50 && thumb.width == 320 && thumb.height == 240)
        let exif = try #require(heif.items.first { $0.type == fourcc("Exif") })
        #expect(exif.describes == 49 && exif.data_size == 1218)
        let xmp = try #require(heif.items.first { $0.type == fourcc("mime") })
        #expect(cText(xmp.content_type) == "application/rdf+xml" && xmp.data_size == 2952)
        let walked = exercise(heif)
        #expect(walked.items == 52)
    }

    @Test("iPhone SE 2 agrees with heif-info (libheif 1.15)",
          .enabled(if: HeifPaths.hasIphoneSE2 && HeifPaths.hasHeifInfo, "needs the corpus and /usr/bin/heif-info"))
    func crossCheckHeifInfo() throws {
        // popen rather than Foundation.Process: Process leaks a weak reference that
        // LeakSanitizer reports under `make sanitize`.
        let pipe = try #require(popen("\(HeifPaths.heifInfo) '\(HeifPaths.iphoneSE2)' 2>/dev/null", "r"))
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&chunk, 1, chunk.count, pipe)
            if n <= 0 { break }
            output += chunk[0..<n]
        }
        #expect(pclose(pipe) == 0)
        let text = String(decoding: output, as: UTF8.self)

        let heif = try Heif.mustOpen(HeifPaths.iphoneSE2)
        let primary = try #require(heif.item(heif.primary))
        #expect(text.contains("image: \(primary.width)x\(primary.height) (id=\(heif.primary)), primary"), "\(text)")
        let thumb = try #require(heif.items.first { $0.thumbnail_of == heif.primary })
        #expect(text.contains("thumbnail: \(thumb.width)x\(thumb.height)"))
        let exif = try #require(heif.items.first { $0.type == fourcc("Exif") })
        #expect(text.contains("Exif: \(exif.data_size) bytes"))
        let xmp = try #require(heif.items.first { $0.type == fourcc("mime") })
        #expect(text.contains("XMP: \(xmp.data_size) bytes"))
        #expect(text.contains("color profile: prof"))
    }

    @Test("every hostile/ file: a clear error or safe accessors, never a crash",
          .enabled(if: HeifPaths.hasHostile, "../shared/corpus/hostile is not present"))
    func hostileCorpus() throws {
        let dir = HeifPaths.corpus.appendingPathComponent("hostile")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(names.count >= 100)
        var opened = 0, refused = 0
        for name in names {
            let path = dir.appendingPathComponent(name).path
            switch try Heif.open(path, budget: 64 << 20) {
            case .success(let heif):
                opened += 1
                _ = exercise(heif)
                #expect(heif.item(heif.primary) != nil, "\(name): the primary exists")
            case .failure(let f):
                refused += 1
                #expect(f.status != SY_OK && f.message.contains(name), "\(name): \(f.message)")
            }
        }
        #expect(opened + refused == names.count)
        #expect(opened > 0 && refused > 0)
    }

    @Test("NULL handle: accessors return nothing, close is a no-op")
    func nullSafety() throws {
        sy_heif_close(nil)
        #expect(sy_heif_item_count(nil) == 0 && sy_heif_primary_id(nil) == 0)
        #expect(sy_heif_item_at(nil, 0) == nil && sy_heif_item(nil, 1) == nil)
        var count: UInt32 = 7
        #expect(sy_heif_derived(nil, 1, &count) == nil && count == 0)
        var err = sy_error()
        var file: OpaquePointer?
        let ctx = try Context()
        #expect(sy_heif_open(ctx.raw, nil, &file, &err) == SY_E_USAGE)
        #expect(sy_heif_open(ctx.raw, "/nonexistent/x.heic", &file, &err) == SY_E_IO)
        #expect(message(err).contains("x.heic"))
    }

    @Test("hand-built grid: tiles, extents in mdat and idat, properties in ipma order")
    func handBuiltGrid() throws {
        let tmp = try TempFiles()
        var h = MiniHeif.grid2x1()
        // Item 2 also gets imir (axis 0) listed before irot 1, a clap 60×50 and nclx/pixi.
        h.properties += [B.box("imir", [0]), B.box("irot", [1]), MiniHeif.clap([60, 1, 50, 1, 0, 1, 0, 1]),
                         B.box("colr", B.cc("nclx") + B.u16(1) + B.u16(13) + B.u16(6) + [0x80]),
                         B.full("pixi", 0, 0, [3, 8, 8, 8])]
        h.associations[1] = (2, [0x81, 2, 4, 5, 6, 7, 8])
        let heif = try Heif.mustOpen(try tmp.write(h.build(), "grid.heic"))
        #expect(heif.items.count == 3 && heif.primary == 1)
        let grid = try #require(heif.grid(1).value)
        #expect(grid.rows == 1 && grid.columns == 2 && grid.output_width == 128 && grid.output_height == 64)
        #expect(heif.derived(1) == [2, 3])
        #expect(heif.data(2).value == [UInt8](repeating: 0xAB, count: 10))
        #expect(heif.data(3).value == [UInt8](repeating: 0xCD, count: 12))
        #expect(heif.hvcc(2)?.count == 23 && heif.hvcc(1) == nil)
        let t = try #require(heif.item(2))
        #expect(t.hidden == 1 && t.width == 64 && t.height == 64)
        #expect(t.mirror == 0 && t.rotation == 1 && t.transform_order == 1, "imir listed first")
        #expect(t.has_clap == 1 && t.clap_x == 2 && t.clap_y == 7 && t.clap_width == 60 && t.clap_height == 50)
        #expect(t.nclx.present == 1 && t.nclx.primaries == 1 && t.nclx.transfer == 13 && t.nclx.matrix == 6)
        #expect(t.nclx.full_range == 1 && t.channels == 3 && t.bits_per_channel == 8)
        let t3 = try #require(heif.item(3))
        #expect(t3.mirror == -1 && t3.has_clap == 0 && t3.transform_order == 0)
    }

    @Test("box sizes that lie are refused with the box named")
    func lyingSizes() throws {
        let tmp = try TempFiles()
        // meta claims more bytes than the file has
        var h = MiniHeif.grid2x1()
        h.metaSizeDelta = 100_000
        var f = try #require(try Heif.open(try tmp.write(h.build(), "meta-lie.heic")).failure)
        #expect(f.status == SY_E_INVALID_INPUT && f.message.contains("meta-lie.heic") && f.message.contains("meta"))
        // meta claims fewer bytes: its last child (iloc) crosses the parent end
        h.metaSizeDelta = -6
        f = try #require(try Heif.open(try tmp.write(h.build(), "child-lie.heic")).failure)
        #expect(f.status == SY_E_INVALID_INPUT && f.message.contains("'iloc'"), "\(f.message)")
        // a box smaller than its header
        var bytes = MiniHeif.grid2x1().build()
        bytes.replaceSubrange(0..<4, with: B.u32(4))
        f = try #require(try Heif.open(try tmp.write(bytes, "tiny.heic")).failure)
        #expect(f.status == SY_E_INVALID_INPUT && f.message.contains("smaller than"), "\(f.message)")
        // iinf declares 65535 entries but holds 3: the children are counted, not the claim
        h = MiniHeif.grid2x1()
        h.iinfDeclaredCount = 65535
        let heif = try Heif.mustOpen(try tmp.write(h.build(), "iinf-count.heic"))
        #expect(heif.items.count == 3)
        // not HEIF, not a picture handler
        h = MiniHeif.grid2x1()
        h.brands = ["isom", "mp41"]
        f = try #require(try Heif.open(try tmp.write(h.build(), "isom.heic")).failure)
        #expect(f.status == SY_E_UNSUPPORTED)
        h = MiniHeif.grid2x1()
        h.handler = "vide"
        f = try #require(try Heif.open(try tmp.write(h.build(), "vide.heic")).failure)
        #expect(f.status == SY_E_UNSUPPORTED && f.message.contains("vide"))
        // empty and truncated files
        f = try #require(try Heif.open(try tmp.write([], "empty.heic")).failure)
        #expect(f.status == SY_E_INVALID_INPUT)
        f = try #require(try Heif.open(try tmp.write(Array(MiniHeif.grid2x1().build().prefix(60)), "cut.heic")).failure)
        #expect(f.status == SY_E_INVALID_INPUT)
    }

    @Test("size 0 (to the end) and 64-bit largesize boxes are read")
    func sizeZeroAndLargesize() throws {
        let tmp = try TempFiles()
        var h = MiniHeif.grid2x1()
        h.locations = [MiniHeif.Location(id: 1, method: 1, offset: 0, length: 8)] // tiles have no data here
        h.metaSizeZero = true
        let zero = try Heif.mustOpen(try tmp.write(h.build(), "size0.heic"))
        #expect(zero.grid(1).value?.output_width == 128)
        #expect(zero.data(2).failureStatus == SY_E_INVALID_INPUT, "no iloc entry for the tile")

        h = MiniHeif.grid2x1()
        h.metaLargeSize = true
        let large = try Heif.mustOpen(try tmp.write(h.build(), "large.heic"))
        #expect(large.data(3).value?.count == 12)

        // a largesize that claims 2^63 bytes
        var bytes = MiniHeif.grid2x1().build()
        bytes = Array(bytes[0..<24]) + B.u32(1) + B.cc("free") + B.u64(1 << 63) + Array(bytes[24...])
        let f = try #require(try Heif.open(try tmp.write(bytes, "huge-largesize.heic")).failure)
        #expect(f.status == SY_E_INVALID_INPUT && f.message.contains("free"), "\(f.message)")
    }

    @Test("a 100000×100000 grid is refused, never allocated")
    func hugeGrid() throws {
        let tmp = try TempFiles()
        var h = MiniHeif.grid2x1()
        h.properties[2] = MiniHeif.ispe(100_000, 100_000)
        h.idat = MiniHeif.gridDescriptor(rows: 1, columns: 2, width: 100_000, height: 100_000)
        h.locations[0].length = 12
        let heif = try Heif.mustOpen(try tmp.write(h.build(), "huge-grid.heic"))
        let f = try #require(heif.grid(1).failure)
        #expect(f.status == SY_E_BUDGET && f.message.contains("100000"), "\(f.message)")
        #expect(heif.ctx.stats.peak_bytes < 1 << 20)

        // the descriptor alone too (no ispe on the grid)
        h.associations[0] = (1, [])
        let heif2 = try Heif.mustOpen(try tmp.write(h.build(), "huge-grid2.heic"))
        #expect(heif2.grid(1).failureStatus == SY_E_BUDGET)

        // a tile count that does not match the references
        h = MiniHeif.grid2x1()
        h.idat = MiniHeif.gridDescriptor(rows: 2, columns: 2, width: 128, height: 128)
        let heif3 = try Heif.mustOpen(try tmp.write(h.build(), "grid-count.heic"))
        #expect(heif3.grid(1).failureStatus == SY_E_INVALID_INPUT)
        // tiles too small for the output
        h = MiniHeif.grid2x1()
        h.idat = MiniHeif.gridDescriptor(rows: 1, columns: 2, width: 200, height: 64)
        let heif4 = try Heif.mustOpen(try tmp.write(h.build(), "grid-cover.heic"))
        #expect(heif4.grid(1).failureStatus == SY_E_INVALID_INPUT)
    }

    @Test("HEIFs in codings neither reader decodes say which coding (not libheif's missing 'pitm' item) (issue 20)",
          arguments: [("jpeg32.heif", "'jpeg' (JPEG)"), ("avc32.heif", "'avc1' (H.264/AVC)"),
                      ("j2k32.heif", "'j2k1' (JPEG 2000)"), ("rgb_generic_compressed_zlib.heic", "'unci'")])
    func unsupportedCodingsAreNamed(_ name: String, _ coding: String) throws {
        let path = HeifPaths.corpus.appendingPathComponent("hostile/\(name)").path
        guard FileManager.default.fileExists(atPath: path) else { return }
        let ctx = try Context()
        var info = sy_image_info()
        var err = sy_error()
        #expect(sy_image_probe(ctx.raw, path, &info, &err) == SY_E_UNSUPPORTED)
        #expect(message(err).hasPrefix("\(path): unsupported coding \(coding)"), "\(message(err))")
    }

    @Test("tiles whose ispe lies (4294967295 wide, 65535x65535) are refused naming the file, never allocated (issue 20)",
          arguments: [(UInt32.max, UInt32(64)), (UInt32(65535), UInt32(65535)), (UInt32(128), UInt32(64))])
    func lyingTileSizes(_ width: UInt32, _ height: UInt32) throws {
        let tmp = try TempFiles()
        var h = MiniHeif.grid2x1()           // a 128x64 grid of two tiles
        h.properties[1] = MiniHeif.ispe(width, height)
        let path = try tmp.write(h.build(), "lying-tile-\(width)x\(height).heic")
        let ctx = try Context(budget: 256 << 20)
        var info = sy_image_info()
        var err = sy_error()
        let status = sy_image_probe(ctx.raw, path, &info, &err)
        #expect(status == SY_E_INVALID_INPUT, "\(message(err))")
        #expect(message(err).contains(path), "the error names the file: \(message(err))")
        var fp = sy_fingerprint()
        #expect(sy_fingerprint_file(ctx.raw, path, &fp, &err) != SY_OK)
        #expect(ctx.stats.peak_bytes < 1 << 20, "peak \(ctx.stats.peak_bytes) B: the lie was allocated")
    }

    @Test("iloc extents past the end of the file or idat fail on read, with numbers")
    func badExtents() throws {
        let tmp = try TempFiles()
        var h = MiniHeif.grid2x1()
        h.locations[2].length = 1_000_000
        h.locations[1] = MiniHeif.Location(id: 2, method: 0, offset: 0xFFFF_FFF0, length: 0xFFFF_FFF0, absolute: true)
        h.locations[0].length = 9 // idat has 8 bytes
        let heif = try Heif.mustOpen(try tmp.write(h.build(), "extent.heic"))
        let f3 = try #require(heif.data(3).failure)
        #expect(f3.status == SY_E_INVALID_INPUT && f3.message.contains("1000000") && f3.message.contains("iloc"))
        #expect(heif.data(2).failureStatus == SY_E_INVALID_INPUT)
        let f1 = try #require(heif.grid(1).failure)
        #expect(f1.status == SY_E_INVALID_INPUT && f1.message.contains("idat"), "\(f1.message)")
        #expect(heif.item(3)?.data_size == 0)
        #expect(heif.ctx.stats.peak_bytes < 1 << 20, "nothing allocated from the claimed lengths")

        // iloc claiming 65535 items in a few bytes
        var bytes = MiniHeif.grid2x1().build()
        let iloc = try #require(findBox(bytes, "iloc"))
        bytes.replaceSubrange(iloc + 14..<iloc + 16, with: B.u16(65535))
        let f = try #require(try Heif.open(try tmp.write(bytes, "iloc-count.heic")).failure)
        #expect(f.status == SY_E_INVALID_INPUT && f.message.contains("iloc"), "\(f.message)")
    }

    @Test("ipma property index out of range, duplicate item IDs, missing items")
    func badIndices() throws {
        let tmp = try TempFiles()
        var h = MiniHeif.grid2x1()
        h.associations[2] = (3, [0x81, 9])
        let f = try #require(try Heif.open(try tmp.write(h.build(), "ipma.heic")).failure)
        #expect(f.status == SY_E_INVALID_INPUT && f.message.contains("ipma") && f.message.contains("9"), "\(f.message)")

        h = MiniHeif.grid2x1()
        h.items.append(MiniHeif.Item(id: 2, type: "Exif"))
        let d = try #require(try Heif.open(try tmp.write(h.build(), "dup.heic")).failure)
        #expect(d.status == SY_E_INVALID_INPUT && d.message.contains("duplicate"))

        h = MiniHeif.grid2x1()
        h.primary = 42
        let p = try #require(try Heif.open(try tmp.write(h.build(), "pitm.heic")).failure)
        #expect(p.status == SY_E_INVALID_INPUT && p.message.contains("42"))

        // references to and from missing items are ignored; a missing tile fails the grid
        h = MiniHeif.grid2x1()
        h.items.append(MiniHeif.Item(id: 4, type: "Exif", hidden: true))
        h.references = [("dimg", 1, [2, 99]), ("cdsc", 4, [77]), ("thmb", 55, [1]), ("auxl", 3, [3])]
        let heif = try Heif.mustOpen(try tmp.write(h.build(), "missing.heic"))
        #expect(heif.item(4)?.describes == 0 && heif.item(3)?.aux_of == 0)
        #expect(heif.derived(1) == [2, 99])
        let g = try #require(heif.grid(1).failure)
        #expect(g.status == SY_E_INVALID_INPUT && g.message.contains("99"))
        #expect(heif.data(4).failureStatus == SY_E_INVALID_INPUT, "no location")
    }

    @Test("dimg loops fail the open; a grid of grids fails the grid")
    func recursion() throws {
        let tmp = try TempFiles()
        var h = MiniHeif.grid2x1()
        h.references = [("dimg", 1, [1, 3])] // the grid is its own tile
        var f = try #require(try Heif.open(try tmp.write(h.build(), "self.heic")).failure)
        #expect(f.status == SY_E_INVALID_INPUT && f.message.contains("loop"), "\(f.message)")

        h = MiniHeif.grid2x1()
        h.items[1].type = "grid"
        h.references = [("dimg", 1, [2, 3]), ("dimg", 2, [1, 3])] // grid 1 → grid 2 → grid 1
        f = try #require(try Heif.open(try tmp.write(h.build(), "loop.heic")).failure)
        #expect(f.status == SY_E_INVALID_INPUT && f.message.contains("loop"))

        h.references = [("dimg", 1, [2, 3]), ("dimg", 2, [3])] // no loop, but a grid tile is a grid
        let heif = try Heif.mustOpen(try tmp.write(h.build(), "nested.heic"))
        let g = try #require(heif.grid(1).failure)
        #expect(g.status == SY_E_INVALID_INPUT && g.message.contains("derived"), "\(g.message)")
        #expect(heif.grid(3).failureStatus == SY_E_USAGE, "not a grid")
    }

    @Test("hostile clap values are ignored (zero/negative denominators, overflow, outside the image)")
    func hostileClap() throws {
        let tmp = try TempFiles()
        let cases: [[Int32]] = [
            [60, 0, 50, 1, 0, 1, 0, 1], // zero width denominator
            [60, 1, 50, -1, 0, 1, 0, 1], // negative height denominator
            [60, 1, 50, 1, 0, 0, 0, 1], // zero offset denominator
            [Int32.max, 1, 50, 1, 0, 1, 0, 1], // wider than the image
            [60, 1, 50, 1, Int32.max, 1, 0, 1], // pushed off the right edge
            [60, 1, 50, 1, Int32.min, 1, Int32.min, 1], // pushed off the top-left
            [60, 1, 50, 1, Int32.max, Int32.max, 0, Int32.max], // huge fractions, in range: kept
            [-60, 1, 50, 1, 0, 1, 0, 1], // negative width
            [Int32.min, -1, Int32.min, -1, Int32.min, -1, Int32.min, -1],
        ]
        for (i, c) in cases.enumerated() {
            var h = MiniHeif.grid2x1()
            h.properties.append(MiniHeif.clap(c))
            h.associations[1] = (2, [0x81, 2, 4])
            let heif = try Heif.mustOpen(try tmp.write(h.build(), "clap\(i).heic"))
            let t = try #require(heif.item(2))
            if i == 6 {
                #expect(t.has_clap == 1 && t.clap_x == 3 && t.clap_width == 60, "case \(i)")
            } else {
                #expect(t.has_clap == 0, "case \(i): \(c)")
            }
        }
    }

    @Test("budgets: the meta cap and the context budget")
    func budgets() throws {
        let tmp = try TempFiles()
        // A sparse file whose meta box claims 65 MiB: refused before allocating.
        let path = tmp.url.appendingPathComponent("big-meta.heic").path
        let head = B.box("ftyp", B.cc("heic") + B.u32(0) + B.cc("mif1")) + B.u32(65 << 20) + B.cc("meta")
        try Data(head).write(to: URL(fileURLWithPath: path))
        let fh = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try fh.truncate(atOffset: UInt64(head.count - 8 + (65 << 20)))
        try fh.close()
        let f = try #require(try Heif.open(path).failure)
        #expect(f.status == SY_E_BUDGET && f.message.contains("meta"), "\(f.message)")

        // A small context budget fails cleanly on a real file's metadata.
        if HeifPaths.hasIphone15 {
            let b = try #require(try Heif.open(HeifPaths.iphone15, budget: 16 << 10).failure)
            #expect(b.status == SY_E_BUDGET)
        }
    }
}

/// Offset of the first box named `type` (a byte search; fine for the hand-built files).
private func findBox(_ bytes: [UInt8], _ type: String) -> Int? {
    let t = Array(type.utf8)
    guard bytes.count >= 8 else { return nil }
    for i in 4..<(bytes.count - 4) where Array(bytes[i..<i + 4]) == t { return i - 4 }
    return nil
}
