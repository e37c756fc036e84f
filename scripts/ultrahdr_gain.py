#!/usr/bin/env python3
"""The gain an independent Ultra HDR / ISO 21496-1 reader applies to a JPEG:
`ultrahdr_gain.py FILE OFFSET_SDR OFFSET_HDR U,V [U,V ...]` prints one JSON
line {"check": bool, "stops": [...]} where each entry is the median, over a
small block around the normalized point (U, V) of the upright image, of
log2((HDR + OFFSET_HDR) / (SDR + OFFSET_SDR)) averaged over R, G, B.

The reader is Google's libultrahdr (bundled in PyPI's imagecodecs): HDR is its
linear float decode at the content's full boost, SDR its 8-bit sRGB decode of
the base image, linearized here. Pixels too dark for 8 bits to carry a ratio
(linear SDR < 0.04) are left out; a block with none reports null."""
import json, sys

import imagecodecs
import numpy as np


def srgb_to_linear(v):
    v = v / 255.0
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def main():
    path, offset_sdr, offset_hdr = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    data = open(path, "rb").read()
    check = bool(imagecodecs.ultrahdr_check(data))
    if not check:
        print(json.dumps({"check": False, "stops": []}))
        return
    hdr = imagecodecs.ultrahdr_decode(data).astype(np.float64)[..., :3]
    sdr = srgb_to_linear(imagecodecs.ultrahdr_decode(data, dtype=np.uint8).astype(np.float64)[..., :3])
    h, w = sdr.shape[:2]
    r = max(2, w // 100)
    stops = []
    for point in sys.argv[4:]:
        u, v = (float(x) for x in point.split(","))
        x, y = int(u * (w - 1)), int(v * (h - 1))
        block = (slice(max(0, y - r), y + r + 1), slice(max(0, x - r), x + r + 1))
        s, g = sdr[block], hdr[block]
        ratio = np.log2((g + offset_hdr) / (s + offset_sdr)).mean(axis=-1)
        lit = s.min(axis=-1) >= 0.04
        stops.append(float(np.median(ratio[lit])) if lit.any() else None)
    print(json.dumps({"check": check, "stops": stops, "width": w, "height": h}))


if __name__ == "__main__":
    main()
