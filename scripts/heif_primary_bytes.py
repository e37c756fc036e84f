"""Bytes of a HEIF file's primary image: the sum of its grid tiles' extents (or the
single item's), from pitm, iloc and iref/dimg. Used by scripts/heic_sweep.py."""
import struct, sys

def boxes(b, off, end):
    while off + 8 <= end:
        size, typ = struct.unpack('>I4s', b[off:off+8]); hdr = 8
        if size == 1: size = struct.unpack('>Q', b[off+8:off+16])[0]; hdr = 16
        elif size == 0: size = end - off
        yield typ.decode('latin1'), off + hdr, off + size
        off += size

def parse(path):
    b = open(path, 'rb').read()
    meta = next((s, e) for t, s, e in boxes(b, 0, len(b)) if t == 'meta')
    ms, me = meta[0] + 4, meta[1]
    pitm = None; iloc = {}; dimg = {}
    for t, s, e in boxes(b, ms, me):
        v = b[s]
        if t == 'pitm':
            pitm = struct.unpack('>H' if v == 0 else '>I', b[s+4:s+6 if v == 0 else s+8])[0]
        elif t == 'iloc':
            p = s + 4
            os_, ls = b[p] >> 4, b[p] & 15; bs, is_ = b[p+1] >> 4, (b[p+1] & 15) if v in (1, 2) else 0; p += 2
            rd = lambda n, p: (int.from_bytes(b[p:p+n], 'big'), p + n)
            cnt, p = rd(2 if v < 2 else 4, p)
            for _ in range(cnt):
                iid, p = rd(2 if v < 2 else 4, p)
                if v in (1, 2): p += 2
                p += 2  # data ref index
                base, p = rd(bs, p)
                ec, p = rd(2, p); tot = 0
                for _ in range(ec):
                    if v in (1, 2) and is_: _, p = rd(is_, p)
                    _, p = rd(os_, p); l, p = rd(ls, p); tot += l
                iloc[iid] = tot
        elif t == 'iref':
            idn = 2 if v == 0 else 4
            for rt, rs, re_ in boxes(b, s + 4, e):
                frm = int.from_bytes(b[rs:rs+idn], 'big'); n = int.from_bytes(b[rs+idn:rs+idn+2], 'big')
                refs = [int.from_bytes(b[rs+idn+2+i*idn:rs+idn+2+(i+1)*idn], 'big') for i in range(n)]
                if rt == 'dimg': dimg[frm] = refs
    items = dimg.get(pitm, [pitm])
    return sum(iloc.get(i, 0) for i in items), len(b)

if __name__ == '__main__':
    for f in sys.argv[1:]:
        print(f, *parse(f))
