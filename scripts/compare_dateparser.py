#!/usr/bin/env python3
"""Compare Shiying's date-phrase parser (SPEC Q2) with Python's dateparser.

Runs the same phrases through `shiying date-phrase TEXT --today 2025-03-12 --json`
and through `dateparser.search.search_dates` (RELATIVE_BASE 2025-03-12 12:00,
PREFER_DATES_FROM past, languages zh en ja ko de fr es) and prints a Markdown
table for the README.

    python3 -m pip install dateparser
    swift build --product shiying
    python3 scripts/compare_dateparser.py [--shiying .build/debug/shiying]
"""
import argparse
import datetime
import json
import os
import subprocess
import sys

TODAY = "2025-03-12"  # a Wednesday
LANGS = ["zh", "en", "ja", "ko", "de", "fr", "es"]

# (phrase, why the two differ — or "" when they agree)
PHRASES = [
    ("昨天", ""),
    ("上周六", "dateparser has no 上周X (last week's weekday)"),
    ("上周末", "dateparser has no weekend phrase"),
    ("上个月底", "month-end = days 21-last is a Shiying rule (SPEC Q2)"),
    ("今年初", "year-start = January is a Shiying rule"),
    ("月底", "ditto, current month"),
    ("上周", "dateparser returns one instant (today - 7 days), not a Monday-Sunday week"),
    ("上周日本", "SPEC Q2: 日 is not a weekday before 本, so the whole week; dateparser finds no date"),
    ("五月一日", "dateparser does not read Chinese numerals"),
    ("5月1日", "dateparser 1.5 returns 2024-10-11 with these languages (a misparse); ours is 1 May"),
    ("去年五月一日", "Chinese numerals + relative year"),
    ("2025年5月1日", ""),
    ("5月1號", "traditional 號 as the day marker; dateparser stops at 5月1"),
    ("May 1", ""),
    ("May 1st", ""),
    ("1 May 2023", ""),
    ("5월 1일", ""),
    ("1. Mai", ""),
    ("1er mai", "dateparser drops the French ordinal 1er and keeps only the month"),
    ("1 de mayo", ""),
    ("上周六 海边", "dateparser reads only 上周 (an instant 7 days ago); no 上周X"),
    ("beach May 1 sunset", ""),
    ("日本", "must not be a date"),
    ("三星", "must not be a date"),
    ("May", "a lone month name is never a date (SPEC Q2: only month + day)"),
    ("Theresa May", "a lone month name is never a date"),
    ("mayo", "a lone month name is never a date"),
    ("1. FC Köln", "a lone number is never a date"),
    ("2025", "a lone number is never a date"),
    ("2月30日", "invalid day: not a date"),
]


def ours(binary, phrase):
    out = subprocess.run([binary, "date-phrase", phrase, "--today", TODAY, "--json"],
                         capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
    report = json.loads(out)
    ranges = ["%s" % r["start"] if r["start"] == r["end"] else "%s…%s" % (r["start"], r["end"])
              for r in report["ranges"]]
    return ("; ".join(ranges) or "—"), report["rest"]


def theirs(phrase):
    from dateparser.search import search_dates
    settings = {"RELATIVE_BASE": datetime.datetime(2025, 3, 12, 12, 0), "PREFER_DATES_FROM": "past"}
    found = search_dates(phrase, languages=LANGS, settings=settings) or []
    return "; ".join("%s → %s" % (text, when.date().isoformat()) for text, when in found) or "—"


def main():
    parser = argparse.ArgumentParser()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    default = next((p for p in (os.path.join(root, ".build/release/shiying"), os.path.join(root, ".build/debug/shiying"))
                    if os.access(p, os.X_OK)), None)
    parser.add_argument("--shiying", default=os.environ.get("SHIYING_BIN") or default)
    args = parser.parse_args()
    if not args.shiying:
        sys.exit("no shiying binary: run `swift build --product shiying` or pass --shiying")
    try:
        import dateparser
    except ImportError:
        sys.exit("dateparser is not installed: python3 -m pip install dateparser")

    print("Today = %s (Wednesday). dateparser %s, `search_dates`, languages %s, PREFER_DATES_FROM past.\n"
          % (TODAY, dateparser.__version__, " ".join(LANGS)))
    print("| phrase | Shiying ranges | Shiying rest | dateparser | same? | why they differ |")
    print("| --- | --- | --- | --- | --- | --- |")
    same_count = 0
    for phrase, why in PHRASES:
        ranges, rest = ours(args.shiying, phrase)
        dp = theirs(phrase)
        dp_days = sorted({part.split(" → ")[1] for part in dp.split("; ")} if dp != "—" else [])
        our_days = sorted(set(ranges.split("; "))) if ranges != "—" else []
        same = dp_days == our_days
        same_count += same
        print("| %s | %s | %s | %s | %s | %s |" % (phrase, ranges, rest or "", dp, "yes" if same else "no",
                                                 "" if same else why))
    print("\n%d of %d phrases give the same days." % (same_count, len(PHRASES)))


if __name__ == "__main__":
    main()
