#!/usr/bin/env python3
"""pyvips peer for the Shiying long-image benchmark.

usage: vips_longimage.py [--variant V] [--width 1080] [--quality 90] OUT.jpg IN...

Every input goes through pyvips.Image.thumbnail(path, width, height=10000000):
shrink-on-load, EXIF auto-rotate, sequential access. The thumbnails are then
stacked top to bottom and written as one JPEG. The "pipeline" variant instead
spells the steps out (new_from_file + resize), which is faster here.

Images.arrayjoin() gives every cell the height of the tallest image, so it is
only correct for runs of equal-height images (landscape 1080x810 vs portrait
1080x1440 here). The stacking therefore arrayjoins each run of equal heights
and joins the runs with a balanced tree of Image.join(..., "vertical").

Variants (all produce the same pixels):
  runs          default operation cache, run-wise arrayjoin + join tree (default)
  runs-nocache  same, with pyvips.cache_set_max(0)
  fold          default cache, left fold of Image.join (no arrayjoin)
  memory        each thumbnail rendered eagerly with copy_memory(), then runs
  threads       like memory, but one Python thread per core renders thumbnails
                concurrently (libvips releases the GIL), then runs
  pipeline      one lazy pipeline: new_from_file(access="sequential", shrink=2),
                autorot() only for files tagged with an orientation,
                resize(width / w, kernel="lanczos3"), a balanced tree of
                join(..., "vertical"), write_to_file(Q=, subsample_mode="on");
                libvips runs decode, resize and encode on its own threads
"""
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import pyvips

VARIANTS = ("runs", "runs-nocache", "fold", "memory", "threads", "pipeline")
DEFAULT_VARIANT = "threads"


def join_tree(images):
    while len(images) > 1:
        paired = [a.join(b, "vertical") for a, b in zip(images[0::2], images[1::2])]
        if len(images) % 2:
            paired.append(images[-1])
        images = paired
    return images[0]


def stack_runs(images):
    runs, current = [], [images[0]]
    for image in images[1:]:
        if image.height == current[-1].height:
            current.append(image)
        else:
            runs.append(current)
            current = [image]
    runs.append(current)
    blocks = [r[0] if len(r) == 1 else pyvips.Image.arrayjoin(r, across=1) for r in runs]
    return join_tree(blocks)


def stack_fold(images):
    out = images[0]
    for image in images[1:]:
        out = out.join(image, "vertical")
    return out


def pipeline_image(path, width):
    # shrink=2 is the 1/2 DCT scale: still >= 1080 px across for 12 MP inputs.
    image = pyvips.Image.new_from_file(path, access="sequential", shrink=2)
    try:
        orientation = image.get("orientation")
    except pyvips.Error:
        orientation = 1
    if orientation > 1:  # upright first, so the width to fit is the shown width
        image = image.autorot()
    return image.resize(width / image.width, kernel="lanczos3")


def main(argv):
    variant, width, quality = DEFAULT_VARIANT, 1080, 90
    args = list(argv)
    while args and args[0].startswith("--"):
        flag = args.pop(0)
        if flag == "--variant":
            variant = args.pop(0)
        elif flag == "--width":
            width = int(args.pop(0))
        elif flag == "--quality":
            quality = int(args.pop(0))
        else:
            sys.exit(f"unknown flag {flag}")
    if variant not in VARIANTS or len(args) < 2:
        sys.exit(__doc__)
    out, inputs = args[0], args[1:]

    if variant == "pipeline":
        stacked = join_tree([pipeline_image(p, width) for p in inputs])
        stacked.write_to_file(out, Q=quality, subsample_mode="on")
        print(f'{{"width": {stacked.width}, "height": {stacked.height}, "variant": "{variant}"}}')
        return
    if variant.endswith("-nocache"):
        pyvips.cache_set_max(0)
    if variant == "threads":
        def render(path):
            return pyvips.Image.thumbnail(path, width, height=10000000).copy_memory()

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            images = list(pool.map(render, inputs))
    else:
        images = [pyvips.Image.thumbnail(p, width, height=10000000) for p in inputs]
    if variant == "memory":
        images = [image.copy_memory() for image in images]
    stacked = stack_fold(images) if variant == "fold" else stack_runs(images)
    stacked.write_to_file(out, Q=quality)
    print(f'{{"width": {stacked.width}, "height": {stacked.height}, "variant": "{variant}"}}')


if __name__ == "__main__":
    main(sys.argv[1:])
