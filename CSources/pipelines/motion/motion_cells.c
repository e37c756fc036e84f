/* motion_cells.c — which inputs are Live cells: each still is probed (an
 * unreadable one becomes a grey cell, SPEC C12); its movie is the one named
 * with it, or a same-stem .MOV/.mov beside it (as iPhone exports look) that
 * carries the still's content identifier. A movie whose first frame does not
 * decode leaves its cell static (SPEC C6), with the reason in the report.
 * Cells are resolved on up to one thread per core: a cell's probes touch
 * only its own entries (a 2x2 of iPhone-sized movies: 0.19 s on one). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "motion/sy_motion_internal.h"
#include "sy_mov.h"
#include "video/sy_frame_path.h" /* sy__video_frame_primaries */
#include "video/sy_movie_copy.h"

int sy__motion_same_stem_movie(const char *still, char *out, size_t cap) {
    const char *slash = strrchr(still, '/');
    const char *dot = strrchr(still, '.');
    size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - still) : strlen(still);
    static const char *const ext[] = {".MOV", ".mov"};
    for (size_t k = 0; k < sizeof ext / sizeof ext[0]; k++) {
        if (stem + strlen(ext[k]) + 1 > cap) return 0;
        memcpy(out, still, stem);
        strcpy(out + stem, ext[k]);
        if (access(out, R_OK) == 0) return 1;
    }
    out[0] = 0;
    return 0;
}

static int has_audio(sy_context *ctx, const char *movie) {
    sy_mov *mov = NULL;
    if (sy_mov_open(ctx, movie, &mov, NULL) != SY_OK) return 0;
    int found = sy__movie_first_audio(mov) >= 0;
    sy_mov_close(mov);
    return found;
}

/* The movie plays when its first frame decodes; facts for the timeline. */
static sy_status check_movie(sy_context *ctx, sy__motion_cell *c, sy_error *err) {
    sy_live_movie_info mi;
    sy_status st = sy_live_movie_read(ctx, c->movie, &mi, err);
    if (st != SY_OK) return st;
    sy__motion_player probe;
    st = sy__motion_player_open(ctx, c->movie, 16, 16, 0, 0, 1, NULL, &probe, err); /* one frame: no frame threads */
    if (st != SY_OK) return st;
    const sy_video_reader_info *vi = sy_video_reader_info_get(probe.reader);
    c->primaries = sy__video_frame_primaries(vi);
    c->transfer = vi->transfer;
    /* the cell's own time starts with its picture: a movie whose picture starts after its sound plays from
     * its first frame, the sound before it cut */
    c->picture_start = vi->start_seconds;
    c->duration = vi->presentation_seconds > 0 ? vi->presentation_seconds : mi.duration - c->picture_start;
    /* no still-image-time track: the middle, where Apple puts the key photo */
    double key = mi.still_time - c->picture_start;
    c->still_time = mi.has_still_time && key >= 0 && key <= c->duration ? key : c->duration / 2;
    sy__motion_player_close(&probe);
    c->has_audio = has_audio(ctx, c->movie);
    return SY_OK;
}

static void resolve_movie(sy__motion_job *job, uint32_t i, const sy_motion_input *in, sy_motion_cell *rc) {
    sy__motion_cell *c = &job->cells[i];
    if (in->movie) {
        snprintf(c->movie, sizeof c->movie, "%s", in->movie);
    } else if (!sy__motion_same_stem_movie(in->still, c->movie, sizeof c->movie)) {
        return; /* a plain photo */
    } else {
        char still_id[SY_LIVE_ID_LEN + 1] = "";
        int found = 0;
        sy_live_movie_info mi;
        sy_error e = {0};
        if (sy_live_still_read_id(job->ctx, in->still, still_id, &found, &e) != SY_OK || !found) {
            snprintf(rc->movie, sizeof rc->movie, "%s", c->movie);
            snprintf(rc->reason, sizeof rc->reason, "%s: the still has no content identifier, so %s is not its "
                     "Live movie", in->still, c->movie);
            c->movie[0] = 0;
            return;
        }
        if (sy_live_movie_read(job->ctx, c->movie, &mi, &e) == SY_OK &&
            (!mi.has_identifier || strcmp(mi.content_identifier, still_id) != 0)) {
            snprintf(rc->movie, sizeof rc->movie, "%s", c->movie);
            snprintf(rc->reason, sizeof rc->reason, "%s: its content identifier differs from the still's", c->movie);
            c->movie[0] = 0;
            return;
        }
    }
    snprintf(rc->movie, sizeof rc->movie, "%s", c->movie);
    sy_error e = {0};
    if (check_movie(job->ctx, c, &e) == SY_OK) {
        c->live = rc->live = 1;
    } else {
        snprintf(rc->reason, sizeof rc->reason, "movie unreadable, the cell stays static: %s", e.message);
    }
}

static void resolve_cell(sy__motion_job *job, const sy_motion_input *in, uint32_t i) {
    sy__motion_cell *c = &job->cells[i];
    sy_motion_cell *rc = &job->report->cell[i];
    c->still = in->still;
    sy_error e = {0};
    if (sy_image_probe(job->ctx, c->still, &c->info, &e) != SY_OK) {
        rc->grey = 1;
        snprintf(rc->reason, sizeof rc->reason, "%s", e.message);
        return;
    }
    c->readable = 1;
    resolve_movie(job, i, in, rc);
}

typedef struct resolver {
    sy__motion_job *job;
    const sy_motion_input *inputs;
    atomic_uint next;
} resolver;

static void *resolve_cells(void *arg) {
    resolver *r = arg;
    for (;;) {
        uint32_t i = atomic_fetch_add(&r->next, 1);
        if (i >= r->job->count || sy_context_is_cancelled(r->job->ctx)) break;
        resolve_cell(r->job, &r->inputs[i], i);
    }
    return NULL;
}

sy_status sy__motion_cells_resolve(sy__motion_job *job, const sy_motion_input *inputs, uint32_t *readable,
                                   sy_error *err) {
    *readable = 0;
    resolver r = {.job = job, .inputs = inputs};
    atomic_init(&r.next, 0);
    pthread_t helpers[SY_MOTION_MAX_CELLS];
    uint32_t wanted = SY__MIN(sy__motion_cores(job), job->count), started = 0;
    for (uint32_t t = 1; t < wanted; t++, started++)
        if (pthread_create(&helpers[started], NULL, resolve_cells, &r) != 0) break; /* fewer: still correct */
    resolve_cells(&r);
    for (uint32_t t = 0; t < started; t++) pthread_join(helpers[t], NULL);
    sy_status st = sy__check_cancel(job->ctx, err);
    if (st != SY_OK) return st;
    for (uint32_t i = 0; i < job->count; i++) *readable += job->cells[i].readable;
    return SY_OK;
}
