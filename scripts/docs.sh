#!/bin/sh
# DocC archives for ShiyingCore, Shiying and ShiyingLibrary from the debug build, offline:
# symbol graphs from the built modules (swift-symbolgraph-extract), `docc
# convert` with each catalog, then the documentation check: every public
# symbol has a doc comment (scripts/doc-coverage.py) and docc reports no
# warnings (unresolved symbol links in the catalogs).
set -eu
SWIFT_BIN=$(dirname "$(command -v swift || echo /opt/swift/usr/bin/swift)")
BIN=$(swift build --show-bin-path)
TRIPLE=$(swift -print-target-info | sed -n 's/.*"triple": "\(.*\)".*/\1/p' | head -1)
OUT=.build/docs
INCLUDES=$(find CSources -name module.modulemap -exec dirname {} \; | sed 's/^/-I /')
HEIF=$(pkg-config --cflags-only-I libheif 2>/dev/null || true)
rm -rf "$OUT" && mkdir -p "$OUT"
status=0
for module in ShiyingCore Shiying ShiyingLibrary; do
    graphs="$OUT/symbol-graphs/$module"
    mkdir -p "$graphs"
    # shellcheck disable=SC2086
    "$SWIFT_BIN/swift-symbolgraph-extract" -module-name "$module" -target "$TRIPLE" -I "$BIN/Modules" \
        $INCLUDES $HEIF -minimum-access-level public -output-dir "$graphs"
    "$SWIFT_BIN/docc" convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$graphs" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.shiying.$module" \
        --output-path "$OUT/$module.doccarchive" > "$OUT/$module.docc.log" 2>&1 || status=1
    if grep -q "warning:" "$OUT/$module.docc.log"; then
        grep -c "warning:" "$OUT/$module.docc.log" | sed "s/^/docs: docc warnings: /"
        echo "docs: docc warned about $module (full log: $OUT/$module.docc.log)"
        status=1
    fi
    python3 scripts/doc-coverage.py "$graphs/$module.symbols.json" > "$OUT/$module.undocumented.txt" || status=1
    tail -1 "$OUT/$module.undocumented.txt"
done
echo "docs: archives in $OUT/*.doccarchive; undocumented symbols listed in $OUT/*.undocumented.txt"
exit $status
