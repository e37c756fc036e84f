// Issue 16 item 6: an Exif block too large for one JPEG APP1 is rebuilt to fit
// (thumbnail IFD, then MakerNote, then values over 4 KB shed, in that order),
// keeping the standard tags readable; and the Motion Photo XMP remover (item 7)
// on the element form the CLI test does not cover.
import CShiying
import CShiyingInternal
import Foundation
import Testing

/// A little-endian TIFF/Exif block: IFD0 (DateTime, Exif and GPS pointers) ->
/// IFD1 (a thumbnail), Exif IFD (DateTimeOriginal, MakerNote, UserComment), GPS IFD.
private func exifBlock(makerNote: Int, userComment: Int, thumbnail: Int) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 8)
    out[0] = 0x49; out[1] = 0x49; out[2] = 42
    func u16(_ v: Int, at i: Int) { out[i] = UInt8(v & 0xFF); out[i + 1] = UInt8(v >> 8 & 0xFF) }
    func u32(_ v: Int, at i: Int) { for k in 0..<4 { out[i + k] = UInt8(v >> (8 * k) & 0xFF) } }
    typealias Entry = (tag: Int, type: Int, count: Int, data: [UInt8]?, inline: Int)
    /// Appends an IFD and its data area; returns (its offset, where each entry's value field sits).
    func ifd(_ entries: [Entry]) -> (at: Int, values: [Int], next: Int) {
        let at = out.count
        out += [UInt8](repeating: 0, count: 2 + 12 * entries.count + 4)
        u16(entries.count, at: at)
        var values: [Int] = []
        for (i, e) in entries.enumerated() {
            let p = at + 2 + 12 * i
            u16(e.tag, at: p); u16(e.type, at: p + 2); u32(e.count, at: p + 4)
            if let data = e.data {
                if out.count % 2 == 1 { out.append(0) }
                u32(out.count, at: p + 8)
                out += data
            } else {
                u32(e.inline, at: p + 8)
            }
            values.append(p + 8)
        }
        return (at, values, at + 2 + 12 * entries.count)
    }
    let stamp = Array("2024:05:06 07:08:09".utf8) + [0]
    let zero = { (n: Int, seed: UInt8) in (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) } }
    let ifd0 = ifd([(0x0132, 2, 20, stamp, 0), (0x8769, 4, 1, nil, 0), (0x8825, 4, 1, nil, 0)])
    u32(ifd0.at, at: 4)
    var exifEntries: [Entry] = [(0x9003, 2, 20, stamp, 0)]
    if userComment > 0 { exifEntries.append((0x9286, 7, userComment, zero(userComment, 3), 0)) }
    if makerNote > 0 { exifEntries.append((0x927C, 7, makerNote, zero(makerNote, 9), 0)) }
    let exif = ifd(exifEntries)
    u32(exif.at, at: ifd0.values[1])
    let gps = ifd([(0x0001, 2, 2, nil, 0x4E), (0x0003, 2, 2, nil, 0x45)]) // "N\0", "E\0" inline
    u32(gps.at, at: ifd0.values[2])
    if thumbnail > 0 {
        let ifd1 = ifd([(0x0201, 4, 1, nil, 0), (0x0202, 4, 1, nil, thumbnail)])
        u32(out.count, at: ifd1.values[0])
        out += zero(thumbnail, 5)
        u32(ifd1.at, at: ifd0.next)
    }
    return out
}

private struct Fitted {
    var bytes: [UInt8]
    var dropped: UInt32
}

private func fit(_ block: [UInt8], limit: Int) throws -> Fitted {
    let ctx = try Context()
    var out: UnsafeMutablePointer<UInt8>?
    var len = 0
    var dropped: UInt32 = 0
    var err = sy_error()
    let status = sy__exif_fit(ctx.raw, block, block.count, limit, &out, &len, &dropped, &err)
    guard status == SY_OK, let out else { throw CTestFailure("sy__exif_fit: \(status) \(message(err))") }
    defer { sy__free(ctx.raw, out) }
    return Fitted(bytes: Array(UnsafeBufferPointer(start: out, count: len)), dropped: dropped)
}

private func captureDate(_ tiff: [UInt8]) -> String? {
    var date = [CChar](repeating: 0, count: 20)
    guard sy__exif_capture_date(tiff, tiff.count, &date) == 1 else { return nil }
    return String(decoding: date.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

@Suite("Exif fit (issue 16: JPEG's 64 KB APP1)")
struct ExifFitTests {
    static let limit = 65_533 - 6 // one APP1 segment less "Exif\0\0" (SY__EXIF_APP1_MAX in exif/sy_exif_writer.h)

    @Test("a 100 KB MakerNote and a thumbnail: both shed, date and GPS kept, fits one APP1")
    func makerNote() throws {
        let block = exifBlock(makerNote: 100_000, userComment: 0, thumbnail: 20_000)
        let f = try fit(block, limit: Self.limit)
        #expect(f.bytes.count <= Self.limit)
        #expect(f.dropped == SY__EXIF_FIT_THUMBNAIL | SY__EXIF_FIT_MAKERNOTE)
        #expect(captureDate(f.bytes) == "2024:05:06 07:08:09")
        #expect(sy__exif_has_gps(f.bytes, f.bytes.count) == 1)
    }

    @Test("the thumbnail alone is shed first; the MakerNote stays when the rest fits")
    func thumbnailFirst() throws {
        let block = exifBlock(makerNote: 30_000, userComment: 0, thumbnail: 50_000)
        let f = try fit(block, limit: Self.limit)
        #expect(f.dropped == SY__EXIF_FIT_THUMBNAIL)
        let size = f.bytes.count
        #expect(size > 30_000 && size <= Self.limit, "MakerNote kept: \(size) B")
    }

    @Test("a 70 KB UserComment (a standard tag) is shed as a large value; a small block is rebuilt unchanged in meaning")
    func largeValues() throws {
        let f = try fit(exifBlock(makerNote: 0, userComment: 70_000, thumbnail: 0), limit: Self.limit)
        #expect(f.dropped == SY__EXIF_FIT_LARGE_VALUES)
        #expect(captureDate(f.bytes) == "2024:05:06 07:08:09" && sy__exif_has_gps(f.bytes, f.bytes.count) == 1)
        let small = try fit(exifBlock(makerNote: 200, userComment: 100, thumbnail: 0), limit: Self.limit)
        #expect(small.dropped == 0 && captureDate(small.bytes) == "2024:05:06 07:08:09")
    }

    @Test("unreadable blocks are refused, never read out of bounds")
    func hostile() throws {
        let ctx = try Context()
        var block = exifBlock(makerNote: 1000, userComment: 0, thumbnail: 100)
        for cut in stride(from: 0, to: block.count, by: 37) { // every truncation either fits or fails cleanly
            var out: UnsafeMutablePointer<UInt8>?
            var len = 0, dropped: UInt32 = 0
            var err = sy_error()
            if sy__exif_fit(ctx.raw, block, cut, 512, &out, &len, &dropped, &err) == SY_OK {
                #expect(len <= 512)
                sy__free(ctx.raw, out)
            }
        }
        block[4] = 0xFF // IFD0 offset outside the block
        var out: UnsafeMutablePointer<UInt8>?
        var len = 0, dropped: UInt32 = 0
        var err = sy_error()
        #expect(sy__exif_fit(ctx.raw, block, block.count, Self.limit, &out, &len, &dropped, &err) == SY_E_INVALID_INPUT)
    }

    @Test("Motion Photo XMP in element form and with another prefix is removed; other properties stay")
    func motionPhotoElements() {
        let xmp = """
            <rdf:Description xmlns:Cam="http://ns.google.com/photos/1.0/camera/" xmlns:dc="http://purl.org/dc/elements/1.1/">\
            <Cam:MicroVideo>1</Cam:MicroVideo><Cam:MicroVideoOffset>4096</Cam:MicroVideoOffset>\
            <dc:title>keep</dc:title><Cam:SpecialTypeID>x</Cam:SpecialTypeID></rdf:Description>
            """
        var bytes = Array(xmp.utf8)
        var removed: Int32 = 0
        let n = sy__xmp_strip_motion_photo(&bytes, bytes.count, &removed)
        let text = String(decoding: bytes.prefix(n), as: UTF8.self)
        #expect(removed == 1)
        #expect(text == """
            <rdf:Description xmlns:Cam="http://ns.google.com/photos/1.0/camera/" xmlns:dc="http://purl.org/dc/elements/1.1/">\
            <dc:title>keep</dc:title><Cam:SpecialTypeID>x</Cam:SpecialTypeID></rdf:Description>
            """)
        var plain = Array("<x:xmpmeta><dc:title>MotionPhoto</dc:title></x:xmpmeta>".utf8)
        #expect(sy__xmp_strip_motion_photo(&plain, plain.count, &removed) == plain.count && removed == 0)
    }
}
