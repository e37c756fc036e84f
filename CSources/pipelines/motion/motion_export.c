/* motion_export.c — sy_motion_export: cells, layout, the key-photo
 * composition, then the tier (SPEC C1): the Live pair written, verified
 * (C3) and delivered or turned into a plain still (C4); the MP4 and its
 * poster (C7); or the still. No Live cell (C5) or no readable movie (C6)
 * delivers a still and says why. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/sy_output.h"
#include "live/sy_live_still_job.h"
#include "motion/sy_motion_internal.h"

void sy_motion_options_init(sy_motion_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->version = 1;
    sy_collage_options_init(&opts->layout, SY_LAYOUT_GRID);
    opts->mode = SY_MOTION_TOGETHER;
    opts->hero = -1;
    opts->tier = SY_MOTION_TIER_LIVE;
    opts->still_format = SY_STILL_JPEG;
    opts->quality = 92;
    opts->fps = 30;
    opts->zoom_seconds = 0.5;
}

static sy_status check(const sy_motion_input *inputs, uint32_t count, const sy_motion_options *o,
                       const char *still_path, const char *movie_path, sy_error *err) {
    if (o->version != 1) return sy__fail(err, SY_E_USAGE, "moving collage: options version %u, expected 1", o->version);
    if (count == 0 || count > SY_MOTION_MAX_CELLS)
        return sy__fail(err, SY_E_USAGE, "moving collage: %u photos (1..%u)", count, SY_MOTION_MAX_CELLS);
    for (uint32_t i = 0; i < count; i++)
        if (!inputs[i].still) return sy__fail(err, SY_E_USAGE, "moving collage: input %u has no still", i);
    if (o->mode != SY_MOTION_TOGETHER && o->mode != SY_MOTION_RELAY && o->mode != SY_MOTION_FOCUS)
        return sy__fail(err, SY_E_USAGE, "moving collage: unknown motion mode %d", (int)o->mode);
    if (o->tier != SY_MOTION_TIER_LIVE && o->tier != SY_MOTION_TIER_VIDEO && o->tier != SY_MOTION_TIER_STILL)
        return sy__fail(err, SY_E_USAGE, "moving collage: unknown export tier %d", (int)o->tier);
    if (o->still_format != SY_STILL_JPEG && o->still_format != SY_STILL_HEIC)
        return sy__fail(err, SY_E_USAGE, "moving collage: the still is JPEG or HEIC");
    if (o->quality < 1 || o->quality > 100)
        return sy__fail(err, SY_E_USAGE, "moving collage: quality %d is outside 1..100", o->quality);
    if (o->fps == 0 || o->fps > 60 || 600 % o->fps)
        return sy__fail(err, SY_E_USAGE, "moving collage: %u fps (a divisor of 600 up to 60: 24, 25, 30, 60 ...)",
                        o->fps);
    if (!(o->zoom_seconds >= 0 && o->zoom_seconds <= 5))
        return sy__fail(err, SY_E_USAGE, "moving collage: zoom of %g s (0..5)", o->zoom_seconds);
    if (!still_path || (o->tier != SY_MOTION_TIER_STILL && !movie_path))
        return sy__fail(err, SY_E_USAGE, "moving collage: the %s tier needs a still path%s",
                        o->tier == SY_MOTION_TIER_STILL ? "still" : "movie", o->tier == SY_MOTION_TIER_STILL ? "" : " and a movie path");
    const char *names[SY_MOTION_MAX_CELLS * 2];
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; i++) {
        names[n++] = inputs[i].still;
        if (inputs[i].movie) names[n++] = inputs[i].movie;
    }
    int movie_out = movie_path && o->tier != SY_MOTION_TIER_STILL;
    sy_status st = sy__output_check(still_path, names, n, err);
    if (st == SY_OK && movie_out) st = sy__output_check(movie_path, names, n, err);
    /* a still's movie found beside it (IMG_1.HEIC + IMG_1.MOV) is an input too: writing over it would break
     * the user's Live photo */
    char beside[PATH_MAX];
    const char *found[1] = {beside};
    for (uint32_t i = 0; st == SY_OK && i < count; i++) {
        if (inputs[i].movie || !sy__motion_same_stem_movie(inputs[i].still, beside, sizeof beside)) continue;
        st = sy__output_check(still_path, found, 1, err);
        if (st == SY_OK && movie_out) st = sy__output_check(movie_path, found, 1, err);
    }
    return st;
}

static sy_status write_still(sy__motion_job *job, const char *path, const char *id, sy_error *err) {
    sy_edit_image image = {job->key, job->stride, job->width, job->height};
    return sy__live_write_still_in(job->ctx, &image, job->space, sy__motion_hdr_extra(job), NULL, NULL, id, path,
                                   job->o->still_format, job->o->quality, NULL, err);
}

/* SPEC C3 then C4: deliver the pair only when it verifies; otherwise the still
 * without its identifier, the movie deleted — or nothing and an error. */
static sy_status verify_or_fall_back(sy__motion_job *job, const char *still_path, const char *movie_path,
                                     sy_error *err) {
    sy_motion_report *rep = job->report;
    const sy_motion_options *o = job->o;
    sy__motion_note_peak(job);
    sy_status st = o->before_verify ? o->before_verify(o->hook_user, still_path, movie_path, err) : SY_OK;
    sy_live_verdict verdict;
    if (st == SY_OK) st = sy_live_verify(job->ctx, still_path, movie_path, &verdict, err);
    if (st != SY_OK) return st;
    if (verdict.ok) {
        rep->delivered = SY_MOTION_TIER_LIVE;
        return SY_OK;
    }
    unlink(movie_path);
    rep->movie_written = 0;
    char plain[4096 + 64];
    sy__output_side_name(still_path, plain, sizeof plain);
    st = sy_live_still_strip(job->ctx, still_path, plain, NULL, err);
    if (st == SY_OK && rename(plain, still_path) != 0)
        st = sy__fail(err, SY_E_IO, "%s: cannot replace the still with its plain copy", still_path);
    if (st != SY_OK) {
        unlink(plain);
        unlink(still_path); /* never a fake Live photo (SPEC C4) */
        return st;
    }
    rep->delivered = SY_MOTION_TIER_STILL;
    rep->content_identifier[0] = 0;
    snprintf(rep->fallback_reason, sizeof rep->fallback_reason, "the Live pair failed verification: %s",
             verdict.reason);
    return SY_OK;
}

static sy_status deliver(sy__motion_job *job, const char *still_path, const char *movie_path, sy_error *err) {
    sy_motion_report *rep = job->report;
    sy_motion_tier tier = job->o->tier;
    if (tier != SY_MOTION_TIER_STILL && job->live_count == 0) {
        int had_movie = 0;
        for (uint32_t i = 0; i < job->count; i++) had_movie |= rep->cell[i].movie[0] != 0;
        snprintf(rep->fallback_reason, sizeof rep->fallback_reason, "%s",
                 had_movie ? "no Live photo's movie could be read: the collage is a still (SPEC C6)"
                           : "no Live photo among the inputs: the collage is a still (SPEC C5)");
        tier = SY_MOTION_TIER_STILL;
    }
    if (tier == SY_MOTION_TIER_STILL) {
        rep->delivered = SY_MOTION_TIER_STILL;
        sy__motion_note_peak(job);
        return write_still(job, still_path, NULL, err);
    }
    sy_status st = sy__motion_timeline(job, err);
    rep->hero = job->hero;
    for (uint32_t i = 0; i < job->count; i++) {
        int plays = st == SY_OK && job->cells[i].live && (job->hero < 0 || (uint32_t)job->hero == i);
        rep->cell[i].start_seconds = plays ? job->start[i] : -1;
    }
    char id[SY_LIVE_ID_LEN + 1] = "";
    if (st == SY_OK && tier == SY_MOTION_TIER_LIVE) st = sy_live_new_identifier(id, err);
    if (st == SY_OK) st = sy__motion_write_movie(job, movie_path, tier == SY_MOTION_TIER_LIVE ? id : NULL, err);
    if (st != SY_OK) return st;
    rep->movie_written = 1;
    sy__motion_note_peak(job);
    st = write_still(job, still_path, tier == SY_MOTION_TIER_LIVE ? id : NULL, err);
    if (st != SY_OK) {
        unlink(movie_path); /* both files or neither */
        rep->movie_written = 0;
        return st;
    }
    if (tier == SY_MOTION_TIER_VIDEO) {
        rep->delivered = SY_MOTION_TIER_VIDEO;
        return SY_OK;
    }
    memcpy(rep->content_identifier, id, sizeof id);
    return verify_or_fall_back(job, still_path, movie_path, err);
}

sy_status sy_motion_export(sy_context *ctx, const sy_motion_input *inputs, uint32_t count,
                           const sy_motion_options *opts, const char *still_path, const char *movie_path,
                           sy_motion_report *report, sy_error *err) {
    if (!ctx || !inputs || !opts || !report) return sy__fail(err, SY_E_USAGE, "sy_motion_export: NULL argument");
    memset(report, 0, sizeof *report);
    report->hero = -1;
    sy_status st = check(inputs, count, opts, still_path, movie_path, err);
    if (st != SY_OK) return st;
    sy_context_reset_peak(ctx);
    sy__motion_job *job = sy__calloc(ctx, 1, sizeof *job, "moving collage job", err);
    if (!job) return err ? err->code : SY_E_BUDGET;
    job->ctx = ctx;
    job->o = opts;
    job->count = count;
    job->report = report;
    report->cells = count;
    uint32_t readable = 0;
    st = sy__motion_cells_resolve(job, inputs, &readable, err);
    if (st == SY_OK && readable == 0)
        st = sy__fail(err, SY_E_INVALID_INPUT, "moving collage: none of the %u photos is readable (first: %s)", count,
                      report->cell[0].reason);
    if (st == SY_OK) st = sy__motion_layout(job, err);
    if (st == SY_OK) st = sy__motion_compose_stills(job, err);
    if (st == SY_OK) st = sy__motion_hdr_prepare(job, still_path, err);
    if (st == SY_OK) {
        report->width = job->width;
        report->height = job->height;
        for (uint32_t i = 0; i < count; i++) {
            job->live_count += job->cells[i].live;
            report->grey_cells += report->cell[i].grey;
        }
        report->live_cells = job->live_count;
        report->static_cells = count - job->live_count;
        st = deliver(job, still_path, movie_path, err);
    }
    sy__motion_note_peak(job);
    report->engine_peak_bytes = job->peak;
    sy__motion_job_free(job);
    sy__free(ctx, job);
    return st;
}
