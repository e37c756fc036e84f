#!/usr/bin/env python3
"""HDR10+ test clips: a PQ movie whose every picture carries its own SMPTE ST
2094-40 dynamic metadata, as Samsung's HDR10+ recordings do, and what ffprobe
reads of a movie's.

  hdr10plus_clip.py make OUT.mov [--frames N]
      hdr_clip.py's 640x360 PQ clip (BT.2020, 10-bit, graded to 1000 cd/m^2)
      coded without B-frames, each access unit given a prefix SEI with a
      user_data_registered_itu_t_t35 message (country 0xB5, provider 0x003C,
      oriented code 0x0001, application 4, version 1): one window, a targeted
      display of 400 + i cd/m^2, MaxSCL / average MaxRGB / nine percentiles /
      bright-pixel fraction and a Bezier tone curve that all change with the
      frame i, so a frame given another frame's message is caught.
  hdr10plus_clip.py frames MOVIE
      ffprobe's parse of each frame's HDR10+ message, in presentation order, as
      a JSON list (null for a frame without one): the values an outside reader
      finds, to compare a source with what a re-encode of it carries.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hdr_clip  # noqa: E402  (the clip's pixels)

PERCENTAGES = [1, 5, 10, 25, 50, 75, 90, 95, 99]


class Bits:
    def __init__(self):
        self.bits = []

    def put(self, value, n):
        assert 0 <= value < (1 << n), (value, n)
        self.bits += [(value >> (n - 1 - k)) & 1 for k in range(n)]

    def bytes(self):
        bits = self.bits + [0] * (-len(self.bits) % 8)
        return bytes(int("".join(map(str, bits[k:k + 8])), 2) for k in range(0, len(bits), 8))


def message(i):
    """The T.35 payload (country code first) of frame i."""
    b = Bits()
    for value, n in ((0xB5, 8), (0x003C, 16), (0x0001, 16), (4, 8), (1, 8), (1, 2)):
        b.put(value, n)
    b.put(400 + i, 27)  # targeted_system_display_maximum_luminance
    b.put(0, 1)         # no targeted display actual peak luminance
    for value in (40000 + 900 * i, 35000 + 700 * i, 20000 + 500 * i):
        b.put(value, 17)  # maxscl R, G, B
    b.put(5000 + 100 * i, 17)  # average_maxrgb
    b.put(len(PERCENTAGES), 4)
    for k, pct in enumerate(PERCENTAGES):
        b.put(pct, 7)
        b.put(100 * k * k + 10 * i + 1, 17)
    b.put(10 * i + 3, 10)  # fraction_bright_pixels
    b.put(0, 1)            # no mastering display actual peak luminance
    b.put(1, 1)            # tone_mapping_flag
    b.put(100 + i, 12)     # knee_point_x
    b.put(200 + i, 12)     # knee_point_y
    b.put(9, 4)
    for k in range(9):
        b.put(100 * (k + 1) + i, 10)
    b.put(0, 1)  # color_saturation_mapping_flag
    return b.bytes()


def escape(rbsp):
    out, zeros = bytearray(), 0
    for byte in rbsp:
        if zeros >= 2 and byte <= 3:
            out.append(3)
            zeros = 0
        out.append(byte)
        zeros = zeros + 1 if byte == 0 else 0
    return bytes(out)


def sei_nal(payload):
    size = len(payload)
    body = bytearray([4])  # payloadType: user_data_registered_itu_t_t35
    while size >= 255:
        body.append(255)
        size -= 255
    body.append(size)
    body += payload + b"\x80"  # rbsp trailing bits
    return bytes([39 << 1, 1]) + escape(bytes(body))


def nal_units(stream):
    """Annex-B NAL units (start codes dropped)."""
    starts, k = [], 0
    while True:
        k = stream.find(b"\x00\x00\x01", k)
        if k < 0:
            break
        starts.append(k + 3)
        k += 3
    for a, b in zip(starts, starts[1:] + [None]):
        # a unit ends where the next start code (00 00 01, or 00 00 00 01) begins
        yield stream[a:] if b is None else stream[a:b - 3].rstrip(b"\x00")


def coded_stream(raw, transfer, extra, path):
    """`raw` (hdr_clip.raw_frames) coded by x265 without B-frames into an Annex-B stream at `path`."""
    name = "smpte2084" if transfer == "pq" else "arib-std-b67"
    subprocess.run(["ffmpeg", "-y", "-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p10le",
                    "-s", f"{hdr_clip.W}x{hdr_clip.H}", "-r", "30", "-i", "-", "-c:v", "libx265", "-preset", "ultrafast",
                    "-x265-params", f"log-level=error:bframes=0:crf=12:colorprim=bt2020:transfer={name}"
                    f":colormatrix=bt2020nc:range=limited{extra}", "-pix_fmt", "yuv420p10le", "-f", "hevc", path],
                   input=raw, check=True)


def make(out, frames):
    raw = hdr_clip.raw_frames("pq", frames)
    with tempfile.TemporaryDirectory() as tmp:
        coded, marked = os.path.join(tmp, "in.hevc"), os.path.join(tmp, "marked.hevc")
        coded_stream(raw, "pq", ":master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)"
                     "L(10000000,50):max-cll=1000,400", coded)
        stream, picture, units = open(coded, "rb").read(), 0, []
        for unit in nal_units(stream):
            kind = (unit[0] >> 1) & 0x3F
            if kind < 32 and unit[2] & 0x80:  # the first slice of a picture: its message goes before it
                units.append(sei_nal(message(picture)))
                picture += 1
            units.append(unit)
        assert picture == frames, (picture, frames)
        open(marked, "wb").write(b"".join(b"\x00\x00\x00\x01" + u for u in units))
        subprocess.run(["ffmpeg", "-y", "-v", "error", "-r", "30", "-i", marked, "-c", "copy", "-tag:v", "hvc1",
                        out], check=True)


def frames(movie):
    # ffprobe's text form keeps repeated keys (three MaxSCL values, the
    # percentiles, the anchors) that its JSON form collapses to the last.
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_frames", "-show_entries",
                            "frame=pts:frame_side_data", movie], capture_output=True, text=True, check=True)
    result, frame, side = [], None, None
    for line in probe.stdout.splitlines():
        if line == "[FRAME]":
            frame = {"pts": None, "hdr10plus": None}
        elif line == "[/FRAME]":
            result.append(frame)
        elif line == "[SIDE_DATA]":
            side = {}
        elif line == "[/SIDE_DATA]":
            if "2094-40" in side.get("side_data_type", [""])[0]:
                del side["side_data_type"]
                frame["hdr10plus"] = side
            side = None
        elif "=" in line:
            key, value = line.split("=", 1)
            if side is not None:
                side.setdefault(key, []).append(value)
            elif key == "pts":
                frame["pts"] = int(value)
    return [f["hdr10plus"] for f in sorted(result, key=lambda f: f["pts"])]


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "make":
        n = int(args[args.index("--frames") + 1]) if "--frames" in args else 12
        make(args[1], n)
    elif len(args) == 2 and args[0] == "frames":
        print(json.dumps(frames(args[1])))
    else:
        sys.exit(__doc__)
