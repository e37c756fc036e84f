/* motion_hdr.c — SPEC E6 for moving collages: the key photos' HDR gain maps
 * composed into one map for the still, as a still collage composes its
 * cells' (collage/sy_collage_hdr.h); a map that cannot be kept asks first
 * (the layout options' hook or consent), else nothing is written. Planned
 * before the movie, so a refusal costs no encoding; the still of an iPhone
 * Live collage then shows HDR as the iPhone's own Live photos do, its base
 * the same pixels as the movie's frame at the still-image time. */
#include "base/sy_hdr_tone.h"
#include "motion/sy_motion_internal.h"

sy_status sy__motion_hdr_prepare(sy__motion_job *job, const char *still_path, sy_error *err) {
    sy__cell_job jobs[SY_MOTION_MAX_CELLS];
    for (uint32_t i = 0; i < job->count; i++) {
        const sy__motion_cell *c = &job->cells[i];
        jobs[i] = (sy__cell_job){.path = c->still, .info = c->readable ? &c->info : NULL,
                                 .rect = job->layout.cells[i], .space = job->space};
    }
    sy_collage_options o = job->o->layout;
    o.format = job->o->still_format;
    o.quality = job->o->quality;
    sy__motion_note_peak(job);
    sy_status st = sy__collage_hdr_prepare(job->ctx, &o, jobs, job->count, &job->layout, still_path, &job->hdr, err);
    job->report->hdr = job->hdr.active        ? SY_HDR_KEPT
                       : job->hdr.dropped_all ? SY_HDR_DROPPED_WITH_CONSENT
                       : st == SY_E_UNSUPPORTED ? SY_HDR_REFUSED
                                                : SY_HDR_NOT_HDR;
    /* The movie is 8-bit SDR: an HDR (HLG, PQ) cell movie is tone-mapped into it, so its HDR is lost —
     * asked before any encoding, as a gain map is (a still or a video tier alike) */
    for (uint32_t i = 0; st == SY_OK && job->o->tier != SY_MOTION_TIER_STILL && i < job->count; i++) {
        const sy__motion_cell *c = &job->cells[i];
        if (!c->live || !sy__cicp_is_hdr_transfer(c->transfer)) continue;
        char detail[160];
        snprintf(detail, sizeof detail, "an %s movie; the collage's movie is SDR (8 bits)",
                 c->transfer == SY_CICP_TRANSFER_PQ ? "HDR10 (PQ)" : "HLG");
        st = sy__collage_hdr_ask(&o, &job->hdr, c->movie, SY_HDR_LOSS_HDR_VIDEO, detail, err);
        job->report->movie_hdr = st == SY_OK ? SY_HDR_DROPPED_WITH_CONSENT : SY_HDR_REFUSED;
    }
    return st;
}

const sy__still_extra *sy__motion_hdr_extra(const sy__motion_job *job) {
    return job->hdr.active ? &job->hdr.save.extra : NULL;
}
