#!/usr/bin/env python3
"""edit_vips.py — the vips peer of `shiying edit` for `Benchmarks --suite render` (issue 5).

Closest vips equivalent of the typical recipe (crop 90 % + straighten 3 deg +
exposure +0.3 EV + saturation +0.2 + a filter), file to file, as one pipeline:
load (preview: JPEG shrink-on-load, as our DCT-scale decode) -> [resize to the
preview scale, lanczos3] -> similarity 3 deg (bicubic) about the centre -> crop
to the frame -> saturation (recomb) -> exposure + filter as one 8-bit 1D LUT
(maplut; vips has no 3D LUT) -> JPEG Q90 (metadata kept, as ours).
usage: edit_vips.py full|preview IN OUT FRAME_W FRAME_H NATIVE_W
(FRAME = output size; NATIVE_W = the full-size frame width in source pixels)
Prints one JSON line {"seconds": pipeline wall time, "cpu": process CPU time}."""
import json, sys, time

import pyvips

mode, src_path, out_path = sys.argv[1], sys.argv[2], sys.argv[3]
fw, fh, native_w = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
t0, c0 = time.perf_counter(), time.process_time()

def curve(i):
    """exposure +0.3 EV in linear light, then a mild warm tone curve (the filter's stand-in)."""
    v = i / 255
    lin = (v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4) * 2 ** 0.3
    lin = min(lin, 1.0)
    e = lin * 12.92 if lin <= 0.0031308 else 1.055 * lin ** (1 / 2.4) - 0.055
    return max(0, min(255, round((0.04 + 0.94 * e) * 255)))

lut = pyvips.Image.new_from_array([[curve(i) for i in range(256)]]).cast("uchar")
s, l = 1.2, [0.2126, 0.7152, 0.0722]
sat = pyvips.Image.new_from_array([[l[j] * (1 - s) + (s if i == j else 0) for j in range(3)] for i in range(3)])
bicubic = pyvips.Interpolate.new("bicubic")

if mode == "full":
    x = pyvips.Image.new_from_file(src_path)
else:
    # target pixels per source pixel; shrink-on-load by the largest power of
    # two that still keeps >= 2 decoded pixels per target pixel, then lanczos3
    scale = fw / native_w
    shrink = 1
    while shrink < 8 and scale * shrink * 2 <= 0.5:
        shrink *= 2
    x = pyvips.Image.new_from_file(src_path, shrink=shrink)
    x = x.resize(scale * shrink, kernel="lanczos3")
x = x.similarity(angle=3, interpolate=bicubic)
x = x.crop(max(0, (x.width - fw) // 2), max(0, (x.height - fh) // 2), min(fw, x.width), min(fh, x.height))
x = x.recomb(sat).cast("uchar").maplut(lut)
x.jpegsave(out_path, Q=90)
t1, c1 = time.perf_counter(), time.process_time()
print(json.dumps({"seconds": t1 - t0, "cpu": c1 - c0, "width": x.width, "height": x.height}))
