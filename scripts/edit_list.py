#!/usr/bin/env python3
"""Rewrites the edit list of a movie's first video track, for tests of how edits are honoured.

  edit_list.py set MOVIE SEGMENT:MEDIA_TIME[,SEGMENT:MEDIA_TIME...]
      SEGMENT in the movie's timescale (mvhd), MEDIA_TIME in the track's (-1: an empty edit, a delay); the
      track's elst becomes exactly these entries (version 0, rate 1). The moov must come after the mdat (so no
      chunk offset moves): ffmpeg's default layout.
"""
import struct
import sys


def boxes(data, start, end):
    at = start
    while at + 8 <= end:
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        if size < 8 or at + size > end:
            break
        yield at, size, kind
        at += size


def find(data, start, end, kind):
    return next(((a, s) for a, s, k in boxes(data, start, end) if k == kind), None)


def set_edits(path, entries):
    data = bytearray(open(path, "rb").read())
    moov = find(data, 0, len(data), b"moov")
    assert moov and data.find(b"mdat") < moov[0], "moov after mdat needed"
    trak = next(a for a, s, k in boxes(data, moov[0] + 8, moov[0] + moov[1])
                if k == b"trak" and b"vide" in data[a:a + s])
    trak_size = struct.unpack(">I", data[trak:trak + 4])[0]
    edts = find(data, trak + 8, trak + trak_size, b"edts")
    elst = struct.pack(">I4sII", 16 + 12 * len(entries), b"elst", 0, len(entries))
    elst += b"".join(struct.pack(">IiI", seg, media, 0x00010000) for seg, media in entries)
    new_edts = struct.pack(">I4s", 8 + len(elst), b"edts") + elst
    if edts:
        old_at, old_size = edts
    else:  # after tkhd
        tkhd = find(data, trak + 8, trak + trak_size, b"tkhd")
        old_at, old_size = tkhd[0] + tkhd[1], 0
    data[old_at:old_at + old_size] = new_edts
    grow = len(new_edts) - old_size
    for at in (moov[0], trak):
        size = struct.unpack(">I", data[at:at + 4])[0]
        data[at:at + 4] = struct.pack(">I", size + grow)
    open(path, "wb").write(data)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "set":
        set_edits(sys.argv[2], [tuple(int(v) for v in e.split(":")) for e in sys.argv[3].split(",")])
    else:
        sys.exit(__doc__)
