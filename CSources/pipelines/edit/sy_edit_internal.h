/* sy_edit_internal.h — what the edit pipeline shares with the pipelines
 * above it (engine-private): recipe preparation and the job write that takes
 * gain-map additions. The still pieces it is built from (upright decode,
 * still writer, file identity) are in still/sy_still_internal.h. */
#ifndef SY_EDIT_INTERNAL_H
#define SY_EDIT_INTERNAL_H

#include "base/sy_internal.h"
#include "still/sy_still_internal.h"
#include "sy_edit.h"
#include "sy_gainmap_edit.h"

/* ---- recipes (edit.c) ---- */

/* *r = the recipe with a "cube:<path>" filter loaded as its user LUT (*lut
 * owns it: destroy after use; NULL when none), validated. The one place the
 * cube prefix is resolved: stills, Live saves and Live frames. */
sy_status sy__recipe_prepare(sy_context *ctx, const sy_recipe *recipe, sy_recipe *r, sy_lut **lut, sy_error *err);

/* ---- the job behind a gain-map save (edit.c) ---- */

/* sy_edit_job_write with `extra` (may be NULL), without the HDR decision:
 * the caller has made it (sy__hdr_decide). */
sy_status sy__edit_job_write_extra(sy_edit_job *job, const char *output, const sy__still_extra *extra, sy_error *err);
/* The SDR save of a gain-map source the user agreed to lose: the base only,
 * with an empty XMP instead of an Ultra HDR one that would claim a gain map
 * the output no longer has. No HDR decision. */
sy_status sy__edit_job_write_sdr(sy_edit_job *job, const char *output, sy_error *err);

/* What a gain-map save needs of an open job (borrowed from it). */
typedef struct sy__edit_job_view {
    sy_context *ctx;
    const char *input;
    const sy_edit_options *opts;
    const sy_edit_report *report; /* as last planned */
    const sy_recipe *geometry;    /* the planned recipe's geometry (sy_recipe_geometry_only) */
} sy__edit_job_view;

sy__edit_job_view sy__edit_job_view_of(const sy_edit_job *job);

/* ---- SPEC E6: never a silent SDR save (hdr_decision.c) ----
 *
 * The one decision every still save makes before it writes: sy_edit and Live
 * stills (which write the base only) and sy_gainmap_edit (which carries the
 * map). It probes the input once; for a save that carries maps it also
 * decodes the stored map, since a map that does not decode cannot be kept. */

typedef enum sy__hdr_save {
    SY__HDR_SAVE_BASE_ONLY = 0, /* the save writes the base only: any gain map would be lost */
    SY__HDR_SAVE_CARRIES_MAP,   /* the save keeps a map it can (sy_gainmap_edit) */
} sy__hdr_save;

typedef enum sy__hdr_verdict {
    SY__HDR_PLAIN = 0, /* no gain map: an ordinary save */
    SY__HDR_KEEP,      /* the map is kept: `map` holds it, decoded */
    SY__HDR_ASK,       /* the map would be lost and no consent was given: ask first, or refuse */
    SY__HDR_DROP,      /* the map is lost with the consent given: the SDR save (sy__edit_job_write_sdr) */
} sy__hdr_verdict;

typedef struct sy__hdr_decision {
    sy__hdr_verdict verdict;
    sy_gainmap_info info;       /* the probe (kind NONE for PLAIN) */
    sy_hdr_loss_reason reason;  /* ASK / DROP: why the map cannot be kept */
    char detail[200];           /* ASK / DROP: what exactly cannot be kept */
    sy_gainmap_image map;       /* KEEP: the stored map (sy__hdr_decision_free) */
} sy__hdr_decision;

/* Decides the save of `input` as `format`; `consent` = the caller already
 * has the user's consent to SDR (SY_EDIT_ALLOW_SDR, allow_sdr). A probe that
 * fails is no gain map to a base-only save (it refuses only a map it can
 * see) and an error to a save that carries maps, as is a budget, I/O or
 * cancellation failure while decoding the map. */
sy_status sy__hdr_decide(sy_context *ctx, const char *input, sy__hdr_save save, sy_still_format format, int consent,
                         sy__hdr_decision *d, sy_error *err);
void sy__hdr_decision_free(sy_context *ctx, sy__hdr_decision *d);

/* sy__hdr_decide for a save that is refused when it would have to ask: an
 * ASK verdict is freed and becomes SY_E_UNSUPPORTED with the one message
 * ("INPUT: has an HDR gain map that WHAT cannot keep (WHY); allow_sdr records
 * the user's consent to an SDR still; nothing was written"). `why` NULL = the
 * decision's own detail. On SY_OK the verdict is never ASK. */
sy_status sy__hdr_decide_or_refuse(sy_context *ctx, const char *input, sy__hdr_save save, sy_still_format format,
                                   int consent, const char *what, const char *why, sy__hdr_decision *d,
                                   sy_error *err);

/* sy_gainmap_edit_job_write with the decision already made (not ASK) — for
 * a save that must decide before other work starts (a Live edit decides
 * before its movie is encoded). KEEP consumes d->map; the caller still
 * frees `d`. `rep` is filled as sy_gainmap_edit_job_write fills it. */
sy_status sy__gainmap_job_write_decided(sy_edit_job *job, const char *output, sy__hdr_decision *d,
                                        sy_gainmap_edit_report *rep, sy_error *err);

/* The job's still will be half of a Live pair: its Exif carries `id` (36
 * characters) instead of dropping the source's identifier. */
sy_status sy__edit_job_carry_identifier(sy_edit_job *job, const char *id, sy_error *err);

#endif
