/* movie_copy.c — copied tracks, movie-level metadata and the frame marker of
 * an output movie (sy_movie_copy.h). */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "base/sy_fourcc.h"
#include "video/sy_movie_copy.h"

int32_t sy__movie_first_audio(const sy_mov *mov) {
    for (uint32_t t = 0; t < sy_mov_track_count(mov); t++) {
        const sy_mov_track_info *ti = sy_mov_track(mov, t);
        if (ti->handler == SY_FOURCC('s', 'o', 'u', 'n') && ti->sample_count > 0 && ti->timescale > 0)
            return (int32_t)t;
    }
    return -1;
}

/* The first empty edit(s) and the first real edit's media time carry over. */
static sy_status copy_edit(sy_mov_writer *w, sy__copied_track *t, uint32_t movie_timescale, sy_error *err) {
    const sy_mov_track_info *ti = sy_mov_track(t->mov, t->track);
    const sy_mov_info *mi = sy_mov_info_get(t->mov);
    uint64_t empty_ticks = 0;
    for (uint32_t k = 0; k < ti->edit_count && k < 2; k++) {
        uint64_t segment;
        int64_t mt;
        int32_t rate;
        sy_status st = sy_mov_edit(t->mov, t->track, k, &segment, &mt, &rate, err);
        if (st != SY_OK) return st;
        if (mt < 0) {
            if (mi->timescale) empty_ticks += segment * movie_timescale / mi->timescale;
            continue;
        }
        t->media_time = mt;
        break;
    }
    /* A track whose first sample is presented later than its edit starts (a picture after its sound by its
     * samples' own times, no edit) starts with that sample, after an empty edit as long: said so, a player
     * does not take the first sample for the track's start (ffmpeg would, and pull the picture 0.5 s early) */
    sy_mov_timeline tl;
    sy_status st = sy_mov_track_timeline(t->mov, t->track, &tl, err);
    if (st != SY_OK) return st;
    if (tl.start > tl.delay && tl.timescale) {
        empty_ticks = (uint64_t)(tl.start * movie_timescale + 0.5);
        t->media_time = tl.media_time + (int64_t)llround((tl.start - tl.delay) * tl.timescale);
    }
    t->empty_seconds = (double)empty_ticks / movie_timescale;
    if (empty_ticks == 0 && t->media_time == 0) return SY_OK;
    return sy_mov_writer_set_edit(w, t->out_id, empty_ticks, t->media_time, err);
}

/* `out` zeroed and pointed at source track `track`; NULL (err set) when there is none. */
static const sy_mov_track_info *start_copy(sy_mov *mov, uint32_t track, sy__copied_track *out, sy_error *err) {
    memset(out, 0, sizeof *out);
    const sy_mov_track_info *ti = sy_mov_track(mov, track);
    if (!ti) {
        sy__fail(err, SY_E_USAGE, "copied track: no source track %u", track);
        return NULL;
    }
    out->mov = mov;
    out->track = track;
    return ti;
}

sy_status sy__copied_track_add(sy_mov_writer *w, sy_mov *mov, uint32_t track, uint32_t movie_timescale,
                               sy__copied_track *out, sy_error *err) {
    const sy_mov_track_info *ti = start_copy(mov, track, out, err);
    if (!ti) return SY_E_USAGE;
    out->timescale = ti->timescale;
    out->count = ti->sample_count;
    out->codec = ti->codec;
    sy_status st = sy_mov_writer_add_copied_track(w, mov, track, &out->out_id, err);
    return st == SY_OK ? copy_edit(w, out, movie_timescale, err) : st;
}

sy_status sy__copied_track_add_as_aac(sy_context *ctx, sy_mov_writer *w, sy_mov *mov, uint32_t track, const char *label,
                                      sy__copied_track *out, sy_error *err) {
    if (!start_copy(mov, track, out, err)) return SY_E_USAGE;
    out->codec = SY_FOURCC('m', 'p', '4', 'a');
    sy__audio_segment whole = {.movie = label, .mov = mov, .track = (int32_t)track};
    sy_status st = sy__audio_sequence_add(ctx, w, &whole, 1, 0, &out->aac, err);
    if (st == SY_OK && !out->aac) st = sy__fail(err, SY_E_UNSUPPORTED, "%s: its sound cannot be decoded", label);
    if (st == SY_OK) {
        out->out_id = sy__audio_sequence_track_id(out->aac);
        out->timescale = sy__audio_sequence_rate(out->aac);
    }
    return st;
}

int sy__copied_track_should_encode(const sy_mov *mov, uint32_t track, int aac_audio) {
    const sy_mov_track_info *ti = sy_mov_track(mov, track);
    return aac_audio && ti && ti->codec != SY_FOURCC('m', 'p', '4', 'a') && sy__audio_source_supported(mov, track);
}

sy_status sy__copied_track_end(sy__copied_track *t, sy_error *err) {
    if (!t->aac) return SY_OK;
    sy_status st = sy__audio_sequence_finish(t->aac, err);
    t->next = sy__audio_sequence_packets(t->aac);
    return st;
}

static sy_status grow(sy_context *ctx, sy__copied_track *t, size_t need, sy_error *err) {
    if (need <= t->cap) return SY_OK;
    size_t cap = need < 4096 ? 4096 : need;
    uint8_t *grown = sy__alloc(ctx, cap, 1, "copied sample", err);
    if (!grown) return err ? err->code : SY_E_BUDGET;
    sy__free(ctx, t->buffer);
    t->buffer = grown;
    t->cap = cap;
    return SY_OK;
}

sy_status sy__copied_track_pump(sy_context *ctx, sy_mov_writer *w, sy__copied_track *t, double until_seconds,
                                sy_error *err) {
    if (!t->out_id) return SY_OK;
    if (t->aac) return sy__audio_sequence_pump(t->aac, until_seconds, err);
    while (t->next < t->count) {
        sy_mov_sample_info s;
        sy_status st = sy_mov_sample(t->mov, t->track, t->next, &s, err);
        if (st != SY_OK) return st;
        if ((double)s.dts / t->timescale > until_seconds) return SY_OK;
        if ((st = grow(ctx, t, s.size, err)) != SY_OK) return st;
        size_t len = 0;
        st = sy_mov_read_sample(t->mov, t->track, t->next, t->buffer, t->cap, &len, err);
        if (st != SY_OK) return st;
        int64_t offset = s.pts - s.dts;
        if (offset < INT32_MIN || offset > INT32_MAX)
            return sy__fail(err, SY_E_INVALID_INPUT, "copied track: sample %u has composition offset %lld", t->next,
                            (long long)offset);
        st = sy_mov_writer_add_sample(w, t->out_id, t->buffer, len, s.duration, (int32_t)offset, (int)s.sync, err);
        if (st != SY_OK) return st;
        t->next++;
    }
    return SY_OK;
}

double sy__copied_track_seconds(const sy__copied_track *t, int64_t media_ticks) {
    return t->empty_seconds + (t->timescale ? (double)(media_ticks - t->media_time) / t->timescale : 0);
}

void sy__copied_track_free(sy_context *ctx, sy__copied_track *t) {
    sy__audio_sequence_free(t->aac);
    t->aac = NULL;
    sy__free(ctx, t->buffer);
    t->buffer = NULL;
    t->cap = 0;
}

uint32_t sy__movie_container_from_path(const char *path) {
    const char *dot = strrchr(path, '.');
    if (!dot) return 0;
    if (!strcasecmp(dot, ".mov") || !strcasecmp(dot, ".qt")) return SY_FOURCC('q', 't', ' ', ' ');
    if (!strcasecmp(dot, ".mp4") || !strcasecmp(dot, ".m4v")) return SY_FOURCC('i', 's', 'o', 'm');
    return 0;
}

/* ---- the caller's metadata plan ---- */

static int plan_drops(const sy_video_metadata_plan *plan, const char *key) {
    for (size_t i = 0; plan && i < plan->drop_count; i++)
        if (strcmp(plan->drop[i], key) == 0) return 1;
    return 0;
}

sy_status sy__movie_check_plan(const sy_video_metadata_plan *plan, const char *fn, sy_error *err) {
    if (!plan) return SY_OK;
    if ((plan->drop_count && !plan->drop) || (plan->add_count && !plan->add))
        return sy__fail(err, SY_E_USAGE, "%s: metadata plan with a count but no list", fn);
    const sy_video_frame_marker *m = plan->marker;
    if (m && (!m->key || !m->value || m->len == 0 || m->len > SY__MARKER_VALUE_MAX))
        return sy__fail(err, SY_E_USAGE, "%s: frame marker needs a key and 1 to %d value bytes", fn,
                        SY__MARKER_VALUE_MAX);
    return SY_OK;
}

sy_status sy__movie_write_metadata(sy_mov_writer *w, const sy_mov *src, int copy, const sy_video_metadata_plan *plan,
                                   uint32_t *copied, sy_error *err) {
    sy_status st = SY_OK;
    if (copied) *copied = 0;
    for (uint32_t i = 0; copy && st == SY_OK && i < sy_mov_metadata_count(src); i++) {
        const char *key;
        uint32_t type;
        const uint8_t *value;
        size_t len;
        if (sy_mov_metadata_at(src, i, &key, &type, &value, &len) != SY_OK) continue;
        if (plan_drops(plan, key)) continue;
        st = sy_mov_writer_add_metadata(w, key, type, value, len, err);
        if (st == SY_OK && copied) (*copied)++;
    }
    for (size_t i = 0; plan && st == SY_OK && i < plan->add_count; i++) {
        const sy_video_mdta_item *item = &plan->add[i];
        st = sy_mov_writer_add_metadata(w, item->key, item->type, item->value, item->len, err);
    }
    return st;
}

sy_status sy__movie_add_marker(sy_mov_writer *w, uint32_t video_id, const sy_video_frame_marker *m,
                               uint32_t movie_timescale, double seconds, sy_error *err) {
    uint8_t sample[8 + SY__MARKER_VALUE_MAX];
    uint32_t size = (uint32_t)(8 + m->len);
    const uint8_t head[8] = {(uint8_t)(size >> 24), (uint8_t)(size >> 16), (uint8_t)(size >> 8), (uint8_t)size,
                             0, 0, 0, 1};
    memcpy(sample, head, sizeof head);
    memcpy(sample + sizeof head, m->value, m->len);
    sy_mov_mebx_key_spec key = {m->key, m->datatype};
    uint32_t id = 0;
    sy_status st = sy_mov_writer_add_mebx(w, &key, 1, video_id, movie_timescale, &id, err);
    if (st == SY_OK) st = sy_mov_writer_add_sample(w, id, sample, size, 1, 0, 1, err);
    uint64_t empty = (uint64_t)(seconds * movie_timescale + 0.5);
    if (st == SY_OK) st = sy_mov_writer_set_edit(w, id, empty, 0, err);
    return st;
}
