#!/usr/bin/env bash
# Builds the libFuzzer harnesses in Tests/Fuzz against the engine's C sources
# (ASan + UBSan) and runs each for $1 seconds (default 60) from a seed corpus.
# FUZZ_ONLY selects harnesses, e.g. FUZZ_ONLY=Tests/Fuzz/fuzz_cube.c (the .cube LUT parser).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
clang=${CLANG:-$(command -v /opt/swift/usr/bin/clang || command -v clang)}
out=.build/fuzz
mkdir -p "$out"
engine=$(find CSources -name '*.c' -not -path 'CSources/system/*')
# Every layer's root (internal headers by folder, "heif/sy_heif.h") and public include folder.
layers=""
for layer in core media pipelines fixtures; do layers="$layers -ICSources/$layer -ICSources/$layer/include"; done
flags="-g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $layers"
libs="$(pkg-config --libs libjpeg libheif libavcodec libavutil x265 zlib lcms2) -lpthread -lm"

# Seeds: small generated photos (baseline + progressive + oriented) and PNGs.
seeds=$out/seeds
if [ ! -d "$seeds" ]; then
  mkdir -p "$seeds/jpeg" "$seeds/png"
  bin=$(swift build --show-bin-path)/shiying
  [ -x "$bin" ] || swift build --product shiying
  "$bin" sample-photos --count 3 --width 96 --height 64 -o "$seeds/jpeg" >/dev/null
  "$bin" sample-photos --count 2 --width 80 --height 48 --progressive -o "$seeds/jpeg/p" >/dev/null
  mv "$seeds"/jpeg/p/*.jpg "$seeds/jpeg/" 2>/dev/null || true
  for f in "$seeds"/jpeg/sample-000[12].jpg; do
    convert "$f" "$seeds/png/$(basename "$f" .jpg).png"
    convert "$f" -interlace PNG "$seeds/png/$(basename "$f" .jpg)-adam7.png"
    convert "$f" -colors 16 "PNG8:$seeds/png/$(basename "$f" .jpg)-palette.png"
  done
fi
# HEIF seeds: the real phone HEICs (libFuzzer keeps their first -max_len bytes,
# which hold ftyp + meta), a few small hostile libheif cases and our regressions.
if [ ! -d "$seeds/heif" ]; then
  mkdir -p "$seeds/heif"
  for f in ../shared/corpus/real/*.heic ../shared/corpus/real/*.HEIC; do
    [ -f "$f" ] && cp "$f" "$seeds/heif/"
  done
  for f in colors-with-alpha-thumbnail.heic colors-no-alpha.heic hevc32.heif avif32.heif clap-overflow-divide-zero.heic \
           uaf_heif_context.h_117_1.heic github_367_1.heic clusterfuzz-testcase-minimized-file-fuzzer-5752063708495872.heic \
           uncompressed_pix_RGB_tiled.heic rgb_generic_compressed_zlib_tiled.heic; do
    [ -f "../shared/corpus/hostile/$f" ] && cp "../shared/corpus/hostile/$f" "$seeds/heif/"
  done
  cp Tests/Fuzz/regressions/heif/*.heic "$seeds/heif/" 2>/dev/null || true
fi

# Video seeds: tiny HEVC (8/10-bit, hvc1/hev1) and H.264 movies with B-frames,
# moov first so the 256 KiB libFuzzer keeps holds index and samples.
if [ ! -d "$seeds/video" ] && command -v ffmpeg >/dev/null; then
  mkdir -p "$seeds/video"
  src="-f lavfi -i testsrc2=size=64x48:rate=10:duration=0.6"
  # shellcheck disable=SC2086
  {
    ffmpeg -v error -y $src -c:v libx265 -tag:v hvc1 -x265-params bframes=2:log-level=error -movflags faststart "$seeds/video/hevc.mp4"
    ffmpeg -v error -y $src -c:v libx265 -tag:v hev1 -pix_fmt yuv420p10le -x265-params bframes=2:log-level=error -movflags faststart "$seeds/video/hev1-10bit.mov"
    ffmpeg -v error -y $src -c:v libx264 -bf 2 -movflags faststart "$seeds/video/h264.mp4"
    ffmpeg -v error -y $src -c:v libx264 -profile:v baseline -movflags faststart "$seeds/video/h264-baseline.mov"
  } || echo "fuzz: some video seeds could not be made"
fi
# HDR seeds (10-bit HLG and PQ, BT.2020): the tone mapping and the gain plane.
for tr in arib-std-b67 smpte2084; do
  if [ -d "$seeds/video" ] && [ ! -f "$seeds/video/hdr-$tr.mov" ] && command -v ffmpeg >/dev/null; then
    ffmpeg -v error -y -f lavfi -i testsrc2=size=64x48:rate=10:duration=0.4 -c:v libx265 -tag:v hvc1 \
      -pix_fmt yuv420p10le -x265-params "log-level=error:colorprim=bt2020:transfer=$tr:colormatrix=bt2020nc" \
      -movflags faststart "$seeds/video/hdr-$tr.mov" || echo "fuzz: the $tr seed could not be made"
  fi
done
# HDR10 seeds: mastering display and light level SEI (.mov), and the same with mdcv / clli boxes (.mp4 copy).
if [ -d "$seeds/video" ] && [ ! -f "$seeds/video/hdr10.mp4" ] && command -v ffmpeg >/dev/null; then
  { ffmpeg -v error -y -f lavfi -i testsrc2=size=64x48:rate=10:duration=0.4 -c:v libx265 -tag:v hvc1 -pix_fmt yuv420p10le \
      -x265-params "log-level=error:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):max-cll=1000,400" \
      -movflags faststart "$seeds/video/hdr10.mov" &&
    ffmpeg -v error -y -i "$seeds/video/hdr10.mov" -c copy -movflags faststart "$seeds/video/hdr10.mp4"; } ||
    echo "fuzz: the HDR10 seeds could not be made"
fi

# HDR10+ and Dolby Vision seeds: a PQ clip with an ST 2094-40 message on each of its 2 pictures; an HLG
# clip with an RPU ending each access unit and a dvvC configuration (profile 8.4, as an iPhone records).
if [ -d "$seeds/video" ] && [ ! -f "$seeds/video/hdr10plus.mov" ] && command -v ffmpeg >/dev/null; then
  python3 scripts/hdr10plus_clip.py make "$seeds/video/hdr10plus.mov" --frames 2 || echo "fuzz: the HDR10+ seed could not be made"
fi
if [ -d "$seeds/video" ] && [ ! -f "$seeds/video/dolby-vision.mp4" ] && command -v ffmpeg >/dev/null; then
  python3 scripts/dolby_vision_clip.py make "$seeds/video/dolby-vision.mp4" --frames 2 ||
    echo "fuzz: the Dolby Vision seed could not be made"
fi

# Checked-in seeds (tiny files), e.g. hvcC + tile data pairs for the HEVC harness,
# and every regression input a fuzzer once found (each run starts by replaying them).
for dir in Tests/Fuzz/seeds/*/ Tests/Fuzz/regressions/*/; do
  kind=$(basename "$dir")
  mkdir -p "$seeds/$kind"
  cp "$dir"* "$seeds/$kind/" 2>/dev/null || true
done

# HDR still seeds (10-bit HEIF, HLG single item, PQ 4:2:2 grid): the gain map derived from the signal.
if [ ! -f "$seeds/gainmap/hdr-hlg.heic" ] && command -v ffmpeg >/dev/null; then
  mkdir -p "$seeds/gainmap"
  { python3 scripts/hdr_still.py "$seeds/gainmap/hdr-hlg.heic" hlg &&
    python3 scripts/hdr_still.py "$seeds/gainmap/hdr-pq-grid.heic" pq --tile 128 --chroma 422; } ||
    echo "fuzz: the HDR still seeds could not be made"
fi

# FUZZ_ONLY: harness files, or short names ("video" = Tests/Fuzz/fuzz_video.c).
harnesses=""
for h in ${FUZZ_ONLY:-Tests/Fuzz/fuzz_*.c}; do
  case "$h" in *.c) harnesses="$harnesses $h" ;; *) harnesses="$harnesses Tests/Fuzz/fuzz_$h.c" ;; esac
done
for harness in $harnesses; do
  name=$(basename "$harness" .c)
  kind=${name#fuzz_}
  echo "fuzz: building $name"
  # shellcheck disable=SC2086
  "$clang" $flags -fuse-ld=lld "$harness" $engine $libs -o "$out/$name"
  mkdir -p "$out/corpus-$kind"
  echo "fuzz: running $name for ${seconds}s"
  # A keyword dictionary next to the harness (e.g. Tests/Fuzz/cube.dict) is used when present.
  dict=()
  [ -f "Tests/Fuzz/$kind.dict" ] && dict=(-dict="Tests/Fuzz/$kind.dict")
  "$out/$name" -max_total_time="$seconds" -max_len=262144 -rss_limit_mb=2048 -timeout=10 "${dict[@]}" \
    "$out/corpus-$kind" "$seeds/$kind" 2>&1 | tail -n 3
done
