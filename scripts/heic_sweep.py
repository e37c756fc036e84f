#!/usr/bin/env python3
"""HEIC save sweep (issue 15, docs/heic-quality.md).

For each real iPhone HEIC: the same edit (crop to 80 % per side) saved as PNG
(the lossless reference), as JPEG and as HEIC at each setting, run back to
back; reports the HEIC's primary-image bits per pixel against the source's,
PSNR of the HEIC (decoded by libheif's heif-convert) against the PNG, and
wall / CPU time against the JPEG save (median of RUNS).

  python3 scripts/heic_sweep.py '[{"name":"q90"},{"name":"q86","quality":86}]' 3

A setting is {"name", "quality" (optional, --quality), "env" (optional,
extra environment for the CLI)}. SHIYING names the CLI (default: the release
build); SRCS a colon-separated list of inputs."""
import json, os, subprocess, sys, time, statistics, resource
import numpy as np, pyvips
sys.path.insert(0, os.path.dirname(__file__))
from heif_primary_bytes import parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHIYING = os.environ.get('SHIYING', ROOT + '/.build/release/shiying')
OUT = os.environ.get('OUT', ROOT + '/.build/heic-sweep'); os.makedirs(OUT, exist_ok=True)
REAL = os.path.normpath(ROOT + '/../shared/corpus/real')
SRCS = os.environ.get('SRCS', REAL + '/iphone15plus_IMG_3853.HEIC:' + REAL + '/iphoneSE2_grid.heic').split(':')
RECIPE = OUT + '/crop80.json'
open(RECIPE, 'w').write('{"version":1,"crop":{"x":0.1,"y":0.1,"width":0.8,"height":0.8}}')

def run(argv, env=None):
    e = dict(os.environ); e.update(env or {})
    t0 = time.monotonic(); r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(argv, env=e, capture_output=True, text=True)
    t = time.monotonic() - t0; r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode: raise SystemExit(f'{argv}: {p.stderr[-500:]}')
    return t, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

def edit(src, out, extra=(), env=None):
    return run([SHIYING, 'edit', src, '--recipe', RECIPE, '-o', out, '--allow-sdr', *extra], env)

def rgb(path):
    im = pyvips.Image.new_from_file(path, access='sequential')
    if im.bands == 4: im = im[:3]
    return np.ndarray(buffer=im.write_to_memory(), dtype=np.uint8, shape=(im.height, im.width, im.bands))

def psnr(a, b):
    d = a.astype(np.float64) - b.astype(np.float64); mse = (d * d).mean()
    return float('inf') if mse == 0 else 10 * np.log10(255 * 255 / mse)

def main():
    settings = json.loads(sys.argv[1])  # [{"name":..,"quality":..,"env":{..}}]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rows = []
    for src in SRCS:
        name = os.path.basename(src).split('.')[0]
        sb, _ = parse(src)
        ref = f'{OUT}/{name}-ref.png'
        if not os.path.exists(ref): edit(src, ref)
        refpx = rgb(ref); h, w = refpx.shape[:2]
        dims = subprocess.run(['exiftool', '-s3', '-ImageWidth', '-ImageHeight', src], capture_output=True, text=True).stdout.split()
        src_bpp = sb * 8 / (int(dims[0]) * int(dims[1]))
        for s in settings:
            heic = f'{OUT}/{name}-{s["name"]}.heic'; jpg = f'{OUT}/{name}-jpeg.jpg'
            th, tj, uh, uj = [], [], [], []
            q = ['--quality', str(s['quality'])] if 'quality' in s else []
            for _ in range(runs):
                a, b = edit(src, heic, q, s.get('env')); th.append(a); uh.append(b)
                a, b = edit(src, jpg); tj.append(a); uj.append(b)
            pb, fb = parse(heic)
            dec = heic + '.png'
            subprocess.run(['heif-convert', heic, dec], check=True, capture_output=True)
            p = psnr(refpx, rgb(dec))
            row = dict(src=name, setting=s['name'], bpp=pb * 8 / (w * h), src_bpp=src_bpp, bpp_ratio=pb * 8 / (w * h) / src_bpp,
                       file_bytes=fb, psnr=p, heic_s=statistics.median(th), jpeg_s=statistics.median(tj),
                       heic_cpu=statistics.median(uh), jpeg_cpu=statistics.median(uj))
            row['time_ratio'] = row['heic_s'] / row['jpeg_s']; row['cpu_ratio'] = row['heic_cpu'] / row['jpeg_cpu']
            rows.append(row)
            print(f"{name:24s} {s['name']:28s} bpp {row['bpp']:.3f} ({row['bpp_ratio']:.2f}x src {src_bpp:.3f}) "
                  f"PSNR {p:.2f} dB  heic {row['heic_s']:.2f}s/{row['heic_cpu']:.2f}cpu  jpeg {row['jpeg_s']:.2f}s/{row['jpeg_cpu']:.2f}cpu  "
                  f"ratio {row['time_ratio']:.2f} (cpu {row['cpu_ratio']:.2f})  load {os.getloadavg()[0]:.1f}", flush=True)
    json.dump(rows, open(OUT + f'/sweep-{int(time.time())}.json', 'w'), indent=1)

main()
