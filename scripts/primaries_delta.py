#!/usr/bin/env python3
"""How far an output's colours are from a source whose values are in known
primaries: `primaries_delta.py OUT SOURCE PRIMARIES` prints JSON with the mean
|difference| in 8-bit levels over 8x8 block means of the in-gamut blocks, in
sRGB — "tagged": OUT taken to sRGB through the ICC profile it carries (Pillow's
ImageCms, lcms2); "untagged": OUT's values read as sRGB, what a viewer shows of
an output that lost its tag — and "inside", the blocks compared.

The oracle is independent of the engine: SOURCE's values (a HEIF read by
pillow-heif, a current libheif, as it stores them; a PNG or JPEG by Pillow,
its own tags ignored) are taken from PRIMARIES (H.273 code: 1 sRGB/BT.709,
9 BT.2020, 12 Display P3; sRGB transfer curve) to sRGB with the primaries'
own matrices (D65)."""
import io, json, sys

import numpy as np
from PIL import Image, ImageCms

XY = {12: (0.680, 0.320, 0.265, 0.690, 0.150, 0.060), 9: (0.708, 0.292, 0.170, 0.797, 0.131, 0.046),
      1: (0.640, 0.330, 0.300, 0.600, 0.150, 0.060)}


def picture():
    """The tests' 320x240 source values (uint8 RGB): smooth ramps, a fine
    ripple and four saturated patches, in whatever primaries the file says."""
    yy, xx = np.mgrid[0:240, 0:320] / np.array([240, 320]).reshape(2, 1, 1)
    rgb = np.stack([0.25 + 0.5 * xx, 0.3 + 0.4 * yy, 0.55 - 0.3 * xx * yy], -1)
    rgb += 0.03 * np.sin(30 * xx)[..., None] * np.cos(20 * yy)[..., None]
    for i, c in enumerate([(0.7, 0.35, 0.3), (0.3, 0.6, 0.35), (0.3, 0.4, 0.7), (0.75, 0.7, 0.3)]):
        rgb[150:210, 20 + 75 * i:80 + 75 * i] = c
    return np.clip(np.round(rgb * 255), 0, 255).astype(np.uint8)


def to_xyz(primaries):
    c = XY[primaries]
    w = np.array([0.3127 / 0.3290, 1, (1 - 0.3127 - 0.3290) / 0.3290])
    m = np.array([[c[2 * i] / c[2 * i + 1] for i in range(3)], [1, 1, 1],
                  [(1 - c[2 * i] - c[2 * i + 1]) / c[2 * i + 1] for i in range(3)]])
    return m * np.linalg.solve(m, w)


def linear(v):
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def encode(v):
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * np.clip(v, 0, None) ** (1 / 2.4) - 0.055)


def source_values(path):
    if path.lower().endswith((".heic", ".heif")):
        import pillow_heif
        h = pillow_heif.open_heif(path)
        return np.asarray(Image.frombytes("RGB", h.size, h.data, "raw", "RGB", h.stride), dtype=float) / 255
    return np.asarray(Image.open(path).convert("RGB"), dtype=float) / 255


def main():
    output, source, primaries = sys.argv[1], sys.argv[2], int(sys.argv[3])
    src = source_values(source)
    m = np.linalg.solve(to_xyz(1), to_xyz(primaries))
    want_lin = linear(src) @ m.T
    want = encode(np.clip(want_lin, 0, 1)) * 255
    im = Image.open(output).convert("RGB")
    raw = np.asarray(im, dtype=float)
    if "icc_profile" in im.info:
        profile = ImageCms.ImageCmsProfile(io.BytesIO(im.info["icc_profile"]))
        got = np.asarray(ImageCms.profileToProfile(im, profile, ImageCms.createProfile("sRGB"), outputMode="RGB"),
                         dtype=float)
    else:
        got = raw
    h, w = (src.shape[0] // 8) * 8, (src.shape[1] // 8) * 8
    blocks = lambda a: a[:h, :w].reshape(h // 8, 8, w // 8, 8, 3).mean((1, 3))
    in_gamut = ((want_lin >= 0) & (want_lin <= 1)).all(-1, keepdims=True).repeat(3, -1).astype(float)
    inside = blocks(in_gamut).min(-1) == 1
    print(json.dumps({"tagged": float(np.abs(blocks(got) - blocks(want))[inside].mean()),
                      "untagged": float(np.abs(blocks(raw) - blocks(want))[inside].mean()),
                      "inside": int(inside.sum())}))


if __name__ == "__main__":
    main()
