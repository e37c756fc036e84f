/* mov_demux_samples.c — a track's samples for the demuxer (mov_demux.c): the
 * first lookup builds a small index from the sample tables (stts run
 * starts, ctts run starts, chunk -> first sample, sorted stss), bounded by
 * the table bytes rather than the sample count; then a sample's timing,
 * offset and size, the keyframes, and reading one sample or a run of them. */
#include <stdlib.h>
#include <string.h>

#include "mov/sy_mov_demux_internal.h"

void sy__mov_free_index(sy_context *ctx, mov_track *t) {
    sy__free(ctx, t->stts_first);
    sy__free(ctx, t->stts_dts);
    sy__free(ctx, t->ctts_first);
    sy__free(ctx, t->chunk_first);
    sy__free(ctx, t->keys);
    t->stts_first = t->ctts_first = t->chunk_first = t->keys = NULL;
    t->stts_dts = NULL;
}

/* ---- sample index ---- */

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static sy_status build_index(sy_mov *m, mov_track *t, sy_error *err) {
    if (t->indexed) return SY_OK;
    sy_context *ctx = m->ctx;
    t->stts_first = sy__alloc(ctx, (size_t)t->stts_n + 1, sizeof(uint32_t), "mov stts index", err);
    t->stts_dts = t->stts_first ? sy__alloc(ctx, (size_t)t->stts_n + 1, sizeof(uint64_t), "mov stts index", err) : NULL;
    t->ctts_first = t->stts_dts ? sy__alloc(ctx, (size_t)t->ctts_n + 1, sizeof(uint32_t), "mov ctts index", err) : NULL;
    t->chunk_first = t->ctts_first ? sy__alloc(ctx, (size_t)t->chunk_n + 1, sizeof(uint32_t), "mov chunk index", err) : NULL;
    t->keys = t->chunk_first ? sy__alloc(ctx, (size_t)t->stss_n + 1, sizeof(uint32_t), "mov keyframes", err) : NULL;
    if (!t->keys) {
        sy__mov_free_index(ctx, t);
        return err ? err->code : SY_E_BUDGET;
    }
    const uint64_t n = t->info.sample_count;
    /* stts: first sample and first dts of each run (counts clamped to the sample count) */
    uint64_t first = 0, dts = 0;
    for (uint32_t i = 0; i < t->stts_n; i++) {
        uint64_t count = be32(t->stts + 8ull * i), delta = be32(t->stts + 8ull * i + 4);
        if (first > n) first = n;
        t->stts_first[i] = (uint32_t)first;
        t->stts_dts[i] = dts;
        if (count > n - first) count = n - first;
        first += count;
        dts += count * delta; /* ≤ 1e7 * 2^32 < 2^63 */
    }
    t->stts_first[t->stts_n] = (uint32_t)n;
    t->stts_dts[t->stts_n] = dts;
    first = 0;
    for (uint32_t i = 0; i < t->ctts_n; i++) {
        uint64_t count = be32(t->ctts + 8ull * i);
        t->ctts_first[i] = (uint32_t)first;
        if (count > n - first) count = n - first;
        first += count;
    }
    t->ctts_first[t->ctts_n] = (uint32_t)first;
    /* chunks: first sample of each chunk from stsc (validated at open) */
    first = 0;
    uint32_t e = 0, spc = 0;
    for (uint32_t c = 0; c < t->chunk_n; c++) {
        while (e < t->stsc_n && be32(t->stsc + 12ull * e) <= c + 1) spc = be32(t->stsc + 12ull * e++ + 4);
        t->chunk_first[c] = (uint32_t)first;
        first += spc;
        if (first > n) first = n;
    }
    t->chunk_first[t->chunk_n] = (uint32_t)n;
    /* keyframes: 1-based in stss -> sorted, deduplicated, in range */
    uint32_t k = 0;
    for (uint32_t i = 0; i < t->stss_n; i++) {
        uint32_t s = be32(t->stss + 4ull * i);
        if (s >= 1 && s <= n) t->keys[k++] = s - 1;
    }
    qsort(t->keys, k, sizeof *t->keys, cmp_u32);
    uint32_t u = 0;
    for (uint32_t i = 0; i < k; i++)
        if (u == 0 || t->keys[u - 1] != t->keys[i]) t->keys[u++] = t->keys[i];
    t->key_n = u;
    t->indexed = 1;
    t->cache_valid = 0;
    return SY_OK;
}

/* Last run r in [0, n) with first[r] <= i (first[] non-decreasing, first[0] = 0). */
static uint32_t run_of(const uint32_t *first, uint32_t n, uint32_t i) {
    uint32_t lo = 0, hi = n; /* answer in [lo, hi) */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (first[mid] <= i) lo = mid;
        else hi = mid;
    }
    return lo;
}

static uint32_t sample_size(const mov_track *t, uint32_t i) {
    if (t->stsz_const) return t->stsz_const;
    switch (t->stsz_bits) {
    case 4: {
        uint8_t b = t->stsz[i / 2];
        return (i & 1) ? (b & 15u) : (uint32_t)(b >> 4);
    }
    case 8: return t->stsz[i];
    case 16: return be16(t->stsz + 2ull * i);
    default: return be32(t->stsz + 4ull * i);
    }
}

static sy_status get_track(sy_mov *m, uint32_t track, uint32_t index, const char *fn, mov_track **out, sy_error *err) {
    if (!m || track >= m->info.track_count)
        return sy__fail(err, SY_E_USAGE, "%s: no track %u", fn, track);
    mov_track *t = &m->tracks[track];
    if (index >= t->info.sample_count)
        return sy__fail(err, SY_E_USAGE, "%s: track %u has %u samples, no sample %u", fn, t->info.id,
                        t->info.sample_count, index);
    *out = t;
    return build_index(m, t, err);
}

sy_status sy_mov_sample(sy_mov *m, uint32_t track, uint32_t index, sy_mov_sample_info *out, sy_error *err) {
    if (!out) return sy__fail(err, SY_E_USAGE, "sy_mov_sample: out is NULL");
    memset(out, 0, sizeof *out);
    mov_track *t = NULL;
    sy_status st = get_track(m, track, index, "sy_mov_sample", &t, err);
    if (st != SY_OK) return st;
    /* time */
    uint32_t r = run_of(t->stts_first, t->stts_n, index);
    uint64_t delta = be32(t->stts + 8ull * r + 4);
    out->duration = (uint32_t)delta;
    out->dts = (int64_t)(t->stts_dts[r] + (uint64_t)(index - t->stts_first[r]) * delta);
    out->pts = out->dts;
    if (t->ctts_n && index < t->ctts_first[t->ctts_n]) {
        uint32_t c = run_of(t->ctts_first, t->ctts_n, index);
        out->pts = out->dts + (int32_t)be32(t->ctts + 8ull * c + 4);
    }
    /* sync */
    if (t->info.all_sync) out->sync = 1;
    else out->sync = t->key_n && bsearch(&index, t->keys, t->key_n, sizeof *t->keys, cmp_u32) != NULL;
    /* position */
    uint32_t c = run_of(t->chunk_first, t->chunk_n, index);
    uint64_t off = t->co64 ? be64(t->stco + 8ull * c) : be32(t->stco + 4ull * c);
    uint32_t from = t->chunk_first[c];
    if (t->cache_valid && t->cache_chunk == c && t->cache_sample <= index) {
        from = t->cache_sample;
        off = t->cache_offset;
    }
    for (uint32_t s = from; s < index; s++) {
        if (__builtin_add_overflow(off, (uint64_t)sample_size(t, s), &off))
            return sy__mov_bad(m, err, SY_E_INVALID_INPUT, FCC('s', 't', 'b', 'l'), t->stbl_offset,
                       "track %u: sample %u offset overflows", t->info.id, index);
    }
    t->cache_valid = 1;
    t->cache_chunk = c;
    t->cache_sample = index;
    t->cache_offset = off;
    out->offset = off;
    out->size = sample_size(t, index);
    return SY_OK;
}

sy_status sy_mov_keyframes(sy_mov *m, uint32_t track, const uint32_t **list, uint32_t *count, sy_error *err) {
    if (list) *list = NULL;
    if (count) *count = 0;
    if (!m || track >= m->info.track_count) return sy__fail(err, SY_E_USAGE, "sy_mov_keyframes: no track %u", track);
    mov_track *t = &m->tracks[track];
    if (t->info.all_sync || t->info.sample_count == 0) return SY_OK;
    sy_status st = build_index(m, t, err);
    if (st != SY_OK) return st;
    if (list) *list = t->key_n ? t->keys : NULL;
    if (count) *count = t->key_n;
    return SY_OK;
}

sy_status sy_mov_read_sample(sy_mov *m, uint32_t track, uint32_t index, void *buffer, size_t cap, size_t *len,
                             sy_error *err) {
    if (len) *len = 0;
    sy_mov_sample_info s;
    sy_status st = sy_mov_sample(m, track, index, &s, err);
    if (st != SY_OK) return st;
    if (len) *len = s.size;
    if (s.size > cap || (!buffer && s.size))
        return sy__fail(err, SY_E_USAGE, "sy_mov_read_sample: sample %u of track %u needs %u bytes, buffer holds %zu",
                        index, m->tracks[track].info.id, s.size, cap);
    if (s.offset > m->info.file_size || s.size > m->info.file_size - s.offset)
        return sy__mov_bad(m, err, SY_E_INVALID_INPUT, FCC('s', 't', 'b', 'l'), m->tracks[track].stbl_offset,
                   "track %u: sample %u (%u bytes at offset %llu) lies outside the file (%llu bytes)",
                   m->tracks[track].info.id, index, s.size, (unsigned long long)s.offset,
                   (unsigned long long)m->info.file_size);
    return s.size ? sy__mov_read_at(m, s.offset, buffer, s.size, err) : SY_OK;
}

sy_status sy_mov_read_run(sy_mov *m, uint32_t track, uint32_t first, uint32_t max_count, void *buffer, size_t cap,
                          uint32_t *count, size_t *len, sy_error *err) {
    *count = 0;
    *len = 0;
    sy_mov_sample_info s;
    sy_status st = sy_mov_sample(m, track, first, &s, err);
    if (st != SY_OK) return st;
    uint64_t start = s.offset, end = s.offset + s.size;
    uint32_t n = 1;
    if (s.size > cap || !buffer)
        return sy__fail(err, SY_E_USAGE, "sy_mov_read_run: sample %u of track %u needs %u bytes, buffer holds %zu",
                        first, m->tracks[track].info.id, s.size, cap);
    uint32_t total = m->tracks[track].info.sample_count;
    while (n < max_count && first + n < total) {
        if ((st = sy_mov_sample(m, track, first + n, &s, err)) != SY_OK) return st;
        if (s.offset != end || end - start + s.size > cap) break;
        end += s.size;
        n++;
    }
    if (start > m->info.file_size || end > m->info.file_size)
        return sy__mov_bad(m, err, SY_E_INVALID_INPUT, FCC('s', 't', 'b', 'l'), m->tracks[track].stbl_offset,
                   "track %u: samples %u..%u (bytes %llu..%llu) lie outside the file (%llu bytes)",
                   m->tracks[track].info.id, first, first + n - 1, (unsigned long long)start, (unsigned long long)end,
                   (unsigned long long)m->info.file_size);
    *count = n;
    *len = (size_t)(end - start);
    return end > start ? sy__mov_read_at(m, start, buffer, (size_t)(end - start), err) : SY_OK;
}
