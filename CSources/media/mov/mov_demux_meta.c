/* mov_demux_meta.c — a movie's metadata for the demuxer (mov_demux.c): Apple's
 * keyed items (meta/keys + ilst under moov or udta), an iTunes-style item
 * list, and the text atoms phones and cameras put in moov/udta; plus the
 * metadata accessors. Same hostile-input rules as the rest of the demuxer. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bmff/sy_bmff_file.h"
#include "mov/sy_mov_demux_internal.h"

/* ---- metadata (mdta keys + ilst) ---- */

static sy_status meta_push(sy_mov *m, const mov_meta_item *it, sy_error *err) {
    if (m->meta_n == m->meta_cap) {
        uint32_t cap = m->meta_cap ? m->meta_cap * 2 : 16;
        if (cap > 4u * SY_BMFF_MAX_CHILDREN) return sy__fail(err, SY_E_INVALID_INPUT, "%s: too many metadata items", sy__short_path(m->path));
        mov_meta_item *n = sy__alloc(m->ctx, cap, sizeof *n, "mov metadata items", err);
        if (!n) return err ? err->code : SY_E_BUDGET;
        if (m->meta_n) memcpy(n, m->meta, m->meta_n * sizeof *n);
        sy__free(m->ctx, m->meta);
        m->meta = n;
        m->meta_cap = cap;
    }
    m->meta[m->meta_n++] = *it;
    return SY_OK;
}

static sy_status parse_item_list_facts(sy_mov *m, const sy_bmff_cursor *parent, const sy_bmff_box *ilst,
                                       sy_error *err);

/* A `meta` box inside moov or udta. QuickTime writes it without version/flags,
 * ISO (ffmpeg's udta/meta) with; the handler 'mdta' (Apple's keyed items) or
 * 'mdir' (the iTunes-style item list ffmpeg and many apps write in an MP4). */
sy_status sy__mov_parse_meta(sy_mov *m, const sy_bmff_cursor *parent, const sy_bmff_box *mb, sy_error *err) {
    uint64_t skip = 4;
    if (mb->payload_size >= 8 && be32(m->moov + mb->payload_offset + 4) == FCC('h', 'd', 'l', 'r')) skip = 0;
    sy_bmff_cursor c;
    sy_bmff_box b;
    sy_bmff_box keys = {0}, ilst = {0};
    uint32_t handler = 0;
    sy_bmff_cursor_children(&c, parent, mb, skip);
    for (;;) {
        sy_status st = sy__mov_next_box(m, &c, &b, err);
        if (st != SY_OK) return st;
        if (!b.type) break;
        if (b.type == FCC('h', 'd', 'l', 'r') && !handler) {
            sy_bmff_span s = span_of(m, &b);
            uint8_t v;
            uint32_t f;
            if (sy_bmff_full_header(&s, &v, &f) && sy_bmff_skip(&s, 4)) sy_bmff_u32(&s, &handler);
        } else if (b.type == FCC('k', 'e', 'y', 's') && !keys.type) {
            keys = b;
        } else if (b.type == FCC('i', 'l', 's', 't') && !ilst.type) {
            ilst = b;
        }
    }
    if (handler == FCC('m', 'd', 'i', 'r') && ilst.type) return parse_item_list_facts(m, parent, &ilst, err);
    if (handler != FCC('m', 'd', 't', 'a') || !keys.type || !ilst.type) return SY_OK; /* not QuickTime metadata */
    /* keys: FullBox, entry_count, then (u32 size, u32 namespace, name) */
    sy_bmff_span s = span_of(m, &keys);
    uint8_t v;
    uint32_t f, count;
    if (!sy_bmff_full_header(&s, &v, &f) || !sy_bmff_u32(&s, &count))
        return sy__mov_bad(m, err, SY_E_INVALID_INPUT, keys.type, abs_off(m, keys.offset), "keys too short");
    if (count > s.left / 8)
        return sy__mov_bad(m, err, SY_E_INVALID_INPUT, keys.type, abs_off(m, keys.offset),
                   "keys declares %u entries but holds %llu bytes", count, (unsigned long long)s.left);
    /* names: pool of at most the box payload (each name is shorter than its entry) */
    const char **names = NULL;
    char *pool = NULL;
    if (count) {
        names = sy__mov_block_alloc(m, count, sizeof *names, "mov metadata keys", err);
        pool = names ? sy__mov_block_alloc(m, (size_t)s.left + 1, 1, "mov metadata key names", err) : NULL;
        if (!names || !pool) return err ? err->code : SY_E_BUDGET;
    }
    size_t used = 0;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t size, ns;
        const uint8_t *at = s.p;
        if (!sy_bmff_u32(&s, &size) || !sy_bmff_u32(&s, &ns) || size < 8 || size - 8 > s.left)
            return sy__mov_bad(m, err, SY_E_INVALID_INPUT, keys.type, abs_off(m, keys.offset) + (uint64_t)(at - (m->moov + keys.offset)),
                       "key %u of %u has a bad size", k + 1, count);
        size_t n = size - 8;
        memcpy(pool + used, s.p, n);
        pool[used + n] = '\0';
        names[k] = pool + used;
        used += n + 1;
        sy_bmff_skip(&s, n);
        (void)ns;
    }
    /* ilst: one child per value, its type the 1-based key index; first `data` child */
    sy_bmff_cursor ic, dc;
    sy_bmff_box item, d;
    sy_bmff_cursor_children(&ic, parent, &ilst, 0);
    for (;;) {
        sy_status st = sy__mov_next_box(m, &ic, &item, err);
        if (st != SY_OK) return st;
        if (!item.type) break;
        if (item.type == 0 || item.type > count) continue; /* unknown key index: skipped */
        sy_bmff_cursor_children(&dc, parent, &item, 0);
        for (;;) {
            if ((st = sy__mov_next_box(m, &dc, &d, err)) != SY_OK) return st;
            if (!d.type) break;
            if (d.type != FCC('d', 'a', 't', 'a')) continue;
            sy_bmff_span ds = span_of(m, &d);
            uint32_t type, locale;
            if (!sy_bmff_u32(&ds, &type) || !sy_bmff_u32(&ds, &locale))
                return sy__mov_bad(m, err, SY_E_INVALID_INPUT, d.type, abs_off(m, d.offset), "data box too short (%llu bytes)",
                           (unsigned long long)d.payload_size);
            mov_meta_item it = {names[item.type - 1], type & 0xFFFFFFu, ds.p, (size_t)ds.left};
            if ((st = meta_push(m, &it, err)) != SY_OK) return st;
            break;
        }
    }
    return SY_OK;
}

/* ---- udta user data (ISO / 3GPP / QuickTime text atoms) ---- */

/* Apple's names for what an MP4 from a phone or camera (Android, ffmpeg,
 * exiftool) states in moov/udta: ©xyz (ISO 6709 location), ©day (creation
 * date), 3GPP `loci`, ©mak / ©mod (camera make and model: older cameras,
 * ffmpeg's make/model in a .mov). They become items under these keys when the
 * file has no `mdta` item of that name: one fact, one name, for every reader
 * (the rewrites copy them as Apple's keys, which Photos reads).
 * ©day is kept as written: with its zone ("+0200", "Z": UTC) when it states
 * one, else a local time whose zone nobody knows (exiftool reads it the same
 * way, as an XMP date) — never taken as UTC, which only mvhd's count is. */
#define UDTA_LOCATION_KEY "com.apple.quicktime.location.ISO6709"
#define UDTA_CREATION_KEY "com.apple.quicktime.creationdate"
#define UDTA_MAKE_KEY "com.apple.quicktime.make"
#define UDTA_MODEL_KEY "com.apple.quicktime.model"

static int meta_has(const sy_mov *m, const char *key) {
    for (uint32_t i = 0; i < m->meta_n; i++)
        if (strcmp(m->meta[i].key, key) == 0) return 1;
    return 0;
}

/* `p[0..n)` as one printable ASCII string (a C string's terminators cut),
 * its length in *len; NULL when empty or not printable. */
static const uint8_t *fact_text(const uint8_t *p, size_t n, size_t *len) {
    while (n && p[n - 1] == 0) n--;
    for (size_t i = 0; i < n; i++)
        if (p[i] < 0x20 || p[i] > 0x7e) return NULL;
    *len = n;
    return n ? p : NULL;
}

/* A QuickTime text atom (©xyz, ©day): u16 length, u16 language, then text;
 * NULL when it does not hold one printable string. */
static const uint8_t *udta_text(const sy_mov *m, const sy_bmff_box *b, size_t *len) {
    if (b->payload_size < 5) return NULL;
    const uint8_t *p = m->moov + b->payload_offset;
    size_t n = (size_t)((p[0] << 8) | p[1]);
    if (n == 0 || n > b->payload_size - 4 || n > 255) return NULL;
    return fact_text(p + 4, n, len);
}

/* A date the text begins with: "YYYY-MM-DD" (the rest as written). */
static int udta_date_ok(const uint8_t *p, size_t n) {
    static const char shape[] = "dddd-dd-dd";
    if (n < 10) return 0;
    for (int i = 0; i < 10; i++)
        if (shape[i] == 'd' ? (p[i] < '0' || p[i] > '9') : p[i] != (uint8_t)shape[i]) return 0;
    return 1;
}

/* 3GPP TS 26.244 `loci`: FullBox, language, name (C string), role, then
 * longitude, latitude, altitude (16.16 fixed point) -> ISO 6709 text. */
static sy_status udta_loci(sy_mov *m, const sy_bmff_box *b, sy_error *err) {
    sy_bmff_span s = span_of(m, b);
    uint8_t v;
    uint32_t f, lon, lat, alt;
    uint16_t lang;
    if (!sy_bmff_full_header(&s, &v, &f) || !sy_bmff_u16(&s, &lang)) return SY_OK;
    const uint8_t *nul = s.left ? memchr(s.p, 0, (size_t)s.left) : NULL;
    if (!nul || !sy_bmff_skip(&s, (uint64_t)(nul - s.p) + 1) || !sy_bmff_skip(&s, 1) || !sy_bmff_u32(&s, &lon) ||
        !sy_bmff_u32(&s, &lat) || !sy_bmff_u32(&s, &alt))
        return SY_OK; /* not the simple form: left alone */
    double lo = (int32_t)lon / 65536.0, la = (int32_t)lat / 65536.0, al = (int32_t)alt / 65536.0;
    if (fabs(la) > 90 || fabs(lo) > 180) return SY_OK;
    char *text = sy__mov_block_alloc(m, 48, 1, "mov loci location", err);
    if (!text) return err ? err->code : SY_E_BUDGET;
    int n = snprintf(text, 48, "%+08.4f%+09.4f%+.3f/", la, lo, al);
    mov_meta_item it = {UDTA_LOCATION_KEY, 1, (const uint8_t *)text, (size_t)n};
    return meta_push(m, &it, err);
}

/* The Apple name of a text fact atom (©xyz, ©day, ©mak, ©mod), or NULL. */
static const char *fact_key(uint32_t type) {
    return type == FCC(0xA9, 'd', 'a', 'y')   ? UDTA_CREATION_KEY
           : type == FCC(0xA9, 'x', 'y', 'z') ? UDTA_LOCATION_KEY
           : type == FCC(0xA9, 'm', 'a', 'k') ? UDTA_MAKE_KEY
           : type == FCC(0xA9, 'm', 'o', 'd') ? UDTA_MODEL_KEY
                                              : NULL;
}

/* Records the text of fact atom `type` under its Apple name, unless an item
 * of that name is there or the text is not of its shape (a date, an ISO 6709
 * location). The text stays in the moov buffer. */
static sy_status push_fact(sy_mov *m, uint32_t type, const uint8_t *text, size_t n, sy_error *err) {
    const char *key = fact_key(type);
    if (!key || !text || meta_has(m, key)) return SY_OK;
    if (type == FCC(0xA9, 'd', 'a', 'y') && !udta_date_ok(text, n)) return SY_OK;
    if (type == FCC(0xA9, 'x', 'y', 'z') && text[0] != '+' && text[0] != '-') return SY_OK;
    mov_meta_item it = {key, 1, text, n};
    return meta_push(m, &it, err);
}

sy_status sy__mov_parse_udta_facts(sy_mov *m, const sy_bmff_cursor *root, const sy_bmff_box *udta, sy_error *err) {
    sy_bmff_cursor uc;
    sy_bmff_box u;
    sy_status st = SY_OK;
    sy_bmff_cursor_children(&uc, root, udta, 0);
    while (st == SY_OK && sy_bmff_next(&uc, &u, NULL) == SY_OK && u.type) {
        size_t n = 0;
        if (u.type == FCC('l', 'o', 'c', 'i')) {
            if (!meta_has(m, UDTA_LOCATION_KEY)) st = udta_loci(m, &u, err);
        } else if (fact_key(u.type)) {
            st = push_fact(m, u.type, udta_text(m, &u, &n), n, err);
        }
    }
    return st;
}

/* An item list ('mdir' handler): items typed by their name (©day, ©xyz,
 * ©mak, ©mod), each value in a `data` box (u32 type, u32 locale, then UTF-8
 * text for type 1). The facts a udta text atom would state, under the same
 * Apple names: ffmpeg's MP4 keeps a video's date here (`-metadata date`,
 * exiftool's ItemList:ContentCreateDate), not in udta's ©day. */
static sy_status parse_item_list_facts(sy_mov *m, const sy_bmff_cursor *parent, const sy_bmff_box *ilst,
                                       sy_error *err) {
    sy_bmff_cursor ic, dc;
    sy_bmff_box item, d;
    sy_bmff_cursor_children(&ic, parent, ilst, 0);
    for (;;) {
        sy_status st = sy__mov_next_box(m, &ic, &item, err);
        if (st != SY_OK) return st;
        if (!item.type) break;
        if (!fact_key(item.type)) continue;
        sy_bmff_cursor_children(&dc, parent, &item, 0);
        do { /* its first `data` box */
            if ((st = sy__mov_next_box(m, &dc, &d, err)) != SY_OK) return st;
        } while (d.type && d.type != FCC('d', 'a', 't', 'a'));
        sy_bmff_span ds = span_of(m, &d);
        uint32_t type, locale;
        if (!d.type || !sy_bmff_u32(&ds, &type) || !sy_bmff_u32(&ds, &locale) || (type & 0xFFFFFFu) != 1) continue;
        size_t n = 0;
        const uint8_t *text = fact_text(ds.p, (size_t)SY__MIN(ds.left, (uint64_t)255), &n);
        if ((st = push_fact(m, item.type, text, n, err)) != SY_OK) return st;
    }
    return SY_OK;
}

/* ---- metadata ---- */

uint32_t sy_mov_metadata_count(const sy_mov *m) { return m ? m->meta_n : 0; }

sy_status sy_mov_metadata_at(const sy_mov *m, uint32_t index, const char **key, uint32_t *type, const uint8_t **value,
                             size_t *len) {
    if (!m || index >= m->meta_n) return SY_E_USAGE;
    const mov_meta_item *it = &m->meta[index];
    if (key) *key = it->key;
    if (type) *type = it->type;
    if (value) *value = it->value;
    if (len) *len = it->len;
    return SY_OK;
}

int32_t sy_mov_metadata_find(const sy_mov *m, const char *key) {
    if (!m || !key) return -1;
    for (uint32_t i = 0; i < m->meta_n; i++)
        if (strcmp(m->meta[i].key, key) == 0) return (int32_t)i;
    return -1;
}

uint32_t sy_mov_mebx_key_count(const sy_mov *m, uint32_t track) {
    return m && track < m->info.track_count ? m->tracks[track].info.mebx_key_count : 0;
}

const sy_mov_mebx_key *sy_mov_mebx_key_at(const sy_mov *m, uint32_t track, uint32_t index) {
    if (!m || track >= m->info.track_count || index >= m->tracks[track].info.mebx_key_count) return NULL;
    return &m->tracks[track].mebx[index];
}
