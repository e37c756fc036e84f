#!/usr/bin/env python3
"""fuzz-cli.py — mutation fuzzing of every read path of the `shiying` CLI.

Beside the libFuzzer harnesses (which call one parser each), this runs the
whole program as a user would, on mutated copies of real files: each round
takes a seed file (the real phone photos and movies of ../shared/corpus, the
hostile HEIFs, generated samples), mutates it (bit flips, byte runs, inserted
or deleted chunks, truncation, a splice of two files, a lying 32-bit size),
and runs the commands that read that kind of file under ASan/UBSan with a
time limit and an allocation cap. A run crashes when it ends on a signal or
prints a sanitizer report; it hangs when it outlives the time limit. Crashing
and hanging inputs are kept under OUT/crashes and OUT/hangs.

usage: scripts/fuzz-cli.py [--minutes M] [--bin PATH] [--out DIR] [--seed S] [--jobs N] [--hdr-only]
Prints one JSON line at the end: runs, crashes, hangs, max_rss_mb, per command.
"""
import argparse
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus")

STILL = (".jpg", ".jpeg", ".png", ".heic", ".heif", ".avif")
MOVIE = (".mov", ".mp4", ".qt")

# Per kind of file: the CLI read paths, IN = the mutated file, OUT = a scratch output.
COMMANDS = {
    "still": [
        ["probe", "--json", "IN"],
        ["hdr", "info", "--json", "IN"],
        ["convert", "IN", "-o", "OUT.jpg"],
        ["edit", "IN", "--recipe", "RECIPE", "--size", "320x320", "-o", "OUT.png"],
        ["collage", "--layout", "grid", "--width", "480", "-o", "OUT.jpg", "IN", "IN"],
        ["live", "strip", "IN", "-o", "OUT.IN"],   # strip keeps the still's format: OUT gets IN's extension
    ],
    "movie": [
        ["video", "info", "--json", "IN"],
        ["video", "decode", "--json", "IN"],
    ],
    "pair": [
        ["live", "validate", "--json", "--timeout", "20", "STILL", "IN"],
    ],
}
SANITIZER_MARKS = (b"ERROR: AddressSanitizer", b"runtime error:", b"ERROR: LeakSanitizer", b"SUMMARY: UndefinedBehavior")


def seeds():
    """(path, kind) for every seed file found."""
    found = []
    for sub in ("real", "hostile", "gainmap"):
        folder = os.path.join(CORPUS, sub)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if not os.path.isfile(path) or os.path.getsize(path) > 40 << 20:
                continue
            ext = os.path.splitext(name)[1].lower()
            kind = "still" if ext in STILL or sub == "hostile" else "movie" if ext in MOVIE else None
            if kind:
                found.append((path, kind))
    return found


def hdr_seeds(folder):
    """Generated HDR seeds (10-bit HLG / PQ HEIFs, a 4:2:2 grid, an HLG movie, HDR10-graded PQ ones, an HDR10+
    movie): the tone-mapped tile rows, the gain map derived from the signal, the 10-bit re-encode, the grade's
    metadata, each picture's HDR10+ message.
    None when numpy or ffmpeg is missing."""
    made = []
    script = os.path.join(ROOT, "scripts")
    jobs = [([sys.executable, os.path.join(script, "hdr_still.py"), os.path.join(folder, "hdr-hlg.heic"), "hlg"], "still"),
            ([sys.executable, os.path.join(script, "hdr_still.py"), os.path.join(folder, "hdr-pq-grid.heic"), "pq",
              "--tile", "128", "--chroma", "422"], "still"),
            ([sys.executable, os.path.join(script, "hdr_clip.py"), "make", os.path.join(folder, "hdr-hlg.mov"), "hlg"],
             "movie"),
            # HDR10 grades: mastering display / light level SEI in a PQ movie, mdcv / clli properties in a PQ HEIF
            ([sys.executable, os.path.join(script, "hdr_clip.py"), "make", os.path.join(folder, "hdr10.mov"), "pq",
              "--peak", "4000"], "movie"),
            ([sys.executable, os.path.join(script, "hdr_still.py"), os.path.join(folder, "hdr-pq-graded.heic"), "pq",
              "--peak", "4000"], "still"),
            # HDR10+: an ST 2094-40 message in every picture's sample, carried by the kept-HDR re-encode
            ([sys.executable, os.path.join(script, "hdr10plus_clip.py"), "make", os.path.join(folder, "hdr10plus.mov"),
              "--frames", "6"], "movie"),
            # Dolby Vision 8.4: an RPU ending each access unit, a dvvC configuration
            ([sys.executable, os.path.join(script, "dolby_vision_clip.py"), "make",
              os.path.join(folder, "dolby-vision.mp4"), "--frames", "6"], "movie")]
    for argv, kind in jobs:
        out = argv[3] if argv[2] == "make" else argv[2]
        if subprocess.run(argv, capture_output=True).returncode == 0 and os.path.isfile(out):
            made.append((out, kind))
    return made


def mutate(data, other, rng):
    """One to four mutations of `data` (bytes); `other` is a second file for splices."""
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not b:
            b = bytearray(other[:64])
        op = rng.randrange(7)
        at = rng.randrange(len(b))
        if op == 0:  # bit flips
            for _ in range(rng.randint(1, 16)):
                i = rng.randrange(len(b))
                b[i] ^= 1 << rng.randrange(8)
        elif op == 1:  # a run of one interesting byte
            n = rng.randint(1, 32)
            b[at:at + n] = bytes([rng.choice((0x00, 0xFF, 0x7F, 0x80, 0x01))]) * n
        elif op == 2:  # a lying 32-bit size (box sizes, segment lengths, counts)
            v = rng.choice((0, 1, 7, 8, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, len(b), len(b) + 1))
            b[at:at + 4] = v.to_bytes(4, "big")
        elif op == 3:  # delete a chunk
            del b[at:at + rng.randint(1, 4096)]
        elif op == 4:  # duplicate a chunk
            n = rng.randint(1, 4096)
            b[at:at] = b[at:at + n]
        elif op == 5:  # truncate
            del b[rng.randrange(1, len(b) + 1):]
        else:  # splice another file's bytes in
            o = rng.randrange(len(other)) if other else 0
            b[at:at + rng.randint(16, 8192)] = other[o:o + rng.randint(16, 8192)]
    return bytes(b)


def run(binary, args, limit):
    """(status, signaled, hung, sanitizer, rss_kb, stderr tail) of one run."""
    env = dict(os.environ,
               ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1:max_allocation_size_mb=4096:"
                            "hard_rss_limit_mb=4096:abort_on_error=0:symbolize=0",
               UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=0")
    proc = subprocess.Popen([binary] + args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env, start_new_session=True)
    try:
        _, err = proc.communicate(timeout=limit)
        hung = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        hung = True
    # ru_maxrss of the child, read from /proc would be gone; wait4 already reaped it,
    # so take the high-water mark of all children so far (monotonic, good enough for a max).
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    sanitizer = any(m in err for m in SANITIZER_MARKS)
    signaled = proc.returncode is not None and proc.returncode < 0 and not hung
    return proc.returncode, signaled, hung, sanitizer, rss, err[-2000:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build/sanitize/debug/shiying"))
    ap.add_argument("--out", default=os.path.join(ROOT, ".build/fuzz-cli"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--limit", type=float, default=60, help="seconds one run may take before it counts as a hang")
    ap.add_argument("--hdr-only", action="store_true", help="only the generated HDR seeds")
    a = ap.parse_args()
    if not os.access(a.bin, os.X_OK):
        sys.exit(f"fuzz-cli: {a.bin} is not built (make sanitize builds it)")
    generated = tempfile.mkdtemp(prefix="fuzz-cli-seeds-")
    hdr = hdr_seeds(generated)
    pool = hdr if a.hdr_only else seeds() + hdr
    if not pool:
        sys.exit(f"fuzz-cli: no seed files under {CORPUS}")
    os.makedirs(os.path.join(a.out, "crashes"), exist_ok=True)
    os.makedirs(os.path.join(a.out, "hangs"), exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="fuzz-cli-")
    recipe = os.path.join(scratch, "recipe.json")
    with open(recipe, "w") as f:
        f.write('{"straighten": 3, "adjustments": {"exposure": 0.2}, "filter": {"id": "film.amber"}}')
    stills = [p for p, k in pool if k == "still" and ("/real/" in p or p.startswith(generated))]
    movies = [p for p, k in pool if k == "movie"]
    data = {p: open(p, "rb").read() for p, _ in pool}
    stats = {"runs": 0, "crashes": 0, "hangs": 0, "inputs": 0, "by_command": {}}
    deadline = time.time() + a.minutes * 60
    rng = random.Random(a.seed)
    counter = [0]

    def one_round(round_seed):
        r = random.Random(round_seed)
        # Movies are few beside 132 hostile HEIFs: pick the kind first, then a file.
        kind = "movie" if movies and r.random() < 0.35 else "still"
        path = r.choice(movies if kind == "movie" else [p for p, k in pool if k == "still"])
        other = data[pool[r.randrange(len(pool))][0]]
        work = tempfile.mkdtemp(dir=scratch)
        ext = os.path.splitext(path)[1].lower() or ".heic"
        mutated = os.path.join(work, "input" + ext)
        with open(mutated, "wb") as f:
            f.write(mutate(data[path], other, r))
        plans = list(COMMANDS[kind])
        if kind == "movie" and stills:
            plans += COMMANDS["pair"]
        results = []
        for cmd in plans:
            args = [mutated if x == "IN" else recipe if x == "RECIPE" else r.choice(stills) if x == "STILL"
                    else os.path.join(work, "out" + os.path.splitext(mutated)[1]) if x == "OUT.IN"
                    else os.path.join(work, "out" + x[3:]) if x.startswith("OUT") else x for x in cmd]
            status, signaled, hung, sanitizer, rss, err = run(a.bin, args, a.limit)
            name = " ".join(cmd[:2]) if cmd[0] in ("video", "live", "hdr") else cmd[0]
            bad = "hangs" if hung else "crashes" if (signaled or sanitizer) else None
            if bad:
                keep = os.path.join(a.out, bad, f"{round_seed}-{name.replace(' ', '-')}{ext}")
                shutil.copyfile(mutated, keep)
                with open(keep + ".txt", "w") as f:
                    f.write(" ".join(args) + f"\nstatus {status}\n" + err.decode("utf-8", "replace"))
            results.append((name, bad, rss))
        shutil.rmtree(work, ignore_errors=True)
        return results

    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        while time.time() < deadline:
            batch = [ex.submit(one_round, rng.randrange(1 << 62)) for _ in range(a.jobs * 2)]
            for fut in batch:
                stats["inputs"] += 1
                for name, bad, rss in fut.result():
                    c = stats["by_command"].setdefault(name, {"runs": 0, "crashes": 0, "hangs": 0})
                    c["runs"] += 1
                    stats["runs"] += 1
                    if bad:
                        c[bad] += 1
                        stats[bad] += 1
                    stats["max_rss_mb"] = round(max(stats.get("max_rss_mb", 0), rss / 1024), 1)
            counter[0] += 1
            if counter[0] % 10 == 0:
                print(f"fuzz-cli: {stats['runs']} runs, {stats['crashes']} crashes, {stats['hangs']} hangs",
                      file=sys.stderr, flush=True)
    shutil.rmtree(scratch, ignore_errors=True)
    stats["minutes"] = a.minutes
    print(json.dumps(stats, sort_keys=True))
    return 1 if stats["crashes"] or stats["hangs"] else 0


if __name__ == "__main__":
    sys.exit(main())
