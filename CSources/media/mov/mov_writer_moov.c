/* mov_writer_moov.c — appends the muxer's `moov` to the file:
 *
 *   mvhd · trak per track (tkhd [tref cdsc] [edts/elst] mdia(mdhd hdlr minf) [meta]) · [meta]
 *
 * Each piece is built with the bmff writer and written out at once; a trak's
 * boxes are sized ahead for its sample tables, which mov_writer_tables.c then
 * streams behind the head, so finish never holds the tables twice.
 *
 * QuickTime (.mov) follows what iPhones write (live-photo.md §4): handlers
 * 'mhlr' + a data handler 'dhlr' 'alis' in minf, dref 'alis' self-contained,
 * vmhd graphics mode 0x40, gmhd/gmin for metadata tracks, tkhd flags 0xF.
 * ISO (.mp4) uses the plain forms: hdlr with a C-string name, dref 'url ',
 * nmhd for metadata tracks, tkhd flags 3 (ISO gives 8 another meaning).
 * Version-1 headers appear only when a duration outgrows 32 bits.
 */
#include <string.h>

#include "mov/sy_mov_writer_internal.h"

/* media units -> movie units, rounded to nearest, saturating. */
static uint64_t rescale(uint64_t v, uint32_t from, uint32_t to) {
    if (from == to || from == 0) return v;
    unsigned __int128 x = ((unsigned __int128)v * to + from / 2) / from;
    return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

static const int32_t identity[9] = {0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000};

/* ---- edits ---- */

typedef sy_mov_writer_edit mw_edit;

/* The track's edits, at most SY_MOV_WRITER_MAX_EDITS (*list points at them):
 * set_edit_list's as given; else [empty edit] + one edit playing from
 * media_time to the end of presentation. Default: one edit from 0 (none for
 * mebx). */
static uint32_t track_edits(const sy_mov_writer *w, const mw_track *t, mw_edit out[2], const mw_edit **list) {
    *list = out;
    if (t->edit_list_count) {
        *list = t->edit_list;
        return t->edit_list_count;
    }
    uint32_t n = 0;
    if (!t->has_edit && t->kind == MW_MEBX) return 0;
    if (t->has_edit && t->empty_ticks) out[n++] = (mw_edit){t->empty_ticks, -1, 0x10000};
    int64_t start = t->has_edit ? t->media_time : 0;
    if (t->sample_count) {
        int64_t end = t->presentation_end > 0 ? t->presentation_end : t->pts_end;
        uint64_t span = end > start ? (uint64_t)(end - start) : 0;
        out[n++] = (mw_edit){rescale(span, t->timescale, w->movie_timescale), start, 0x10000};
    }
    return n;
}

static uint64_t track_duration(const sy_mov_writer *w, const mw_track *t) {
    mw_edit spare[2];
    const mw_edit *e;
    uint32_t n = track_edits(w, t, spare, &e);
    if (!n) return rescale(t->media_duration, t->timescale, w->movie_timescale);
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) sum = e[i].segment > UINT64_MAX - sum ? UINT64_MAX : sum + e[i].segment;
    return sum;
}

/* ---- small pieces ---- */

static sy_status put_matrix(sy_bmff_writer *b, const int32_t m[9], sy_error *err) {
    int zero = 1;
    for (int i = 0; i < 9; i++) zero &= m[i] == 0;
    for (int i = 0; i < 9; i++) MW_TRY(sy_bmff_writer_u32(b, (uint32_t)(zero ? identity[i] : m[i]), err));
    return SY_OK;
}

/* creation + modification time: the options' (the source movie's, so an
 * edit keeps when it was shot; 0 = deterministic output). A time past 32 bits
 * in a version-0 box is left out rather than wrapped. */
static sy_status put_times(const sy_mov_writer *w, sy_bmff_writer *b, int v1, sy_error *err) {
    uint64_t t = w->creation_time;
    if (v1) {
        MW_TRY(sy_bmff_writer_u64(b, t, err));
        return sy_bmff_writer_u64(b, t, err);
    }
    uint32_t t32 = t > UINT32_MAX ? 0 : (uint32_t)t;
    MW_TRY(sy_bmff_writer_u32(b, t32, err));
    return sy_bmff_writer_u32(b, t32, err);
}

static sy_status put_duration(sy_bmff_writer *b, int v1, uint64_t d, sy_error *err) {
    return v1 ? sy_bmff_writer_u64(b, d, err) : sy_bmff_writer_u32(b, (uint32_t)d, err);
}

/* QuickTime: component type/subtype/manufacturer/flags/mask + Pascal name;
 * ISO: pre_defined, handler, 3 reserved + C-string name. */
static sy_status put_hdlr(sy_bmff_writer *b, int qt, uint32_t component, uint32_t subtype, uint32_t flags,
                          const char *name, sy_error *err) {
    size_t len = strlen(name);
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('h', 'd', 'l', 'r'), 0, 0, err));
    MW_TRY(sy_bmff_writer_u32(b, qt ? component : 0, err));
    MW_TRY(sy_bmff_writer_u32(b, subtype, err));
    MW_TRY(sy_bmff_writer_u32(b, qt ? MW_FCC('a', 'p', 'p', 'l') : 0, err));
    MW_TRY(sy_bmff_writer_u32(b, qt ? flags : 0, err));
    MW_TRY(sy_bmff_writer_u32(b, 0, err));
    if (qt) {
        MW_TRY(sy_bmff_writer_u8(b, (uint8_t)len, err));
        MW_TRY(sy_bmff_writer_bytes(b, name, len, err));
    } else {
        MW_TRY(sy_bmff_writer_bytes(b, name, len + 1, err));
    }
    return sy_bmff_writer_end(b, err);
}

static const char *handler_name(int qt, uint32_t handler) {
    switch (handler) {
    case MW_FCC('v', 'i', 'd', 'e'): return qt ? "Core Media Video" : "VideoHandler";
    case MW_FCC('s', 'o', 'u', 'n'): return qt ? "Core Media Audio" : "SoundHandler";
    case MW_FCC('m', 'e', 't', 'a'): return qt ? "Core Media Metadata" : "MetadataHandler";
    default: return qt ? "Core Media Data" : "DataHandler";
    }
}

/* ---- mvhd ---- */

static sy_status put_mvhd(const sy_mov_writer *w, sy_bmff_writer *b, sy_error *err) {
    uint64_t duration = 0;
    for (uint32_t i = 0; i < w->track_count; i++) duration = SY__MAX(duration, track_duration(w, &w->tracks[i]));
    const int v1 = duration > UINT32_MAX;
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('m', 'v', 'h', 'd'), v1, 0, err));
    MW_TRY(put_times(w, b, v1, err));
    MW_TRY(sy_bmff_writer_u32(b, w->movie_timescale, err));
    MW_TRY(put_duration(b, v1, duration, err));
    MW_TRY(sy_bmff_writer_u32(b, 0x00010000, err)); /* rate 1.0 */
    MW_TRY(sy_bmff_writer_u16(b, 0x0100, err));     /* volume 1.0 */
    static const uint8_t reserved[10] = {0};
    MW_TRY(sy_bmff_writer_bytes(b, reserved, sizeof reserved, err));
    MW_TRY(put_matrix(b, identity, err));
    for (int i = 0; i < 6; i++) MW_TRY(sy_bmff_writer_u32(b, 0, err)); /* preview/poster/selection/current time */
    MW_TRY(sy_bmff_writer_u32(b, w->track_count + 1, err));            /* next_track_ID */
    return sy_bmff_writer_end(b, err);
}

/* ---- trak ---- */

static sy_status put_tkhd(const sy_mov_writer *w, const mw_track *t, sy_bmff_writer *b, sy_error *err) {
    const uint64_t duration = track_duration(w, t);
    const int v1 = duration > UINT32_MAX;
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('t', 'k', 'h', 'd'), v1, t->tkhd_flags, err));
    MW_TRY(put_times(w, b, v1, err));
    MW_TRY(sy_bmff_writer_u32(b, t->id, err));
    MW_TRY(sy_bmff_writer_u32(b, 0, err));
    MW_TRY(put_duration(b, v1, duration, err));
    MW_TRY(sy_bmff_writer_u64(b, 0, err));
    MW_TRY(sy_bmff_writer_u16(b, (uint16_t)t->layer, err));
    MW_TRY(sy_bmff_writer_u16(b, (uint16_t)t->alternate_group, err));
    MW_TRY(sy_bmff_writer_u16(b, t->volume, err));
    MW_TRY(sy_bmff_writer_u16(b, 0, err));
    MW_TRY(put_matrix(b, t->matrix, err));
    MW_TRY(sy_bmff_writer_u32(b, t->width, err));
    MW_TRY(sy_bmff_writer_u32(b, t->height, err));
    return sy_bmff_writer_end(b, err);
}

static sy_status put_edts(const sy_mov_writer *w, const mw_track *t, sy_bmff_writer *b, sy_error *err) {
    mw_edit spare[2];
    const mw_edit *e;
    uint32_t n = track_edits(w, t, spare, &e);
    if (!n) return SY_OK;
    int v1 = 0;
    for (uint32_t i = 0; i < n; i++) v1 |= e[i].segment > UINT32_MAX || e[i].media_time > INT32_MAX;
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('e', 'd', 't', 's'), -1, 0, err));
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('e', 'l', 's', 't'), v1, 0, err));
    MW_TRY(sy_bmff_writer_u32(b, n, err));
    for (uint32_t i = 0; i < n; i++) {
        if (v1) {
            MW_TRY(sy_bmff_writer_u64(b, e[i].segment, err));
            MW_TRY(sy_bmff_writer_u64(b, (uint64_t)e[i].media_time, err));
        } else {
            MW_TRY(sy_bmff_writer_u32(b, (uint32_t)e[i].segment, err));
            MW_TRY(sy_bmff_writer_u32(b, (uint32_t)(int32_t)e[i].media_time, err));
        }
        MW_TRY(sy_bmff_writer_u32(b, (uint32_t)e[i].rate, err)); /* 16.16; 1.0 but in a copied list */
    }
    MW_TRY(sy_bmff_writer_end(b, err));
    return sy_bmff_writer_end(b, err);
}

static sy_status put_media_header(const sy_mov_writer *w, const mw_track *t, sy_bmff_writer *b, sy_error *err) {
    if (t->handler == MW_FCC('v', 'i', 'd', 'e')) {
        MW_TRY(sy_bmff_writer_begin(b, MW_FCC('v', 'm', 'h', 'd'), 0, 1, err));
        MW_TRY(sy_bmff_writer_u16(b, w->qt ? 0x0040 : 0, err)); /* graphics mode: QuickTime dither copy */
        for (int i = 0; i < 3; i++) MW_TRY(sy_bmff_writer_u16(b, w->qt ? 0x8000 : 0, err));
        return sy_bmff_writer_end(b, err);
    }
    if (t->handler == MW_FCC('s', 'o', 'u', 'n')) {
        MW_TRY(sy_bmff_writer_begin(b, MW_FCC('s', 'm', 'h', 'd'), 0, 0, err));
        MW_TRY(sy_bmff_writer_u32(b, 0, err)); /* balance, reserved */
        return sy_bmff_writer_end(b, err);
    }
    if (!w->qt) {
        MW_TRY(sy_bmff_writer_begin(b, MW_FCC('n', 'm', 'h', 'd'), 0, 0, err));
        return sy_bmff_writer_end(b, err);
    }
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('g', 'm', 'h', 'd'), -1, 0, err));
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('g', 'm', 'i', 'n'), 0, 0, err));
    MW_TRY(sy_bmff_writer_u16(b, 0x0040, err));
    for (int i = 0; i < 3; i++) MW_TRY(sy_bmff_writer_u16(b, 0x8000, err));
    MW_TRY(sy_bmff_writer_u16(b, 0, err)); /* balance */
    MW_TRY(sy_bmff_writer_u16(b, 0, err)); /* reserved */
    MW_TRY(sy_bmff_writer_end(b, err));
    return sy_bmff_writer_end(b, err);
}

/* An open box whose size is patched by close_box (the stbl tables that
 * follow in the file count towards it). */
static sy_status open_box(sy_bmff_writer *b, uint32_t type, size_t *at, sy_error *err) {
    *at = sy_bmff_writer_length(b);
    MW_TRY(sy_bmff_writer_u32(b, 0, err));
    return sy_bmff_writer_u32(b, type, err);
}

static sy_status close_box(sy_bmff_writer *b, size_t at, uint64_t trailing, uint32_t track_id, sy_error *err) {
    uint64_t size = (uint64_t)(sy_bmff_writer_length(b) - at) + trailing;
    if (size > UINT32_MAX)
        return sy__fail(err, SY_E_UNSUPPORTED, "mov writer: track %u sample tables exceed 4 GiB", track_id);
    uint8_t *p = sy_bmff_writer_at(b, at);
    p[0] = (uint8_t)(size >> 24), p[1] = (uint8_t)(size >> 16), p[2] = (uint8_t)(size >> 8), p[3] = (uint8_t)size;
    return SY_OK;
}

static sy_status put_dinf(const sy_mov_writer *w, sy_bmff_writer *b, sy_error *err) {
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('d', 'i', 'n', 'f'), -1, 0, err));
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('d', 'r', 'e', 'f'), 0, 0, err));
    MW_TRY(sy_bmff_writer_u32(b, 1, err));
    /* flag 1: the media data is in this file */
    MW_TRY(sy_bmff_writer_begin(b, w->qt ? MW_FCC('a', 'l', 'i', 's') : MW_FCC('u', 'r', 'l', ' '), 0, 1, err));
    MW_TRY(sy_bmff_writer_end(b, err));
    MW_TRY(sy_bmff_writer_end(b, err));
    return sy_bmff_writer_end(b, err);
}

static sy_status put_mdhd(const sy_mov_writer *w, const mw_track *t, sy_bmff_writer *b, sy_error *err) {
    const int v1 = t->media_duration > UINT32_MAX;
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('m', 'd', 'h', 'd'), v1, 0, err));
    MW_TRY(put_times(w, b, v1, err));
    MW_TRY(sy_bmff_writer_u32(b, t->timescale, err));
    MW_TRY(put_duration(b, v1, t->media_duration, err));
    MW_TRY(sy_bmff_writer_u16(b, t->language, err));
    MW_TRY(sy_bmff_writer_u16(b, 0, err)); /* quality / pre_defined */
    return sy_bmff_writer_end(b, err);
}

/* trak up to stsd; trak, mdia, minf and stbl are sized to include the
 * `tables` bytes that follow (trak also the track's own meta box, written
 * after them: Apple's place for it, behind mdia). */
static sy_status trak_head(const sy_mov_writer *w, const mw_track *t, uint64_t tables, sy_bmff_writer *b,
                           sy_error *err) {
    size_t trak, mdia, minf, stbl;
    MW_TRY(open_box(b, MW_FCC('t', 'r', 'a', 'k'), &trak, err));
    MW_TRY(put_tkhd(w, t, b, err));
    if (t->describes) {
        MW_TRY(sy_bmff_writer_begin(b, MW_FCC('t', 'r', 'e', 'f'), -1, 0, err));
        MW_TRY(sy_bmff_writer_begin(b, MW_FCC('c', 'd', 's', 'c'), -1, 0, err));
        MW_TRY(sy_bmff_writer_u32(b, t->describes, err));
        MW_TRY(sy_bmff_writer_end(b, err));
        MW_TRY(sy_bmff_writer_end(b, err));
    }
    MW_TRY(put_edts(w, t, b, err));
    MW_TRY(open_box(b, MW_FCC('m', 'd', 'i', 'a'), &mdia, err));
    MW_TRY(put_mdhd(w, t, b, err));
    /* Apple marks its metadata media handlers with component flag 1 */
    const uint32_t flags = t->handler == MW_FCC('m', 'e', 't', 'a') ? 1 : 0;
    const char *name = t->handler_name[0] ? t->handler_name : handler_name(w->qt, t->handler);
    MW_TRY(put_hdlr(b, w->qt, MW_FCC('m', 'h', 'l', 'r'), t->handler, flags, name, err));
    MW_TRY(open_box(b, MW_FCC('m', 'i', 'n', 'f'), &minf, err));
    MW_TRY(put_media_header(w, t, b, err));
    if (w->qt)
        MW_TRY(put_hdlr(b, 1, MW_FCC('d', 'h', 'l', 'r'), MW_FCC('a', 'l', 'i', 's'), 0, "Core Media Data Handler", err));
    MW_TRY(put_dinf(w, b, err));
    MW_TRY(open_box(b, MW_FCC('s', 't', 'b', 'l'), &stbl, err));
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('s', 't', 's', 'd'), 0, 0, err));
    MW_TRY(sy_bmff_writer_u32(b, 1, err));
    MW_TRY(sy_bmff_writer_bytes(b, t->entry, t->entry_len, err));
    MW_TRY(sy_bmff_writer_end(b, err));
    MW_TRY(close_box(b, stbl, tables, t->id, err));
    MW_TRY(close_box(b, minf, tables, t->id, err));
    MW_TRY(close_box(b, mdia, tables, t->id, err));
    return close_box(b, trak, tables + t->meta_len, t->id, err);
}

/* ---- moov/meta, QuickTime form (live-photo.md §4.2) ---- */

static sy_status put_meta(const sy_mov_writer *w, sy_bmff_writer *b, sy_error *err) {
    const uint32_t n = (uint32_t)w->meta.n;
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('m', 'e', 't', 'a'), -1, 0, err)); /* no version/flags in QuickTime */
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('h', 'd', 'l', 'r'), 0, 0, err));
    MW_TRY(sy_bmff_writer_u32(b, 0, err));
    MW_TRY(sy_bmff_writer_u32(b, MW_FCC('m', 'd', 't', 'a'), err));
    static const uint8_t zeros[14] = {0}; /* 12 reserved + an empty name as Apple writes it */
    MW_TRY(sy_bmff_writer_bytes(b, zeros, sizeof zeros, err));
    MW_TRY(sy_bmff_writer_end(b, err));
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('k', 'e', 'y', 's'), 0, 0, err));
    MW_TRY(sy_bmff_writer_u32(b, n, err));
    for (mw_block *blk = w->meta.head; blk; blk = blk->next) {
        const mw_meta_item *items = mw__block_data(blk);
        for (uint32_t i = 0; i < blk->count; i++) {
            size_t len = strlen(items[i].key);
            MW_TRY(sy_bmff_writer_u32(b, (uint32_t)(8 + len), err));
            MW_TRY(sy_bmff_writer_u32(b, MW_FCC('m', 'd', 't', 'a'), err));
            MW_TRY(sy_bmff_writer_bytes(b, items[i].key, len, err));
        }
    }
    MW_TRY(sy_bmff_writer_end(b, err));
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('i', 'l', 's', 't'), -1, 0, err));
    uint32_t index = 0;
    for (mw_block *blk = w->meta.head; blk; blk = blk->next) {
        const mw_meta_item *items = mw__block_data(blk);
        for (uint32_t i = 0; i < blk->count; i++) {
            MW_TRY(sy_bmff_writer_begin(b, ++index, -1, 0, err)); /* 1-based key index */
            MW_TRY(sy_bmff_writer_begin(b, MW_FCC('d', 'a', 't', 'a'), -1, 0, err));
            MW_TRY(sy_bmff_writer_u32(b, items[i].type & 0xFFFFFFu, err)); /* type indicator, byte 0 = 0 */
            MW_TRY(sy_bmff_writer_u32(b, 0, err));                         /* locale: any */
            MW_TRY(sy_bmff_writer_bytes(b, items[i].value, items[i].len, err));
            MW_TRY(sy_bmff_writer_end(b, err));
            MW_TRY(sy_bmff_writer_end(b, err));
        }
    }
    MW_TRY(sy_bmff_writer_end(b, err));
    return sy_bmff_writer_end(b, err);
}

/* Writes what the bmff writer `build` produces, then frees it. */
static sy_status emit(sy_mov_writer *w, sy_status (*build)(sy_mov_writer *, const void *, sy_bmff_writer *, sy_error *),
                      const void *arg, sy_error *err) {
    sy_bmff_writer *b = NULL;
    sy_status st = sy_bmff_writer_create(w->ctx, &b, err);
    if (st == SY_OK) st = build(w, arg, b, err);
    if (st == SY_OK) st = mw__put(w, sy_bmff_writer_data(b), sy_bmff_writer_length(b), err);
    sy_bmff_writer_destroy(b);
    return st;
}

static sy_status build_mvhd(sy_mov_writer *w, const void *arg, sy_bmff_writer *b, sy_error *err) {
    (void)arg;
    return put_mvhd(w, b, err);
}

static sy_status build_trak_head(sy_mov_writer *w, const void *arg, sy_bmff_writer *b, sy_error *err) {
    const mw_track *t = arg;
    return trak_head(w, t, mw__tables_size(t), b, err);
}

static sy_status build_meta(sy_mov_writer *w, const void *arg, sy_bmff_writer *b, sy_error *err) {
    (void)arg;
    return put_meta(w, b, err);
}

sy_status mw__write_moov(sy_mov_writer *w, sy_error *err) {
    const uint64_t start = w->pos;
    static const uint8_t header[8] = {0, 0, 0, 0, 'm', 'o', 'o', 'v'};
    MW_TRY(mw__put(w, header, sizeof header, err));
    MW_TRY(emit(w, build_mvhd, NULL, err));
    for (uint32_t i = 0; i < w->track_count; i++) {
        MW_TRY(emit(w, build_trak_head, &w->tracks[i], err));
        MW_TRY(mw__write_tables(w, &w->tracks[i], err));
        MW_TRY(mw__put(w, w->tracks[i].meta, w->tracks[i].meta_len, err));
    }
    if (w->meta.n) MW_TRY(emit(w, build_meta, NULL, err));
    const uint64_t size = w->pos - start;
    if (size > UINT32_MAX)
        return sy__fail(err, SY_E_UNSUPPORTED, "mov writer: moov of %llu bytes exceeds 4 GiB", (unsigned long long)size);
    const uint8_t be[4] = {(uint8_t)(size >> 24), (uint8_t)(size >> 16), (uint8_t)(size >> 8), (uint8_t)size};
    return mw__put_at(w, start, be, sizeof be, err);
}
