#!/bin/sh
# Regenerates the CLI reference from the option tables in Sources/shiying:
# README.md's section between the cli-reference markers (`shiying help --markdown`)
# and the man page docs/shiying.1 (`shiying help --man`). CLIReferenceTests fails
# when either is stale.
set -eu
bin=${SHIYING_BIN:-.build/debug/shiying}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -x "$bin" ] || { echo "cli-docs: $bin not built (swift build --product shiying)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" help --markdown > "$tmp/reference.md"
"$bin" help --man > "$tmp/shiying.1"
grep -q '^<!-- cli-reference:begin -->$' README.md && grep -q '^<!-- cli-reference:end -->$' README.md \
  || { echo "cli-docs: README.md lacks the cli-reference markers" >&2; exit 1; }
awk -v ref="$tmp/reference.md" '
  /^<!-- cli-reference:begin -->$/ { print; while ((getline line < ref) > 0) print line; skip = 1; next }
  /^<!-- cli-reference:end -->$/   { skip = 0 }
  !skip { print }
' README.md > "$tmp/README.md"
mkdir -p docs
cp "$tmp/README.md" README.md
cp "$tmp/shiying.1" docs/shiying.1
echo "cli-docs: README.md CLI reference and docs/shiying.1 regenerated"
