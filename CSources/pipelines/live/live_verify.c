/* live_verify.c — SPEC C3 verification: re-assemble the pair the way Photos
 * does and say exactly what is broken. */
#include <stdarg.h>
#include <string.h>

#include "base/sy_internal.h"
#include "live/sy_live_movie.h"
#include "sy_live.h"
#include "video/sy_video_cuts.h"
#include "video/sy_video_reader_decode_only.h"

/* Tolerance for "inside the movie": one tick of a 600 timescale. */
#define TIME_SLACK (1.0 / 600)

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
 * one must decode. Only what that takes is done (sy_video_reader_decode_only.h):
 * no picture becomes RGB, and pictures before it that nothing refers to are
 * not decoded — the frame at the still time and its whole reference chain
 * are, on every save (issue 15: the check had been a tenth of a Live edit).
 * Every failure but cancellation is the movie's fault. */
static sy_status decode_frames(sy_context *ctx, const char *movie, double seconds, sy_live_verdict *v,
                               sy_error *err) {
    sy_video_reader *r = NULL;
    sy_error e = {0};
    sy_status st = sy_video_reader_open(ctx, movie, -1, &r, &e);
    if (st != SY_OK) {
        if (st == SY_E_CANCELLED) return sy__fail(err, st, "%s", e.message);
        return mismatch(v, "movie does not decode: %s", e.message);
    }
    sy__video_reader_follow_cuts(r, NULL); /* a cut movie's still-image time is on the timeline it shows */
    const sy_video_reader_info *vi = sy_video_reader_info_get(r);
    if (!sy__live_movie_playable(vi)) { /* what Photos plays (live-photo.md pitfall 4) */
        uint32_t c = vi->codec;
        uint8_t chroma = vi->chroma_format;
        sy_video_reader_close(r);
        return mismatch(v, "%s: the movie's video is '%c%c%c%c' %s, which Photos does not play; a Live movie is 'hvc1' "
                        "or 'avc1' in 4:2:0", movie, (char)(c >> 24), (char)(c >> 16), (char)(c >> 8), (char)c,
                        chroma == 0 ? "4:0:0" : chroma == 1 ? "4:2:0" : chroma == 2 ? "4:2:2" : "4:4:4");
    }
    sy__video_reader_decode_only(r, seconds - TIME_SLACK, NULL);
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
        sy__progress(ctx, "verify frames", frames + sy__video_reader_skipped(r), vi->frame_count);
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
