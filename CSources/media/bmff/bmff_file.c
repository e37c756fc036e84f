/* bmff_file.c — see sy_bmff_file.h. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sy_input.h"
#include "bmff/sy_bmff_file.h"

const char *sy__short_path(const char *path) {
    size_t n = strlen(path);
    return n > 96 ? path + (n - 96) : path;
}

sy_status sy__bmff_file_open(sy_context *ctx, const char *path, char **path_copy, FILE **fp, int *fd,
                             uint64_t *size, sy_error *err) {
    *path_copy = NULL, *fp = NULL, *fd = -1, *size = 0;
    size_t plen = strlen(path);
    char *copy = sy__alloc(ctx, plen + 1, 1, "container path", err);
    if (!copy) return err ? err->code : SY_E_BUDGET;
    memcpy(copy, path, plen + 1);
    FILE *file = NULL;
    sy_status opened = sy__input_open(path, &file, err);
    if (opened != SY_OK) {
        sy__free(ctx, copy);
        return opened;
    }
    struct stat sb;
    if (fstat(fileno(file), &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size < 0) {
        fclose(file);
        sy__free(ctx, copy);
        return sy__fail(err, SY_E_IO, "%s: not a regular file", sy__short_path(path));
    }
    *path_copy = copy, *fp = file, *fd = fileno(file), *size = (uint64_t)sb.st_size;
    return SY_OK;
}

sy_status sy__bmff_read_at(int fd, const char *path, uint64_t offset, void *dst, size_t n, sy_error *err) {
    uint8_t *p = dst;
    while (n > 0) {
        if (offset > (uint64_t)INT64_MAX)
            return sy__fail(err, SY_E_IO, "%s: read offset %llu out of range", sy__short_path(path),
                            (unsigned long long)offset);
        ssize_t got = pread(fd, p, n, (off_t)offset);
        if (got < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            return sy__fail_sub(err, SY_E_IO, e, "%s: read of %zu bytes at offset %llu failed: %s", sy__short_path(path),
                                n, (unsigned long long)offset, strerror(e));
        }
        if (got == 0)
            return sy__fail(err, SY_E_IO, "%s: file ends before offset %llu (truncated while open?)", sy__short_path(path),
                            (unsigned long long)offset);
        p += got;
        n -= (size_t)got;
        offset += (uint64_t)got;
    }
    return SY_OK;
}

sy_status sy__bmff_fail(sy_error *err, sy_status code, const char *path, uint32_t box, uint64_t offset,
                        const char *fmt, va_list ap) {
    if (!err) return code;
    char reason[200], name[16];
    vsnprintf(reason, sizeof reason, fmt, ap);
    if (!box) return sy__fail(err, code, "%s: %s (offset %llu)", sy__short_path(path), reason, (unsigned long long)offset);
    return sy__fail(err, code, "%s: %s ('%s', offset %llu)", sy__short_path(path), reason,
                    sy_bmff_fourcc_text(box, name), (unsigned long long)offset);
}

sy_status sy__bmff_next_in(const char *path, sy_bmff_cursor *c, sy_bmff_box *b, sy_error *err) {
    sy_error inner = {0};
    sy_status st = sy_bmff_next(c, b, &inner);
    if (st == SY_OK || !err) return st;
    return sy__fail(err, st, "%s: %s", sy__short_path(path), inner.message);
}
