/* sy_edit_internal.h — what the edit pipeline shares with the pipelines
 * above it (engine-private): recipe preparation and the job write that takes
 * gain-map additions. The still pieces it is built from (upright decode,
 * still writer, file identity) are in still/sy_still_internal.h. */
#ifndef SY_EDIT_INTERNAL_H
#define SY_EDIT_INTERNAL_H

#include "base/sy_internal.h"
#include "still/sy_still_internal.h"
#include "sy_edit.h"

/* ---- recipes (edit.c) ---- */

/* *r = the recipe with a "cube:<path>" filter loaded as its user LUT (*lut
 * owns it: destroy after use; NULL when none), validated. The one place the
 * cube prefix is resolved: stills, Live saves and Live frames. */
sy_status sy__recipe_prepare(sy_context *ctx, const sy_recipe *recipe, sy_recipe *r, sy_lut **lut, sy_error *err);

/* sy_edit_job_write with `extra` (may be NULL). */
sy_status sy__edit_job_write_extra(sy_edit_job *job, const char *output, const sy__still_extra *extra, sy_error *err);

#endif
