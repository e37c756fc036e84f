#!/usr/bin/env python3
"""Grey JPEGs with a grey ICC profile, and what a colour-managed viewer shows of them.

  grey_icc.py make OUT.jpg GAMMA
      A 640x120 grey ramp with texture, saved by Pillow as a one-component JPEG carrying a
      minimal ICC v2 'GRAY' display profile (desc, wtpt D50, kTRC = gamma GAMMA, cprt).
  grey_icc.py compare SOURCE OUTPUT
      Converts both through their embedded profiles to sRGB with lcms2 (Pillow's ImageCms) and prints
      JSON: the output profile's data colour space and the PSNR between the two renderings.
"""
import io
import json
import struct
import sys

import numpy as np
from PIL import Image, ImageCms

try:
    import pillow_heif
    pillow_heif.register_heif_opener()
except ImportError:  # HEIC outputs are then compared by the caller's other checks only
    pass


def tag_text(kind, text):
    if kind == b"desc":
        raw = text.encode() + b"\0"
        return b"desc" + b"\0" * 4 + struct.pack(">I", len(raw)) + raw + b"\0" * 12 + b"\0" * 67
    return b"text" + b"\0" * 4 + text.encode() + b"\0"


def grey_profile(gamma):
    tags = [
        (b"desc", tag_text(b"desc", "Grey gamma %.1f" % gamma)),
        (b"wtpt", b"XYZ " + b"\0" * 4 + struct.pack(">3i", *(round(v * 65536) for v in (0.9642, 1.0, 0.8249)))),
        (b"kTRC", b"curv" + b"\0" * 4 + struct.pack(">IH", 1, round(gamma * 256)) + b"\0" * 2),
        (b"cprt", tag_text(b"cprt", "No copyright, use freely")),
    ]
    offset = 128 + 4 + 12 * len(tags)
    table, data = b"", b""
    for sig, body in tags:
        while len(body) % 4:
            body += b"\0"
        table += sig + struct.pack(">II", offset + len(data), len(body))
        data += body
    size = offset + len(data)
    header = struct.pack(">I4sI4s4s4s", size, b"none", 0x02100000, b"mntr", b"GRAY", b"XYZ ") + b"\0" * 12
    header += b"acsp" + b"\0" * 28 + struct.pack(">3i", 63190, 65536, 54061) + b"\0" * 48
    return header + struct.pack(">I", len(tags)) + table + data


def make(out, gamma):
    x = np.linspace(0, 1, 640)[None, :]
    y = np.linspace(0, 1, 120)[:, None]
    ramp = 255 * x + 18 * np.sin(9 * x * 6.283) * np.cos(5 * y * 6.283)
    Image.fromarray(np.clip(ramp, 0, 255).astype(np.uint8)).save(out, quality=95, icc_profile=grey_profile(gamma))


def rendered(path):
    image = Image.open(path)
    profile = image.info.get("icc_profile")
    space = profile[16:20].decode() if profile else None
    source = ImageCms.ImageCmsProfile(io.BytesIO(profile))
    mode = "L" if space == "GRAY" else "RGB"
    out = ImageCms.profileToProfile(image.convert(mode), source, ImageCms.createProfile("sRGB"), outputMode="RGB")
    return np.asarray(out).astype(float), space


def compare(source, output):
    a, _ = rendered(source)
    try:
        b, space = rendered(output)
    except Exception as e:  # an RGB image with a grey profile: lcms2 refuses it
        print(json.dumps({"space": Image.open(output).info.get("icc_profile", b"")[16:20].decode(), "psnr": 0,
                          "error": str(e)}))
        return
    mse = float(np.mean((a - b) ** 2))
    print(json.dumps({"space": space, "psnr": 99.0 if mse == 0 else 10 * np.log10(255 ** 2 / mse)}))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], float(sys.argv[3]))
    else:
        compare(sys.argv[2], sys.argv[3])
