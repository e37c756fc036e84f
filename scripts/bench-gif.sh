#!/usr/bin/env bash
# Video -> GIF, ours against ffmpeg's palettegen (stats_mode=diff) +
# paletteuse (Floyd-Steinberg), back to back, same size and frame rate.
# Prints per movie: bytes, SSIM against the source scaled the same way
# (ffmpeg's ssim filter, All), wall and user CPU seconds (median of REPS).
# Both keep every K-th source frame from the first (K = source rate / FPS,
# what ours keeps for a constant-rate movie; ffmpeg: select), and SSIM pairs
# frames by index (setpts=N), so the two GIFs and the reference show the same
# source frames whatever the GIF delays round to.
# Usage: scripts/bench-gif.sh MOVIE... (REPS=3 SIZE=640 FPS=15 DITHER=2)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${REPS:-3}; size=${SIZE:-640}; fps=${FPS:-15}; dither=${DITHER:-2}
bin=$(swift build -c release --show-bin-path)/shiying
[ -x "$bin" ] || swift build -c release --product shiying >/dev/null
out=$(mktemp -d)
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
timed() { /usr/bin/time -f "%e %U" -o "$out/t" "$@" >/dev/null 2>&1; cat "$out/t"; }
ssim() { # GIF vs the source at the GIF's size and rate
  local gif=$1 src=$2 wh
  wh=$(ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=p=0:s=x "$gif")
  ffmpeg -v info -i "$gif" -i "$src" -filter_complex \
    "[1:v]select='not(mod(n\\,$step))',setpts=N/TB,scale=${wh/x/:}:flags=lanczos,format=rgb24[r];[0:v]setpts=N/TB,format=rgb24[g];[g][r]ssim=shortest=1" \
    -f null - 2>&1 | sed -n 's/.*All:\([0-9.]*\).*/\1/p' | tail -1
}
for src in "$@"; do
  rate=$(ffprobe -v error -select_streams v:0 -show_entries stream=r_frame_rate -of csv=p=0 "$src")
  step=$(awk -v r="$rate" -v f="$fps" 'BEGIN {split(r, a, "/"); s = a[1] / a[2] / f; print (s < 1 ? 1 : int(s + 0.5))}')
  for tool in ours ffmpeg; do
    : > "$out/$tool.times"
    for _ in $(seq "$reps"); do
      if [ $tool = ours ]; then
        timed "$bin" convert "$src" --to gif --size "$size" --fps "$fps" --dither "$dither" -o "$out/ours.gif" >> "$out/$tool.times"
      else
        timed ffmpeg -v error -y -i "$src" -filter_complex \
          "select='not(mod(n\\,$step))',setpts=N/($fps*TB),scale=w=$size:h=$size:force_original_aspect_ratio=decrease:flags=lanczos,split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=floyd_steinberg" \
          "$out/ffmpeg.gif" >> "$out/$tool.times"
      fi
    done
    wall=$(awk '{print $1}' "$out/$tool.times" | median); user=$(awk '{print $2}' "$out/$tool.times" | median)
    frames=$(ffprobe -v error -count_frames -show_entries stream=nb_read_frames -of csv=p=0 "$out/$tool.gif")
    printf '%s %-7s bytes %9d  ssim %s  frames %s  wall %ss  user %ss\n' "$(basename "$src")" "$tool" \
      "$(stat -c %s "$out/$tool.gif")" "$(ssim "$out/$tool.gif" "$src")" "$frames" "$wall" "$user"
  done
done
rm -rf "$out"
