#!/usr/bin/env python3
"""Small deterministic gain-map fixtures for Tests/CShiyingTests/GainMapFormsTests.swift
(numpy + Pillow; no engine code). Subcommands:

  uhdr OUT MIN MAX GAMMA [--base-hdr] [--channels 3]
      Ultra HDR JPEG (hdrgm XMP only, MPF, Container XMP), 256x192 base,
      128x96 map; OffsetSDR = OffsetHDR = 1/64, HDRCapacity 0..max(|MIN|,|MAX|).
  apple-mpf OUT ORDER
      Apple-style JPEG (no hdrgm, no ISO): primary + MPF listing a portrait
      matte and the HDR gain map (HDRGainMapVersion 131072, headroom 4) in
      ORDER "matte,map" or "map,matte".
  heic-irot IN OUT
      The HEIC with an irot (90 degrees) property added to the primary item,
      every 'tmap' item and each tmap's gain-map input (iloc offsets moved);
      with --map-only, to the gain-map input alone.

The gain map codes are a fixed pattern (gm_codes) so tests can recompute the
gains from the numbers given here."""
import io
import struct
import sys

import numpy as np
from PIL import Image

W, H, MW, MH = 256, 192, 128, 96
XMP_ID = b"http://ns.adobe.com/xap/1.0/\0"


def base_pixels():
    y, x = np.mgrid[0:H, 0:W]
    return np.stack([40 + x * 160 // W, 40 + y * 160 // H, 60 + ((x // 32 + y // 32) % 2) * 100], -1).astype(np.uint8)


def gm_codes(shift=0):
    """Map codes: a horizontal ramp 0..255 over the top half, a flat 200 block, 0 elsewhere."""
    y, x = np.mgrid[0:MH, 0:MW]
    g = np.zeros((MH, MW), np.uint8)
    g[: MH // 2] = ((x[: MH // 2] + shift) % MW) * 255 // (MW - 1)
    g[MH // 2 + 8: MH - 8, 16:64] = 200
    return g


def seg(marker, payload):
    return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload


def jpeg_body(pixels):
    """Pillow JPEG without SOI and APPn segments (starts at DQT)."""
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, "JPEG", quality=95)
    j = out.getvalue()
    i = 2
    while j[i] == 0xFF and 0xE0 <= j[i + 1] <= 0xEF:
        i += 2 + struct.unpack(">H", j[i + 2: i + 4])[0]
    return j[i:]


def rdf(inner, ns=""):
    return ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
            '<rdf:Description rdf:about=""%s>%s</rdf:Description></rdf:RDF></x:xmpmeta>' % (ns, inner)).encode()


def mpf(entries):
    n = len(entries)
    t = b"MM\0*" + struct.pack(">I", 8) + struct.pack(">H", 3)
    t += struct.pack(">HHI4s", 0xB000, 7, 4, b"0100") + struct.pack(">HHII", 0xB001, 4, 1, n)
    t += struct.pack(">HHII", 0xB002, 7, 16 * n, 50) + struct.pack(">I", 0)
    for attr, size, off in entries:
        t += struct.pack(">IIIHH", attr, size, off, 0, 0)
    return seg(0xE2, b"MPF\0" + t)


def assemble(head, body, secondaries):
    """head: primary APPn segments after SOI; MPF placed after them."""
    n = len(secondaries) + 1
    mpf_at = 2 + len(head)
    size = mpf_at + len(mpf([(0, 0, 0)] * n)) + len(body)
    entries, off = [(0x030000, size, 0)], size
    for s in secondaries:
        entries.append((0, len(s), off - (mpf_at + 8)))
        off += len(s)
    return b"\xff\xd8" + head + mpf(entries) + body + b"".join(secondaries)


def uhdr(out, mn, mx, gamma, base_hdr, channels):
    g = gm_codes()
    if channels == 3:
        g = np.stack([g, gm_codes(40), g[::-1]], -1)
    cap = max(abs(mn), abs(mx))
    hdrgm = 'xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/"'
    attrs = (' hdrgm:Version="1.0" hdrgm:GainMapMin="%g" hdrgm:GainMapMax="%g" hdrgm:Gamma="%g" hdrgm:OffsetSDR="0.015625"'
             ' hdrgm:OffsetHDR="0.015625" hdrgm:HDRCapacityMin="0" hdrgm:HDRCapacityMax="%g" hdrgm:BaseRenditionIsHDR="%s"'
             % (mn, mx, gamma, cap, "True" if base_hdr else "False"))
    gm_xmp = rdf("", " " + hdrgm + attrs)
    gmj = b"\xff\xd8" + seg(0xE1, XMP_ID + gm_xmp) + jpeg_body(g)
    container = ('<Container:Directory><rdf:Seq><rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary"'
                 ' Item:Mime="image/jpeg"/></rdf:li><rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="GainMap"'
                 ' Item:Mime="image/jpeg" Item:Length="%d"/></rdf:li></rdf:Seq></Container:Directory>' % len(gmj))
    prim_xmp = rdf(container, ' xmlns:Container="http://ns.google.com/photos/1.0/container/"'
                   ' xmlns:Item="http://ns.google.com/photos/1.0/container/item/" ' + hdrgm + ' hdrgm:Version="1.0"')
    open(out, "wb").write(assemble(seg(0xE1, XMP_ID + prim_xmp), jpeg_body(base_pixels()), [gmj]))


def apple_mpf(out, order):
    apdi = ' xmlns:apdi="http://ns.apple.com/pixeldatainfo/1.0/" xmlns:HDRGainMap="http://ns.apple.com/HDRGainMap/1.0/"'
    gm_xmp = rdf("<apdi:AuxiliaryImageType>urn:com:apple:photo:2020:aux:hdrgainmap</apdi:AuxiliaryImageType>"
                  "<apdi:StoredFormat>1278226488</apdi:StoredFormat><HDRGainMap:HDRGainMapVersion>131072"
                  "</HDRGainMap:HDRGainMapVersion><HDRGainMap:HDRGainMapHeadroom>4.000000</HDRGainMap:HDRGainMapHeadroom>", apdi)
    gmj = b"\xff\xd8" + seg(0xE1, XMP_ID + gm_xmp) + jpeg_body(gm_codes())
    m = np.zeros((H // 2, W // 2), np.uint8)
    m[20:80, 30:90] = 255
    matte_xmp = rdf("<apdi:AuxiliaryImageType>urn:com:apple:photo:2018:aux:portraiteffectsmatte</apdi:AuxiliaryImageType>", apdi)
    matte = b"\xff\xd8" + seg(0xE1, XMP_ID + matte_xmp) + jpeg_body(m)
    parts = {"map": gmj, "matte": matte}
    open(out, "wb").write(assemble(b"", jpeg_body(base_pixels()), [parts[k] for k in order.split(",")]))


def boxes(b, s, e):
    while s + 8 <= e:
        size, kind = struct.unpack(">I4s", b[s: s + 8])
        yield kind.decode("latin1"), s, s + size
        s += size


def heic_irot(src, dst, map_only=False):
    b = bytearray(open(src, "rb").read())
    meta = next((s, e) for k, s, e in boxes(b, 0, len(b)) if k == "meta")
    kids = {k: (s, e) for k, s, e in boxes(b, meta[0] + 12, meta[1])}
    primary = struct.unpack(">H", b[kids["pitm"][0] + 12: kids["pitm"][0] + 14])[0]
    types = {}
    iinf = kids["iinf"]
    for _, s, e in boxes(b, iinf[0] + 14, iinf[1]):
        assert b[s + 8] == 2, "infe v2 expected"
        types[struct.unpack(">H", b[s + 12: s + 14])[0]] = b[s + 16: s + 20].decode("latin1")
    targets = set() if map_only else {primary}
    for kind, s, e in boxes(b, kids["iref"][0] + 12, kids["iref"][1]):
        frm, n = struct.unpack(">HH", b[s + 8: s + 12])
        if kind == "dimg" and types.get(frm) == "tmap" and n == 2:
            targets |= {struct.unpack(">H", b[s + 14: s + 16])[0]} | (set() if map_only else {frm})
    iprp = kids["iprp"]
    sub = {k: (s, e) for k, s, e in boxes(b, iprp[0] + 8, iprp[1])}
    ipco_s, ipco_e = sub["ipco"]
    index = len(list(boxes(b, ipco_s + 8, ipco_e))) + 1
    irot = struct.pack(">I4sB", 9, b"irot", 1)
    ipco = struct.pack(">I4s", ipco_e - ipco_s + 9, b"ipco") + bytes(b[ipco_s + 8: ipco_e]) + irot
    ma_s, ma_e = sub["ipma"]
    m = b[ma_s + 8: ma_e]
    version, flags, o = m[0], int.from_bytes(m[1:4], "big"), 8
    assert version == 0 and flags & 1 == 0 and index < 128
    out = bytearray(m[:8])
    for _ in range(struct.unpack(">I", m[4:8])[0]):
        item, count = struct.unpack(">HB", m[o: o + 3])
        props = bytes(m[o + 3: o + 3 + count])
        o += 3 + count
        if item in targets:
            props += bytes([0x80 | index])
        out += struct.pack(">HB", item, len(props)) + props
    ipma = struct.pack(">I4s", len(out) + 8, b"ipma") + out
    rest = b"".join(bytes(b[s:e]) for k, s, e in boxes(b, iprp[0] + 8, iprp[1]) if k not in ("ipco", "ipma"))
    new_iprp = struct.pack(">I4s", 8 + len(ipco) + len(ipma) + len(rest), b"iprp") + ipco + ipma + rest
    new_meta = bytearray(b[meta[0]: iprp[0]] + new_iprp + b[iprp[1]: meta[1]])
    delta = len(new_meta) - (meta[1] - meta[0])
    struct.pack_into(">I", new_meta, 0, len(new_meta))
    for kind, s, e in boxes(new_meta, 12, len(new_meta)):  # iloc: move every file offset by delta
        if kind != "iloc":
            continue
        v, o = new_meta[s + 8], s + 12
        osz, lsz, bsz = new_meta[o] >> 4, new_meta[o] & 15, new_meta[o + 1] >> 4
        isz = new_meta[o + 1] & 15 if v in (1, 2) else 0
        assert bsz == 0 and v < 2
        o += 2
        n = struct.unpack(">H", new_meta[o: o + 2])[0]
        o += 2
        for _ in range(n):
            o += 2
            method = 0
            if v == 1:
                method = struct.unpack(">H", new_meta[o: o + 2])[0] & 15
                o += 2
            o += 2
            extents = struct.unpack(">H", new_meta[o: o + 2])[0]
            o += 2
            for _ in range(extents):
                o += isz
                if method == 0:
                    at = int.from_bytes(new_meta[o: o + osz], "big")
                    new_meta[o: o + osz] = (at + delta).to_bytes(osz, "big")
                o += osz + lsz
    open(dst, "wb").write(bytes(b[: meta[0]]) + bytes(new_meta) + bytes(b[meta[1]:]))
    print("irot on items", sorted(targets))


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[0] == "uhdr":
        uhdr(a[1], float(a[2]), float(a[3]), float(a[4]), "--base-hdr" in a, 3 if "--channels" in a else 1)
    elif a[0] == "apple-mpf":
        apple_mpf(a[1], a[2])
    elif a[0] == "heic-irot":
        heic_irot(a[1], a[2], "--map-only" in a)
    else:
        sys.exit(__doc__)
