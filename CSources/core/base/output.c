/* output.c — atomic outputs: a failed write never leaves a partial file and
 * never destroys an existing one, and a writer killed mid-way leaves nothing.
 *
 * The bytes go to an anonymous file in the target's folder (O_TMPFILE: the
 * kernel frees it if the process dies); commit gives it a name beside the
 * target and renames that over the target (atomic on one file system). Where
 * the file system has no O_TMPFILE, the temp file is named from the start.
 * Either way a name is "<target>.tmp-<pid>-XXXXXX", so a later writer of the
 * same target removes what a dead process left (its pid no longer runs). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "base/sy_input.h"
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

/* Refuses a target that is there and is not a regular file: the rename at
 * commit would put a file in place of a FIFO, a socket or a device node
 * (some other program's), and cannot replace a directory. */
static sy_status refuse_special(const char *final_path, const struct stat *st, sy_error *err) {
    if (S_ISDIR(st->st_mode)) return sy__fail(err, SY_E_USAGE, "%s: is a directory, not an output file", final_path);
    if (!S_ISREG(st->st_mode))
        return sy__fail(err, SY_E_USAGE, "%s: is %s, not an output file (outputs are written to a temporary file "
                        "and renamed into place)", final_path, sy__file_kind(st->st_mode));
    return SY_OK;
}

sy_status sy__output_check(const char *final_path, const char *const *inputs, size_t count, sy_error *err) {
    struct stat out;
    if (stat(final_path, &out) == 0) {
        sy_status special = refuse_special(final_path, &out, err);
        if (special != SY_OK) return special;
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
    if (stat(dir, &folder) != 0) {
        int e = errno;
        return sy__fail_sub(err, SY_E_IO, e, "%s: the folder %s does not exist", final_path, dir);
    }
    if (!S_ISDIR(folder.st_mode))
        return sy__fail_sub(err, SY_E_IO, ENOTDIR, "%s: %s is a file, not a folder", final_path, dir);
    if (access(dir, W_OK) != 0) {
        int e = errno;
        return sy__fail_sub(err, SY_E_IO, e, "%s: the folder %s cannot be written: %s", final_path, dir, strerror(e));
    }
    return SY_OK;
}

sy_status sy_output_check(const char *output_path, const char *const *inputs, size_t count, sy_error *err) {
    if (!output_path) return sy__fail(err, SY_E_USAGE, "sy_output_check: no output path");
    return sy__output_check(output_path, inputs, count, err);
}

/* How much of the target's name `base` a temp name starts with: all of it,
 * or its first bytes (cut where a UTF-8 character starts) when the whole
 * would make the temp name longer than a file name may be (255 bytes; the
 * ".tmp-<pid>-XXXXXX" tail takes at most 24). */
static size_t temp_base_len(const char *base) {
    size_t n = strlen(base);
    const size_t room = 255 - 24;
    if (n <= room) return n;
    n = room;
    while (n > 0 && ((unsigned char)base[n] & 0xC0) == 0x80) n--;
    return n;
}

void sy__output_sweep(const char *final_path) {
    char dir[4096];
    folder_of(final_path, dir, sizeof dir);
    const char *slash = strrchr(final_path, '/');
    const char *base = slash ? slash + 1 : final_path;
    size_t base_len = temp_base_len(base);
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        const char *name = e->d_name;
        if (strncmp(name, base, base_len) != 0 || strncmp(name + base_len, ".tmp-", 5) != 0) continue;
        char *end = NULL;
        long pid = strtol(name + base_len + 5, &end, 10);
        if (pid <= 0 || !end || *end != '-' || strlen(end + 1) != 6) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* alive, or not ours to judge */
        char path[4096 + 256];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        unlink(path);
    }
    closedir(d);
}

/* The one spelling of a temp name, "<target>.tmp-<pid>-XXXXXX" (read back by
 * sy__output_sweep; a long target name shortened, temp_base_len); mkstemp or
 * fill_suffix replaces the X's. */
static void temp_pattern(const char *final_path, char *out, size_t cap) {
    const char *slash = strrchr(final_path, '/');
    const char *base = slash ? slash + 1 : final_path;
    snprintf(out, cap, "%.*s%.*s.tmp-%ld-XXXXXX", (int)(base - final_path), final_path, (int)temp_base_len(base), base,
             (long)getpid());
}

/* Replaces the pattern's trailing "XXXXXX" with random letters and digits. */
static void fill_suffix(char *name) {
    char *x = name + strlen(name) - 6;
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    uint64_t r = (uint64_t)(uintptr_t)name * 0x9E3779B97F4A7C15ull;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) r ^= (uint64_t)time(NULL);
    for (int i = 0; i < 6; i++, r /= 36) x[i] = digits[r % 36];
}

int sy__output_display_len(const char *path) {
    size_t n = strlen(path);
    const char *tail = n > 12 ? path + n - 7 : NULL; /* "-XXXXXX" */
    if (tail && *tail == '-') {
        const char *p = tail;
        while (p > path && p[-1] >= '0' && p[-1] <= '9') p--;
        if (p < tail && p - path >= 5 && strncmp(p - 5, ".tmp-", 5) == 0) return (int)(p - 5 - path);
    }
    return n > (size_t)INT32_MAX ? INT32_MAX : (int)n;
}

sy_status sy__write_failed(sy_error *err, const char *path) {
    int e = errno ? errno : EIO;
    return sy__fail_sub(err, SY_E_IO, e, "%.*s: write failed: %s", sy__output_display_len(path), path, strerror(e));
}

void sy__output_side_name(const char *final_path, char *out, size_t cap) {
    temp_pattern(final_path, out, cap);
    fill_suffix(out);
}

/* Gives the anonymous file a name (its temp_path); retried on a name clash. */
static int link_anonymous(sy__output *out, size_t cap) {
    int fd = fileno(out->file);
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    for (int attempt = 0; attempt < 16; attempt++) {
        sy__output_side_name(out->final_path, out->temp_path, cap);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, out->temp_path, AT_SYMLINK_FOLLOW) == 0) return 0;
        if (errno == ENOENT && linkat(fd, "", AT_FDCWD, out->temp_path, AT_EMPTY_PATH) == 0) return 0; /* no /proc */
        if (errno != EEXIST) return -1;
    }
    errno = EEXIST;
    return -1;
}

/* An anonymous file in the target's folder, or -1 where O_TMPFILE is not there. */
static int open_anonymous(const char *final_path) {
    char dir[4096];
    folder_of(final_path, dir, sizeof dir);
    return open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644); /* read-write: writers pread/pwrite to patch */
}

sy_status sy__output_open(sy_context *ctx, const char *final_path, sy__output *out, sy_error *err) {
    memset(out, 0, sizeof *out);
    out->ctx = ctx;
    size_t cap = strlen(final_path) + 32; /* ".tmp-" + pid + "-XXXXXX" */
    out->final_path = copy_string(ctx, final_path, err);
    if (!out->final_path) return err ? err->code : SY_E_BUDGET;
    out->temp_path = sy__alloc(ctx, cap, 1, "temp path", err);
    if (!out->temp_path) {
        sy__output_abort(out);
        return err ? err->code : SY_E_BUDGET;
    }
    out->temp_path[0] = 0;
    struct stat existing;
    if (stat(final_path, &existing) == 0 && refuse_special(final_path, &existing, err) != SY_OK) {
        sy__output_abort(out);
        return SY_E_USAGE;
    }
    sy__output_sweep(final_path);
    int fd = open_anonymous(final_path);
    out->anonymous = fd >= 0;
    if (fd < 0) { /* named from the start, beside the target (same file system) */
        temp_pattern(out->final_path, out->temp_path, cap);
        fd = mkstemp(out->temp_path);
    }
    if (fd < 0) {
        int e = errno;
        sy__fail_sub(err, SY_E_IO, e, "%s: cannot create a temporary file beside it: %s", final_path, strerror(e));
        out->temp_path[0] = 0;
        sy__output_abort(out);
        return SY_E_IO;
    }
    out->temp_cap = cap;
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
    if (!failed && out->anonymous && link_anonymous(out, out->temp_cap) != 0) {
        failed = 1, e = errno;
        out->temp_path[0] = 0; /* nothing was named */
    }
    if (fclose(out->file) != 0 && !failed) failed = 1, e = errno;
    out->file = NULL;
    if (!failed && rename(out->temp_path, out->final_path) != 0) failed = 1, e = errno;
    if (failed) {
        sy__fail_sub(err, SY_E_IO, e, "%.*s: write failed: %s", sy__output_display_len(out->final_path), out->final_path,
                     strerror(e));
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

sy_status sy__output_scratch(const char *final_path, const char *what, FILE **out, sy_error *err) {
    *out = NULL;
    char dir[4096];
    folder_of(final_path, dir, sizeof dir);
    int fd = -1, e = 0;
#ifdef O_TMPFILE
    fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    e = errno;
#endif
    if (fd < 0 && e != ENOENT && e != ENOTDIR && e != EACCES) { /* no O_TMPFILE here: a name, unlinked at once */
        size_t len = strlen(dir);
        if (len + 24 >= sizeof dir) return sy__fail(err, SY_E_IO, "%s: folder name too long for a %s", final_path, what);
        snprintf(dir + len, sizeof dir - len, "/.sy-scratch-XXXXXX");
        fd = mkstemp(dir);
        e = errno;
        if (fd >= 0) unlink(dir);
    }
    if (fd < 0) return sy__fail_sub(err, SY_E_IO, e, "%s: cannot create the %s beside it: %s", final_path, what, strerror(e));
    *out = fdopen(fd, "w+b");
    if (!*out) {
        e = errno;
        close(fd);
        return sy__fail_sub(err, SY_E_IO, e, "%s: fdopen of the %s failed: %s", final_path, what, strerror(e));
    }
    return SY_OK;
}
