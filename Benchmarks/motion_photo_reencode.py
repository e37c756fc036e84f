#!/usr/bin/env python3
"""Re-encoding peer for the convert suite's Motion Photo -> Live row, and its
fidelity measures (Pillow, pillow-heif and ffmpeg).

usage:
  motion_photo_reencode.py live MOTION_PHOTO OUT_DIR BITRATE
      The way a script around Pillow, pillow-heif and ffmpeg makes a
      Live pair: the embedded MP4 cut out at the Motion Photo's own offsets
      (JPEG: the XMP Container:Directory item lengths from the end of the
      file; HEIC: the top-level `mpvd` box), its video re-encoded with libx265
      (fast, BITRATE bit/s) into a QuickTime movie with the audio copied and a
      new content identifier in its `mdta` keys, the still decoded and
      re-encoded in its own format at quality 90 (Pillow / pillow-heif).
      Apple's still identifier lives in a MakerNote that exiftool cannot
      create, so the still has none: the peer's pair is not a Live photo.
      Writes OUT_DIR/still.(jpg|heic), OUT_DIR/movie.mov, OUT_DIR/embedded.mp4.
  motion_photo_reencode.py embedded MOTION_PHOTO OUT.mp4
      Only cuts out the embedded movie (the reference for the movie measures).
  motion_photo_reencode.py psnr A B
      PSNR (dB, RGB, 8-bit) of two stills of the same size; "inf" when equal.
"""
import math
import re
import subprocess
import sys
import uuid

import numpy as np
import pillow_heif
from PIL import Image

pillow_heif.register_heif_opener()


def embedded_range(data):
    """(offset, length) of the movie inside a Motion Photo's bytes."""
    if data[4:8] == b"ftyp":  # HEIF: walk the top-level boxes to `mpvd`
        pos = 0
        while pos + 8 <= len(data):
            size = int.from_bytes(data[pos:pos + 4], "big")
            header = 8
            if size == 1:
                size = int.from_bytes(data[pos + 8:pos + 16], "big")
                header = 16
            elif size == 0:
                size = len(data) - pos
            if data[pos + 4:pos + 8] == b"mpvd":
                return pos + header, size - header
            if size < header:
                break
            pos += size
        raise SystemExit("no mpvd box")
    xmp = re.search(rb"<x:xmpmeta.*?</x:xmpmeta>", data, re.S)
    if not xmp:
        raise SystemExit("no XMP")
    items = re.findall(rb"<Container:Item\b(.*?)/?>", xmp.group(0), re.S)
    tail = 0
    for item in reversed(items):  # items after the primary are stored in order at the end
        semantic = re.search(rb'Item:Semantic="([^"]*)"', item)
        length = re.search(rb'Item:Length="(\d+)"', item)
        padding = re.search(rb'Item:Padding="(\d+)"', item)
        if semantic and semantic.group(1) == b"Primary":
            break
        size = int(length.group(1)) if length else 0
        if semantic and semantic.group(1) == b"MotionPhoto":
            start = len(data) - tail - size
            return start, size - (int(padding.group(1)) if padding else 0)
        tail += size
    raise SystemExit("no MotionPhoto directory item")


def cut(path, out):
    data = open(path, "rb").read()
    at, length = embedded_range(data)
    with open(out, "wb") as f:
        f.write(data[at:at + length])
    return data


def live(path, out_dir, bitrate):
    data = cut(path, out_dir + "/embedded.mp4")
    heic = data[4:8] == b"ftyp"
    still = out_dir + ("/still.heic" if heic else "/still.jpg")
    image = Image.open(path)
    exif = image.info.get("exif")
    options = {"quality": 90}
    if exif:
        options["exif"] = exif
    image.save(still, **options)
    identifier = str(uuid.uuid4()).upper()
    movie = out_dir + "/movie.mov"
    subprocess.run(["ffmpeg", "-y", "-v", "error", "-i", out_dir + "/embedded.mp4", "-map", "0:v:0", "-map", "0:a?",
                    "-c:v", "libx265", "-preset", "fast", "-x265-params", "log-level=error", "-b:v", str(bitrate),
                    "-tag:v", "hvc1", "-c:a", "copy", "-movflags", "use_metadata_tags",
                    "-metadata", "com.apple.quicktime.content.identifier=" + identifier, movie], check=True)


def psnr(a, b):
    x = np.asarray(Image.open(a).convert("RGB"), dtype=np.float64)
    y = np.asarray(Image.open(b).convert("RGB"), dtype=np.float64)
    if x.shape != y.shape:
        raise SystemExit(f"sizes differ: {x.shape} vs {y.shape}")
    mse = float(np.mean((x - y) ** 2))
    print("inf" if mse == 0 else f"{10 * math.log10(255 * 255 / mse):.2f}")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "live":
        live(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) == 4 and sys.argv[1] == "embedded":
        cut(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "psnr":
        psnr(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(__doc__)
