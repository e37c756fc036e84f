/* mov_writer_tables.c — per-track sample bookkeeping of the muxer and the
 * stbl tables written from it.
 *
 * Memory per sample is what the tables need and no more: durations and
 * composition offsets are run-length coded as they arrive, sizes are one
 * number until two samples differ (PCM audio stays at one number), the sync
 * list exists only once a non-sync sample arrived, and chunks cost 12 bytes.
 */
#include <string.h>

#include "mov_writer_internal.h"

sy_status mw__vec_push(sy_context *ctx, mw_vec *v, size_t elem, const void *value, const char *reason, sy_error *err) {
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 64;
        uint8_t *grown = sy__alloc(ctx, cap, elem, reason, err);
        if (!grown) return err ? err->code : SY_E_BUDGET;
        if (v->n) memcpy(grown, v->data, v->n * elem);
        sy__free(ctx, v->data);
        v->data = grown;
        v->cap = cap;
    }
    memcpy((uint8_t *)v->data + v->n * elem, value, elem);
    v->n++;
    return SY_OK;
}

void mw__vec_free(sy_context *ctx, mw_vec *v) {
    sy__free(ctx, v->data);
    memset(v, 0, sizeof *v);
}

/* Extends the last run when it holds the same value, else starts one. */
static sy_status run_push(sy_context *ctx, mw_vec *runs, uint32_t value, const char *reason, sy_error *err) {
    mw_run *last = runs->n ? (mw_run *)runs->data + runs->n - 1 : NULL;
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
    ((uint32_t *)t->chunk_samples.data)[t->chunk_samples.n - 1]++;
    t->chunk_bytes += size;
    t->chunk_duration += duration;
    int64_t end = t->dts + composition_offset + (int64_t)duration;
    if (t->sample_count == 0 || end > t->pts_end) t->pts_end = end;
    t->dts += duration;
    t->media_duration += duration;
    t->sample_count++;
    return SY_OK;
}

/* ---- tables ---- */

static sy_status write_runs(sy_bmff_writer *b, uint32_t type, int version, const mw_vec *runs, sy_error *err) {
    MW_TRY(sy_bmff_writer_begin(b, type, version, 0, err));
    MW_TRY(sy_bmff_writer_u32(b, (uint32_t)runs->n, err));
    const mw_run *r = runs->data;
    for (size_t i = 0; i < runs->n; i++) {
        MW_TRY(sy_bmff_writer_u32(b, r[i].count, err));
        MW_TRY(sy_bmff_writer_u32(b, r[i].value, err));
    }
    return sy_bmff_writer_end(b, err);
}

/* stsc: one entry each time the samples-per-chunk count changes. */
static sy_status write_stsc(sy_bmff_writer *b, const mw_track *t, sy_error *err) {
    const uint32_t *spc = t->chunk_samples.data;
    uint32_t entries = 0;
    for (size_t c = 0; c < t->chunk_samples.n; c++)
        if (c == 0 || spc[c] != spc[c - 1]) entries++;
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('s', 't', 's', 'c'), 0, 0, err));
    MW_TRY(sy_bmff_writer_u32(b, entries, err));
    for (size_t c = 0; c < t->chunk_samples.n; c++) {
        if (c > 0 && spc[c] == spc[c - 1]) continue;
        MW_TRY(sy_bmff_writer_u32(b, (uint32_t)c + 1, err));
        MW_TRY(sy_bmff_writer_u32(b, spc[c], err));
        MW_TRY(sy_bmff_writer_u32(b, 1, err)); /* sample description index */
    }
    return sy_bmff_writer_end(b, err);
}

/* stsz: the constant-size form when every sample has the same non-zero size. */
static sy_status write_stsz(sy_bmff_writer *b, const mw_track *t, sy_error *err) {
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('s', 't', 's', 'z'), 0, 0, err));
    int constant = !t->sizes_vary && t->const_size != 0;
    MW_TRY(sy_bmff_writer_u32(b, constant ? t->const_size : 0, err));
    MW_TRY(sy_bmff_writer_u32(b, t->sample_count, err));
    if (!constant) {
        const uint32_t *sizes = t->sizes.data;
        for (uint32_t i = 0; i < t->sample_count; i++)
            MW_TRY(sy_bmff_writer_u32(b, t->sizes_vary ? sizes[i] : 0, err));
    }
    return sy_bmff_writer_end(b, err);
}

/* stco, or co64 when a chunk starts past 4 GiB. */
static sy_status write_chunk_offsets(sy_bmff_writer *b, const mw_track *t, sy_error *err) {
    const uint64_t *off = t->chunk_offset.data;
    int wide = 0;
    for (size_t c = 0; c < t->chunk_offset.n; c++) wide |= off[c] > UINT32_MAX;
    MW_TRY(sy_bmff_writer_begin(b, wide ? MW_FCC('c', 'o', '6', '4') : MW_FCC('s', 't', 'c', 'o'), 0, 0, err));
    MW_TRY(sy_bmff_writer_u32(b, (uint32_t)t->chunk_offset.n, err));
    for (size_t c = 0; c < t->chunk_offset.n; c++)
        MW_TRY(wide ? sy_bmff_writer_u64(b, off[c], err) : sy_bmff_writer_u32(b, (uint32_t)off[c], err));
    return sy_bmff_writer_end(b, err);
}

sy_status mw__write_tables(sy_bmff_writer *b, const mw_track *t, sy_error *err) {
    MW_TRY(write_runs(b, MW_FCC('s', 't', 't', 's'), 0, &t->stts, err));
    /* ctts only when some sample is presented off its decode time; version 1
     * (signed offsets) only when one is negative */
    if (t->ctts_nonzero) MW_TRY(write_runs(b, MW_FCC('c', 't', 't', 's'), t->ctts_negative ? 1 : 0, &t->ctts, err));
    if (!t->all_sync) {
        MW_TRY(sy_bmff_writer_begin(b, MW_FCC('s', 't', 's', 's'), 0, 0, err));
        MW_TRY(sy_bmff_writer_u32(b, (uint32_t)t->sync.n, err));
        const uint32_t *s = t->sync.data;
        for (size_t i = 0; i < t->sync.n; i++) MW_TRY(sy_bmff_writer_u32(b, s[i], err));
        MW_TRY(sy_bmff_writer_end(b, err));
    }
    MW_TRY(write_stsc(b, t, err));
    MW_TRY(write_stsz(b, t, err));
    return write_chunk_offsets(b, t, err);
}

void mw__track_free(sy_context *ctx, mw_track *t) {
    sy__free(ctx, t->entry);
    t->entry = NULL;
    mw__vec_free(ctx, &t->sizes);
    mw__vec_free(ctx, &t->stts);
    mw__vec_free(ctx, &t->ctts);
    mw__vec_free(ctx, &t->sync);
    mw__vec_free(ctx, &t->chunk_offset);
    mw__vec_free(ctx, &t->chunk_samples);
}
