// HDR10+ dynamic metadata (SMPTE ST 2094-40; CSources/core/base/hdr10plus.c): the message's syntax checked
// and summarised, found in a sample among other SEI (emulation prevention undone), and the encoder's own
// prefix SEI (CSources/core/hevc/hevc_attached.c) read back byte for byte. The round trip through a movie,
// checked by ffprobe, is HDR10PlusMovieTests' (SPEC E6: an edit keeps what the HDR needs).
import CShiying
import CShiyingInternal
import Testing

/// Bits most significant first, padded with zeros to a byte.
private struct BitWriter {
    var bits: [UInt8] = []
    mutating func put(_ value: Int, _ count: Int) {
        for k in stride(from: count - 1, through: 0, by: -1) { bits.append(UInt8((value >> k) & 1)) }
    }
    var bytes: [UInt8] {
        var padded = bits
        while padded.count % 8 != 0 { padded.append(0) }
        return stride(from: 0, to: padded.count, by: 8).map { k in padded[k..<k + 8].reduce(0) { $0 << 1 | $1 } }
    }
}

/// An HDR10+ message: `windows` windows (the extra ones with corners), the targeted display's peak, MaxSCL
/// (the first channel 0 so the payload holds 00 00 0x runs), percentiles, and a Bezier curve in window 0.
private func hdr10PlusMessage(windows: Int = 1, targeted: Int = 1000, maxscl: [Int] = [0, 0, 3],
                              percentiles: Int = 3, anchors: Int = 4) -> [UInt8] {
    var b = BitWriter()
    b.put(0xB5, 8); b.put(0x003C, 16); b.put(0x0001, 16); b.put(4, 8); b.put(1, 8); b.put(windows, 2)
    for _ in 1..<max(windows, 1) { for _ in 0..<6 { b.put(100, 16) }; b.put(0, 8); for _ in 0..<3 { b.put(50, 16) }; b.put(0, 1) }
    b.put(targeted, 27); b.put(0, 1)
    for _ in 0..<windows {
        for v in maxscl { b.put(v, 17) }
        b.put(777, 17); b.put(percentiles, 4)
        for k in 0..<percentiles { b.put(10 * k + 1, 7); b.put(1000 * k, 17) }
        b.put(12, 10)
    }
    b.put(0, 1)
    for w in 0..<windows {
        b.put(w == 0 ? 1 : 0, 1)
        if w == 0 { b.put(2048, 12); b.put(1024, 12); b.put(anchors, 4); for k in 0..<anchors { b.put(100 * k, 10) } }
        b.put(0, 1)
    }
    return b.bytes
}

private func escaped(_ rbsp: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [], zeros = 0
    for v in rbsp {
        if zeros >= 2 && v <= 3 { out.append(3); zeros = 0 }
        out.append(v)
        zeros = v == 0 ? zeros + 1 : 0
    }
    return out
}

private func lengthPrefixed(_ nals: [[UInt8]]) -> [UInt8] {
    var out: [UInt8] = []
    for n in nals {
        let size = n.count
        out += [UInt8(truncatingIfNeeded: size >> 24), UInt8(truncatingIfNeeded: size >> 16),
                UInt8(truncatingIfNeeded: size >> 8), UInt8(truncatingIfNeeded: size)]
        out += n
    }
    return out
}

/// 00 00 followed by 00, 01 or 02 anywhere: what emulation prevention forbids inside a NAL unit.
private func holdsForbiddenRun(_ nal: [UInt8]) -> Bool {
    nal.count >= 3 && (0..<nal.count - 2).contains { nal[$0] == 0 && nal[$0 + 1] == 0 && nal[$0 + 2] <= 2 }
}

private func fromSample(_ sample: [UInt8], hevc: Bool = true) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: Int(SY__HDR10PLUS_MAX))
    let n = sy__hdr10plus_from_sample(sample, sample.count, 4, hevc ? 1 : 0, &out, out.count)
    return Array(out.prefix(n))
}

@Suite("HDR10+ messages: syntax, samples, the encoder's SEI; Dolby Vision RPUs handed on")
struct HDR10PlusTests {
    @Test("a one-window message: what it says, read from its bits")
    func parseOneWindow() {
        let m = hdr10PlusMessage(targeted: 400, maxscl: [40000, 35000, 20000], percentiles: 9, anchors: 9)
        var s = sy__hdr10plus()
        #expect(sy__hdr10plus_parse(m, m.count, &s) == 1)
        #expect(s.application_version == 1 && s.windows == 1 && s.targeted_max_luminance == 400)
        #expect(s.maxscl.0 == 40000 && s.maxscl.1 == 35000 && s.maxscl.2 == 20000 && s.average_maxrgb == 777)
        #expect(s.percentiles == 9 && s.fraction_bright_pixels == 12)
        #expect(s.tone_mapping == 1 && s.knee_x == 2048 && s.knee_y == 1024 && s.anchors == 9)
    }

    @Test("three windows are skipped to the first window's values; refused: truncated, another provider, no window, version 2")
    func parseRefusals() {
        let three = hdr10PlusMessage(windows: 3)
        var s = sy__hdr10plus()
        #expect(sy__hdr10plus_parse(three, three.count, &s) == 1 && s.windows == 3 && s.maxscl.2 == 3 && s.anchors == 4)
        // a message cut one byte short of its syntax (whole bytes, so the padding is not what is lost)
        let whole = hdr10PlusMessage(windows: 1)
        #expect(sy__hdr10plus_parse(whole, whole.count - 2, nil) == 0)
        #expect(sy__hdr10plus_parse(whole, 6, nil) == 0)
        var other = whole
        other[2] = 0x3B // provider 0x003B
        #expect(sy__hdr10plus_parse(other, other.count, nil) == 0)
        var application = whole
        application[5] = 5 // application identifier 5
        #expect(sy__hdr10plus_parse(application, application.count, nil) == 0)
        let none = hdr10PlusMessage(windows: 0)
        #expect(sy__hdr10plus_parse(none, none.count, nil) == 0)
        var version = whole
        version[6] = 2
        #expect(sy__hdr10plus_parse(version, version.count, nil) == 0)
    }

    @Test("found in an HEVC prefix SEI after another message, escapes undone; not in a slice; H.264 SEI too")
    func fromSamples() {
        let message = hdr10PlusMessage()
        #expect(message.count < 255)
        let rbsp: [UInt8] = [5, 3, 0xAA, 0xBB, 0xCC] + [4, UInt8(message.count)] + message + [0x80]
        let sei: [UInt8] = [39 << 1, 1] + escaped(rbsp)
        #expect(sei.count > 2 + rbsp.count, "the fixture holds 00 00 0x runs that need escapes")
        let slice: [UInt8] = [1 << 1, 1, 0x80, 0x11, 0x22]
        #expect(fromSample(lengthPrefixed([sei, slice])) == message)
        #expect(fromSample(lengthPrefixed([slice])) == [])
        // the same message as a suffix SEI (type 40) is not where HDR10+ goes
        #expect(fromSample(lengthPrefixed([[40 << 1, 1] + escaped(rbsp), slice])) == [])
        let h264: [UInt8] = [0x06] + escaped([4, UInt8(message.count)] + message + [0x80])
        #expect(fromSample(lengthPrefixed([h264, [0x65, 0x88]]), hevc: false) == message)
        // a T.35 message of another provider, then HDR10+
        var other = message
        other[2] = 0x3B
        let two: [UInt8] = [39 << 1, 1] + escaped([4, UInt8(other.count)] + other + [4, UInt8(message.count)] + message + [0x80])
        #expect(fromSample(lengthPrefixed([two, slice])) == message)
        // a size running past the NAL unit ends the walk, nothing read out of bounds
        let lying: [UInt8] = [39 << 1, 1, 4, 200] + Array(message.prefix(10))
        #expect(fromSample(lengthPrefixed([lying])) == [])
    }

    @Test("the encoder's prefix SEI: sized by its bound, escaped, read back as the same message, taken once")
    func encoderSEIRoundTrip() throws {
        let ctx = try Context()
        var queue = sy__hevc_attached_queue()
        var err = sy_error()
        let long = hdr10PlusMessage(windows: 3, percentiles: 15, anchors: 15) + [UInt8](repeating: 0, count: 300)
        for (pts, message) in [(Int64(1024), hdr10PlusMessage()), (Int64(512), long)] {
            #expect(sy__hevc_attached_add(ctx.raw, &queue, pts, message, message.count, &err) == SY_OK)
        }
        #expect(sy__hevc_attached_add(ctx.raw, &queue, 512, long, long.count, &err) == SY_E_USAGE, "two for one picture")
        #expect(sy__hevc_attached_sei_bound(&queue, 99) == 0)
        for (pts, message) in [(Int64(512), long), (Int64(1024), hdr10PlusMessage())] {
            let bound = sy__hevc_attached_sei_bound(&queue, pts)
            #expect(bound > message.count)
            var out = [UInt8](repeating: 0xEE, count: bound)
            let written = sy__hevc_attached_take_sei(ctx.raw, &queue, pts, &out)
            #expect(written > 0 && written <= bound)
            let nal = Array(out.prefix(written))
            #expect(Int(nal[0]) << 24 | Int(nal[1]) << 16 | Int(nal[2]) << 8 | Int(nal[3]) == written - 4)
            #expect(nal[4] == 39 << 1 && nal[5] == 1 && nal.last == 0x80)
            #expect(!holdsForbiddenRun(Array(nal.dropFirst(4))), "escaped")
            let back = fromSample(nal)
            // the 300 zero bytes after the long message's syntax are part of its payload and come back too
            #expect(back == message, "pts \(pts): \(back.count) bytes back of \(message.count)")
            #expect(sy__hevc_attached_sei_bound(&queue, pts) == 0 && sy__hevc_attached_take_sei(ctx.raw, &queue, pts, &out) == 0)
        }
        sy__hevc_attached_free(ctx.raw, &queue)
    }

    @Test("a Dolby Vision RPU waiting for its picture is written as it came, after a 4-byte length, once")
    func rpuAsItCame() throws {
        let ctx = try Context()
        var queue = sy__hevc_attached_queue()
        var err = sy_error()
        let rpu: [UInt8] = [62 << 1, 1, 25, 8, 0, 0, 3, 1, 0x80] // header, prefix, an escape kept as stored
        #expect(sy__hevc_attached_add(ctx.raw, &queue, 7, rpu, rpu.count, &err) == SY_OK)
        #expect(sy__hevc_attached_nal_bound(&queue, 7) == rpu.count + 4 && sy__hevc_attached_nal_bound(&queue, 8) == 0)
        var out = [UInt8](repeating: 0, count: rpu.count + 4)
        #expect(sy__hevc_attached_take_nal(ctx.raw, &queue, 7, &out) == rpu.count + 4)
        #expect(out == [0, 0, 0, UInt8(rpu.count)] + rpu)
        #expect(sy__hevc_attached_take_nal(ctx.raw, &queue, 7, &out) == 0)
        sy__hevc_attached_free(ctx.raw, &queue)
    }
}
