#!/usr/bin/env python3
"""Dolby Vision profile 8.4 test clips — an HLG base any HEVC player shows, plus one RPU a picture, as an
iPhone records HDR video — and what ffprobe reads of a movie's Dolby Vision.

  dolby_vision_clip.py make OUT.mp4 [--frames N] [--entry dvh1] [--profile 5]
      hdr_clip.py's 640x360 HLG clip (BT.2020, 10-bit) coded without B-frames; each access unit ends with an
      RPU NAL unit (type 62: rpu_type 2, an identity polynomial reshaping of the 10-bit base, display-
      management metadata whose source_min_pq / source_max_pq / scene_refresh_flag change with the frame i,
      CRC-32/MPEG-2), and the hvc1 sample entry gets a `dvvC` box: version 1.0, profile 8, level 1, RPU and
      base layer present, no enhancement layer, base signal compatibility 4 (HLG).
      --entry dvh1: the sample entry typed dvh1 instead of hvc1 (as some Dolby Vision 8 files are).
      --profile 5: a dvcC box saying profile 5, signal compatibility 0 (a base only Dolby Vision decodes;
      the pixels stay the HLG clip's: what matters is what a reader makes of the configuration).
  dolby_vision_clip.py frames MOVIE
      ffprobe's parse of each frame's "Dolby Vision Metadata" (key=value lines, nested sections flattened in
      order), in presentation order, as a JSON list (null for a frame without one).
  dolby_vision_clip.py config MOVIE
      ffprobe's "DOVI configuration record" of the video stream, as JSON (null without one).
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import edit_list  # noqa: E402  (box walking)
import hdr10plus_clip  # noqa: E402  (Annex-B helpers)
import hdr_clip  # noqa: E402  (the clip's pixels)


class Bits:
    def __init__(self):
        self.bits = []

    def u(self, value, n):
        self.bits += [(value >> (n - 1 - k)) & 1 for k in range(n)]

    def ue(self, value):
        v = value + 1
        self.u(0, v.bit_length() - 1)
        self.u(v, v.bit_length())

    def se(self, value):
        self.ue(2 * value - 1 if value > 0 else -2 * value)

    def bytes(self):
        bits = self.bits + [0] * (-len(self.bits) % 8)
        return bytes(int("".join(map(str, bits[k:k + 8])), 2) for k in range(0, len(bits), 8))


def crc32_mpeg2(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) & 0xFFFFFFFF if crc & 0x80000000 else (crc << 1) & 0xFFFFFFFF
    return crc


def rpu(i):
    """The RPU NAL unit of frame i (header, escaped payload)."""
    b, denom = Bits(), 23
    b.u(25, 8)                                   # rpu_nal_prefix
    b.u(2, 6); b.u(0, 11); b.u(1, 4); b.u(0, 4)  # rpu_type, rpu_format, vdr_rpu_profile, vdr_rpu_level
    b.u(1, 1)                                    # vdr_seq_info_present
    b.u(0, 1); b.u(0, 2); b.ue(denom); b.u(1, 2); b.u(0, 1)  # no explicit filter, fixed-point coefficients
    b.ue(2); b.ue(2); b.ue(4)                    # base 10, enhancement 10, VDR 12 bits
    b.u(0, 1); b.u(0, 3); b.u(0, 1); b.u(1, 1)   # no resampling filters, residual disabled
    b.u(1, 1); b.u(0, 1)                         # display management present, no previous RPU reused
    b.ue(0); b.ue(0); b.ue(0)                    # vdr_rpu_id, mapping colour space, chroma format
    for _ in range(3):
        b.ue(0); b.u(0, 10); b.u(1023, 10)       # two pivots: the whole range
    b.ue(0); b.ue(0)                             # one partition
    for _ in range(3):
        b.ue(0); b.ue(0); b.u(0, 1)              # polynomial of order 1, no linear interpolation
        b.se(0); b.u(0, denom); b.se(1); b.u(0, denom)  # 0 + 1 x
    b.ue(0); b.ue(0); b.ue(1 if i % 3 == 0 else 0)     # dm ids, scene refresh every third frame
    for v in (8192, 0, 12900, 8192, -1534, -3836, 8192, 15201, 0):
        b.u(v & 0xFFFF, 16)                      # Y'CbCr -> R'G'B' (BT.2020)
    for v in (0, 134217728, 134217728):
        b.u(v, 32)
    for v in (7222, 8771, 390, 2654, 12430, 1300, 0, 422, 16348):
        b.u(v & 0xFFFF, 16)                      # RGB -> LMS
    b.u(65535, 16); b.u(0, 16); b.u(0, 16); b.u(0, 32)  # signal EOTF and its parameters
    b.u(10, 5); b.u(0, 2); b.u(0, 2); b.u(0, 2)  # 10-bit, Y'CbCr, 4:2:0, limited range
    b.u(62 + 7 * i, 12); b.u(3079 - 11 * i, 12); b.u(42, 10)  # source min / max PQ, diagonal
    b.ue(0)                                      # no extension blocks
    body = b.bytes()
    body += struct.pack(">I", crc32_mpeg2(body[1:])) + b"\x80"
    return bytes([62 << 1, 1]) + hdr10plus_clip.escape(body)


def add_dvvc(path, entry_type=b"hvc1", profile=8):
    """Inserts a Dolby Vision configuration box at the end of the first hvc1 sample entry (dvvC for profile 8,
    compatibility 4; dvcC for profile 5, compatibility 0), renames the entry, grows every box around it."""
    data = bytearray(open(path, "rb").read())
    kind, compatibility = (b"dvvC", 4) if profile > 7 else (b"dvcC", 0)
    dvvc = struct.pack(">I4s", 32, kind) + bytes([1, 0, profile << 1, (1 << 3) | 0b101, compatibility << 4]) + bytes(19)
    chain, start, end = [], 0, len(data)
    for kind_path in (b"moov", b"trak", b"mdia", b"minf", b"stbl", b"stsd"):
        found = edit_list.find(data, start, end, kind_path)
        assert found, kind_path
        chain.append(found[0])
        start, end = found[0] + 8 + (8 if kind_path == b"stsd" else 0), found[0] + found[1]
    entry = edit_list.find(data, start, end, b"hvc1")
    chain.append(entry[0])
    assert data.find(b"mdat") < chain[0], "moov after mdat: no chunk offsets move"
    insert = entry[0] + entry[1]
    data[insert:insert] = dvvc
    data[entry[0] + 4:entry[0] + 8] = entry_type
    for at in chain:
        size = struct.unpack(">I", data[at:at + 4])[0]
        data[at:at + 4] = struct.pack(">I", size + len(dvvc))
    open(path, "wb").write(data)


def make(out, frames, entry_type=b"hvc1", profile=8):
    raw = hdr_clip.raw_frames("hlg", frames)
    with tempfile.TemporaryDirectory() as tmp:
        coded, marked = os.path.join(tmp, "in.hevc"), os.path.join(tmp, "marked.hevc")
        hdr10plus_clip.coded_stream(raw, "hlg", "", coded)
        units, picture = [], -1
        for unit in hdr10plus_clip.nal_units(open(coded, "rb").read()):
            kind = (unit[0] >> 1) & 0x3F
            if kind < 32 and unit[2] & 0x80:  # a new picture: the last one's RPU ends its access unit
                if picture >= 0:
                    units.append(rpu(picture))
                picture += 1
            units.append(unit)
        units.append(rpu(picture))
        assert picture + 1 == frames, (picture, frames)
        open(marked, "wb").write(b"".join(b"\x00\x00\x00\x01" + u for u in units))
        subprocess.run(["ffmpeg", "-y", "-v", "error", "-r", "30", "-i", marked, "-c", "copy", "-tag:v", "hvc1", out],
                       check=True)
    add_dvvc(out, entry_type, profile)


def side_blocks(text, name):
    """Per [FRAME] / [STREAM]: the key=value lines of its side data block whose type contains `name`."""
    result, holder, block = [], None, None
    for line in text.splitlines():
        if line in ("[FRAME]", "[STREAM]"):
            holder = {"pts": None, "block": None}
        elif line in ("[/FRAME]", "[/STREAM]"):
            result.append(holder)
        elif line == "[SIDE_DATA]":
            block = []
        elif line == "[/SIDE_DATA]":
            if block and name in block[0]:
                holder["block"] = block[1:]
            block = None
        elif block is not None:
            if "=" in line:
                block.append(line)
        elif line.startswith("pts="):
            holder["pts"] = int(line[4:]) if line[4:].lstrip("-").isdigit() else None
    return result


def frames(movie):
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_frames", movie],
                           capture_output=True, text=True, check=True)
    found = sorted(side_blocks(probe.stdout, "Dolby Vision Metadata"), key=lambda f: f["pts"] or 0)
    return [f["block"] for f in found]


def config(movie):
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_streams", movie],
                           capture_output=True, text=True, check=True)
    found = side_blocks(probe.stdout, "DOVI configuration record")
    block = found[0]["block"] if found else None
    return dict(line.split("=", 1) for line in block) if block else None


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "make":
        option = lambda name, default: args[args.index(name) + 1] if name in args else default
        make(args[1], int(option("--frames", 12)), option("--entry", "hvc1").encode(), int(option("--profile", 8)))
    elif len(args) == 2 and args[0] in ("frames", "config"):
        print(json.dumps(frames(args[1]) if args[0] == "frames" else config(args[1])))
    else:
        sys.exit(__doc__)
