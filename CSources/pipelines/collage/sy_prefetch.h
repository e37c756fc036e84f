/* sy_prefetch.h — worker threads that prepare cells ahead of the strip loop,
 * in layout order, within a cap on the bytes of prepared cells (engine-private).
 *
 * A worker may always start the cell the strip loop is waiting for, so the
 * cap can never deadlock; beyond that it starts the next cell only while
 * (prepared + decoding estimate) stays under the cap. Each cell may decode on
 * all `threads` (HEIC tile rows): such a cell starts only when needed, and
 * nothing starts early while it builds. Such a cell with its rows to itself
 * (job.alone: a long image's) is handed out as soon as it is begun, and its
 * rows are read as they are decoded (sy__prefetch_rows), so the strip loop
 * works alongside the decoder and no whole cell is ever held. */
#ifndef SY_PREFETCH_H
#define SY_PREFETCH_H

#include "collage/sy_cell.h"
#include "collage/sy_layout.h"

typedef struct sy__cell_job {
    const char *path;
    const sy_image_info *info; /* NULL: unreadable at probe time -> grey */
    sy__rect rect;
    sy__rgb_space space;       /* the output's colour space (the same for every job) */
    int alone;                 /* no other cell shares its rows: it may be read while it builds */
    /* filled by the prefetcher: */
    sy_status failure;         /* SY_OK, or why the cell is grey */
    char reason[256];
    size_t working_bytes;      /* decoder estimate seen while building */
} sy__cell_job;

typedef struct sy__prefetch sy__prefetch;

/* `jobs` stays owned by the caller and must outlive the prefetcher. */
sy_status sy__prefetch_start(sy_context *ctx, sy__cell_job *jobs, uint32_t count, uint32_t chroma_shift,
                             int threads, size_t cap, sy__prefetch **out, sy_error *err);
/* Waits for cell i (declaring cells up to i needed now). Returns NULL on a
 * fatal error (cancelled, out of memory for even a grey cell), filling err.
 * The cell may still be building: read its rows after sy__prefetch_rows. */
const sy__cell *sy__prefetch_get(sy__prefetch *pf, uint32_t index, sy_error *err);
/* Waits until the first `rows` rows of cell i are final (decoded, or grey
 * once its decode failed). SY_E_CANCELLED when the job was cancelled. */
sy_status sy__prefetch_rows(sy__prefetch *pf, uint32_t index, uint32_t rows, sy_error *err);
/* The strip loop is done with the first `rows` rows of cell i: their pages go. */
void sy__prefetch_done_rows(sy__prefetch *pf, uint32_t index, uint32_t rows);
/* The strip loop is done with cell i: its memory is freed. */
void sy__prefetch_release(sy__prefetch *pf, uint32_t index);
/* Stops and joins the workers, frees every cell. Returns the peak prepared bytes. */
size_t sy__prefetch_stop(sy__prefetch *pf);

#endif
