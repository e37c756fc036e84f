/* motion_timeline.c — when each Live cell plays (SPEC C1 motion modes).
 *
 * together: cell i starts at K - s_i, K = the latest key-photo moment s_i, so
 *   every cell reaches its key photo at K; the movie runs until the last cell
 *   ends, and the frame at K is the still.
 * relay: the Live cells in layout order (top edge, then left edge), each
 *   from its start to its end, one after another; the key frame is the first
 *   cell's key-photo moment, when every other cell shows its still anyway.
 * focus: a hold on the collage (the key frame in its middle), a zoom into the
 *   hero, the hero's whole movie, a zoom back out. */
#include <math.h>

#include "motion/sy_motion_internal.h"

#define FOCUS_HOLD_SECONDS 0.4

static void layout_order(sy__motion_job *job) {
    job->live_count = 0;
    for (uint32_t i = 0; i < job->count; i++)
        if (job->cells[i].live) job->order[job->live_count++] = i;
    for (uint32_t a = 1; a < job->live_count; a++) { /* insertion sort: at most 30 */
        uint32_t v = job->order[a], b = a;
        const sy__rect *rv = &job->layout.cells[v];
        while (b > 0) {
            const sy__rect *ru = &job->layout.cells[job->order[b - 1]];
            if (ru->y < rv->y || (ru->y == rv->y && ru->x <= rv->x)) break;
            job->order[b] = job->order[b - 1];
            b--;
        }
        job->order[b] = v;
    }
}

static uint32_t frame_at(const sy__motion_job *job, double seconds) {
    double k = floor(seconds * job->o->fps + 0.5);
    return k <= 0 ? 0 : k >= job->frames - 1 ? job->frames - 1 : (uint32_t)k;
}

sy_status sy__motion_timeline(sy__motion_job *job, sy_error *err) {
    layout_order(job);
    if (job->live_count == 0) return sy__fail(err, SY_E_USAGE, "moving collage: no Live cell to play");
    job->hero = -1;
    double key_seconds = 0;
    switch (job->o->mode) {
    case SY_MOTION_TOGETHER: {
        double k = 0, end = 0;
        for (uint32_t n = 0; n < job->live_count; n++) k = fmax(k, job->cells[job->order[n]].still_time);
        for (uint32_t n = 0; n < job->live_count; n++) {
            const sy__motion_cell *c = &job->cells[job->order[n]];
            job->start[job->order[n]] = k - c->still_time;
            end = fmax(end, k - c->still_time + c->duration);
        }
        job->total_seconds = end;
        key_seconds = k;
        break;
    }
    case SY_MOTION_RELAY: {
        double t = 0;
        for (uint32_t n = 0; n < job->live_count; n++) {
            job->start[job->order[n]] = t;
            t += job->cells[job->order[n]].duration;
        }
        job->total_seconds = t;
        key_seconds = job->cells[job->order[0]].still_time;
        break;
    }
    case SY_MOTION_FOCUS: {
        int32_t hero = job->o->hero;
        if (hero >= 0 && ((uint32_t)hero >= job->count || !job->cells[hero].live))
            hero = -1; /* not a Live cell (static or grey): the first one that is */
        job->hero = hero >= 0 ? hero : (int32_t)job->order[0];
        job->hold_seconds = FOCUS_HOLD_SECONDS;
        job->zoom_seconds = job->o->zoom_seconds;
        job->start[job->hero] = job->hold_seconds + job->zoom_seconds;
        job->total_seconds = job->start[job->hero] + job->cells[job->hero].duration + job->zoom_seconds;
        key_seconds = job->hold_seconds / 2;
        break;
    }
    default:
        return sy__fail(err, SY_E_USAGE, "moving collage: unknown motion mode %d", (int)job->o->mode);
    }
    double frames = ceil(job->total_seconds * job->o->fps - 1e-6);
    if (frames < 1) frames = 1;
    if (frames > 30 * 60 * 10) return sy__fail(err, SY_E_USAGE, "moving collage: %.1f s is too long", job->total_seconds);
    job->frames = (uint32_t)frames;
    job->key_frame = frame_at(job, key_seconds);
    return SY_OK;
}
