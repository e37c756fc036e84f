/* sy_output.h — atomic file output: write to an anonymous file in the target's
 * folder (a named "<target>.tmp-<pid>-XXXXXX" one where the file system has no
 * O_TMPFILE), name it and rename it into place on commit, drop it on abort.
 * An existing file at the target is never touched unless the new one is
 * complete; a writer killed mid-way leaves nothing the next writer of the same
 * target does not remove. (engine-private) */
#ifndef SY_OUTPUT_H
#define SY_OUTPUT_H

#include <stdio.h>
#include "sy_base.h"

typedef struct sy__output {
    FILE *file;          /* write here; the descriptor is also readable (pread/pwrite patches) */
    char *temp_path;     /* engine-allocated; "" while the file is anonymous */
    size_t temp_cap;
    int anonymous;       /* O_TMPFILE: named only at commit */
    char *final_path;
    sy_context *ctx;
} sy__output;

/* Before any work: `final_path` may be written by a job reading `inputs`.
 * Refuses (SY_E_USAGE, naming the file) an output that is one of the inputs —
 * the same device and inode, so hard links, symlinks and other spellings count —
 * or a directory, and (SY_E_IO) a folder that does not exist or cannot be
 * written. `inputs` may hold NULLs (skipped). */
sy_status sy__output_check(const char *final_path, const char *const *inputs, size_t count, sy_error *err);

/* Removes "<final_path>.tmp-<pid>-XXXXXX" files whose writer process is gone
 * (sy__output_open does this itself; for side files kept under that rule). */
void sy__output_sweep(const char *final_path);

/* "<path>: write failed: <errno's reason>" (SY_E_IO, errno as the subcode;
 * EIO when errno says nothing), naming a side name's target. Call it right
 * after the failed write, while errno is the write's. */
sy_status sy__write_failed(sy_error *err, const char *path);

/* How much of `path` names the file for a message: all of it, or what comes
 * before a side name's ".tmp-<pid>-XXXXXX" tail (a pair is written under side
 * names first; a failure should name the file the user asked for). */
int sy__output_display_len(const char *path);

/* Writes into `out` (cap >= strlen(final_path) + 32) a fresh side name
 * "<final_path>.tmp-<pid>-XXXXXX" for a file that is renamed to final_path
 * later, so a dead writer's side file is swept like its temp files. */
void sy__output_side_name(const char *final_path, char *out, size_t cap);

sy_status sy__output_open(sy_context *ctx, const char *final_path, sy__output *out, sy_error *err);
/* Flushes, fsyncs, closes and renames. On failure the temp file is removed. */
sy_status sy__output_commit(sy__output *out, sy_error *err);
/* Closes and removes the temp file; safe on a zeroed or committed output. */
void sy__output_abort(sy__output *out);

/* A scratch file for a job writing `final_path`: anonymous (O_TMPFILE) in the
 * target's folder, or named there and unlinked at once, so nothing is left
 * behind whatever happens and it shares the output's file system. Read and
 * written ("w+b"); the caller fcloses it. `what` names it in errors. */
sy_status sy__output_scratch(const char *final_path, const char *what, FILE **out, sy_error *err);

#endif
