#!/usr/bin/env python3
"""render_vips.py — the vips peer for scripts/render_bench.c (issue 5); not a test.

Closest vips equivalent of the typical recipe on the same 12 MP RGB buffer, as one
pipeline rendered to memory: [resize (lanczos3) for the preview] -> similarity 3 deg
(bicubic) about the centre -> crop to the frame -> saturation (recomb, float) ->
exposure + filter as one 8-bit 1D LUT (maplut; vips has no 3D LUT).
usage: VIPS_CONCURRENCY=1|2 scripts/render_vips.py full|preview N [RAW]
RAW is the 4032x3024 RGB file render_bench writes (default /tmp/render_bench.rgb)."""
import sys, time, math
import pyvips

mode, n = sys.argv[1], int(sys.argv[2])
W, H = 4032, 3024
raw = open(sys.argv[3] if len(sys.argv) > 3 else "/tmp/render_bench.rgb", "rb").read()
src = pyvips.Image.new_from_memory(raw, W, H, 3, "uchar")
pyvips.cache_set_max(0)
fw, fh = (3628, 2722) if mode == "full" else (1170, 878)
scale = fw / 3628

# exposure +0.3 EV in linear light and a mild tone curve, baked into 256 entries
def curve(i):
    v = i / 255
    lin = (v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4) * 2 ** 0.3
    lin = min(lin, 1.0)
    e = lin * 12.92 if lin <= 0.0031308 else 1.055 * lin ** (1 / 2.4) - 0.055
    return max(0, min(255, round((0.04 + 0.94 * e) * 255)))
lut = pyvips.Image.new_from_array([[curve(i) for i in range(256)]]).cast("uchar")
s, l = 1.2, [0.2126, 0.7152, 0.0722]
sat = pyvips.Image.new_from_array([[l[j] * (1 - s) + (s if i == j else 0) for j in range(3)] for i in range(3)])
bicubic = pyvips.Interpolate.new("bicubic")

def pipeline():
    x = src if mode == "full" else src.resize(scale, kernel="lanczos3")
    x = x.similarity(angle=3, interpolate=bicubic)
    x = x.crop((x.width - fw) // 2, (x.height - fh) // 2, fw, fh)
    x = x.recomb(sat).cast("uchar")
    return x.maplut(lut)

times, cpus = [], []
for _ in range(n):
    t0, c0 = time.perf_counter(), time.process_time()
    out = pipeline()
    mem = out.write_to_memory()
    times.append(time.perf_counter() - t0)
    cpus.append(time.process_time() - c0)
print(f"vips {mode} {out.width}x{out.height} wall best {min(times)*1e3:.1f} ms mean {sum(times)/len(times)*1e3:.1f} ms"
      f" cpu best {min(cpus)*1e3:.1f} ms")
