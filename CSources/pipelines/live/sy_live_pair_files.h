/* sy_live_pair_files.h — a Live pair's two outputs written "both or neither"
 * (engine-private): the still and the movie are written under side names
 * beside their targets and renamed into place only when both are complete;
 * on any failure both side files are removed (and a still already renamed is
 * removed again), so no half pair is ever left.
 *
 * Order: open (sweeps a dead writer's leftovers, makes the side names) ->
 * write the two side files -> finish (renames or removes) -> close. */
#ifndef SY_LIVE_PAIR_FILES_H
#define SY_LIVE_PAIR_FILES_H

#include "base/sy_internal.h"

typedef struct sy__live_pair_files {
    const char *still_out, *movie_out; /* borrowed targets */
    char *still_pending, *movie_pending; /* side names (one engine allocation) */
} sy__live_pair_files;

sy_status sy__live_pair_files_open(sy_context *ctx, const char *still_out, const char *movie_out,
                                   sy__live_pair_files *pf, sy_error *err);
/* `st` is how writing the side files went: SY_OK renames both into place
 * (still first); anything else, or a failed rename, removes them. Returns the
 * final status. */
sy_status sy__live_pair_files_finish(sy__live_pair_files *pf, sy_status st, sy_error *err);
void sy__live_pair_files_close(sy_context *ctx, sy__live_pair_files *pf);

#endif
