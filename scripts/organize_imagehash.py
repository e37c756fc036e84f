#!/usr/bin/env python3
"""Baseline for `Benchmarks --suite organize`: Python imagehash over a folder.

For every JPEG/PNG (and HEIC, with pillow-heif) under DIR: SHA-256 of the file's bytes and
imagehash.phash (PIL decode, grey, 32x32 LANCZOS, DCT) — the closest
equivalent of `shiying organize scan` (which additionally hashes the decoded
pixels, scores quality, reads metadata and writes SQLite). Prints one JSON
line: {"photos": N, "seconds": S, "photos_per_second": R}.
"""
import hashlib
import json
import os
import sys
import time

import imagehash
from PIL import Image

try:
    import pillow_heif

    pillow_heif.register_heif_opener()
    EXTENSIONS = (".jpg", ".jpeg", ".png", ".heic", ".heif")
except ImportError:
    EXTENSIONS = (".jpg", ".jpeg", ".png")


def main():
    root = sys.argv[1]
    paths = sorted(
        os.path.join(d, f)
        for d, _, files in os.walk(root)
        for f in files
        if f.lower().endswith(EXTENSIONS)
    )
    start = time.perf_counter()
    hashes = {}
    for path in paths:
        with open(path, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
        with Image.open(path) as im:
            hashes[path] = (digest, str(imagehash.phash(im)))
    seconds = time.perf_counter() - start
    print(json.dumps({"photos": len(hashes), "seconds": seconds,
                      "photos_per_second": len(hashes) / seconds if seconds else 0}))


if __name__ == "__main__":
    main()
