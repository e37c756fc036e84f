#!/usr/bin/env python3
"""HDR test clips and what their frames should look like in SDR.

  hdr_clip.py make OUT.mov hlg|pq [--peak NITS]
      A 640x360, 12-frame BT.2020 10-bit clip (x265 lossless through ffmpeg) of
      photo-like scene light: a lit wall with texture, five colour patches, a
      moving lamp. HLG: the BT.2100 OETF of the scene light. PQ: scene light 1.0
      shown at 1000 cd/m^2.
  --peak NITS (PQ, every mode): an HDR10 grade that reaches NITS: the lamp is
      shown at 0.9 x NITS, the stream's SEI says MaxCLL = NITS and a mastering
      display of NITS, and the expected SDR mapping reaches white at NITS.
  hdr_clip.py check IMAGE hlg|pq FRAME [MOVIE] [--srgb] [--region X,Y,W,H]
      Compares an 8-bit Display P3 (--srgb: sRGB, as a GIF) rendition of frame FRAME with the engine's
      documented mapping (CSources/core/base/hdr_tone.c) applied to the clip's
      known scene light, over 8x8 block means, and prints JSON:
        mean, max        |difference| in 8-bit levels over all blocks
        knee_mean        the same over blocks below the tone curve's knee, against
                         ffmpeg's zimg (zscale) decode of MOVIE to display light:
                         an outside decoder of the HLG / PQ signal (only given MOVIE)
        hlg_as_sdr_mean  what showing the signal as if it were SDR would be off by
  hdr_clip.py hdr IMAGE hlg|pq FRAME [X,Y,W,H]
      Decodes IMAGE's gain map with libultrahdr (imagecodecs) to HDR linear light
      and compares its luminance with the frame's display light (in Display P3,
      reference white 1.0) over 8x8 blocks brighter than 5 % of white, as JSON:
        median, p5, p95   log2 of decoded over expected luminance
        highlights        blocks above 1.2x reference white; highlight_median
        peak              the brightest decoded value (the SDR base alone stops at 1)
      X,Y,W,H: IMAGE is that rectangle of the frame (an edit's crop).
"""
import json
import subprocess
import sys

import numpy as np

W, H, FRAMES = 640, 360, 12
KR, KB = 0.2627, 0.0593  # BT.2020 luma weights
REFERENCE_WHITE, PEAK, KNEE = 203.0, 1000.0, 0.7
GRADE = None  # --peak: the PQ grade's peak in cd/m^2 (None: ungraded, the mapping's nominal 1000)
BT2020_TO_P3 = np.array([[1.3435782525843, -0.2821796705261, -0.0613985820582],
                         [-0.0652974935348, 1.0757879158838, -0.0104904223490],
                         [0.0028217912303, -0.0195984734010, 1.0167766821707]])


def scene(t, transfer="hlg"):
    yy, xx = np.mgrid[0:H, 0:W] / np.array([H, W]).reshape(2, 1, 1)
    base = 0.02 + 0.25 * xx * (1 - 0.5 * yy)
    texture = 0.015 * np.sin(40 * xx + 3 * t) * np.cos(25 * yy)
    rgb = np.stack([base * 1.05, base, base * 0.9], -1) + texture[..., None]
    for i, colour in enumerate([(0.26, 0.05, 0.04), (0.05, 0.2, 0.06), (0.04, 0.06, 0.3), (0.2, 0.2, 0.05),
                                (0.12, 0.12, 0.12)]):
        rgb[200:300, 40 + i * 110:120 + i * 110] = colour
    rgb = np.clip(rgb, 0, 1)
    # a lamp; in a graded PQ clip brighter than 1000 cd/m^2 (scene light above 1)
    rgb[20:80, 500 + t:560 + t] = 0.9 * (GRADE / PEAK if GRADE and transfer == "pq" else 1)
    return rgb


A, B = 0.17883277, 0.28466892
C = 0.5 - A * np.log(4 * A)
M1, M2 = 2610 / 16384, 2523 / 4096 * 128
C1, C2, C3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32


def hlg_oetf(e):
    return np.where(e <= 1 / 12, np.sqrt(3 * e), A * np.log(np.maximum(12 * e - B, 1e-12)) + C)


def pq_inverse_eotf(nits):
    y = (nits / 10000) ** M1
    return ((C1 + C2 * y) / (1 + C3 * y)) ** M2


def signal(t, transfer):
    light = scene(t, transfer)
    return hlg_oetf(light) if transfer == "hlg" else pq_inverse_eotf(light * PEAK)


def display_light(t, transfer):
    """Display light relative to reference white, BT.2020 primaries."""
    light = scene(t, transfer)
    if transfer == "pq":
        return light * PEAK / REFERENCE_WHITE
    ys = light @ np.array([KR, 1 - KR - KB, KB])
    return light * (PEAK / REFERENCE_WHITE * np.power(np.maximum(ys, 1e-12), 0.2))[..., None]


def srgb_8bit(linear):
    v = np.clip(linear, 0, 1)
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1 / 2.4) - 0.055) * 255


P3_TO_SRGB = np.array([[1.2249401762805598, -0.2249401762805598, 0.0],
                       [-0.042056954709688, 1.042056954709688, 0.0],
                       [-0.019637554590334, -0.078636045550632, 1.098273600140966]])


def sdr_p3(display, srgb=False, peak=PEAK):
    """The documented mapping: to Display P3, then maxRGB tone curve (then to sRGB's primaries, clipped)."""
    p = display @ BT2020_TO_P3.T
    top = p.max(-1)
    bend = 1 / (1 - KNEE) - 1 / (peak / REFERENCE_WHITE - KNEE)
    u = top - KNEE
    mapped = np.minimum(KNEE + u / (1 + u * bend), 1)
    scale = np.where(top > KNEE, mapped / np.maximum(top, 1e-12), 1)
    mapped = p * scale[..., None]
    return srgb_8bit(mapped @ P3_TO_SRGB.T if srgb else mapped), top


def raw_frames(transfer, count=None):
    """The clip's pictures as raw 10-bit limited-range BT.2020 4:2:0 (yuv420p10le), `count` of them (FRAMES)."""
    frames = bytearray()
    for t in range(FRAMES if count is None else count):
        e = signal(t, transfer)
        y = e @ np.array([KR, 1 - KR - KB, KB])
        u = (e[..., 2] - y) / (2 * (1 - KB))
        v = (e[..., 0] - y) / (2 * (1 - KR))
        half = lambda p: p.reshape(H // 2, 2, W // 2, 2).mean((1, 3))
        for plane, scale, offset in ((y, 876, 64), (half(u), 896, 512), (half(v), 896, 512)):
            frames += np.round(offset + scale * plane).astype("<u2").tobytes()
    return bytes(frames)


def make(out, transfer):
    frames = raw_frames(transfer)
    name = "arib-std-b67" if transfer == "hlg" else "smpte2084"
    grade = (f":master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L({GRADE * 10000},50)"
             f":max-cll={GRADE},400") if GRADE and transfer == "pq" else ""
    subprocess.run(["ffmpeg", "-y", "-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p10le", "-s", f"{W}x{H}",
                    "-r", "30", "-i", "-", "-c:v", "libx265", "-preset", "ultrafast", "-x265-params",
                    f"log-level=error:lossless=1:colorprim=bt2020:transfer={name}:colormatrix=bt2020nc:range=limited"
                    + grade,
                    "-pix_fmt", "yuv420p10le", "-tag:v", "hvc1", out], input=bytes(frames), check=True)


def blocks(image):
    h, w = image.shape[0] // 8 * 8, image.shape[1] // 8 * 8
    return image[:h, :w].reshape(h // 8, 8, w // 8, 8, 3).mean((1, 3))


def check(image_path, transfer, frame, movie, srgb, region=None):
    from PIL import Image
    got = blocks(np.asarray(Image.open(image_path).convert("RGB"), dtype=float))
    want, top = sdr_p3(display_light(frame, transfer), srgb, GRADE if GRADE and transfer == "pq" else PEAK)
    as_signal = signal(frame, transfer) * 255
    if region:
        x, y, w, h = (int(v) for v in region.split(","))
        want, top, as_signal = want[y:y + h, x:x + w], top[y:y + h, x:x + w], as_signal[y:y + h, x:x + w]
        movie = None
    diff = np.abs(got - blocks(want))
    as_sdr = np.abs(got - blocks(as_signal))
    report = {"mean": diff.mean(), "max": diff.max(), "hlg_as_sdr_mean": as_sdr.mean()}
    if movie and not srgb:
        tin = "arib-std-b67" if transfer == "hlg" else "smpte2084"
        raw = subprocess.run(["ffmpeg", "-v", "error", "-i", movie, "-vf",
                              f"select=eq(n\\,{frame}),zscale=t=linear:npl={PEAK:g}:tin={tin}:pin=bt2020:"
                              "min=bt2020nc:rin=limited,format=gbrpf32le", "-frames:v", "1", "-f", "rawvideo", "-"],
                             capture_output=True, check=True).stdout
        g, b, r = np.frombuffer(raw, dtype="<f4").reshape(3, H, W)
        zimg = srgb_8bit((np.stack([r, g, b], -1) * PEAK / REFERENCE_WHITE) @ BT2020_TO_P3.T)
        # blocks wholly below the knee and near neutral (chroma is where decoders' conventions part)
        below = blocks(np.repeat((top < KNEE * 0.9)[..., None], 3, -1).astype(float)).min(-1) == 1
        zb = blocks(zimg)
        neutral = (zb.max(-1) - zb.min(-1)) < 40
        keep = below & neutral
        report["knee_blocks"] = int(keep.sum())
        report["knee_mean"] = np.abs(got - zb)[keep].mean() if keep.any() else None
    print(json.dumps(report))


def hdr(image_path, transfer, frame, region):
    import imagecodecs
    decoded = imagecodecs.ultrahdr_decode(open(image_path, "rb").read(), dtype="float16").astype(float)[..., :3]
    want = np.clip(display_light(frame, transfer) @ BT2020_TO_P3.T, 0, None)
    if region:
        x, y, w, h = (int(v) for v in region.split(","))
        want = want[y:y + h, x:x + w]
    luminance = np.array([0.2290, 0.6917, 0.0793])  # Display P3's Y row
    got_y, want_y = blocks(decoded) @ luminance, blocks(want) @ luminance
    bright = want_y > 0.05
    ratio = np.log2(np.maximum(got_y, 1e-4) / np.maximum(want_y, 1e-4))[bright]
    high = want_y[bright] > 1.2
    p5, median, p95 = np.percentile(ratio, [5, 50, 95])
    print(json.dumps({"median": median, "p5": p5, "p95": p95, "highlights": int(high.sum()),
                      "highlight_median": float(np.median(ratio[high])) if high.any() else None,
                      "peak": float(decoded.max())}))


if __name__ == "__main__":
    if "--peak" in sys.argv:
        k = sys.argv.index("--peak")
        GRADE = int(sys.argv[k + 1])
        del sys.argv[k:k + 2]
    if sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "hdr":
        hdr(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5] if len(sys.argv) > 5 else None)
    else:
        args = [a for a in sys.argv[2:] if a != "--srgb"]
        region = None
        if "--region" in args:
            k = args.index("--region")
            region = args[k + 1]
            del args[k:k + 2]
        check(args[0], args[1], int(args[2]), args[3] if len(args) > 3 else None, "--srgb" in sys.argv, region)
