#!/usr/bin/env bash
# Builds Tests/TSan/tsan_tile_lanes.c against the engine's core layer and the
# tile lanes with ThreadSanitizer (GCC's: the Swift toolchain's clang runtime
# wants libdispatch) and runs it; any report fails (halt_on_error).
#
# The files with function multiversioning (target_clones) are compiled
# without instrumentation: their ifunc resolvers run while the dynamic loader
# relocates, before the TSan runtime is up, and crash it. They hold only
# per-row pixel kernels, no shared state.
set -euo pipefail
cd "$(dirname "$0")/.."
cc=${TSAN_CC:-gcc}
out=.build/tsan
mkdir -p "$out/plain"
layers="-ICSources/core -ICSources/core/include -ICSources/media"
libs="$(pkg-config --libs libjpeg libavcodec libavutil x265 zlib lcms2) -lpthread -lm"
cloned=$(grep -l "target_clones" $(find CSources/core -name '*.c'))
instrumented=()
for f in $(find CSources/core -name '*.c'); do
  if grep -qx "$f" <<<"$cloned"; then
    "$cc" -std=gnu11 -D_GNU_SOURCE -g -O1 $layers -c "$f" -o "$out/plain/$(basename "$f" .c).o"
  else
    instrumented+=("$f")
  fi
done
"$cc" -std=gnu11 -D_GNU_SOURCE -g -O1 -fsanitize=thread $layers "${instrumented[@]}" \
  CSources/media/heif/heif_tile_lanes.c Tests/TSan/tsan_tile_lanes.c "$out"/plain/*.o -o "$out/tsan_tile_lanes" $libs
TSAN_OPTIONS="halt_on_error=1 ${TSAN_OPTIONS:-}" "$out/tsan_tile_lanes"
echo "tsan: tile lanes clean"
