#!/usr/bin/env python3
"""HDR test stills: the first frame of hdr_clip.py's scene as a 10-bit HEIF.

  hdr_still.py OUT.heic hlg|pq [--tile N] [--chroma 420|422] [--no-nclx] [--size WxH --grain G --qp Q] [--peak NITS]
  hdr_still.py png OUT.png hlg|pq [--peak NITS] [--alpha] [--interlace]
      The same scene as a 16-bit R'G'B' PNG (BT.2020, full range) whose cICP
      chunk says HLG or PQ (PNG 3rd edition HDR); --peak also writes the
      grade's cLLi and mDCv chunks, --alpha an opaque alpha channel,
      --interlace the same samples Adam7-interlaced (seven passes).
  hdr_still.py avif OUT.avif hlg|pq [--peak NITS] [--tile N] [--size WxH]
      The same scene as a 10-bit 4:2:0 AVIF (AV1 by libaom through ffmpeg,
      near-lossless, one thread: the same bytes every run), BT.2020 limited
      range, the colour in an nclx 'colr' property as AVIF writers put it;
      --peak also writes the grade's 'mdcv' and 'clli' properties, --tile N a
      'grid' of N x N av01 tiles (the overhang cropped by the grid).
  hdr_still.py verify FILE.heic|FILE.avif hlg|pq
      Decodes FILE with libheif (pillow-heif; an AVIF with libavif) to 16-bit R'G'B' and prints, as
      JSON, how far its signal is from the scene's (mean, p99, in 10-bit
      levels) and the transfer libheif reads: the fixture checked by an
      outside reader before the engine is judged on it.

Writes the 640x360 scene (scene light known exactly: hdr_clip.py scene(0))
as BT.2020 Y'CbCr 10-bit, limited range, with the HLG OETF or the PQ
inverse EOTF (1.0 of scene light shown at 1000 cd/m^2), the way Sony, Canon
and Nikon cameras write HDR HEIFs:
  - without --tile: one 'hvc1' item;
  - --tile N: a 'grid' of N x N tiles covering more than the image (the grid
    crops the overhang, as an iPhone's 4032x3024 of 512x512 tiles does);
  - --chroma 422: 4:2:2 (Sony's HLG stills), else 4:2:0;
  - the colour in an nclx 'colr' property and in every tile's VUI
    (--no-nclx: the VUI alone);
  - --size WxH: the scene drawn at that size (benchmarks: a camera's 24 MP),
    --grain G: deterministic sensor-like noise of G (scene light, 0..1) so the
    file codes like a photo, --qp Q: x265's QP (default 4);
  - --peak NITS (PQ): an HDR10 grade reaching NITS (hdr_clip.py --peak: the
    lamp at 0.9 x NITS), said by 'mdcv' and 'clli' properties of the primary.
Each picture is encoded by x265 through ffmpeg (Main 10 / Main 4:2:2 10,
near-lossless QP 4); the container is written here (ISO/IEC 23008-12).
Check the result with hdr_clip.py check|hdr OUT-rendition hlg|pq 0.
"""
import struct
import subprocess
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import hdr_clip  # noqa: E402

W, H = hdr_clip.W, hdr_clip.H


GRAIN = 0.0


def planes(transfer, chroma, width, height):
    """10-bit limited-range Y', Cb, Cr of the scene's signal, edge-extended to width x height."""
    e = hdr_clip.signal(0, transfer)
    if GRAIN:
        light = hdr_clip.scene(0, transfer) + GRAIN * np.random.default_rng(7).standard_normal((H, W, 1))
        light = np.clip(light, 0, None if hdr_clip.GRADE and transfer == "pq" else 1)
        e = hdr_clip.hlg_oetf(light) if transfer == "hlg" else hdr_clip.pq_inverse_eotf(light * hdr_clip.PEAK)
    e = np.pad(e, ((0, height - H), (0, width - W), (0, 0)), mode="edge")
    y = e @ np.array([hdr_clip.KR, 1 - hdr_clip.KR - hdr_clip.KB, hdr_clip.KB])
    cb = (e[..., 2] - y) / (2 * (1 - hdr_clip.KB))
    cr = (e[..., 0] - y) / (2 * (1 - hdr_clip.KR))
    if chroma == "420":
        sub = lambda p: p.reshape(height // 2, 2, width // 2, 2).mean((1, 3))
    else:
        sub = lambda p: p.reshape(height, width // 2, 2).mean(2)
    q = lambda p, scale, offset: np.clip(np.round(offset + scale * p), 0, 1023).astype("<u2")
    return q(y, 876, 64), q(sub(cb), 896, 512), q(sub(cr), 896, 512)


QP = 4


def encode(yp, cbp, crp, chroma, transfer, nclx_in_vui=True):
    """One picture as Annex-B HEVC (x265 through ffmpeg)."""
    h, w = yp.shape
    name = "arib-std-b67" if transfer == "hlg" else "smpte2084"
    vui = f":colorprim=bt2020:transfer={name}:colormatrix=bt2020nc:range=limited" if nclx_in_vui else ""
    fmt = "yuv420p10le" if chroma == "420" else "yuv422p10le"
    raw = yp.tobytes() + cbp.tobytes() + crp.tobytes()
    return subprocess.run(["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", fmt, "-s", f"{w}x{h}", "-i", "-",
                           "-frames:v", "1", "-c:v", "libx265", "-preset", "medium",
                           "-x265-params", f"log-level=error:qp={QP}:keyint=1:info=0{vui}", "-pix_fmt", fmt,
                           "-f", "hevc", "-"], input=raw, capture_output=True, check=True).stdout


def nal_units(annexb):
    starts = [i for i in range(len(annexb) - 3) if annexb[i:i + 3] == b"\0\0\1"]
    units = []
    for k, s in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(annexb)
        unit = annexb[s + 3:end]
        while unit.endswith(b"\0"):
            unit = unit[:-1]
        units.append(unit)
    return units


def box(kind, payload):
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def full_box(kind, version, flags, payload):
    return box(kind, struct.pack(">I", version << 24 | flags) + payload)


def hvcc(params, chroma):
    """HEVCDecoderConfigurationRecord from the VPS/SPS/PPS units (profile bytes from the SPS)."""
    sps = next(u for u in params if (u[0] >> 1) & 63 == 33)
    rbsp = bytearray()
    zeros = 0
    for b in sps[2:]:
        if zeros >= 2 and b == 3:
            zeros = 0
            continue
        rbsp.append(b)
        zeros = zeros + 1 if b == 0 else 0
    ptl = bytes(rbsp[1:13])  # profile_space/tier/idc, 32 compatibility flags, 48 constraint bits, level
    chroma_idc = 1 if chroma == "420" else 2
    record = bytes([1]) + ptl[:11] + bytes([ptl[11]]) + struct.pack(">H", 0xF000) + bytes([0xFC, 0xFC | chroma_idc,
                                                                                             0xF8 | 2, 0xF8 | 2])
    record += struct.pack(">H", 0) + bytes([0x0F, len(params)])  # 1 layer, temporal nesting, 4-byte lengths
    for unit in params:
        record += bytes([0x80 | ((unit[0] >> 1) & 63)]) + struct.pack(">HH", 1, len(unit)) + unit
    return record


def length_prefixed(units):
    return b"".join(struct.pack(">I", len(u)) + u for u in units)


def write(out, transfer, tile, chroma, nclx):
    tiles = []  # (hvcC, data) per tile, row by row
    if tile:
        cols, rows = -(-W // tile), -(-H // tile)
        yp, cbp, crp = planes(transfer, chroma, cols * tile, rows * tile)
        cw = tile // 2
        ch = tile // 2 if chroma == "420" else tile
        for r in range(rows):
            for c in range(cols):
                units = nal_units(encode(yp[r * tile:(r + 1) * tile, c * tile:(c + 1) * tile],
                                         cbp[r * ch:(r + 1) * ch, c * cw:(c + 1) * cw],
                                         crp[r * ch:(r + 1) * ch, c * cw:(c + 1) * cw], chroma, transfer))
                tiles.append(units)
        tw = th = tile
    else:
        cols = rows = 1
        tiles.append(nal_units(encode(*planes(transfer, chroma, W, H), chroma, transfer, nclx_in_vui=True)))
        tw, th = W, H
    params = [u for u in tiles[0] if (u[0] >> 1) & 63 in (32, 33, 34)]
    datas = [length_prefixed([u for u in t if (u[0] >> 1) & 63 not in (32, 33, 34)]) for t in tiles]
    grid = tile is not None
    n = len(tiles)
    ids = list(range(1, n + 1))
    primary = n + 1 if grid else 1
    grid_data = struct.pack(">BBBBHH", 0, 0, rows - 1, cols - 1, W, H)

    infe = b"".join(full_box(b"infe", 2, 1 if grid else 0, struct.pack(">HH", i, 0) + b"hvc1" + b"\0") for i in ids)
    if grid:
        infe += full_box(b"infe", 2, 0, struct.pack(">HH", primary, 0) + b"grid" + b"\0")
    iinf = full_box(b"iinf", 0, 0, struct.pack(">H", n + grid) + infe)
    iref = full_box(b"iref", 0, 0, box(b"dimg", struct.pack(">HH", primary, n) + b"".join(
        struct.pack(">H", i) for i in ids))) if grid else b""
    colr = box(b"colr", b"nclx" + struct.pack(">HHHB", 9, 18 if transfer == "hlg" else 16, 9, 0))
    props = [box(b"hvcC", hvcc(params, chroma)), full_box(b"ispe", 0, 0, struct.pack(">II", tw, th)),
             full_box(b"pixi", 0, 0, bytes([3, 10, 10, 10]))]
    if nclx:
        props.append(colr)
    if grid:
        props.append(full_box(b"ispe", 0, 0, struct.pack(">II", W, H)))
    grid_ispe = len(props)
    graded = []
    if hdr_clip.GRADE and transfer == "pq":  # ST 2086 of a P3-D65 grading display, then MaxCLL / MaxFALL
        props.append(box(b"mdcv", struct.pack(">HHHHHHHHII", 13250, 34500, 7500, 3000, 34000, 16000, 15635, 16450,
                                              hdr_clip.GRADE * 10000, 50)))
        props.append(box(b"clli", struct.pack(">HH", hdr_clip.GRADE, 400)))
        graded = [(len(props) - 1, False), (len(props), False)]
    ipco = box(b"ipco", b"".join(props))
    tile_props = [1, 2, 3] + ([4] if nclx else [])
    entries = [(i, [(1, True), (2, False), (3, False)] + ([(4, True)] if nclx else [])) for i in ids]
    if grid:
        entries.append((primary, [(grid_ispe, False), (3, False)] + ([(4, True)] if nclx else []) + graded))
    else:
        entries[0] = (primary, entries[0][1] + graded)
    del tile_props
    ipma_payload = struct.pack(">I", len(entries))
    for item, assoc in entries:
        ipma_payload += struct.pack(">HB", item, len(assoc)) + bytes((0x80 if e else 0) | p for p, e in assoc)
    iprp = box(b"iprp", ipco + full_box(b"ipma", 0, 0, ipma_payload))
    hdlr = full_box(b"hdlr", 0, 0, b"\0" * 4 + b"pict" + b"\0" * 12 + b"\0")
    pitm = full_box(b"pitm", 0, 0, struct.pack(">H", primary))
    # iloc v1: offsets filled once the meta box's size is known (construction method 0: file offsets)
    blobs = datas + ([grid_data] if grid else [])
    items = ids + ([primary] if grid else [])

    def iloc(base):
        payload = bytes([0x44, 0x00]) + struct.pack(">H", len(items))
        offset = base
        for item, blob in zip(items, blobs):
            payload += struct.pack(">HHHHII", item, 0, 0, 1, offset, len(blob))
            offset += len(blob)
        return full_box(b"iloc", 1, 0, payload)

    ftyp = box(b"ftyp", b"heic" + struct.pack(">I", 0) + b"mif1heicmiaf")
    meta_without = lambda base: full_box(b"meta", 0, 0, hdlr + pitm + iloc(base) + iinf + iref + iprp)
    size = len(ftyp) + len(meta_without(0)) + 8
    meta = meta_without(size)
    with open(out, "wb") as f:
        f.write(ftyp + meta + box(b"mdat", b"".join(blobs)))


def encode_av1(yp, cbp, crp, transfer):
    """One 4:2:0 10-bit picture as AV1 OBUs (temporal delimiters dropped) and its av1C record."""
    h, w = yp.shape
    name = "arib-std-b67" if transfer == "hlg" else "smpte2084"
    raw = yp.tobytes() + cbp.tobytes() + crp.tobytes()
    stream = subprocess.run(["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p10le", "-s", f"{w}x{h}",
                             "-i", "-", "-frames:v", "1", "-c:v", "libaom-av1", "-crf", "2", "-cpu-used", "6",
                             "-threads", "1", "-row-mt", "0", "-color_primaries", "bt2020", "-color_trc", name,
                             "-colorspace", "bt2020nc", "-color_range", "tv", "-f", "obu", "-"],
                            input=raw, capture_output=True, check=True).stdout
    obus, at, sequence = [], 0, None
    while at < len(stream):  # low-overhead format: header, LEB128 size, payload
        head = stream[at]
        kind, ext = (head >> 3) & 15, (head >> 2) & 1
        size, shift, k = 0, 0, at + 1 + ext
        while True:
            size |= (stream[k] & 127) << shift
            shift += 7
            k += 1
            if not stream[k - 1] & 128:
                break
        obu = stream[at:k + size]
        if kind == 1:
            sequence = obu if sequence is None else sequence
        if kind != 2:
            obus.append(obu)
        at = k + size
    payload = sequence[2:]  # the sequence header OBU's payload (one-byte size here: it is short)
    bits = "".join(f"{b:08b}" for b in payload)
    profile = int(bits[0:3], 2)
    level = int(bits[5:10], 2) if bits[4] == "1" else int(bits[24:29], 2)  # reduced header, else operating point 0
    # marker/version, profile/level, tier 0, high_bitdepth (10-bit), 4:2:0, then the sequence header as configOBUs
    record = bytes([0x81, profile << 5 | level, 0x40 | 0x08 | 0x04, 0]) + sequence
    return b"".join(obus), record


def write_avif(out, transfer, tile):
    if tile:
        cols, rows = -(-W // tile), -(-H // tile)
        yp, cbp, crp = planes(transfer, "420", cols * tile, rows * tile)
        t2 = tile // 2
        coded = [encode_av1(yp[r * tile:(r + 1) * tile, c * tile:(c + 1) * tile],
                            cbp[r * t2:(r + 1) * t2, c * t2:(c + 1) * t2], crp[r * t2:(r + 1) * t2, c * t2:(c + 1) * t2],
                            transfer) for r in range(rows) for c in range(cols)]
        tw = th = tile
    else:
        cols = rows = 1
        coded = [encode_av1(*planes(transfer, "420", W, H), transfer)]
        tw, th = W, H
    grid = tile is not None
    n = len(coded)
    ids = list(range(1, n + 1))
    primary = n + 1 if grid else 1
    props = [box(b"av1C", coded[0][1]), full_box(b"ispe", 0, 0, struct.pack(">II", tw, th)),
             full_box(b"pixi", 0, 0, bytes([3, 10, 10, 10])),
             box(b"colr", b"nclx" + struct.pack(">HHHB", 9, 18 if transfer == "hlg" else 16, 9, 0))]
    tile_assoc = [(1, True), (2, False), (3, False), (4, True)]
    graded = []
    if grid:
        props.append(full_box(b"ispe", 0, 0, struct.pack(">II", W, H)))
    if hdr_clip.GRADE and transfer == "pq":
        props.append(box(b"mdcv", struct.pack(">HHHHHHHHII", 13250, 34500, 7500, 3000, 34000, 16000, 15635, 16450,
                                              hdr_clip.GRADE * 10000, 50)))
        props.append(box(b"clli", struct.pack(">HH", hdr_clip.GRADE, 400)))
        graded = [(len(props) - 1, False), (len(props), False)]
    entries = [(i, list(tile_assoc)) for i in ids]
    if grid:
        entries.append((primary, [(5, False), (3, False), (4, True)] + graded))
    else:
        entries[0] = (primary, tile_assoc + graded)
    ipma = struct.pack(">I", len(entries))
    for item, assoc in entries:
        ipma += struct.pack(">HB", item, len(assoc)) + bytes((0x80 if e else 0) | p for p, e in assoc)
    iprp = box(b"iprp", box(b"ipco", b"".join(props)) + full_box(b"ipma", 0, 0, ipma))
    infe = b"".join(full_box(b"infe", 2, 1 if grid else 0, struct.pack(">HH", i, 0) + b"av01" + b"\0") for i in ids)
    if grid:
        infe += full_box(b"infe", 2, 0, struct.pack(">HH", primary, 0) + b"grid" + b"\0")
    iinf = full_box(b"iinf", 0, 0, struct.pack(">H", n + grid) + infe)
    iref = full_box(b"iref", 0, 0, box(b"dimg", struct.pack(">HH", primary, n) + b"".join(
        struct.pack(">H", i) for i in ids))) if grid else b""
    blobs = [c[0] for c in coded] + ([struct.pack(">BBBBHH", 0, 0, rows - 1, cols - 1, W, H)] if grid else [])
    items = ids + ([primary] if grid else [])

    def iloc(base):
        payload = bytes([0x44, 0x00]) + struct.pack(">H", len(items))
        for item, blob in zip(items, blobs):
            payload += struct.pack(">HHHHII", item, 0, 0, 1, base, len(blob))
            base += len(blob)
        return full_box(b"iloc", 1, 0, payload)

    hdlr = full_box(b"hdlr", 0, 0, b"\0" * 4 + b"pict" + b"\0" * 12 + b"\0")
    pitm = full_box(b"pitm", 0, 0, struct.pack(">H", primary))
    ftyp = box(b"ftyp", b"avif" + struct.pack(">I", 0) + b"avifmif1miaf")
    meta_at = lambda base: full_box(b"meta", 0, 0, hdlr + pitm + iloc(base) + iinf + iref + iprp)
    meta = meta_at(len(ftyp) + len(meta_at(0)) + 8)
    with open(out, "wb") as f:
        f.write(ftyp + meta + box(b"mdat", b"".join(blobs)))


ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2))  # x0, y0, dx, dy


def write_png(out, transfer, alpha, interlace=False):
    import zlib
    e = np.round(hdr_clip.signal(0, transfer) * 65535)
    if alpha:
        e = np.concatenate([e, np.full((H, W, 1), 65535.0)], -1)
    e = e.astype(">u2")  # big-endian samples (concatenate would give native order)
    if interlace:  # each pass a sub-image of its own rows (filter 0)
        passes = [e[y0::dy, x0::dx] for x0, y0, dx, dy in ADAM7]
        rows = b"".join(b"\0" + p[y].tobytes() for p in passes if p.shape[1] for y in range(p.shape[0]))
    else:
        rows = b"".join(b"\0" + e[y].tobytes() for y in range(H))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    head = struct.pack(">IIBBBBB", W, H, 16, 6 if alpha else 2, 0, 0, 1 if interlace else 0)
    extra = chunk(b"cICP", bytes([9, 18 if transfer == "hlg" else 16, 0, 1]))
    if hdr_clip.GRADE and transfer == "pq":
        white = (15635, 16450)  # D65 in 0.00002 units
        primaries = (35400, 14600, 8500, 39850, 6550, 2300)  # BT.2020 R, G, B
        extra += chunk(b"mDCv", struct.pack(">8H", *primaries, *white)[:16] + struct.pack(">II", hdr_clip.GRADE * 10000, 50))
        extra += chunk(b"cLLi", struct.pack(">II", hdr_clip.GRADE * 10000, 200 * 10000))
    with open(out, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + extra + chunk(b"IDAT", zlib.compress(rows, 6))
                + chunk(b"IEND", b""))


def verify(path, transfer):
    import json
    if path.endswith(".avif"):  # libavif (imagecodecs): the pillow-heif wheel here has no AV1 decoder
        import imagecodecs
        got = imagecodecs.avif_decode(open(path, "rb").read())
        diff = np.abs(got[..., :3] / 1023 - hdr_clip.signal(0, transfer)) * 1023
        print(json.dumps({"mean": diff.mean(), "p99": float(np.percentile(diff, 99)),
                          "bit_depth": 10 if got.dtype == np.uint16 else 8}))
        return
    import pillow_heif
    heif = pillow_heif.open_heif(path, convert_hdr_to_8bit=False)
    rows = np.frombuffer(heif.data, dtype="<u2").reshape(H, heif.stride // 2)
    got = rows[:, :W * 3].reshape(H, W, 3) / 65535
    diff = np.abs(got - hdr_clip.signal(0, transfer)) * 1023
    nclx = heif.info.get("nclx_profile") or {}
    print(json.dumps({"mean": diff.mean(), "p99": float(np.percentile(diff, 99)), "bit_depth": heif.info.get("bit_depth"),
                      "transfer": nclx.get("transfer_characteristics")}))


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--peak" in args:
        hdr_clip.GRADE = int(args[args.index("--peak") + 1])
    if args[0] == "verify":
        verify(args[1], args[2])
        sys.exit(0)
    if args[0] == "png":
        write_png(args[1], args[2], "--alpha" in args, "--interlace" in args)
        sys.exit(0)
    tile = int(args[args.index("--tile") + 1]) if "--tile" in args else None
    if "--size" in args:
        W, H = (int(v) for v in args[args.index("--size") + 1].split("x"))
        hdr_clip.W, hdr_clip.H = W, H
    if args[0] == "avif":
        write_avif(args[1], args[2], tile)
        sys.exit(0)
    GRAIN = float(args[args.index("--grain") + 1]) if "--grain" in args else 0.0
    QP = int(args[args.index("--qp") + 1]) if "--qp" in args else 4
    chroma = args[args.index("--chroma") + 1] if "--chroma" in args else "420"
    write(args[0], args[1], tile, chroma, "--no-nclx" not in args)
