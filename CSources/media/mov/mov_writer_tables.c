/* mov_writer_tables.c — per-track sample bookkeeping of the muxer and the
 * stbl tables streamed from it at finish.
 *
 * Memory per sample is what the tables need and no more: durations and
 * composition offsets are run-length coded as they arrive, sizes are one
 * number until two samples differ (PCM audio stays at one number), the sync
 * list exists only once a non-sync sample arrived, and chunks cost 12 bytes.
 * The lists grow in blocks (never copied), and the tables go to the file
 * through a small staging buffer, so finish needs no second copy of them.
 */
#include <string.h>

#include "mov/sy_mov_writer_internal.h"

/* ---- block lists ---- */

sy_status mw__vec_push(sy_context *ctx, mw_vec *v, size_t elem, const void *value, const char *reason, sy_error *err) {
    if (!v->tail || v->tail->count == v->tail->cap) {
        uint32_t most = (uint32_t)(MW_BLOCK_BYTES / elem);
        uint32_t cap = v->tail ? SY__MIN(v->tail->cap * 2, most) : SY__MIN(32u, most);
        mw_block *b = sy__alloc(ctx, sizeof(mw_block) + (size_t)cap * elem, 1, reason, err);
        if (!b) return err ? err->code : SY_E_BUDGET;
        b->next = NULL;
        b->count = 0;
        b->cap = cap;
        if (v->tail) v->tail->next = b;
        else v->head = b;
        v->tail = b;
    }
    memcpy((uint8_t *)mw__block_data(v->tail) + (size_t)v->tail->count * elem, value, elem);
    v->tail->count++;
    v->n++;
    return SY_OK;
}

void mw__vec_free(sy_context *ctx, mw_vec *v) {
    for (mw_block *b = v->head, *next; b; b = next) {
        next = b->next;
        sy__free(ctx, b);
    }
    memset(v, 0, sizeof *v);
}

/* ---- bookkeeping ---- */

/* Extends the last run when it holds the same value, else starts one. */
static sy_status run_push(sy_context *ctx, mw_vec *runs, uint32_t value, const char *reason, sy_error *err) {
    mw_run *last = runs->n ? mw__vec_last(runs, sizeof *last) : NULL;
    if (last && last->value == value && last->count < UINT32_MAX) {
        last->count++;
        return SY_OK;
    }
    mw_run r = {1, value};
    return mw__vec_push(ctx, runs, sizeof r, &r, reason, err);
}

static sy_status record_size(sy_context *ctx, mw_track *t, uint32_t size, sy_error *err) {
    if (t->sample_count == 0) {
        t->const_size = size;
        return SY_OK;
    }
    if (!t->sizes_vary && size == t->const_size) return SY_OK;
    if (!t->sizes_vary) {
        /* first differing size: materialise the constant for the samples so far */
        for (uint32_t i = 0; i < t->sample_count; i++)
            MW_TRY(mw__vec_push(ctx, &t->sizes, sizeof t->const_size, &t->const_size, "mov writer sample sizes", err));
        t->sizes_vary = 1;
    }
    return mw__vec_push(ctx, &t->sizes, sizeof size, &size, "mov writer sample sizes", err);
}

static sy_status record_sync(sy_context *ctx, mw_track *t, int sync, sy_error *err) {
    if (t->all_sync && sync) return SY_OK;
    if (t->all_sync) {
        /* first non-sync sample: list every sample before it */
        for (uint32_t i = 1; i <= t->sample_count; i++)
            MW_TRY(mw__vec_push(ctx, &t->sync, sizeof i, &i, "mov writer sync samples", err));
        t->all_sync = 0;
    }
    if (!sync) return SY_OK;
    uint32_t number = t->sample_count + 1;
    return mw__vec_push(ctx, &t->sync, sizeof number, &number, "mov writer sync samples", err);
}

sy_status mw__track_add(sy_context *ctx, mw_track *t, uint64_t offset, int new_chunk, uint32_t size, uint32_t duration,
                        int32_t composition_offset, int sync, sy_error *err) {
    if (new_chunk) {
        uint32_t none = 0;
        MW_TRY(mw__vec_push(ctx, &t->chunk_offset, sizeof offset, &offset, "mov writer chunk offsets", err));
        MW_TRY(mw__vec_push(ctx, &t->chunk_samples, sizeof none, &none, "mov writer chunks", err));
        t->chunk_bytes = t->chunk_duration = 0;
    }
    MW_TRY(record_size(ctx, t, size, err));
    MW_TRY(record_sync(ctx, t, sync, err));
    MW_TRY(run_push(ctx, &t->stts, duration, "mov writer stts", err));
    MW_TRY(run_push(ctx, &t->ctts, (uint32_t)composition_offset, "mov writer ctts", err));
    if (composition_offset) t->ctts_nonzero = 1;
    if (composition_offset < 0) t->ctts_negative = 1;
    (*(uint32_t *)mw__vec_last(&t->chunk_samples, sizeof(uint32_t)))++;
    t->chunk_bytes += size;
    t->chunk_duration += duration;
    int64_t end = t->dts + composition_offset + (int64_t)duration;
    if (t->sample_count == 0 || end > t->pts_end) t->pts_end = end;
    t->dts += duration;
    t->media_duration += duration;
    t->sample_count++;
    return SY_OK;
}

/* ---- table shapes ---- */

/* stsc: one entry each time the samples-per-chunk count changes. */
static uint32_t stsc_entries(const mw_track *t) {
    uint32_t entries = 0, prev = 0;
    int first = 1;
    for (mw_block *b = t->chunk_samples.head; b; b = b->next) {
        const uint32_t *spc = mw__block_data(b);
        for (uint32_t i = 0; i < b->count; i++, first = 0)
            if (first || spc[i] != prev) entries++, prev = spc[i];
    }
    return entries;
}

/* stsz uses its constant-size form when every sample has the same non-zero size. */
static int stsz_constant(const mw_track *t) { return !t->sizes_vary && t->const_size != 0; }

/* co64 when a chunk starts past 4 GiB (offsets grow, so the last one decides). */
static int chunk_offsets_wide(const mw_track *t) {
    return t->chunk_offset.n && *(const uint64_t *)mw__vec_last(&t->chunk_offset, sizeof(uint64_t)) > UINT32_MAX;
}

uint64_t mw__tables_size(const mw_track *t) {
    uint64_t n = 16 + 8ull * t->stts.n;
    if (t->ctts_nonzero) n += 16 + 8ull * t->ctts.n;
    if (!t->all_sync) n += 16 + 4ull * t->sync.n;
    n += 16 + 12ull * stsc_entries(t);
    n += 20 + (stsz_constant(t) ? 0 : 4ull * t->sample_count);
    n += 16 + (chunk_offsets_wide(t) ? 8ull : 4ull) * t->chunk_offset.n;
    return n;
}

/* ---- streaming ---- */

typedef struct mw_sink {
    sy_mov_writer *w;
    uint8_t buf[8192];
    size_t len;
    uint64_t written; /* bytes emitted since the sink started */
} mw_sink;

static sy_status sink_flush(mw_sink *s, sy_error *err) {
    sy_status st = mw__put(s->w, s->buf, s->len, err);
    s->len = 0;
    return st;
}

static sy_status sink_u32(mw_sink *s, uint32_t v, sy_error *err) {
    if (s->len + 4 > sizeof s->buf) MW_TRY(sink_flush(s, err));
    uint8_t *p = s->buf + s->len;
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
    s->len += 4;
    s->written += 4;
    return SY_OK;
}

static sy_status sink_u64(mw_sink *s, uint64_t v, sy_error *err) {
    MW_TRY(sink_u32(s, (uint32_t)(v >> 32), err));
    return sink_u32(s, (uint32_t)v, err);
}

/* A full box header (version 0/1, flags 0) of a table of `count` entries of `entry` bytes. */
static sy_status sink_table(mw_sink *s, uint32_t type, int version, uint64_t count, uint32_t entry, sy_error *err) {
    MW_TRY(sink_u32(s, (uint32_t)(16 + count * entry), err));
    MW_TRY(sink_u32(s, type, err));
    MW_TRY(sink_u32(s, (uint32_t)version << 24, err));
    return sink_u32(s, (uint32_t)count, err);
}

static sy_status sink_runs(mw_sink *s, uint32_t type, int version, const mw_vec *runs, sy_error *err) {
    MW_TRY(sink_table(s, type, version, runs->n, 8, err));
    for (mw_block *b = runs->head; b; b = b->next) {
        const mw_run *r = mw__block_data(b);
        for (uint32_t i = 0; i < b->count; i++) {
            MW_TRY(sink_u32(s, r[i].count, err));
            MW_TRY(sink_u32(s, r[i].value, err));
        }
    }
    return SY_OK;
}

static sy_status sink_u32s(mw_sink *s, const mw_vec *v, sy_error *err) {
    for (mw_block *b = v->head; b; b = b->next) {
        const uint32_t *x = mw__block_data(b);
        for (uint32_t i = 0; i < b->count; i++) MW_TRY(sink_u32(s, x[i], err));
    }
    return SY_OK;
}

static sy_status sink_stsc(mw_sink *s, const mw_track *t, sy_error *err) {
    MW_TRY(sink_table(s, MW_FCC('s', 't', 's', 'c'), 0, stsc_entries(t), 12, err));
    uint32_t chunk = 1, prev = 0;
    for (mw_block *b = t->chunk_samples.head; b; b = b->next) {
        const uint32_t *spc = mw__block_data(b);
        for (uint32_t i = 0; i < b->count; i++, chunk++) {
            if (chunk > 1 && spc[i] == prev) continue;
            MW_TRY(sink_u32(s, chunk, err));
            MW_TRY(sink_u32(s, spc[i], err));
            MW_TRY(sink_u32(s, 1, err)); /* sample description index */
            prev = spc[i];
        }
    }
    return SY_OK;
}

static sy_status sink_stsz(mw_sink *s, const mw_track *t, sy_error *err) {
    const int constant = stsz_constant(t);
    MW_TRY(sink_u32(s, (uint32_t)(20 + (constant ? 0 : 4ull * t->sample_count)), err));
    MW_TRY(sink_u32(s, MW_FCC('s', 't', 's', 'z'), err));
    MW_TRY(sink_u32(s, 0, err));
    MW_TRY(sink_u32(s, constant ? t->const_size : 0, err));
    MW_TRY(sink_u32(s, t->sample_count, err));
    if (constant) return SY_OK;
    if (t->sizes_vary) return sink_u32s(s, &t->sizes, err);
    for (uint32_t i = 0; i < t->sample_count; i++) MW_TRY(sink_u32(s, 0, err)); /* every sample empty */
    return SY_OK;
}

static sy_status sink_chunk_offsets(mw_sink *s, const mw_track *t, sy_error *err) {
    const int wide = chunk_offsets_wide(t);
    MW_TRY(sink_table(s, wide ? MW_FCC('c', 'o', '6', '4') : MW_FCC('s', 't', 'c', 'o'), 0, t->chunk_offset.n,
                      wide ? 8 : 4, err));
    for (mw_block *b = t->chunk_offset.head; b; b = b->next) {
        const uint64_t *off = mw__block_data(b);
        for (uint32_t i = 0; i < b->count; i++)
            MW_TRY(wide ? sink_u64(s, off[i], err) : sink_u32(s, (uint32_t)off[i], err));
    }
    return SY_OK;
}

static sy_status tables(mw_sink *s, const mw_track *t, sy_error *err) {
    MW_TRY(sink_runs(s, MW_FCC('s', 't', 't', 's'), 0, &t->stts, err));
    /* ctts only when some sample is presented off its decode time; version 1
     * (signed offsets) only when one is negative */
    if (t->ctts_nonzero) MW_TRY(sink_runs(s, MW_FCC('c', 't', 't', 's'), t->ctts_negative ? 1 : 0, &t->ctts, err));
    if (!t->all_sync) {
        MW_TRY(sink_table(s, MW_FCC('s', 't', 's', 's'), 0, t->sync.n, 4, err));
        MW_TRY(sink_u32s(s, &t->sync, err));
    }
    MW_TRY(sink_stsc(s, t, err));
    MW_TRY(sink_stsz(s, t, err));
    MW_TRY(sink_chunk_offsets(s, t, err));
    return sink_flush(s, err);
}

sy_status mw__write_tables(sy_mov_writer *w, const mw_track *t, sy_error *err) {
    mw_sink *s = sy__alloc(w->ctx, 1, sizeof *s, "mov writer table buffer", err);
    if (!s) return err ? err->code : SY_E_BUDGET;
    s->w = w;
    s->len = 0;
    s->written = 0;
    sy_status st = tables(s, t, err);
    /* the enclosing boxes were sized with mw__tables_size: both must agree */
    if (st == SY_OK && s->written != mw__tables_size(t))
        st = sy__fail(err, SY_E_USAGE, "mov writer: track %u tables wrote %llu bytes, expected %llu (internal error)",
                      t->id, (unsigned long long)s->written, (unsigned long long)mw__tables_size(t));
    sy__free(w->ctx, s);
    return st;
}

void mw__track_free(sy_context *ctx, mw_track *t) {
    sy__free(ctx, t->entry);
    t->entry = NULL;
    sy__free(ctx, t->meta);
    t->meta = NULL;
    sy__free(ctx, t->edit_list);
    t->edit_list = NULL;
    mw__vec_free(ctx, &t->sizes);
    mw__vec_free(ctx, &t->stts);
    mw__vec_free(ctx, &t->ctts);
    mw__vec_free(ctx, &t->sync);
    mw__vec_free(ctx, &t->chunk_offset);
    mw__vec_free(ctx, &t->chunk_samples);
}
