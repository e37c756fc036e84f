#!/usr/bin/env python3
"""Lists the public symbols of a module's symbol graph that have no doc comment.

Usage: doc-coverage.py GRAPH.symbols.json [...]   (exit 1 when any is undocumented)

Symbols the compiler writes for us (Codable, Equatable, RawRepresentable
members, protocol defaults from the standard library) have no source of their
own and are not counted; enum cases and everything declared in the module are.
"""
import json
import sys


def undocumented(path):
    graph = json.load(open(path))
    module = graph["module"]["name"]
    missing, total = [], 0
    for symbol in graph["symbols"]:
        precise = symbol["identifier"]["precise"]
        if "::SYNTHESIZED::" in precise or "location" not in symbol:
            continue
        if symbol.get("accessLevel") not in ("public", "open"):
            continue
        total += 1
        lines = (symbol.get("docComment") or {}).get("lines") or []
        if not any(line.get("text", "").strip() for line in lines):
            where = symbol["location"]["uri"].split("/Sources/")[-1]
            line = symbol["location"]["position"]["line"] + 1
            missing.append(f"{where}:{line}: {' / '.join(symbol['pathComponents'])} ({symbol['kind']['displayName']})")
    return module, total, sorted(missing)


def main(paths):
    failed = False
    for path in paths:
        module, total, missing = undocumented(path)
        for entry in missing:
            print(entry)
        print(f"{module}: {total - len(missing)} of {total} public symbols documented, {len(missing)} undocumented")
        failed |= bool(missing)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
