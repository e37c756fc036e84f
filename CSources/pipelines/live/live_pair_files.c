/* live_pair_files.c — both files of a Live pair or neither (sy_live_pair_files.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/sy_output.h"
#include "live/sy_live_pair_files.h"

sy_status sy__live_pair_files_open(sy_context *ctx, const char *still_out, const char *movie_out,
                                   sy__live_pair_files *pf, sy_error *err) {
    memset(pf, 0, sizeof *pf);
    size_t mn = strlen(movie_out) + 32, sn = strlen(still_out) + 32;
    char *names = sy__alloc(ctx, mn + sn, 1, "live output paths", err);
    if (!names) return err ? err->code : SY_E_BUDGET;
    pf->still_out = still_out;
    pf->movie_out = movie_out;
    pf->movie_pending = names;
    pf->still_pending = names + mn;
    sy__output_sweep(movie_out);
    sy__output_sweep(still_out);
    sy__output_side_name(movie_out, pf->movie_pending, mn);
    sy__output_side_name(still_out, pf->still_pending, sn);
    return SY_OK;
}

sy_status sy__live_pair_files_finish(sy__live_pair_files *pf, sy_status st, sy_error *err) {
    if (st == SY_OK && rename(pf->still_pending, pf->still_out) != 0)
        st = sy__fail(err, SY_E_IO, "%s: cannot move the still into place", pf->still_out);
    if (st == SY_OK && rename(pf->movie_pending, pf->movie_out) != 0) {
        unlink(pf->still_out);
        st = sy__fail(err, SY_E_IO, "%s: cannot move the movie into place", pf->movie_out);
    }
    if (st != SY_OK) {
        unlink(pf->movie_pending);
        unlink(pf->still_pending);
    }
    return st;
}

void sy__live_pair_files_close(sy_context *ctx, sy__live_pair_files *pf) {
    if (pf && pf->movie_pending) sy__free(ctx, pf->movie_pending);
    if (pf) memset(pf, 0, sizeof *pf);
}
