/* mov_demux.c — QuickTime / MP4 demuxer over the bounded BMFF cursor (issue 4).
 *
 * sy_mov_open walks the top-level boxes by header only (mdat is never read),
 * loads `moov` whole (≤ SY_MOV_MOOV_CAP, one engine allocation) and walks it
 * with sy_bmff_cursor, exactly like heif_file.c does with `meta`. Sample tables
 * stay in the moov buffer (big-endian); their entry counts are checked against
 * the bytes present at open. The first sample lookup of a track builds a small
 * index (stts run starts, ctts run starts, chunk → first sample, sorted stss),
 * whose size is bounded by the table bytes, not by the sample count
 * (mov_demux_samples.c); the movie's metadata is read by mov_demux_meta.c.
 * The handle they share: sy_mov_demux_internal.h.
 *
 * Hostile-input rules: every count is checked against the bytes left before
 * it is used or allocated from; 64-bit sums are overflow checked; mandatory
 * boxes (mvhd; per trak tkhd, mdia, mdhd, hdlr, minf, stbl, stsd, stts, stsc,
 * stsz|stz2, stco|co64) missing or duplicated fail the open with the box and
 * offset named; optional boxes that do not parse are ignored.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "bmff/sy_bmff.h"
#include "bmff/sy_bmff_file.h"
#include "mov/sy_mov_demux_internal.h"
#include "mov/sy_motion_photo.h"
#include "sy_mov.h"
#include "base/sy_hdr_static.h"
#include "base/sy_internal.h"

/* ---- errors and helpers (sy_mov_demux_internal.h) ---- */

sy_status sy__mov_bad(const sy_mov *m, sy_error *err, sy_status code, uint32_t box, uint64_t offset, const char *fmt,
                      ...) {
    va_list ap;
    va_start(ap, fmt);
    sy_status st = sy__bmff_fail(err, code, m->path, box, offset, fmt, ap);
    va_end(ap);
    return st;
}

sy_status sy__mov_next_box(const sy_mov *m, sy_bmff_cursor *c, sy_bmff_box *b, sy_error *err) {
    return sy__bmff_next_in(m->path, c, b, err);
}

void *sy__mov_block_alloc(sy_mov *m, size_t count, size_t size, const char *reason, sy_error *err) {
    size_t bytes;
    if (!sy__mul_ok(count, size, &bytes) || bytes > SIZE_MAX - sizeof(mov_block) - 16) {
        sy__fail(err, SY_E_BUDGET, "%s: %s: %zu x %zu bytes overflows", sy__short_path(m->path), reason, count, size);
        return NULL;
    }
    /* keep the payload 16-byte aligned */
    mov_block *b = sy__calloc(m->ctx, 1, bytes + 16, reason, err);
    if (!b) return NULL;
    b->next = m->blocks;
    m->blocks = b;
    return (uint8_t *)b + 16;
}

sy_status sy__mov_read_at(const sy_mov *m, uint64_t offset, void *dst, size_t n, sy_error *err) {
    return sy__bmff_read_at(m->fd, m->path, m->base + offset, dst, n, err);
}

/* ---- ftyp ---- */

static sy_status parse_ftyp(sy_mov *m, uint64_t pos, uint64_t payload_offset, uint64_t payload_size, sy_error *err) {
    if (payload_size < 8)
        return sy__mov_bad(m, err, SY_E_INVALID_INPUT, FCC('f', 't', 'y', 'p'), pos, "ftyp too short (%llu bytes)",
                   (unsigned long long)payload_size);
    uint8_t b[8];
    sy_status st = sy__mov_read_at(m, payload_offset, b, 8, err);
    if (st != SY_OK) return st;
    m->info.major_brand = be32(b);
    m->info.minor_version = be32(b + 4);
    return SY_OK;
}

/* ---- mvhd ---- */

static sy_status parse_mvhd(sy_mov *m, const sy_bmff_box *b, sy_error *err) {
    sy_bmff_span s = span_of(m, b);
    uint8_t v;
    uint32_t flags, ts = 0, d32 = 0, c32 = 0;
    uint64_t d64 = 0, c64 = 0;
    int ok = sy_bmff_full_header(&s, &v, &flags);
    if (ok && v == 1) ok = sy_bmff_u64(&s, &c64) && sy_bmff_skip(&s, 8) && sy_bmff_u32(&s, &ts) && sy_bmff_u64(&s, &d64);
    else if (ok && v == 0) {
        ok = sy_bmff_u32(&s, &c32) && sy_bmff_skip(&s, 4) && sy_bmff_u32(&s, &ts) && sy_bmff_u32(&s, &d32);
        c64 = c32;
        d64 = d32 == 0xFFFFFFFFu ? 0 : d32;
    } else if (ok)
        return sy__mov_bad(m, err, SY_E_UNSUPPORTED, b->type, abs_off(m, b->offset), "mvhd version %u", v);
    if (!ok) return sy__mov_bad(m, err, SY_E_INVALID_INPUT, b->type, abs_off(m, b->offset), "mvhd too short");
    m->info.timescale = ts;
    m->info.creation_time = c64;
    m->info.duration = d64;
    m->info.duration_seconds = ts ? (double)d64 / ts : 0;
    return SY_OK;
}

/* ---- sample entries ---- */

static void take_config(mov_track *t, const sy_mov *m, const sy_bmff_box *b) {
    if (t->config) return;
    uint64_t skip = (b->type == FCC('e', 's', 'd', 's')) ? 4 : 0;
    if (b->payload_size < skip) return;
    t->config = m->moov + b->payload_offset + skip;
    t->config_len = (size_t)(b->payload_size - skip);
    t->config_type = b->type;
}

static int is_config(uint32_t type) {
    return type == FCC('h', 'v', 'c', 'C') || type == FCC('a', 'v', 'c', 'C') || type == FCC('e', 's', 'd', 's') ||
           type == FCC('a', 'v', '1', 'C');
}

static int is_dovi(uint32_t type) {
    return type == FCC('d', 'v', 'c', 'C') || type == FCC('d', 'v', 'v', 'C') || type == FCC('d', 'v', 'w', 'C');
}

/* Children of a sample entry after `skip` bytes: codec configuration (also inside `wave`).
 * Extension boxes that do not parse are ignored (they are optional). */
static void scan_entry_children(mov_track *t, const sy_mov *m, const sy_bmff_cursor *parent, const sy_bmff_box *entry,
                                uint64_t skip, int depth) {
    sy_bmff_cursor c;
    sy_bmff_box b;
    sy_bmff_cursor_children(&c, parent, entry, skip);
    while (sy_bmff_next(&c, &b, NULL) == SY_OK && b.type) {
        if (is_config(b.type)) take_config(t, m, &b);
        else if (b.type == FCC('w', 'a', 'v', 'e') && depth == 0) scan_entry_children(t, m, parent, &b, 0, 1);
        else if (depth == 0 && b.type == FCC('p', 'a', 's', 'p') && b.payload_size >= 8 && !t->info.has_pasp) {
            t->info.pasp[0] = be32(m->moov + b.payload_offset); /* hSpacing:vSpacing, judged by the reader */
            t->info.pasp[1] = be32(m->moov + b.payload_offset + 4);
            t->info.has_pasp = 1;
        } else if (depth == 0 && is_dovi(b.type) && b.payload_size >= sizeof t->info.dovi && !t->info.dovi_type) {
            memcpy(t->info.dovi, m->moov + b.payload_offset, sizeof t->info.dovi); /* Dolby Vision configuration */
            t->info.dovi_type = b.type;
        } else if (depth == 0 && b.payload_size <= 64) /* HDR10 static metadata: mdcv, clli, SmDm, CoLL */
            (void)sy__hdr_static_from_box(b.type, m->moov + b.payload_offset, (size_t)b.payload_size, &t->info.hdr);
    }
}

/* mebx: 8-byte sample entry header, then a plain `keys` box whose children are
 * typed by local key id and hold `keyd` (namespace + name) and `dtyp`. */
static sy_status parse_mebx(mov_track *t, sy_mov *m, const sy_bmff_cursor *parent, const sy_bmff_box *entry,
                            sy_error *err) {
    sy_bmff_cursor c, kc, ec;
    sy_bmff_box b, k, e;
    sy_bmff_cursor_children(&c, parent, entry, 8);
    for (;;) {
        sy_status st = sy__mov_next_box(m, &c, &b, err);
        if (st != SY_OK) return st;
        if (!b.type) return SY_OK;
        if (b.type == FCC('k', 'e', 'y', 's')) break;
    }
    uint32_t n = 0;
    sy_bmff_cursor_children(&kc, parent, &b, 0);
    for (;;) {
        sy_status st = sy__mov_next_box(m, &kc, &k, err);
        if (st != SY_OK) return st;
        if (!k.type) break;
        n++;
    }
    if (!n) return SY_OK;
    sy_mov_mebx_key *keys = sy__mov_block_alloc(m, n, sizeof *keys, "mov mebx keys", err);
    char *pool = keys ? sy__mov_block_alloc(m, (size_t)b.payload_size + 1, 1, "mov mebx key names", err) : NULL;
    if (!keys || !pool) return err ? err->code : SY_E_BUDGET;
    size_t used = 0;
    uint32_t i = 0;
    sy_bmff_cursor_children(&kc, parent, &b, 0);
    while (i < n && sy_bmff_next(&kc, &k, NULL) == SY_OK && k.type) {
        sy_mov_mebx_key *key = &keys[i++];
        int named = 0;
        key->local_id = k.type;
        sy_bmff_cursor_children(&ec, parent, &k, 0);
        for (;;) {
            sy_status st = sy__mov_next_box(m, &ec, &e, err);
            if (st != SY_OK) return st;
            if (!e.type) break;
            sy_bmff_span s = span_of(m, &e);
            if (e.type == FCC('k', 'e', 'y', 'd') && !named && sy_bmff_u32(&s, &key->key_namespace)) {
                /* name + NUL fit: every keyd's payload lies inside the keys payload */
                named = 1;
                size_t len = (size_t)s.left;
                memcpy(pool + used, s.p, len);
                pool[used + len] = '\0';
                key->name = pool + used;
                used += len + 1;
            } else if (e.type == FCC('d', 't', 'y', 'p') && sy_bmff_u32(&s, &key->datatype_namespace)) {
                if (key->datatype_namespace == 0) sy_bmff_u32(&s, &key->datatype);
            }
        }
        if (!named) { /* no keyd: empty name */
            key->name = pool + used;
            used += 1;
        }
    }
    t->mebx = keys;
    t->info.mebx_key_count = i;
    return SY_OK;
}

static sy_status parse_stsd(mov_track *t, sy_mov *m, const sy_bmff_cursor *parent, const sy_bmff_box *b, sy_error *err) {
    sy_bmff_span s = span_of(m, b);
    uint8_t v;
    uint32_t f, count;
    if (!sy_bmff_full_header(&s, &v, &f) || !sy_bmff_u32(&s, &count))
        return sy__mov_bad(m, err, SY_E_INVALID_INPUT, b->type, abs_off(m, b->offset), "stsd too short");
    if (count > s.left / 8) {
        /* A timed-metadata or data track we only read for facts may be
         * damaged without harm to the picture and sound: ffmpeg's `-map 0
         * -c copy` of an iPhone Live movie writes its 'mebx' track with one
         * entry and no bytes. Such a track is kept without a sample entry. */
        const uint32_t h = t->info.handler;
        if (h != FCC('v', 'i', 'd', 'e') && h != FCC('s', 'o', 'u', 'n')) {
            t->info.sample_entry_count = 0;
            return SY_OK;
        }
        return sy__mov_bad(m, err, SY_E_INVALID_INPUT, b->type, abs_off(m, b->offset),
                   "stsd declares %u entries but holds %llu bytes", count, (unsigned long long)s.left);
    }
    t->info.sample_entry_count = count;
    if (!count) return SY_OK;
    sy_bmff_cursor c;
    sy_bmff_box e;
    sy_bmff_cursor_children(&c, parent, b, 8);
    sy_status st = sy__mov_next_box(m, &c, &e, err);
    if (st != SY_OK) return st;
    if (!e.type) return SY_OK;
    t->info.codec = e.type;
    t->entry = m->moov + e.offset;
    t->entry_len = (size_t)e.size;
    sy_bmff_span es = span_of(m, &e);
    const uint32_t h = t->info.handler;
    if (e.type == FCC('m', 'e', 'b', 'x')) return parse_mebx(t, m, parent, &e, err);
    if (h == FCC('v', 'i', 'd', 'e')) {
        /* VisualSampleEntry: 6 reserved, dref u16, 16 bytes, width u16, height u16, ... 78 bytes */
        if (es.left >= 78) {
            t->info.width = be16(es.p + 24);
            t->info.height = be16(es.p + 26);
            scan_entry_children(t, m, parent, &e, 78, 0);
        }
    } else if (h == FCC('s', 'o', 'u', 'n')) {
        /* SoundSampleEntry (QuickTime v0/v1/v2 layout, ISO = v0) */
        if (es.left >= 28) {
            uint16_t ver = be16(es.p + 8);
            t->info.channels = be16(es.p + 16);
            t->info.bits_per_sample = be16(es.p + 18);
            t->info.sample_rate = be32(es.p + 24) / 65536.0;
            uint64_t skip = 28;
            if (ver == 1 && es.left >= 44) {
                skip = 44;
            } else if (ver == 2 && es.left >= 64) {
                uint64_t bits = be64(es.p + 32);
                double rate;
                memcpy(&rate, &bits, sizeof rate);
                t->info.sample_rate = isfinite(rate) && rate >= 0 && rate < 1e9 ? rate : 0;
                t->info.channels = be32(es.p + 40);
                t->info.bits_per_sample = be32(es.p + 48);
                skip = 64;
            }
            if (skip <= es.left) scan_entry_children(t, m, parent, &e, skip, 0);
        }
    }
    return SY_OK;
}

/* ---- sample tables ---- */

/* A table FullBox: version/flags, u32 count, then count * entry bytes that must be present. */
static sy_status table(sy_mov *m, const sy_bmff_box *b, uint32_t entry, const uint8_t **first, uint32_t *n,
                       uint8_t *version, sy_error *err) {
    sy_bmff_span s = span_of(m, b);
    uint8_t v;
    uint32_t f, count;
    char name[16];
    if (!sy_bmff_full_header(&s, &v, &f) || !sy_bmff_u32(&s, &count))
        return sy__mov_bad(m, err, SY_E_INVALID_INPUT, b->type, abs_off(m, b->offset), "%s too short",
                   sy_bmff_fourcc_text(b->type, name));
    if (count > s.left / entry)
        return sy__mov_bad(m, err, SY_E_INVALID_INPUT, b->type, abs_off(m, b->offset),
                   "%s declares %u entries of %u bytes but holds %llu bytes", sy_bmff_fourcc_text(b->type, name), count,
                   entry, (unsigned long long)s.left);
    *first = s.p;
    *n = count;
    if (version) *version = v;
    return SY_OK;
}

static sy_status parse_stbl(mov_track *t, sy_mov *m, const sy_bmff_cursor *parent, const sy_bmff_box *stbl,
                            sy_error *err) {
    sy_bmff_cursor c;
    sy_bmff_box b;
    sy_bmff_box stsd = {0};
    int have_stts = 0, have_ctts = 0, have_stsc = 0, have_sz = 0, have_co = 0, have_stss = 0;
    const uint64_t at = abs_off(m, stbl->offset);
    t->stbl_offset = at;
    sy_bmff_cursor_children(&c, parent, stbl, 0);
    for (;;) {
        sy_status st = sy__mov_next_box(m, &c, &b, err);
        if (st != SY_OK) return st;
        if (!b.type) break;
        const uint64_t bo = abs_off(m, b.offset);
        uint8_t v;
        int dup = 0;
        switch (b.type) {
        case FCC('s', 't', 's', 'd'):
            if (stsd.type) dup = 1;
            stsd = b;
            break;
        case FCC('s', 't', 't', 's'):
            if (have_stts++) dup = 1;
            else if ((st = table(m, &b, 8, &t->stts, &t->stts_n, NULL, err)) != SY_OK) return st;
            break;
        case FCC('c', 't', 't', 's'):
            if (have_ctts++) dup = 1;
            else if ((st = table(m, &b, 8, &t->ctts, &t->ctts_n, NULL, err)) != SY_OK) return st;
            break;
        case FCC('s', 't', 's', 'c'):
            if (have_stsc++) dup = 1;
            else if ((st = table(m, &b, 12, &t->stsc, &t->stsc_n, NULL, err)) != SY_OK) return st;
            break;
        case FCC('s', 't', 's', 's'):
            if (have_stss++) dup = 1;
            else if ((st = table(m, &b, 4, &t->stss, &t->stss_n, NULL, err)) != SY_OK) return st;
            break;
        case FCC('s', 't', 'c', 'o'):
        case FCC('c', 'o', '6', '4'):
            if (have_co++) dup = 1;
            else {
                t->co64 = b.type == FCC('c', 'o', '6', '4');
                if ((st = table(m, &b, t->co64 ? 8 : 4, &t->stco, &t->chunk_n, NULL, err)) != SY_OK) return st;
            }
            break;
        case FCC('s', 't', 's', 'z'): {
            if (have_sz++) {
                dup = 1;
                break;
            }
            sy_bmff_span s = span_of(m, &b);
            uint32_t f, size, count;
            if (!sy_bmff_full_header(&s, &v, &f) || !sy_bmff_u32(&s, &size) || !sy_bmff_u32(&s, &count))
                return sy__mov_bad(m, err, SY_E_INVALID_INPUT, b.type, bo, "stsz too short");
            if (size == 0 && count > s.left / 4)
                return sy__mov_bad(m, err, SY_E_INVALID_INPUT, b.type, bo, "stsz declares %u sizes but holds %llu bytes", count,
                           (unsigned long long)s.left);
            t->stsz_const = size;
            t->stsz_n = count;
            t->stsz = s.p;
            t->stsz_bits = 32;
            break;
        }
        case FCC('s', 't', 'z', '2'): {
            if (have_sz++) {
                dup = 1;
                break;
            }
            sy_bmff_span s = span_of(m, &b);
            uint32_t f, field, count;
            if (!sy_bmff_full_header(&s, &v, &f) || !sy_bmff_u32(&s, &field) || !sy_bmff_u32(&s, &count))
                return sy__mov_bad(m, err, SY_E_INVALID_INPUT, b.type, bo, "stz2 too short");
            field &= 0xFF;
            if (field != 4 && field != 8 && field != 16)
                return sy__mov_bad(m, err, SY_E_INVALID_INPUT, b.type, bo, "stz2 field size %u (must be 4, 8 or 16)", field);
            if (((uint64_t)count * field + 7) / 8 > s.left)
                return sy__mov_bad(m, err, SY_E_INVALID_INPUT, b.type, bo, "stz2 declares %u sizes but holds %llu bytes", count,
                           (unsigned long long)s.left);
            t->stsz_const = 0;
            t->stsz_n = count;
            t->stsz = s.p;
            t->stsz_bits = (uint8_t)field;
            break;
        }
        default:
            break;
        }
        if (dup) {
            char name[16];
            return sy__mov_bad(m, err, SY_E_INVALID_INPUT, b.type, bo, "second %s box in track %u", sy_bmff_fourcc_text(b.type, name),
                       t->info.id);
        }
    }
    const char *missing = !stsd.type ? "stsd" : !have_stts ? "stts" : !have_stsc ? "stsc" : !have_sz ? "stsz or stz2"
                                                                    : !have_co   ? "stco or co64"
                                                                                 : NULL;
    if (missing)
        return sy__mov_bad(m, err, SY_E_INVALID_INPUT, stbl->type, at, "track %u: sample table has no %s box", t->info.id, missing);
    if (!have_stss) t->stss = NULL;
    t->info.all_sync = !have_stss;
    t->info.keyframe_count = t->stss_n;
    sy_status st = parse_stsd(t, m, parent, &stsd, err);
    if (st != SY_OK) return st;

    /* Sample count: stsz, limited by what stts and the chunks describe. */
    uint64_t n = t->stsz_n, stts_total = 0, chunk_total = 0;
    if (n > SY_MOV_MAX_SAMPLES)
        return sy__mov_bad(m, err, SY_E_BUDGET, stbl->type, at, "track %u declares %llu samples, more than the %u cap",
                   t->info.id, (unsigned long long)n, SY_MOV_MAX_SAMPLES);
    for (uint32_t i = 0; i < t->stts_n && stts_total < n; i++) stts_total += be32(t->stts + 8ull * i);
    uint32_t prev_first = 0;
    for (uint32_t i = 0; i < t->stsc_n && chunk_total < n; i++) {
        const uint8_t *p = t->stsc + 12ull * i;
        uint32_t first = be32(p), spc = be32(p + 4);
        if (first == 0 || first <= prev_first)
            return sy__mov_bad(m, err, SY_E_INVALID_INPUT, stbl->type, at,
                       "track %u: stsc entry %u starts at chunk %u, not after chunk %u", t->info.id, i + 1, first,
                       prev_first);
        if (i == 0 && first != 1)
            return sy__mov_bad(m, err, SY_E_INVALID_INPUT, stbl->type, at, "track %u: stsc does not start at chunk 1", t->info.id);
        prev_first = first;
        if (first > t->chunk_n) break;
        uint32_t next = i + 1 < t->stsc_n ? be32(t->stsc + 12ull * (i + 1)) : t->chunk_n + 1;
        if (next > t->chunk_n + 1) next = t->chunk_n + 1;
        if (next <= first) continue; /* reported as an error on the next iteration */
        if (spc == 0)
            return sy__mov_bad(m, err, SY_E_INVALID_INPUT, stbl->type, at, "track %u: stsc entry %u puts 0 samples in chunks %u..%u",
                       t->info.id, i + 1, first, next - 1);
        chunk_total += (uint64_t)(next - first) * spc;
    }
    /* A file cut short keeps the samples its tables still describe; tables
     * that describe none of the declared samples are broken, not short. */
    if (n > 0 && (stts_total == 0 || chunk_total == 0))
        return sy__mov_bad(m, err, SY_E_INVALID_INPUT, stbl->type, at, "track %u: stsz declares %llu samples but %s describes none",
                   t->info.id, (unsigned long long)n, stts_total == 0 ? "stts" : "stsc/stco");
    if (stts_total < n) n = stts_total;
    if (chunk_total < n) n = chunk_total;
    t->info.sample_count = (uint32_t)n;
    return SY_OK;
}

/* ---- trak ---- */

static void set_language(mov_track *t, uint16_t code) {
    char *l = t->info.language;
    if (code >= 0x400 && code != 0x7FFF) {
        l[0] = (char)(((code >> 10) & 31) + 0x60);
        l[1] = (char)(((code >> 5) & 31) + 0x60);
        l[2] = (char)((code & 31) + 0x60);
        for (int i = 0; i < 3; i++)
            if (l[i] < 'a' || l[i] > 'z') {
                memcpy(l, "und", 4);
                return;
            }
        l[3] = '\0';
    } else if (code == 0) {
        memcpy(l, "eng", 4); /* Macintosh language code 0 */
    } else {
        memcpy(l, "und", 4);
    }
}

/* The matrix as "rotate clockwise, then flip horizontally" (the flip negates
 * a and c only, so b and d carry the rotation): x' = a x + c y, y' = b x + d y. */
static void matrix_to_rotation(sy_mov_track_info *in) {
    const int32_t a = in->matrix[0], b = in->matrix[1], c = in->matrix[3], d = in->matrix[4];
    in->rotation = 0;
    in->mirrored = 0;
    if (b == 0 && c == 0 && a != 0 && d != 0) {
        in->rotation = d > 0 ? 0 : 180;
        in->mirrored = (a > 0) != (d > 0);
    } else if (a == 0 && d == 0 && b != 0 && c != 0) {
        /* x' = a x + c y, y' = b x + d y in screen coordinates (y down): b > 0 turns x down = 90° clockwise */
        in->rotation = b > 0 ? 90 : 270;
        in->mirrored = (b > 0) == (c > 0);
    }
}

static sy_status parse_tkhd(mov_track *t, sy_mov *m, const sy_bmff_box *b, sy_error *err) {
    sy_bmff_span s = span_of(m, b);
    uint8_t v;
    uint32_t flags, id = 0, d32 = 0, w = 0, h = 0;
    uint64_t d64 = 0;
    int ok = sy_bmff_full_header(&s, &v, &flags);
    if (ok && v == 1) ok = sy_bmff_skip(&s, 16) && sy_bmff_u32(&s, &id) && sy_bmff_skip(&s, 4) && sy_bmff_u64(&s, &d64);
    else if (ok && v == 0) {
        ok = sy_bmff_skip(&s, 8) && sy_bmff_u32(&s, &id) && sy_bmff_skip(&s, 4) && sy_bmff_u32(&s, &d32);
        d64 = d32 == 0xFFFFFFFFu ? 0 : d32;
    } else if (ok)
        return sy__mov_bad(m, err, SY_E_UNSUPPORTED, b->type, abs_off(m, b->offset), "tkhd version %u", v);
    uint16_t layer = 0, group = 0, volume = 0;
    ok = ok && sy_bmff_skip(&s, 8) && sy_bmff_u16(&s, &layer) && sy_bmff_u16(&s, &group) && sy_bmff_u16(&s, &volume) &&
         sy_bmff_skip(&s, 2);
    for (int i = 0; ok && i < 9; i++) {
        uint32_t x;
        ok = sy_bmff_u32(&s, &x);
        t->info.matrix[i] = (int32_t)x;
    }
    ok = ok && sy_bmff_u32(&s, &w) && sy_bmff_u32(&s, &h);
    if (!ok) return sy__mov_bad(m, err, SY_E_INVALID_INPUT, b->type, abs_off(m, b->offset), "tkhd too short");
    t->info.id = id;
    t->info.enabled = flags & 1;
    t->info.tkhd_flags = flags;
    t->info.layer = (int16_t)layer;
    t->info.alternate_group = (int16_t)group;
    t->info.volume = volume;
    t->info.tkhd_duration = d64;
    t->info.tkhd_width = w / 65536.0;
    t->info.tkhd_height = h / 65536.0;
    matrix_to_rotation(&t->info);
    return SY_OK;
}

static sy_status parse_mdhd(mov_track *t, sy_mov *m, const sy_bmff_box *b, sy_error *err) {
    sy_bmff_span s = span_of(m, b);
    uint8_t v;
    uint32_t flags, ts = 0, d32 = 0;
    uint64_t d64 = 0;
    uint16_t lang = 0;
    int ok = sy_bmff_full_header(&s, &v, &flags);
    if (ok && v == 1) ok = sy_bmff_skip(&s, 16) && sy_bmff_u32(&s, &ts) && sy_bmff_u64(&s, &d64);
    else if (ok && v == 0) {
        ok = sy_bmff_skip(&s, 8) && sy_bmff_u32(&s, &ts) && sy_bmff_u32(&s, &d32);
        d64 = d32 == 0xFFFFFFFFu ? 0 : d32;
    } else if (ok)
        return sy__mov_bad(m, err, SY_E_UNSUPPORTED, b->type, abs_off(m, b->offset), "mdhd version %u", v);
    ok = ok && sy_bmff_u16(&s, &lang);
    if (!ok) return sy__mov_bad(m, err, SY_E_INVALID_INPUT, b->type, abs_off(m, b->offset), "mdhd too short");
    t->info.timescale = ts;
    t->info.duration = d64;
    t->info.duration_seconds = ts ? (double)d64 / ts : 0;
    t->info.language_code = lang;
    set_language(t, lang);
    return SY_OK;
}

static sy_status parse_elst(mov_track *t, sy_mov *m, const sy_bmff_box *b, sy_error *err) {
    sy_bmff_span s = span_of(m, b);
    uint8_t v;
    uint32_t flags, count;
    if (!sy_bmff_full_header(&s, &v, &flags) || !sy_bmff_u32(&s, &count) || v > 1) return SY_OK; /* optional: ignored */
    const uint32_t entry = v == 1 ? 20 : 12;
    (void)err;
    if (count > s.left / entry) return SY_OK; /* optional: a lying count is ignored */
    t->elst = s.p;
    t->elst_version = v;
    t->info.edit_count = count;
    if (count) {
        int32_t rate;
        sy_mov_edit(m, (uint32_t)(t - m->tracks), 0, &t->info.edit_segment_duration, &t->info.edit_media_time, &rate,
                    NULL);
    }
    return SY_OK;
}

/* Finds the single child of `type`; 0 when absent, error when duplicated. */
static sy_status only_child(sy_mov *m, const sy_bmff_cursor *parent, const sy_bmff_box *box, uint32_t type,
                            sy_bmff_box *out, uint32_t track_id, int required, sy_error *err) {
    sy_bmff_cursor c;
    sy_bmff_box b;
    char name[16], pname[16];
    memset(out, 0, sizeof *out);
    sy_bmff_cursor_children(&c, parent, box, 0);
    for (;;) {
        sy_status st = sy__mov_next_box(m, &c, &b, err);
        if (st != SY_OK) return st;
        if (!b.type) break;
        if (b.type != type) continue;
        if (out->type)
            return sy__mov_bad(m, err, SY_E_INVALID_INPUT, type, abs_off(m, b.offset), "track %u: second %s box in %s", track_id,
                       sy_bmff_fourcc_text(type, name), sy_bmff_fourcc_text(box->type, pname));
        *out = b;
    }
    if (!out->type && required)
        return sy__mov_bad(m, err, SY_E_INVALID_INPUT, box->type, abs_off(m, box->offset), "track %u: %s has no %s box", track_id,
                   sy_bmff_fourcc_text(box->type, pname), sy_bmff_fourcc_text(type, name));
    return SY_OK;
}

/* hdlr name after handler type: QuickTime writes a Pascal string (its
 * component type is set), ISO a C string (pre_defined is 0). */
static void take_handler_name(mov_track *t, sy_bmff_span s, uint32_t component) {
    char *out = t->info.handler_name;
    const size_t cap = sizeof t->info.handler_name;
    if (!sy_bmff_skip(&s, 12) || s.left == 0) return;
    size_t n = s.left;
    const uint8_t *p = s.p;
    if (component && p[0] < s.left) n = p[0], p++;
    size_t len = 0;
    while (len < n && len + 1 < cap && p[len]) len++;
    memcpy(out, p, len);
    out[len] = 0;
}

/* Optional trak children a copying muxer keeps: the first `meta` box and
 * the first tref/cdsc target (anything that does not parse is ignored). */
static void take_trak_extras(mov_track *t, sy_mov *m, const sy_bmff_cursor *parent, const sy_bmff_box *trak) {
    sy_bmff_cursor c, r;
    sy_bmff_box b, ref;
    sy_bmff_cursor_children(&c, parent, trak, 0);
    while (sy_bmff_next(&c, &b, NULL) == SY_OK && b.type) {
        if (b.type == FCC('m', 'e', 't', 'a') && !t->meta) {
            t->meta = m->moov + b.offset;
            t->meta_len = (size_t)b.size;
        } else if (b.type == FCC('t', 'r', 'e', 'f') && !t->info.describes_id) {
            sy_bmff_cursor_children(&r, parent, &b, 0);
            while (sy_bmff_next(&r, &ref, NULL) == SY_OK && ref.type) {
                sy_bmff_span s = span_of(m, &ref);
                uint32_t id;
                if (ref.type == FCC('c', 'd', 's', 'c') && sy_bmff_u32(&s, &id)) {
                    t->info.describes_id = id;
                    break;
                }
            }
        }
    }
}

static sy_status parse_trak(mov_track *t, sy_mov *m, const sy_bmff_cursor *parent, const sy_bmff_box *trak,
                            sy_error *err) {
    sy_bmff_box tkhd, mdia, mdhd, hdlr, minf, stbl, edts, elst;
    t->trak_offset = abs_off(m, trak->offset);
    memcpy(t->info.language, "und", 4);
    t->info.edit_media_time = 0;
    sy_status st = only_child(m, parent, trak, FCC('t', 'k', 'h', 'd'), &tkhd, 0, 1, err);
    if (st != SY_OK || (st = parse_tkhd(t, m, &tkhd, err)) != SY_OK) return st;
    const uint32_t id = t->info.id;
    if ((st = only_child(m, parent, trak, FCC('m', 'd', 'i', 'a'), &mdia, id, 1, err)) != SY_OK) return st;
    if ((st = only_child(m, parent, &mdia, FCC('m', 'd', 'h', 'd'), &mdhd, id, 1, err)) != SY_OK) return st;
    if ((st = parse_mdhd(t, m, &mdhd, err)) != SY_OK) return st;
    if ((st = only_child(m, parent, &mdia, FCC('h', 'd', 'l', 'r'), &hdlr, id, 1, err)) != SY_OK) return st;
    sy_bmff_span s = span_of(m, &hdlr);
    uint8_t v;
    uint32_t f, component;
    if (!sy_bmff_full_header(&s, &v, &f) || !sy_bmff_u32(&s, &component) || !sy_bmff_u32(&s, &t->info.handler))
        return sy__mov_bad(m, err, SY_E_INVALID_INPUT, hdlr.type, abs_off(m, hdlr.offset), "track %u: hdlr too short", id);
    take_handler_name(t, s, component);
    take_trak_extras(t, m, parent, trak);
    if ((st = only_child(m, parent, &mdia, FCC('m', 'i', 'n', 'f'), &minf, id, 1, err)) != SY_OK) return st;
    if ((st = only_child(m, parent, &minf, FCC('s', 't', 'b', 'l'), &stbl, id, 1, err)) != SY_OK) return st;
    if ((st = parse_stbl(t, m, parent, &stbl, err)) != SY_OK) return st;
    if ((st = only_child(m, parent, trak, FCC('e', 'd', 't', 's'), &edts, id, 0, err)) != SY_OK) return st;
    if (edts.type) {
        if ((st = only_child(m, parent, &edts, FCC('e', 'l', 's', 't'), &elst, id, 0, err)) != SY_OK) return st;
        if (elst.type && (st = parse_elst(t, m, &elst, err)) != SY_OK) return st;
    }
    if (t->info.handler == FCC('v', 'i', 'd', 'e') && (!t->info.width || !t->info.height)) {
        t->info.width = (uint32_t)t->info.tkhd_width;
        t->info.height = (uint32_t)t->info.tkhd_height;
    }
    uint32_t dw = (uint32_t)(t->info.tkhd_width + 0.5), dh = (uint32_t)(t->info.tkhd_height + 0.5);
    if (!dw || !dh) {
        dw = t->info.width;
        dh = t->info.height;
    }
    int swap = t->info.rotation == 90 || t->info.rotation == 270;
    t->info.display_width = swap ? dh : dw;
    t->info.display_height = swap ? dw : dh;
    return SY_OK;
}

/* ---- moov ---- */

static sy_status parse_moov(sy_mov *m, uint64_t header, sy_error *err) {
    sy_bmff_cursor root, c;
    sy_bmff_box moov = {FCC('m', 'o', 'o', 'v'), 0, m->info.moov_size, header, m->info.moov_size - header, {0}};
    sy_bmff_box b, mvhd = {0};
    sy_bmff_cursor_init(&root, m->moov, m->info.moov_offset, 0, m->info.moov_size);
    uint32_t traks = 0;
    sy_bmff_cursor_children(&c, &root, &moov, 0);
    for (;;) {
        sy_status st = sy__mov_next_box(m, &c, &b, err);
        if (st != SY_OK) return st;
        if (!b.type) break;
        if (b.type == FCC('m', 'v', 'h', 'd')) {
            if (mvhd.type) return sy__mov_bad(m, err, SY_E_INVALID_INPUT, b.type, abs_off(m, b.offset), "second mvhd box");
            mvhd = b;
        } else if (b.type == FCC('t', 'r', 'a', 'k')) {
            traks++;
        } else if (b.type == FCC('m', 'v', 'e', 'x')) {
            m->info.fragmented = 1;
        } else if (b.type == FCC('c', 'm', 'o', 'v')) {
            return sy__mov_bad(m, err, SY_E_UNSUPPORTED, b.type, abs_off(m, b.offset), "compressed movie header");
        }
    }
    if (!mvhd.type) return sy__mov_bad(m, err, SY_E_INVALID_INPUT, moov.type, m->info.moov_offset, "moov has no mvhd box");
    sy_status st = parse_mvhd(m, &mvhd, err);
    if (st != SY_OK) return st;
    if (traks > MOV_MAX_TRACKS)
        return sy__mov_bad(m, err, SY_E_UNSUPPORTED, moov.type, m->info.moov_offset, "%u tracks, more than %u", traks,
                   MOV_MAX_TRACKS);
    if (traks) {
        m->tracks = sy__calloc(m->ctx, traks, sizeof *m->tracks, "mov tracks", err);
        if (!m->tracks) return err ? err->code : SY_E_BUDGET;
    }
    sy_bmff_cursor_children(&c, &root, &moov, 0);
    uint32_t i = 0;
    for (;;) {
        if ((st = sy__mov_next_box(m, &c, &b, err)) != SY_OK) return st;
        if (!b.type) break;
        if (b.type == FCC('t', 'r', 'a', 'k') && i < traks) {
            m->info.track_count = i + 1; /* so parse_elst can address it */
            if ((st = parse_trak(&m->tracks[i], m, &root, &b, err)) != SY_OK) return st;
            for (uint32_t k = 0; k < i; k++)
                if (m->tracks[k].info.id == m->tracks[i].info.id)
                    return sy__mov_bad(m, err, SY_E_INVALID_INPUT, b.type, abs_off(m, b.offset), "second track with id %u",
                               m->tracks[i].info.id);
            i++;
        } else if (b.type == FCC('m', 'e', 't', 'a')) {
            if ((st = sy__mov_parse_meta(m, &root, &b, err)) != SY_OK) return st;
        }
    }
    m->info.track_count = i;
    /* then moov/udta/meta (ffmpeg -movflags use_metadata_tags) */
    sy_bmff_cursor_children(&c, &root, &moov, 0);
    for (;;) {
        if ((st = sy__mov_next_box(m, &c, &b, err)) != SY_OK) return st;
        if (!b.type) break;
        if (b.type != FCC('u', 'd', 't', 'a')) continue;
        sy_bmff_cursor uc;
        sy_bmff_box u;
        sy_bmff_cursor_children(&uc, &root, &b, 0);
        /* udta may end in a 32-bit zero terminator (QuickTime): stop quietly there */
        while (sy_bmff_next(&uc, &u, NULL) == SY_OK && u.type)
            if (u.type == FCC('m', 'e', 't', 'a') && (st = sy__mov_parse_meta(m, &root, &u, err)) != SY_OK) return st;
    }
    /* last, what udta states outside `mdta` (an mdta item of the same name wins) */
    sy_bmff_cursor_children(&c, &root, &moov, 0);
    for (;;) {
        if ((st = sy__mov_next_box(m, &c, &b, err)) != SY_OK) return st;
        if (!b.type) break;
        if (b.type == FCC('u', 'd', 't', 'a') && (st = sy__mov_parse_udta_facts(m, &root, &b, err)) != SY_OK) return st;
    }
    return SY_OK;
}

/* ---- open / close ---- */

/* A Motion Photo opens as its embedded movie: reads and offsets are shifted
 * into [movie_offset, movie_offset + movie_length). A JPEG without one is
 * not a movie, said plainly. */
static sy_status open_embedded(sy_mov *m, sy_error *err) {
    sy_motion_photo_info mp;
    sy_status st = sy__motion_photo_locate(m->ctx, m->fd, m->path, m->info.file_size, &mp, err);
    if (st != SY_OK) return st;
    if (!mp.container) {
        uint8_t soi[3] = {0};
        if (m->info.file_size >= 3 && sy__mov_read_at(m, 0, soi, 3, NULL) == SY_OK && soi[0] == 0xFF && soi[1] == 0xD8 &&
            soi[2] == 0xFF)
            return sy__fail(err, SY_E_INVALID_INPUT,
                            "%s: a JPEG photo without a Motion Photo video (no Camera:MotionPhoto or MicroVideo "
                            "XMP), not a movie",
                            sy__short_path(m->path));
        return SY_OK;
    }
    m->base = mp.movie_offset;
    m->info.file_size = mp.movie_length;
    m->info.embedded_in = mp.container;
    m->info.embedded_offset = mp.movie_offset;
    return SY_OK;
}

sy_status sy_mov_open(sy_context *ctx, const char *path, sy_mov **out, sy_error *err) {
    if (out) *out = NULL;
    if (!ctx || !path || !out) return sy__fail(err, SY_E_USAGE, "sy_mov_open: NULL argument");
    sy_mov *m = sy__calloc(ctx, 1, sizeof *m, "mov handle", err);
    if (!m) return err ? err->code : SY_E_BUDGET;
    m->ctx = ctx;
    m->fd = -1;
    sy_status st = sy__bmff_file_open(ctx, path, &m->path, &m->fp, &m->fd, &m->info.file_size, err);
    if (st != SY_OK) goto fail;
    if ((st = open_embedded(m, err)) != SY_OK) goto fail;
    const uint64_t fsize = m->info.file_size;
    uint64_t pos = 0, moov_header = 0;
    uint32_t boxes = 0;
    int have_ftyp = 0;
    while (pos < fsize) {
        uint64_t left = fsize - pos;
        if (left < 8) {
            /* QuickTime allows a 32-bit zero terminator; anything else is a stray tail */
            uint8_t z[8] = {0};
            if ((st = sy__mov_read_at(m, pos, z, (size_t)left, err)) != SY_OK) goto fail;
            if (left == 4 && be32(z) == 0) break;
            st = sy__mov_bad(m, err, SY_E_INVALID_INPUT, 0, pos, "%llu stray bytes at the end of the file",
                     (unsigned long long)left);
            goto fail;
        }
        if (++boxes > SY_BMFF_MAX_CHILDREN) {
            st = sy__mov_bad(m, err, SY_E_INVALID_INPUT, 0, pos, "more than %u top-level boxes", SY_BMFF_MAX_CHILDREN);
            goto fail;
        }
        uint8_t h[16];
        if ((st = sy__mov_read_at(m, pos, h, 8, err)) != SY_OK) goto fail;
        uint64_t size = be32(h);
        uint32_t type = be32(h + 4);
        uint64_t header = 8;
        if (size == 1) {
            if (left < 16) {
                st = sy__mov_bad(m, err, SY_E_INVALID_INPUT, type, pos, "64-bit box size cut off");
                goto fail;
            }
            if ((st = sy__mov_read_at(m, pos + 8, h + 8, 8, err)) != SY_OK) goto fail;
            size = be64(h + 8);
            header = 16;
        } else if (size == 0) {
            size = left;
        }
        if (type == FCC('u', 'u', 'i', 'd')) header += 16;
        int printable = 1;
        for (int i = 4; i < 8; i++) printable &= h[i] >= 0x20 && h[i] <= 0x7e;
        if (!printable) {
            st = sy__mov_bad(m, err, SY_E_INVALID_INPUT, type, pos, "not a QuickTime/MP4 box (unprintable type)");
            goto fail;
        }
        if (size < header) {
            st = sy__mov_bad(m, err, SY_E_INVALID_INPUT, type, pos, "box size %llu smaller than its %llu-byte header",
                     (unsigned long long)size, (unsigned long long)header);
            goto fail;
        }
        if (size > left) {
            st = sy__mov_bad(m, err, SY_E_INVALID_INPUT, type, pos,
                     "box size %llu runs past the end of the file (%llu bytes): truncated file?",
                     (unsigned long long)size, (unsigned long long)fsize);
            goto fail;
        }
        if (type == FCC('f', 't', 'y', 'p')) {
            if (have_ftyp) {
                st = sy__mov_bad(m, err, SY_E_INVALID_INPUT, type, pos, "second ftyp box");
                goto fail;
            }
            have_ftyp = 1;
            if ((st = parse_ftyp(m, pos, pos + header, size - header, err)) != SY_OK) goto fail;
        } else if (type == FCC('m', 'o', 'o', 'v')) {
            if (m->moov) {
                st = sy__mov_bad(m, err, SY_E_INVALID_INPUT, type, pos, "second moov box");
                goto fail;
            }
            if (size > SY_MOV_MOOV_CAP) {
                st = sy__mov_bad(m, err, SY_E_BUDGET, type, pos, "moov box of %llu bytes exceeds the %u MiB cap",
                         (unsigned long long)size, SY_MOV_MOOV_CAP >> 20);
                goto fail;
            }
            m->moov = sy__alloc(ctx, (size_t)size, 1, "mov moov box", err);
            if (!m->moov) {
                st = err ? err->code : SY_E_BUDGET;
                goto fail;
            }
            m->info.moov_offset = pos;
            m->info.moov_size = size;
            moov_header = header;
            if ((st = sy__mov_read_at(m, pos, m->moov, (size_t)size, err)) != SY_OK) goto fail;
        } else if (type == FCC('m', 'o', 'o', 'f')) {
            m->info.fragmented = 1;
        }
        pos += size;
    }
    if (!m->moov) {
        st = sy__mov_bad(m, err, SY_E_INVALID_INPUT, FCC('m', 'o', 'o', 'v'), fsize,
                 fsize ? "no moov box (truncated file, or not a QuickTime/MP4 movie)" : "empty file");
        goto fail;
    }
    if ((st = parse_moov(m, moov_header, err)) != SY_OK) goto fail;
    *out = m;
    return SY_OK;
fail:
    sy_mov_close(m);
    return st;
}

void sy_mov_close(sy_mov *m) {
    if (!m) return;
    sy_context *ctx = m->ctx;
    if (m->fp) fclose(m->fp);
    if (m->tracks)
        for (uint32_t i = 0; i < m->info.track_count; i++) sy__mov_free_index(ctx, &m->tracks[i]);
    while (m->blocks) {
        mov_block *b = m->blocks;
        m->blocks = b->next;
        sy__free(ctx, b);
    }
    sy__free(ctx, m->tracks);
    sy__free(ctx, m->meta);
    sy__free(ctx, m->moov);
    sy__free(ctx, m->path);
    sy__free(ctx, m);
}

/* ---- accessors ---- */

const sy_mov_info *sy_mov_info_get(const sy_mov *m) { return m ? &m->info : NULL; }

uint32_t sy_mov_track_count(const sy_mov *m) { return m ? m->info.track_count : 0; }

const sy_mov_track_info *sy_mov_track(const sy_mov *m, uint32_t index) {
    return m && index < m->info.track_count ? &m->tracks[index].info : NULL;
}

int32_t sy_mov_main_video_track(const sy_mov *m) {
    if (!m) return -1;
    for (int pass = 0; pass < 2; pass++) {
        int32_t best = -1;
        for (uint32_t i = 0; i < m->info.track_count; i++) {
            const sy_mov_track_info *t = &m->tracks[i].info;
            if (t->handler != FCC('v', 'i', 'd', 'e') || (pass == 0 && !t->enabled)) continue;
            if (best < 0) {
                best = (int32_t)i;
                continue;
            }
            const sy_mov_track_info *b = &m->tracks[best].info;
            uint64_t area = (uint64_t)t->width * t->height, barea = (uint64_t)b->width * b->height;
            if (area > barea || (area == barea && t->id < b->id)) best = (int32_t)i;
        }
        if (best >= 0) return best;
    }
    return -1;
}

const uint8_t *sy_mov_codec_config(const sy_mov *m, uint32_t track, uint32_t *type, size_t *len) {
    if (type) *type = 0;
    if (len) *len = 0;
    if (!m || track >= m->info.track_count || !m->tracks[track].config) return NULL;
    const mov_track *t = &m->tracks[track];
    if (type) *type = t->config_type;
    if (len) *len = t->config_len;
    return t->config;
}

const uint8_t *sy_mov_sample_entry(const sy_mov *m, uint32_t track, size_t *len) {
    if (len) *len = 0;
    if (!m || track >= m->info.track_count || !m->tracks[track].entry) return NULL;
    if (len) *len = m->tracks[track].entry_len;
    return m->tracks[track].entry;
}

const uint8_t *sy_mov_track_meta(const sy_mov *m, uint32_t track, size_t *len) {
    if (len) *len = 0;
    if (!m || track >= m->info.track_count || !m->tracks[track].meta) return NULL;
    if (len) *len = m->tracks[track].meta_len;
    return m->tracks[track].meta;
}

sy_status sy_mov_edit(const sy_mov *m, uint32_t track, uint32_t k, uint64_t *segment_duration, int64_t *media_time,
                      int32_t *rate, sy_error *err) {
    if (!m || track >= m->info.track_count || k >= m->tracks[track].info.edit_count)
        return sy__fail(err, SY_E_USAGE, "sy_mov_edit: no edit %u in track %u", k, track);
    const mov_track *t = &m->tracks[track];
    uint64_t seg;
    int64_t mt;
    int32_t r;
    if (t->elst_version == 1) {
        const uint8_t *p = t->elst + 20ull * k;
        seg = be64(p);
        mt = (int64_t)be64(p + 8);
        r = (int32_t)be32(p + 16);
    } else {
        const uint8_t *p = t->elst + 12ull * k;
        seg = be32(p);
        mt = (int32_t)be32(p + 4);
        r = (int32_t)be32(p + 8);
    }
    if (segment_duration) *segment_duration = seg;
    if (media_time) *media_time = mt;
    if (rate) *rate = r;
    return SY_OK;
}
