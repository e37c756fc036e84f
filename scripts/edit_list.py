#!/usr/bin/env python3
"""Rewrites the edit list of a movie's first video track, for tests of how edits are honoured.

  edit_list.py set MOVIE SEGMENT:MEDIA_TIME[,SEGMENT:MEDIA_TIME...]
      SEGMENT in the movie's timescale (mvhd), MEDIA_TIME in the track's (-1: an empty edit, a delay); the
      track's elst becomes exactly these entries (version 0, rate 1). The moov must come after the mdat (so no
      chunk offset moves): ffmpeg's default layout.
  edit_list.py set-sound MOVIE SEGMENT:MEDIA_TIME[,...]
      The same for the movie's first sound track (media times in its timescale, the sample rate for PCM/AAC):
      a cut of the sound as an editor writes it beside the picture's.
  edit_list.py late MOVIE TICKS
      The same track without an edit list, every sample's composition offset (ctts) raised by TICKS (media
      timescale) and lowered by the media time its first edit started at: a picture that starts TICKS after
      the movie's start by its samples' own times, as some phones and editors write it. Needs a ctts box.
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


def video_trak(data, handler=b"vide"):
    moov = find(data, 0, len(data), b"moov")
    assert moov and data.find(b"mdat") < moov[0], "moov after mdat needed"
    trak = next(a for a, s, k in boxes(data, moov[0] + 8, moov[0] + moov[1])
                if k == b"trak" and handler_of(data, a, s) == handler)
    return moov, trak, struct.unpack(">I", data[trak:trak + 4])[0]


def handler_of(data, trak, size):
    mdia = find(data, trak + 8, trak + size, b"mdia")
    hdlr = mdia and find(data, mdia[0] + 8, mdia[0] + mdia[1], b"hdlr")
    return data[hdlr[0] + 16:hdlr[0] + 20] if hdlr else None


def set_edits(path, entries, handler=b"vide"):
    data = bytearray(open(path, "rb").read())
    moov, trak, trak_size = video_trak(data, handler)
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


def descend(data, at, size, path):
    for kind in path:
        at, size = find(data, at + 8, at + size, kind)
    return at, size


def late(path, ticks):
    data = bytearray(open(path, "rb").read())
    moov, trak, trak_size = video_trak(data)
    start = 0
    edts = find(data, trak + 8, trak + trak_size, b"edts")
    if edts:
        elst = find(data, edts[0] + 8, edts[0] + edts[1], b"elst")
        version, count = data[elst[0] + 8], struct.unpack(">I", data[elst[0] + 12:elst[0] + 16])[0]
        width = 8 if version == 1 else 4
        for k in range(count):
            at = elst[0] + 16 + k * (2 * width + 4) + width
            media = int.from_bytes(data[at:at + width], "big", signed=True)
            if media >= 0:
                start = media
                break
    ctts, _ = descend(data, trak, trak_size, [b"mdia", b"minf", b"stbl", b"ctts"])
    data[ctts + 8] = 1  # version 1: signed offsets
    count = struct.unpack(">I", data[ctts + 12:ctts + 16])[0]
    for k in range(count):
        at = ctts + 16 + 8 * k + 4
        offset = struct.unpack(">i", data[at:at + 4])[0]
        data[at:at + 4] = struct.pack(">i", offset + ticks - start)
    if edts:
        del data[edts[0]:edts[0] + edts[1]]
        for at in (moov[0], trak):
            size = struct.unpack(">I", data[at:at + 4])[0]
            data[at:at + 4] = struct.pack(">I", size - edts[1])
    open(path, "wb").write(data)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "set":
        set_edits(sys.argv[2], [tuple(int(v) for v in e.split(":")) for e in sys.argv[3].split(",")])
    elif len(sys.argv) == 4 and sys.argv[1] == "set-sound":
        set_edits(sys.argv[2], [tuple(int(v) for v in e.split(":")) for e in sys.argv[3].split(",")], b"soun")
    elif len(sys.argv) == 4 and sys.argv[1] == "late":
        late(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(__doc__)
