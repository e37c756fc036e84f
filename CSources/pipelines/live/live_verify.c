/* live_verify.c — the movie side of a Live pair and SPEC C3 verification:
 * re-assemble the pair the way Photos does and say exactly what is broken. */
#include <stdarg.h>
#include <string.h>

#include "base/sy_internal.h"
#include "sy_live.h"
#include "live/sy_live_exif.h"
#include "bmff/sy_bmff.h"
#include "sy_mov.h"

#define CONTENT_ID_KEY "com.apple.quicktime.content.identifier"
#define STILL_TIME_KEY "com.apple.quicktime.still-image-time"
/* Tolerance for "inside the movie": one tick of a 600 timescale. */
#define TIME_SLACK (1.0 / 600)

/* Movie-timeline seconds of the mebx track's first sample: empty edits
 * shift it, the first real edit's media time is subtracted (live-photo.md §4.4). */
static sy_status still_time_of(sy_mov *mov, uint32_t t, double *seconds, sy_error *err) {
    const sy_mov_track_info *ti = sy_mov_track(mov, t);
    const sy_mov_info *mi = sy_mov_info_get(mov);
    sy_mov_sample_info s;
    sy_status st = sy_mov_sample(mov, t, 0, &s, err);
    if (st != SY_OK) return st;
    double empty = 0;
    int64_t media_time = 0;
    for (uint32_t k = 0; k < ti->edit_count; k++) {
        uint64_t segment;
        int64_t mt;
        int32_t rate;
        st = sy_mov_edit(mov, t, k, &segment, &mt, &rate, err);
        if (st != SY_OK) return st;
        if (mt >= 0) {
            media_time = mt;
            break;
        }
        if (mi->timescale) empty += (double)segment / mi->timescale;
    }
    *seconds = empty + (ti->timescale ? (double)(s.pts - media_time) / ti->timescale : 0);
    return SY_OK;
}

sy_status sy_live_movie_read(sy_context *ctx, const char *path, sy_live_movie_info *out, sy_error *err) {
    if (!ctx || !path || !out) return sy__fail(err, SY_E_USAGE, "sy_live_movie_read: NULL argument");
    memset(out, 0, sizeof *out);
    out->video_track = out->still_track = -1;
    out->still_time = -1;
    sy_mov *mov = NULL;
    sy_status st = sy_mov_open(ctx, path, &mov, err);
    if (st != SY_OK) return st;
    int32_t item = sy_mov_metadata_find(mov, CONTENT_ID_KEY);
    const uint8_t *value = NULL;
    size_t len = 0;
    if (item >= 0 && sy_mov_metadata_at(mov, (uint32_t)item, NULL, NULL, &value, &len) == SY_OK) {
        out->has_identifier = 1;
        if (len > sizeof out->content_identifier - 1) len = sizeof out->content_identifier - 1;
        memcpy(out->content_identifier, value, len);
        out->content_identifier[len] = 0;
    }
    out->video_track = sy_mov_main_video_track(mov);
    if (out->video_track >= 0) out->duration = sy_mov_track(mov, (uint32_t)out->video_track)->duration_seconds;
    for (uint32_t t = 0; t < sy_mov_track_count(mov) && st == SY_OK && !out->has_still_time; t++) {
        const sy_mov_track_info *ti = sy_mov_track(mov, t);
        if (ti->codec != SY_FOURCC('m', 'e', 'b', 'x') || ti->sample_count == 0) continue;
        for (uint32_t k = 0; k < sy_mov_mebx_key_count(mov, t); k++) {
            const sy_mov_mebx_key *key = sy_mov_mebx_key_at(mov, t, k);
            if (!key || !key->name || strcmp(key->name, STILL_TIME_KEY) != 0) continue;
            st = still_time_of(mov, t, &out->still_time, err);
            if (st == SY_OK) {
                out->has_still_time = 1;
                out->still_track = (int32_t)t;
            }
            break;
        }
    }
    sy_mov_close(mov);
    return st;
}

static sy_status mismatch(sy_live_verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static sy_status mismatch(sy_live_verdict *v, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->reason, sizeof v->reason, fmt, ap);
    va_end(ap);
    v->ok = 0;
    return SY_OK;
}

/* Decodes frames up to the one shown at `seconds`; the first frame and that
 * one must decode. Every failure but cancellation is the movie's fault. */
static sy_status decode_frames(sy_context *ctx, const char *movie, double seconds, sy_live_verdict *v,
                               sy_error *err) {
    sy_video_reader *r = NULL;
    sy_error e = {0};
    sy_status st = sy_video_reader_open(ctx, movie, -1, &r, &e);
    if (st != SY_OK) {
        if (st == SY_E_CANCELLED) return sy__fail(err, st, "%s", e.message);
        return mismatch(v, "movie does not decode: %s", e.message);
    }
    const sy_video_reader_info *vi = sy_video_reader_info_get(r);
    uint32_t frames = 0;
    int reached = 0;
    while (!reached) {
        sy_video_frame f;
        int end = 0;
        st = sy_video_reader_next(r, &f, &end, &e);
        if (st != SY_OK) break;
        if (end) break;
        frames++;
        if (f.seconds + TIME_SLACK >= seconds) reached = 1;
        sy__progress(ctx, "verify frames", frames, vi->frame_count);
    }
    sy_video_reader_close(r);
    if (st == SY_E_CANCELLED) return sy__fail(err, st, "%s", e.message);
    if (st != SY_OK) return mismatch(v, "movie frame %u does not decode: %s", frames, e.message);
    if (frames == 0) return mismatch(v, "%s: the movie has no video frames", movie);
    if (!reached) return mismatch(v, "%s: no frame at the still-image time %.3f s", movie, seconds);
    return SY_OK;
}

sy_status sy_live_verify(sy_context *ctx, const char *still, const char *movie, sy_live_verdict *v, sy_error *err) {
    if (!ctx || !still || !movie || !v) return sy__fail(err, SY_E_USAGE, "sy_live_verify: NULL argument");
    memset(v, 0, sizeof *v);
    v->still_time = -1;
    sy_error e = {0};
    int found = 0;
    sy_status st = sy_live_still_read_id(ctx, still, v->content_identifier, &found, &e);
    if (st == SY_E_CANCELLED) return sy__fail(err, st, "%s", e.message);
    if (st != SY_OK) return mismatch(v, "still unreadable: %s", e.message);
    if (!found) return mismatch(v, "%s: the still has no content identifier", still);
    sy_live_movie_info mi;
    st = sy_live_movie_read(ctx, movie, &mi, &e);
    if (st == SY_E_CANCELLED) return sy__fail(err, st, "%s", e.message);
    if (st != SY_OK) return mismatch(v, "movie unreadable: %s", e.message);
    v->duration = mi.duration;
    v->still_time = mi.still_time;
    if (!mi.has_identifier) return mismatch(v, "%s: the movie has no content identifier", movie);
    if (strcmp(mi.content_identifier, v->content_identifier) != 0)
        return mismatch(v, "content identifiers differ: still %s, movie %s", v->content_identifier,
                        mi.content_identifier);
    if (mi.video_track < 0) return mismatch(v, "%s: the movie has no video track", movie);
    if (!mi.has_still_time) return mismatch(v, "%s: the movie has no still-image-time metadata track", movie);
    if (mi.still_time < 0 || mi.still_time > mi.duration + TIME_SLACK)
        return mismatch(v, "%s: still-image time %.3f s lies outside the movie (0 to %.3f s)", movie, mi.still_time,
                        mi.duration);
    if ((st = sy__check_cancel(ctx, err)) != SY_OK) return st;
    st = decode_frames(ctx, movie, mi.still_time, v, err);
    if (st != SY_OK || v->reason[0]) return st;
    /* the still decodes: a small render through the editor's decode path */
    sy_recipe identity;
    sy_recipe_init(&identity);
    sy_edit_image img = {0};
    st = sy_edit_render(ctx, still, &identity, 256, 256, 0, &img, NULL, &e);
    sy_edit_image_free(ctx, &img);
    if (st == SY_E_CANCELLED) return sy__fail(err, st, "%s", e.message);
    if (st != SY_OK) return mismatch(v, "still does not decode: %s", e.message);
    v->ok = 1;
    return SY_OK;
}
