#!/usr/bin/env bash
# Video -> GIF, ours against ffmpeg's palettegen (stats_mode=diff) +
# paletteuse (Floyd-Steinberg), back to back, same size and frame rate.
# Prints per movie: bytes, SSIM against the source scaled the same way
# (ffmpeg's ssim filter, All), wall and user CPU seconds (median of REPS).
# SSIM pairs frames by time, not index: each GIF frame (its start, in GIF's
# 10 ms units, + 5 ms) against the source frame shown then, so a GIF that
# keeps other source frames than the reference's is not shifted by one (a
# phone's movie is not constant-rate: 0, 0.030, 0.063, ... s).
# Two references: "ssim" converts the source with exact rounding
# (swscale accurate_rnd + full_chroma_int), "ssim-sws" with swscale's
# default YUV -> RGB, the one ffmpeg's own GIF pipeline uses. On a flat
# near-black background they differ by one level in R and B, and ffmpeg's
# SSIM (its constants are tiny there) turns that into 0.9 vs 0.6: whichever
# GIF shares the reference's rounding wins, so both are printed. The
# "ffmpeg-acc" row is the peer pipeline with exact rounding too. The
# lanczos references favour ffmpeg's GIF, which is scaled by that very
# filter; "ssim-area" (exact rounding, area averaging — neither pipeline's
# scaler) is the neutral one: on the iPhone movie ours 0.7959 vs 0.7950
# there, 0.7982 vs 0.7994 against lanczos.
# Usage: scripts/bench-gif.sh MOVIE... (REPS=3 SIZE=640 FPS=15 DITHER=2)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${REPS:-3}; size=${SIZE:-640}; fps=${FPS:-15}; dither=${DITHER:-2}
bin=$(swift build -c release --show-bin-path)/shiying
[ -x "$bin" ] || swift build -c release --product shiying >/dev/null
out=$(mktemp -d)
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
timed() { /usr/bin/time -f "%e %U" -o "$out/t" "$@" >/dev/null 2>&1; cat "$out/t"; }
exact=lanczos+accurate_rnd+full_chroma_int
ssim() { # GIF vs the source frame shown at each GIF frame's time; $3 = the reference's swscale flags
  local gif=$1 src=$2 flags=$3 wh
  wh=$(ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=p=0:s=x "$gif")
  ffmpeg -v info -i "$gif" -i "$src" -filter_complex \
    "[0:v]setpts=PTS-STARTPTS+0.005/TB,format=rgb24[g];[1:v]setpts=PTS-STARTPTS,scale=${wh/x/:}:flags=$flags,format=rgb24[r];[g][r]ssim" \
    -f null - 2>&1 | sed -n 's/.*All:\([0-9.]*\).*/\1/p' | tail -1
}
for src in "$@"; do
  rate=$(ffprobe -v error -select_streams v:0 -show_entries stream=r_frame_rate -of csv=p=0 "$src")
  step=$(awk -v r="$rate" -v f="$fps" 'BEGIN {split(r, a, "/"); s = a[1] / a[2] / f; print (s < 1 ? 1 : int(s + 0.5))}')
  for tool in ours ffmpeg ffmpeg-acc; do
    : > "$out/$tool.times"
    for _ in $(seq "$reps"); do
      if [ $tool = ours ]; then
        timed "$bin" convert "$src" --to gif --size "$size" --fps "$fps" --dither "$dither" -o "$out/ours.gif" >> "$out/$tool.times"
      else
        flags=lanczos; [ $tool = ffmpeg-acc ] && flags=$exact
        timed ffmpeg -v error -y -i "$src" -filter_complex \
          "select='not(mod(n\\,$step))',setpts=N/($fps*TB),scale=w=$size:h=$size:force_original_aspect_ratio=decrease:flags=$flags,split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=floyd_steinberg" \
          "$out/$tool.gif" >> "$out/$tool.times"
      fi
    done
    wall=$(awk '{print $1}' "$out/$tool.times" | median); user=$(awk '{print $2}' "$out/$tool.times" | median)
    frames=$(ffprobe -v error -count_frames -show_entries stream=nb_read_frames -of csv=p=0 "$out/$tool.gif")
    printf '%s %-10s bytes %9d  ssim %s  ssim-sws %s  ssim-area %s  frames %s  wall %ss  user %ss\n' "$(basename "$src")" "$tool" \
      "$(stat -c %s "$out/$tool.gif")" "$(ssim "$out/$tool.gif" "$src" $exact)" "$(ssim "$out/$tool.gif" "$src" lanczos)" \
      "$(ssim "$out/$tool.gif" "$src" area+accurate_rnd+full_chroma_int)" "$frames" "$wall" "$user"
  done
done
rm -rf "$out"
