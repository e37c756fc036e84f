/* video_cuts.c — see sy_video_cuts.h. */
#include <math.h>
#include <string.h>

#include "video/sy_video_cuts.h"

#define CUTS_MAX_SPANS 256u
#define RATE_ONE 0x10000

typedef struct span {
    int64_t media_start, media_end; /* media ticks shown: [start, end) */
    double shown_start;             /* where the span starts on the movie timeline, seconds */
} span;

struct sy__video_cuts {
    double presentation;
    uint32_t n;         /* frames of the track */
    int32_t *place;     /* per frame: its place among the shown frames, -1 hidden */
    uint32_t shown_n;
    double *seconds;    /* per shown frame, in order */
    int64_t *pts;
};

/* The spans of `track` and how long they show it (*total, seconds), or 0 when its list is not several spans
 * one pass can play. */
static uint32_t read_spans(sy_mov *mov, uint32_t track, uint32_t timescale, span *out, double *total) {
    const sy_mov_track_info *ti = sy_mov_track(mov, track);
    uint32_t movie_scale = sy_mov_info_get(mov)->timescale;
    if (!ti || !movie_scale || !timescale || ti->edit_count < 2) return 0;
    uint32_t count = 0;
    double at = 0, delay = 0;
    for (uint32_t k = 0; k < ti->edit_count; k++) {
        uint64_t segment;
        int64_t media_time;
        int32_t rate;
        if (sy_mov_edit(mov, track, k, &segment, &media_time, &rate, NULL) != SY_OK) return 0;
        if (media_time < 0) {
            /* a pause between spans (or after the last): nothing new shown for its length, the next span
             * starts after it; a leading delay: the first span starts after it */
            at += (double)segment / movie_scale;
            if (!count) delay = at;
            continue;
        }
        if (rate != RATE_ONE || segment == 0 || count == CUTS_MAX_SPANS || segment > (uint64_t)INT32_MAX * 1000)
            return 0;
        int64_t length = (int64_t)((segment * timescale + movie_scale / 2) / movie_scale);
        if (count && media_time < out[count - 1].media_end) return 0; /* a repeat or a step back */
        out[count++] = (span){media_time, media_time + length, at};
        at += (double)segment / movie_scale;
    }
    *total = at - delay;
    return count >= 2 ? count : 0;
}

sy_status sy__video_cuts_build(sy_context *ctx, sy_mov *mov, uint32_t track, const int64_t *times, uint32_t n,
                               uint32_t timescale, sy__video_cuts **out, sy_error *err) {
    *out = NULL;
    span *spans = sy__alloc(ctx, CUTS_MAX_SPANS, sizeof *spans, "edit spans", err);
    if (!spans) return err ? err->code : SY_E_BUDGET;
    double total = 0;
    uint32_t count = n ? read_spans(mov, track, timescale, spans, &total) : 0;
    sy__video_cuts *c = count ? sy__calloc(ctx, 1, sizeof *c, "cut map", err) : NULL;
    sy_status st = count && !c ? (err ? err->code : SY_E_BUDGET) : SY_OK;
    if (c && (!(c->place = sy__alloc(ctx, n, sizeof *c->place, "cut map", err)) ||
              !(c->seconds = sy__alloc(ctx, n, sizeof *c->seconds, "cut map", err)) ||
              !(c->pts = sy__alloc(ctx, n, sizeof *c->pts, "cut map", err))))
        st = err ? err->code : SY_E_BUDGET;
    if (c && st == SY_OK) {
        c->n = n;
        c->presentation = total;
        uint32_t s = 0; /* the last span starting at or before the frame */
        double previous = -INFINITY;
        for (uint32_t k = 0; k < n; k++) {
            int64_t p = times[k];
            while (s + 1 < count && p >= spans[s + 1].media_start) s++;
            const span *sp = &spans[s];
            double t = sp->shown_start + (double)(p - sp->media_start) / timescale;
            /* before the first span: negative times, as one edit gives them; after the last: hidden (a pause
             * after it holds the last frame, it does not show the media that follows) */
            int shown = p < sp->media_end || p < spans[0].media_start;
            if (!shown && s + 1 == count) {
                c->place[k] = -1;
                continue;
            }
            if (!shown && (k + 1 == n || times[k + 1] > spans[s + 1].media_start)) {
                shown = 1; /* between two spans, and still on screen when the next one starts */
                t = spans[s + 1].shown_start;
            }
            /* on screen for no time (a span shorter than a frame, rounding at a cut): not shown, so times rise */
            if (shown && !(t > previous)) shown = 0;
            c->place[k] = shown ? (int32_t)c->shown_n : -1;
            if (shown) {
                previous = t;
                c->seconds[c->shown_n] = t;
                c->pts[c->shown_n] = p;
                c->shown_n++;
            }
        }
        *out = c;
        c = NULL;
    }
    sy__video_cuts_free(ctx, c);
    sy__free(ctx, spans);
    return st;
}

void sy__video_cuts_free(sy_context *ctx, sy__video_cuts *c) {
    if (!c) return;
    sy__free(ctx, c->place);
    sy__free(ctx, c->seconds);
    sy__free(ctx, c->pts);
    sy__free(ctx, c);
}

double sy__video_cuts_presentation(const sy__video_cuts *c) { return c->presentation; }

int sy__video_cuts_frame(const sy__video_cuts *c, uint32_t k, uint32_t *shown, double *seconds) {
    if (k >= c->n || c->place[k] < 0) return 0;
    *shown = (uint32_t)c->place[k];
    *seconds = c->seconds[*shown];
    return 1;
}

void sy__video_cuts_at(const sy__video_cuts *c, double seconds, uint32_t *shown, double *frame_seconds,
                       int64_t *pts) {
    uint32_t lo = 0, hi = c->shown_n; /* first shown frame past `seconds` */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->seconds[mid] <= seconds) lo = mid + 1;
        else hi = mid;
    }
    uint32_t m = lo ? lo - 1 : 0;
    *shown = m;
    if (frame_seconds) *frame_seconds = c->shown_n ? c->seconds[m] : 0;
    if (pts) *pts = c->shown_n ? c->pts[m] : 0;
}
