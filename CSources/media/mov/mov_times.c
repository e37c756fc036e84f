/* mov_times.c — a track's presentation times in presentation order: what
 * "the frame shown at time T" and a frame's place on the timeline are read
 * from, exactly, for variable frame rates too (iPhone movies have 33-75 ms
 * frame intervals); and where the track lies on the movie timeline (its
 * edits, or its first sample's time), the one timeline frames, key photos
 * and sound are placed on. Built from the sample table only; nothing is
 * decoded. */
#include <stdlib.h>
#include <string.h>

#include "base/sy_internal.h"
#include "sy_mov.h"

int sy_mov_edit_span(const sy_mov *mov, uint32_t track, uint64_t *delay, uint64_t *segment, int64_t *media_time) {
    *delay = *segment = 0;
    *media_time = 0;
    const sy_mov_track_info *ti = mov ? sy_mov_track(mov, track) : NULL;
    int found = 0;
    for (uint32_t k = 0; ti && k < ti->edit_count; k++) {
        uint64_t seg;
        int64_t mt;
        int32_t rate;
        if (sy_mov_edit(mov, track, k, &seg, &mt, &rate, NULL) != SY_OK) return 0;
        if (mt < 0) { /* an empty edit: a delay before the first shown, a gap after */
            if (!found) *delay += seg;
            continue;
        }
        if (found) return 0; /* a second shown span */
        found = 1;
        *segment = seg;
        *media_time = mt;
    }
    return found;
}

double sy_mov_frame_rate(const sy_mov *mov, uint32_t track) {
    const sy_mov_track_info *ti = mov ? sy_mov_track(mov, track) : NULL;
    if (!ti || !ti->sample_count) return 0;
    double rate = ti->duration_seconds > 0 ? ti->sample_count / ti->duration_seconds : 0;
    uint32_t movie_scale = sy_mov_info_get(mov)->timescale;
    uint64_t delay, segment;
    int64_t media_time;
    if (sy_mov_edit_span(mov, track, &delay, &segment, &media_time) && segment && movie_scale && ti->timescale) {
        double shown = (double)segment / movie_scale, start = (double)media_time / ti->timescale;
        /* the edit shows every sample (it starts within the B-frame delay of
         * the first, a couple of frames, and runs to the end): frames over the
         * time shown; a trim that hides a start shows fewer samples than the
         * track has, and the media's rate stands (found by a movie sweep:
         * a 30 fps clip trimmed 1.3 s in was called 40.5 fps) */
        double frame = ti->duration_seconds / ti->sample_count;
        if (start <= 2.5 * frame && start + shown >= ti->duration_seconds - 1e-9) rate = ti->sample_count / shown;
    }
    return rate;
}

/* The earliest presentation time among the track's samples (media ticks); *found = 0 when it has none. */
static sy_status earliest_pts(sy_mov *mov, uint32_t track, uint32_t count, int64_t *out, int *found, sy_error *err) {
    *out = 0;
    *found = count > 0;
    for (uint32_t i = 0; i < count; i++) {
        sy_mov_sample_info s;
        sy_status st = sy_mov_sample(mov, track, i, &s, err);
        if (st != SY_OK) return st;
        if (i == 0 || s.pts < *out) *out = s.pts;
    }
    return SY_OK;
}

sy_status sy_mov_track_timeline(sy_mov *mov, uint32_t track, sy_mov_timeline *out, sy_error *err) {
    if (!out) return sy__fail(err, SY_E_USAGE, "sy_mov_track_timeline: NULL argument");
    memset(out, 0, sizeof *out);
    const sy_mov_track_info *ti = mov ? sy_mov_track(mov, track) : NULL;
    if (!ti) return sy__fail(err, SY_E_USAGE, "sy_mov_track_timeline: no track %u", track);
    uint32_t movie_scale = sy_mov_info_get(mov)->timescale;
    uint64_t delay, segment;
    int64_t media_time, first;
    int single = sy_mov_edit_span(mov, track, &delay, &segment, &media_time), found;
    sy_status st = earliest_pts(mov, track, ti->sample_count, &first, &found, err);
    if (st != SY_OK) return st;
    sy_mov_timeline t = {.media_time = media_time, .timescale = ti->timescale, .shown = ti->duration_seconds};
    if (movie_scale) t.delay = (double)delay / movie_scale;
    t.start = t.delay;
    /* its first frame, when later than the edit's start (or than 0 without edits): nothing is shown before */
    double first_seconds = found ? sy_mov_timeline_seconds(&t, first) : 0;
    if (first_seconds > t.start) t.start = first_seconds;
    if (single && ti->timescale) { /* one shown span: it ends where the edit does */
        double end = t.delay + (segment && movie_scale ? (double)segment / movie_scale
                                                         : SY__MAX(0.0, ti->duration_seconds -
                                                                            (double)media_time / ti->timescale));
        t.shown = SY__MAX(0.0, end - t.start);
    }
    *out = t;
    return SY_OK;
}

double sy_mov_timeline_seconds(const sy_mov_timeline *t, int64_t pts) {
    return t->delay + (t->timescale ? (double)(pts - t->media_time) / t->timescale : 0);
}

static int compare_ticks(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

sy_status sy_mov_presentation_times(sy_context *ctx, sy_mov *mov, uint32_t track, int64_t **out, uint32_t *count,
                                    sy_error *err) {
    if (!ctx || !mov || !out || !count) return sy__fail(err, SY_E_USAGE, "sy_mov_presentation_times: NULL argument");
    *out = NULL;
    *count = 0;
    const sy_mov_track_info *ti = sy_mov_track(mov, track);
    if (!ti) return sy__fail(err, SY_E_USAGE, "sy_mov_presentation_times: track %u out of range", track);
    uint32_t n = ti->sample_count;
    if (n == 0) return SY_OK;
    int64_t *pts = sy__alloc(ctx, n, sizeof *pts, "presentation times", err);
    if (!pts) return err ? err->code : SY_E_BUDGET;
    for (uint32_t i = 0; i < n; i++) {
        sy_mov_sample_info s;
        sy_status st = sy_mov_sample(mov, track, i, &s, err);
        if (st != SY_OK) {
            sy__free(ctx, pts);
            return st;
        }
        pts[i] = s.pts;
    }
    qsort(pts, n, sizeof *pts, compare_ticks);
    *out = pts;
    *count = n;
    return SY_OK;
}

void sy_mov_presentation_times_free(sy_context *ctx, int64_t *times) {
    if (ctx && times) sy__free(ctx, times);
}
