#!/usr/bin/env bash
# Runs the ASan/UBSan-built CLI ($SHIYING_BIN) over good, broken and hostile
# inputs. Any sanitizer report or crash fails; clean errors are expected.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${SHIYING_BIN:?set SHIYING_BIN to the sanitized shiying}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

run() { # expected-status label command...
  local expect=$1 label=$2; shift 2
  "$@" >"$work/out.txt" 2>"$work/err.txt"
  local status=$?
  if grep -q "ERROR: AddressSanitizer\|runtime error:\|LeakSanitizer" "$work/err.txt" || [ $status -ge 128 ] ||
     { [ "$expect" != any ] && [ $status != "$expect" ]; }; then
    echo "sanitize: FAIL $label (status $status)"; tail -n 30 "$work/err.txt"; fail=1
  else
    echo "sanitize: ok   $label (status $status)"
  fi
}

"$bin" sample-photos --count 4 --width 640 --height 480 -o "$work/s" >/dev/null 2>&1
"$bin" sample-photos --count 1 --width 320 --height 240 --progressive -o "$work/p" >/dev/null 2>&1
head -c 30000 "$work/s/sample-0001.jpg" > "$work/truncated.jpg"
: > "$work/empty.jpg"
echo "not an image" > "$work/text.jpg"
convert "$work/s/sample-0003.jpg" "$work/ok.png"
head -c 20000 "$work/ok.png" > "$work/truncated.png"
convert "$work/s/sample-0003.jpg" -interlace PNG "$work/adam7.png"

good=("$work"/s/*.jpg "$work/p/sample-0001.jpg" "$work/ok.png" "$work/adam7.png")
bad=("$work/truncated.jpg" "$work/empty.jpg" "$work/text.jpg" "$work/truncated.png" "$work/missing.jpg")
run 0 "long jpeg, good + broken" "$bin" collage --layout long -o "$work/long.jpg" "${good[@]}" "${bad[@]}"
run 0 "long png, naive" "$bin" collage --layout long --naive --format png -o "$work/long.png" "${good[@]}" "${bad[@]}"
run 0 "grid" "$bin" collage --layout grid -o "$work/grid.jpg" "${good[@]}" "${bad[@]}"
run 1 "nothing readable" "$bin" collage --layout long -o "$work/none.jpg" "${bad[@]}"
"$bin" sample-photos --count 2 --width 1100 --height 700 --format heic -o "$work/h" >/dev/null 2>&1
run 0 "HEIC tile-row decode (grid + irot)" "$bin" collage --layout long --format png -o "$work/heic.png" "$work"/h/*.heic
run 0 "HEIC collage, good + broken (strips into x265 tiles)" "$bin" collage --layout long -o "$work/long.heic" \
  "${good[@]}" "${bad[@]}"
run 0 "convert JPEG -> HEIC (x265 writer)" "$bin" convert "$work/s/sample-0002.jpg" -o "$work/c.heic"
run 0 "convert HEIC -> PNG with metadata" "$bin" convert "$work/c.heic" -o "$work/c.png"

# HDR movies (HLG 10-bit, PQ): frames tone-mapped to SDR Display P3 (vectorized passes, table lookups).
if command -v ffmpeg >/dev/null; then
  echo '{"version":1,"crop":{"x":0.5,"y":0,"width":0.5,"height":0.6}}' > "$work/crop.json"
  for tr in arib-std-b67 smpte2084; do
    ffmpeg -v error -f lavfi -i testsrc2=s=320x240:r=30:d=0.5 -vf format=yuv420p10le -c:v libx265 -preset ultrafast \
      -x265-params "log-level=error:colorprim=bt2020:transfer=$tr:colormatrix=bt2020nc" -tag:v hvc1 "$work/$tr.mov"
    run 0 "HDR ($tr) movie -> Live (still with a gain map)" "$bin" convert --to live "$work/$tr.mov" -o "$work/live-$tr"
    run 0 "HDR ($tr) frame -> photo with a gain map, cropped" "$bin" live frame --at 0.2 --recipe "$work/crop.json" \
      -o "$work/frame-$tr.jpg" "$work/live-$tr/${tr}_live.jpg" "$work/live-$tr/${tr}_live.mov"
    run 0 "HDR ($tr) movie -> GIF" "$bin" convert --to gif "$work/$tr.mov" -o "$work/$tr.gif"
    run 0 "HDR ($tr) movie -> 10-bit HDR transcode (the decoder's samples)" "$bin" video transcode --preset ultrafast \
      "$work/$tr.mov" -o "$work/hdr-$tr.mov"
    ffmpeg -v error -i "$work/$tr.mov" -c:v libx265 -preset ultrafast -pix_fmt yuv422p10le -tag:v hvc1 \
      -x265-params "log-level=error:colorprim=bt2020:transfer=$tr:colormatrix=bt2020nc" "$work/$tr-422.mov"
    run 1 "HDR ($tr) 4:2:2 movie -> transcode refused without consent" "$bin" video transcode "$work/$tr-422.mov" \
      -o "$work/no-$tr.mov"
    run 0 "HDR ($tr) 4:2:2 movie -> SDR transcode" "$bin" video transcode --preset ultrafast --allow-sdr \
      "$work/$tr-422.mov" -o "$work/sdr-$tr.mov"
  done
  # HDR10: mastering display and light level SEI read, tone-mapped to the grade, written again (SEI, mdcv / clli).
  ffmpeg -v error -f lavfi -i testsrc2=s=320x240:r=30:d=0.5 -vf format=yuv420p10le -c:v libx265 -preset ultrafast \
    -x265-params "log-level=error:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(40000000,50):max-cll=4000,400" \
    -tag:v hvc1 "$work/hdr10.mov"
  run 0 "HDR10 movie -> transcode keeping its grade" "$bin" video transcode --preset ultrafast "$work/hdr10.mov" \
    -o "$work/hdr10-out.mov"
  run 0 "HDR10 re-encode (mdcv / clli boxes) -> Live, still tone-mapped to 4000 cd/m2" "$bin" convert --to live \
    "$work/hdr10-out.mov" -o "$work/live-hdr10"
  # HDR10+: each picture's ST 2094-40 message read from its sample and written again as the encoder's own SEI,
  # through a second generation (B-frames: pictures out of decode order).
  if python3 -c "import numpy" 2>/dev/null; then
    python3 scripts/hdr10plus_clip.py make "$work/hdr10plus.mov" --frames 6
    run 0 "HDR10+ movie -> transcode keeping each picture's message" "$bin" video transcode --preset ultrafast \
      "$work/hdr10plus.mov" -o "$work/hdr10plus-1.mov"
    run 0 "HDR10+ re-encode (B-frames) -> compress, messages again" "$bin" compress "$work/hdr10plus-1.mov" \
      -o "$work/hdr10plus-2.mov"
    # Dolby Vision 8.4: each picture's RPU ends its new access unit, the dvvC configuration copied.
    python3 scripts/dolby_vision_clip.py make "$work/dolby-vision.mp4" --frames 6
    run 0 "Dolby Vision movie -> transcode keeping each RPU" "$bin" video transcode --preset ultrafast \
      "$work/dolby-vision.mp4" -o "$work/dolby-vision-1.mov"
  fi
fi

# HDR stills (10-bit HLG / PQ HEIF): tone-mapped tile rows, the gain map derived from the signal, a grid in 4:2:2.
if command -v ffmpeg >/dev/null && python3 -c "import numpy" 2>/dev/null; then
  python3 scripts/hdr_still.py "$work/hdr-hlg.heic" hlg
  python3 scripts/hdr_still.py "$work/hdr-pq.heic" pq --tile 128 --chroma 422
  python3 scripts/hdr_still.py "$work/hdr-pq-graded.heic" pq --peak 4000
  run 0 "HDR PQ still graded to 4000 cd/m2 (mdcv / clli) -> JPEG" "$bin" convert -o "$work/hdr-pq-graded.jpg" \
    "$work/hdr-pq-graded.heic"
  run 0 "HDR HLG still -> JPEG with its gain map" "$bin" convert -o "$work/hdr-hlg.jpg" "$work/hdr-hlg.heic"
  run 0 "HDR PQ grid -> HEIC cropped, gain map kept" "$bin" edit --recipe "$work/crop.json" -o "$work/hdr-pq-crop.heic" \
    "$work/hdr-pq.heic"
  run 1 "HDR still -> PNG refused without consent" "$bin" convert -o "$work/hdr.png" "$work/hdr-hlg.heic"
  run 0 "HDR stills in a long image (maps composed, reduced)" "$bin" collage --layout long --width 200 \
    -o "$work/hdr-long.jpg" "$work/hdr-hlg.heic" "$work/hdr-pq.heic" "$work/s/sample-0001.jpg"
fi

# Motion Photos: Google's XMP form and Samsung's SEF trailer (the fuzz seeds) -> Live pairs.
for mp in container_directory samsung_trailer; do
  run 0 "Motion Photo ($mp) -> Live" "$bin" convert --to live "Tests/Fuzz/seeds/motion_photo/$mp.jpg" -o "$work/mp-$mp"
done

corpus=../shared/corpus
if [ -d "$corpus" ]; then
  mapfile -t hostile < <(find "$corpus/hostile" -type f | sort)
  for ((i = 0; i < ${#hostile[@]}; i += 30)); do
    run 0 "hostile corpus batch $((i / 30 + 1))" timeout 300 "$bin" collage --layout long --format png \
      -o "$work/h.png" "$work/s/sample-0001.jpg" "${hostile[@]:i:30}"
  done
  run 0 "real HEICs through our reader" "$bin" collage --layout long --format png --allow-sdr -o "$work/real.png" \
    "$corpus"/real/*.heic "$corpus"/real/*.HEIC
  run 0 "real HEICs, HDR collage (gain maps composed)" "$bin" collage --layout grid -o "$work/real-hdr.jpg" \
    "$corpus"/real/*.heic "$corpus"/real/*.HEIC
  run 0 "real HEICs, HDR HEIC collage (Apple map + tmap after the base)" "$bin" collage --layout long \
    -o "$work/real-hdr.heic" "$corpus"/real/*.heic "$corpus"/real/*.HEIC
  # Display P3 movie beside an sRGB pair (3x3 gamut on downscaled and upscaled cells), its GIF, its Live photo.
  "$bin" sample-photos --live --count 1 --width 160 --height 120 -o "$work/lp" >/dev/null 2>&1
  run 0 "moving collage, real P3 pair + sRGB pair" "$bin" collage --layout long --width 480 --motion together \
    --export live --preset ultrafast -o "$work/moving" --live "$corpus"/real/iphone15plus_IMG_3853.HEIC \
    "$corpus"/real/iphone15plus_IMG_3853.MOV "$work"/lp/*.JPG
  run 0 "P3 movie -> GIF (converted to sRGB)" "$bin" convert --to gif --size 320 \
    "$corpus"/real/iphone15plus_IMG_3853.MOV -o "$work/p3.gif"
  run 0 "P3 movie -> Live (still tagged P3)" "$bin" convert --to live "$corpus"/real/iphone15plus_IMG_3853.MOV \
    -o "$work/p3-live"
  for f in "$corpus"/real/* "$corpus"/gainmap/*; do
    run any "probe $(basename "$f")" "$bin" probe "$f"
  done
else
  echo "sanitize: $corpus not found: corpus runs skipped"
fi
exit $fail
