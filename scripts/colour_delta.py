#!/usr/bin/env python3
"""ΔE76 between a collage cell and an independent decode of its source, both
converted to sRGB: `colour_delta.py OUT IN [--block 8]` prints JSON with the
mean ΔE76 over block means and the mean over the most saturated 1 % of blocks
(by the reference's chroma C*ab: where an untagged P3 image shows its error).

The independent side is pillow-heif (a current libheif) or Pillow for JPEG/PNG,
each image's embedded ICC profile applied with Pillow's ImageCms; the output
is resized to the source's aspect-filling crop exactly as a one-cell long
image is (cover, centred)."""
import io, json, sys

from PIL import Image, ImageCms

try:
    import pillow_heif
    pillow_heif.register_heif_opener()
except ImportError:  # HEIC inputs then fail to open, which the caller reports
    pass


def to_srgb(img):
    img = img.convert("RGB") if img.mode != "RGB" else img
    icc = img.info.get("icc_profile")
    if not icc:
        return img
    src = ImageCms.ImageCmsProfile(io.BytesIO(icc))
    return ImageCms.profileToProfile(img, src, ImageCms.createProfile("sRGB"), outputMode="RGB",
                                     renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)


def lab(rgb):
    def lin(c):
        c /= 255.0
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(float(v)) for v in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    f = lambda t: t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116
    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def block_means(img, block):
    w, h = img.size
    small = img.resize((w // block, h // block), Image.BOX)
    return list(small.get_flattened_data() if hasattr(small, "get_flattened_data") else small.getdata())


def main():
    out_path, in_path = sys.argv[1], sys.argv[2]
    block = int(sys.argv[sys.argv.index("--block") + 1]) if "--block" in sys.argv else 8
    out = to_srgb(Image.open(out_path))
    src = to_srgb(Image.open(in_path))
    ow, oh = out.size
    sw, sh = src.size
    scale = max(ow / sw, oh / sh)
    cw, ch = ow / scale, oh / scale
    left, top = (sw - cw) / 2, (sh - ch) / 2
    ref = src.resize((ow, oh), Image.LANCZOS, box=(left, top, left + cw, top + ch))
    a, b = block_means(out, block), block_means(ref, block)
    rows = []  # (reference chroma, ΔE76)
    for p, q in zip(a, b):
        l1, l2 = lab(p), lab(q)
        rows.append(((l2[1] ** 2 + l2[2] ** 2) ** 0.5, sum((u - v) ** 2 for u, v in zip(l1, l2)) ** 0.5))
    saturated = sorted(rows)[-max(1, len(rows) // 100):]
    print(json.dumps({"mean": sum(d for _, d in rows) / len(rows),
                      "saturated1": sum(d for _, d in saturated) / len(saturated), "blocks": len(rows),
                      "tagged": bool(Image.open(out_path).info.get("icc_profile"))}))

main()
