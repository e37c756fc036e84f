// HDR10 static metadata parsing (CSources/core/base/hdr_static.c): the SEI messages (HEVC and H.264, with
// emulation-prevention bytes), the ISO and QuickTime sample-entry boxes (SmDm's fixed-point units), and the
// x265 option string. The round trip through files is MovWriterTests' and HDR10MetadataTests'.
import CShiying
import CShiyingInternal
import Testing

private func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
private func u32(_ v: Int) -> [UInt8] { u16(v >> 16) + u16(v & 0xFFFF) }

/// RBSP -> NAL payload: 00 00 followed by 00..03 gets an emulation-prevention 03.
private func escaped(_ rbsp: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [], zeros = 0
    for b in rbsp {
        if zeros >= 2 && b <= 3 {
            out.append(3)
            zeros = 0
        }
        out.append(b)
        zeros = b == 0 ? zeros + 1 : 0
    }
    return out
}

/// The mastering display of a 1000-nit BT.2020 grade, min 0.0001 cd/m² (01 after three zero bytes: escaped).
private let masteringPayload = u16(8500) + u16(39850) + u16(6550) + u16(2300) + u16(35400) + u16(14600)
    + u16(15635) + u16(16450) + u32(10_000_000) + u32(1)

@Suite("HDR10 static metadata: SEI, boxes, x265 string")
struct HDRStaticMetadataTests {
    @Test("an HEVC prefix SEI with both messages and an unrelated one, emulation-prevention bytes in place")
    func hevcSEI() {
        let rbsp: [UInt8] = [5, 3, 0xAA, 0xBB, 0xCC] // user data unregistered (type 5), 3 bytes, skipped
            + [137, 24] + masteringPayload + [144, 4] + u16(0) + u16(400) + [0x80]
        let nal: [UInt8] = [39 << 1, 1] + escaped(rbsp)
        #expect(nal.count > 2 + rbsp.count, "the fixture needs escapes")
        var m = sy_hdr_static_metadata()
        #expect(sy__hdr_static_from_sei(nal, nal.count, 2, &m) == 1)
        #expect(m.has_mastering == 1 && m.primaries_x.0 == 8500 && m.primaries_y.0 == 39850 && m.primaries_x.2 == 35400
                && m.white_x == 15635 && m.white_y == 16450 && m.max_luminance == 10_000_000 && m.min_luminance == 1)
        #expect(m.has_light_level == 1 && m.max_cll == 0 && m.max_fall == 400, "MaxCLL 0 (unknown) is still said")
        var sample: [UInt8] = []
        for unit in [[UInt8]([1 << 1, 1, 0xAF]), nal] { sample += u32(unit.count) + unit } // a slice, then the SEI
        var fromSample = sy_hdr_static_metadata()
        sy__hdr_static_from_sample(sample, sample.count, 4, 1, &fromSample)
        #expect(fromSample.max_luminance == 10_000_000 && fromSample.max_fall == 400)
    }

    @Test("an H.264 SEI (one-byte NAL header); a truncated or lying message yields nothing")
    func h264AndDamage() {
        let nal: [UInt8] = [6] + escaped([144, 4] + u16(1000) + u16(300) + [0x80])
        var m = sy_hdr_static_metadata()
        #expect(sy__hdr_static_from_sei(nal, nal.count, 1, &m) == 1)
        #expect(m.has_mastering == 0 && m.has_light_level == 1 && m.max_cll == 1000 && m.max_fall == 300)
        for bad in [[UInt8]([6, 137, 24] + masteringPayload.prefix(10)), [6, 137, 200, 1, 2, 3], [6, 0xFF, 0xFF], [6]] {
            var d = sy_hdr_static_metadata()
            #expect(sy__hdr_static_from_sei(bad, bad.count, 1, &d) == 0 && d.has_mastering == 0, "\(bad)")
        }
    }

    @Test("mdcv / clli as the SEI; QuickTime SmDm (R, G, B in 0.16, luminance 24.8 and 18.14) and CoLL converted")
    func boxes() {
        var m = sy_hdr_static_metadata()
        #expect(sy__hdr_static_from_box(0x6D64_6376 /* mdcv */, masteringPayload, masteringPayload.count, &m) == 1)
        #expect(m.primaries_x.1 == 6550 && m.min_luminance == 1)
        let clli = u16(1000) + u16(400)
        #expect(sy__hdr_static_from_box(0x636C_6C69 /* clli */, clli, clli.count, &m) == 1 && m.max_cll == 1000)
        let smdm: [UInt8] = [0, 0, 0, 0] + u16(44564) + u16(20972) + u16(17367) + u16(45220) + u16(9830) + u16(3932)
            + u16(20493) + u16(21561) + u32(1000 * 256) + u32(82)
        var q = sy_hdr_static_metadata()
        #expect(sy__hdr_static_from_box(0x536D_446D /* SmDm */, smdm, smdm.count, &q) == 1)
        #expect(q.primaries_x.2 == 34000 && q.primaries_y.2 == 16000, "red, stored first, is the SEI's third")
        #expect(q.primaries_x.0 == 13250 && q.primaries_y.0 == 34500 && q.primaries_x.1 == 7500 && q.primaries_y.1 == 3000)
        #expect(q.white_x == 15635 && q.white_y == 16450 && q.max_luminance == 10_000_000 && q.min_luminance == 50)
        let coll: [UInt8] = [0, 0, 0, 0] + u16(4000) + u16(1000)
        #expect(sy__hdr_static_from_box(0x436F_4C4C /* CoLL */, coll, coll.count, &q) == 1 && q.max_cll == 4000 && q.max_fall == 1000)
        var none = sy_hdr_static_metadata()
        #expect(sy__hdr_static_from_box(0x6D64_6376, masteringPayload, 23, &none) == 0 && none.has_mastering == 0, "short mdcv")
        #expect(sy__hdr_static_from_box(0x636F_6C72 /* colr */, clli, clli.count, &none) == 0)
    }

    @Test("x265's master-display string; merge keeps what a box said first")
    func x265StringAndMerge() {
        var m = sy_hdr_static_metadata()
        _ = sy__hdr_static_from_box(0x6D64_6376, masteringPayload, masteringPayload.count, &m)
        var text = [CChar](repeating: 0, count: 128)
        sy__hdr_static_master_display(&m, &text, text.count)
        #expect(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) == "G(8500,39850)B(6550,2300)R(35400,14600)WP(15635,16450)L(10000000,1)")
        var sei = sy_hdr_static_metadata()
        sei.has_mastering = 1
        sei.max_luminance = 5
        sei.has_light_level = 1
        sei.max_cll = 700
        sy__hdr_static_merge(&m, &sei)
        #expect(m.max_luminance == 10_000_000 && m.has_light_level == 1 && m.max_cll == 700)
        var empty = sy_hdr_static_metadata()
        sy__hdr_static_master_display(&empty, &text, text.count)
        #expect(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).isEmpty)
    }
}
