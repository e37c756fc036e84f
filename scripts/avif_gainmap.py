#!/usr/bin/env python3
"""An AVIF carrying an ISO 21496-1 gain map, in the form libavif >= 1.1 and
Android 15's "Ultra HDR AVIF" write: a 'tmap' derived item whose dimg inputs
are [primary av01 item, gain-map av01 item], the map item hidden, an 'altr'
group [tmap, primary] and the 'tmap' brand.

  avif_gainmap.py OUT.avif BASE.ppm MAP.pgm TMAP.bin [--map-depth 8|10]
                  [--map-grid N] [--cut-map BYTES] [--hostile-av1c]

BASE.ppm (P6, 8-bit R'G'B') is coded 4:2:0 8-bit (BT.601 matrix, limited
range, said by an nclx 'colr'); MAP.pgm (P5, 8-bit codes) is coded
monochrome 4:0:0, lossless, full range (nclx and sequence header), at 8 bits
or (--map-depth 10) as 10-bit codes v * 1023 / 255; --map-grid N stores the
map as a hidden 'grid' of N x N-pixel av01 tiles. TMAP.bin is the tmap item's
data (u8 version 0 + the ISO metadata). AV1 by libaom through ffmpeg, one
thread: the same bytes every run. The container is written here
(ISO/IEC 23008-12, AV1-ISOBMFF).

Damage for tests: --cut-map BYTES keeps only the first BYTES of the map's
OBUs (its iloc extent says so, so the file is well formed); --hostile-av1c
gives the map an av1C whose configOBU claims more bytes than the record holds.
"""
import struct
import subprocess
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from hdr_still import box, full_box  # noqa: E402


def read_pnm(path):
    data = open(path, "rb").read()
    fields, at = [], 0
    while len(fields) < 4:  # magic, width, height, maxval (no comments in ours)
        while data[at:at + 1].isspace():
            at += 1
        end = at
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[at:end])
        at = end
    return int(fields[1]), int(fields[2]), data[at + 1:]


def av1(raw, pix_fmt, w, h, extra):
    """One still as AV1 OBUs (temporal delimiters dropped) and its av1C record."""
    stream = subprocess.run(["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", pix_fmt, "-s", f"{w}x{h}",
                             "-i", "-", "-frames:v", "1", "-c:v", "libaom-av1", "-still-picture", "1",
                             "-cpu-used", "6", "-threads", "1", "-row-mt", "0"] + extra + ["-f", "obu", "-"],
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
        if kind == 1 and sequence is None:
            sequence = stream[at:k + size]
        if kind != 2:
            obus.append(stream[at:k + size])
        at = k + size
    bits = "".join(f"{b:08b}" for b in sequence[2:])
    profile = int(bits[0:3], 2)
    level = int(bits[5:10], 2) if bits[4] == "1" else int(bits[24:29], 2)  # reduced header, else operating point 0
    mono = pix_fmt.startswith("gray")
    high = "10" in pix_fmt
    sub = 0 if "444" in pix_fmt else 0x0C  # subsampling x and y (4:2:0 and 4:0:0)
    record = bytes([0x81, profile << 5 | level, (0x40 if high else 0) | (0x10 if mono else 0) | sub, 0]) + sequence
    return b"".join(obus), record


def main():
    args = sys.argv[1:]
    out, base_path, map_path, tmap_path = args[:4]
    valued = [a for a in args[4:] if a != "--hostile-av1c"]
    opts = dict(zip(valued[::2], valued[1::2]))
    depth = int(opts.get("--map-depth", 8))
    grid = int(opts.get("--map-grid", 0))
    cut = int(opts.get("--cut-map", 0))
    w, h, rgb = read_pnm(base_path)
    mw, mh, codes = read_pnm(map_path)
    tmap = open(tmap_path, "rb").read()

    base_obus, base_av1c = av1(rgb, "rgb24", w, h, ["-pix_fmt", "yuv420p", "-crf", "10", "-color_primaries", "bt709",
                                                    "-color_trc", "iec61966-2-1", "-colorspace", "smpte170m",
                                                    "-color_range", "tv"])

    def code_map(x0, y0, tw, th):
        """The map's codes from (x0, y0), tw x th, edge-extended past the map (a grid's overhang)."""
        rows = []
        for y in range(th):
            at = min(y0 + y, mh - 1) * mw
            row = codes[at + min(x0, mw - 1):at + min(x0 + tw, mw)]
            rows.append(row + row[-1:] * (tw - len(row)))
        if depth == 8:
            return av1(b"".join(rows), "gray", tw, th, ["-aom-params", "lossless=1", "-color_range", "pc"])
        wide = b"".join(struct.pack("<H", v * 1023 // 255) for r in rows for v in r)
        return av1(wide, "gray10le", tw, th, ["-aom-params", "lossless=1", "-color_range", "pc"])

    # Items: 1 base, 2 map (or the map's grid, its tiles 4..), 3 tmap.
    if grid:
        cols, rows = -(-mw // grid), -(-mh // grid)
        coded = []
        for r in range(rows):
            for c in range(cols):  # every tile N x N (HEIF grids), the grid crops the overhang
                obus, rec = code_map(c * grid, r * grid, grid, grid)
                coded.append((obus, rec, grid, grid))
        tiles = list(range(4, 4 + len(coded)))
    else:
        obus, rec = code_map(0, 0, mw, mh)
        coded, tiles = [(obus, rec, mw, mh)], []
    if cut:
        obus, rec, tw, th = coded[0]
        coded[0] = (obus[:cut], rec, tw, th)
    if "--hostile-av1c" in args:
        obus, rec, tw, th = coded[0]
        coded[0] = (obus, rec[:4] + bytes([0x0A, 0x7F]) + rec[6:], tw, th)  # a sequence header OBU claiming 127 bytes

    props = [box(b"av1C", base_av1c), full_box(b"ispe", 0, 0, struct.pack(">II", w, h)),
             full_box(b"pixi", 0, 0, bytes([3, 8, 8, 8])),
             box(b"colr", b"nclx" + struct.pack(">HHHB", 1, 13, 6, 0)),
             full_box(b"ispe", 0, 0, struct.pack(">II", mw, mh)),                     # 5: the map's size
             full_box(b"pixi", 0, 0, bytes([1, depth])),                              # 6
             box(b"colr", b"nclx" + struct.pack(">HHHB", 2, 2, 2, 0x80)),             # 7: full range
             full_box(b"ispe", 0, 0, struct.pack(">II", w, h))]                       # 8: the tmap's
    assoc = {1: [(1, True), (2, False), (3, False), (4, True)], 3: [(8, False)]}
    for i, (obus, rec, tw, th) in enumerate(coded):
        props.append(box(b"av1C", rec))
        k = len(props)
        if grid:
            props.append(full_box(b"ispe", 0, 0, struct.pack(">II", tw, th)))
            assoc[tiles[i]] = [(k, True), (k + 1, False), (6, False), (7, True)]
        else:
            assoc[2] = [(k, True), (5, False), (6, False), (7, True)]
    if grid:
        assoc[2] = [(5, False), (6, False), (7, True)]
    ipma = struct.pack(">I", len(assoc))
    for item in sorted(assoc):
        ipma += struct.pack(">HB", item, len(assoc[item])) + bytes((0x80 if e else 0) | p for p, e in assoc[item])
    iprp = box(b"iprp", box(b"ipco", b"".join(props)) + full_box(b"ipma", 0, 0, ipma))

    def infe(item, kind, hidden):
        return full_box(b"infe", 2, 1 if hidden else 0, struct.pack(">HH", item, 0) + kind + b"\0")
    entries = [infe(1, b"av01", False), infe(2, b"grid" if grid else b"av01", True), infe(3, b"tmap", False)]
    entries += [infe(t, b"av01", True) for t in tiles]
    iinf = full_box(b"iinf", 0, 0, struct.pack(">H", len(entries)) + b"".join(entries))
    refs = box(b"dimg", struct.pack(">HHHH", 3, 2, 1, 2))
    if grid:
        refs += box(b"dimg", struct.pack(">HH", 2, len(tiles)) + b"".join(struct.pack(">H", t) for t in tiles))
    iref = full_box(b"iref", 0, 0, refs)
    grpl = box(b"grpl", full_box(b"altr", 0, 0, struct.pack(">IIII", 100, 2, 3, 1)))

    blobs = {1: base_obus, 3: tmap}
    if grid:
        blobs[2] = struct.pack(">BBBBHH", 0, 0, rows - 1, cols - 1, mw, mh)
        for t, c in zip(tiles, coded):
            blobs[t] = c[0]
    else:
        blobs[2] = coded[0][0]
    items = sorted(blobs)

    def iloc(base):
        payload = bytes([0x44, 0x00]) + struct.pack(">H", len(items))
        for item in items:
            payload += struct.pack(">HHHHII", item, 0, 0, 1, base, len(blobs[item]))
            base += len(blobs[item])
        return full_box(b"iloc", 1, 0, payload)

    hdlr = full_box(b"hdlr", 0, 0, b"\0" * 4 + b"pict" + b"\0" * 12 + b"\0")
    pitm = full_box(b"pitm", 0, 0, struct.pack(">H", 1))
    ftyp = box(b"ftyp", b"avif" + struct.pack(">I", 0) + b"avifmif1miaftmap")
    meta_at = lambda base: full_box(b"meta", 0, 0, hdlr + pitm + iloc(base) + iinf + iref + iprp + grpl)
    meta = meta_at(len(ftyp) + len(meta_at(0)) + 8)
    with open(out, "wb") as f:
        f.write(ftyp + meta + box(b"mdat", b"".join(blobs[i] for i in items)))


if __name__ == "__main__":
    main()
