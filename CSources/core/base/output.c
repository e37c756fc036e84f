/* output.c — temp file + rename, so a failed write never leaves a partial file
 * and never destroys an existing one. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/sy_internal.h"
#include "base/sy_output.h"

static char *copy_string(sy_context *ctx, const char *s, sy_error *err) {
    size_t n = strlen(s) + 1;
    char *p = sy__alloc(ctx, n, 1, "output path", err);
    if (p) memcpy(p, s, n);
    return p;
}

/* The folder `path` lives in, into `dir` (cap bytes): "." for a bare name. */
static void folder_of(const char *path, char *dir, size_t cap) {
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, cap, ".");
    } else if (slash == path) {
        snprintf(dir, cap, "/");
    } else {
        snprintf(dir, cap, "%.*s", (int)(slash - path), path);
    }
}

sy_status sy__output_check(const char *final_path, const char *const *inputs, size_t count, sy_error *err) {
    struct stat out;
    if (stat(final_path, &out) == 0) {
        if (S_ISDIR(out.st_mode)) return sy__fail(err, SY_E_USAGE, "%s: is a directory, not an output file", final_path);
        for (size_t i = 0; i < count; i++) {
            struct stat in;
            if (inputs[i] && stat(inputs[i], &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
                return sy__fail(err, SY_E_USAGE, "%s: is also an input (%s); the output must be another file",
                                final_path, inputs[i]);
        }
    }
    char dir[4096];
    folder_of(final_path, dir, sizeof dir);
    struct stat folder;
    if (stat(dir, &folder) != 0 || !S_ISDIR(folder.st_mode)) {
        int e = errno;
        return sy__fail_sub(err, SY_E_IO, e, "%s: the folder %s does not exist", final_path, dir);
    }
    if (access(dir, W_OK) != 0) {
        int e = errno;
        return sy__fail_sub(err, SY_E_IO, e, "%s: the folder %s cannot be written: %s", final_path, dir, strerror(e));
    }
    return SY_OK;
}

sy_status sy__output_open(sy_context *ctx, const char *final_path, sy__output *out, sy_error *err) {
    memset(out, 0, sizeof *out);
    out->ctx = ctx;
    size_t n = strlen(final_path);
    out->final_path = copy_string(ctx, final_path, err);
    if (!out->final_path) return err ? err->code : SY_E_BUDGET;
    out->temp_path = sy__alloc(ctx, n + 16, 1, "temp path", err);
    if (!out->temp_path) {
        sy__output_abort(out);
        return err ? err->code : SY_E_BUDGET;
    }
    /* Same folder as the target, so rename() is atomic (same file system). */
    snprintf(out->temp_path, n + 16, "%s.tmp-XXXXXX", final_path);
    int fd = mkstemp(out->temp_path);
    if (fd < 0) {
        int e = errno;
        sy__fail_sub(err, SY_E_IO, e, "%s: cannot create a temporary file beside it: %s", final_path, strerror(e));
        out->temp_path[0] = 0;
        sy__output_abort(out);
        return SY_E_IO;
    }
    fchmod(fd, 0644);
    out->file = fdopen(fd, "wb");
    if (!out->file) {
        int e = errno;
        close(fd);
        sy__output_abort(out);
        return sy__fail_sub(err, SY_E_IO, e, "%s: fdopen failed: %s", final_path, strerror(e));
    }
    setvbuf(out->file, NULL, _IOFBF, 1 << 16);
    return SY_OK;
}

sy_status sy__output_commit(sy__output *out, sy_error *err) {
    int failed = 0, e = 0;
    if (fflush(out->file) != 0 || ferror(out->file)) failed = 1, e = errno;
    if (!failed && fsync(fileno(out->file)) != 0 && errno != EINVAL) failed = 1, e = errno;
    if (fclose(out->file) != 0 && !failed) failed = 1, e = errno;
    out->file = NULL;
    if (!failed && rename(out->temp_path, out->final_path) != 0) failed = 1, e = errno;
    if (failed) {
        sy__fail_sub(err, SY_E_IO, e, "%s: write failed: %s", out->final_path, strerror(e));
        sy__output_abort(out);
        return SY_E_IO;
    }
    out->temp_path[0] = 0; /* renamed: nothing to remove */
    sy__output_abort(out);
    return SY_OK;
}

void sy__output_abort(sy__output *out) {
    if (out->file) fclose(out->file);
    out->file = NULL;
    if (out->temp_path && out->temp_path[0]) unlink(out->temp_path);
    if (out->ctx) {
        sy__free(out->ctx, out->temp_path);
        sy__free(out->ctx, out->final_path);
    }
    out->temp_path = out->final_path = NULL;
}
