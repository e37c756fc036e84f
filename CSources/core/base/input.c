/* input.c — regular files only, opened without blocking (see sy_input.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/sy_input.h"
#include "base/sy_internal.h"

const char *sy__file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

sy_status sy__input_open(const char *path, FILE **out, sy_error *err) {
    *out = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat sb;
    if (fd < 0) {
        int e = errno;
        /* A socket cannot be opened at all (ENXIO, "No such device or address"): say what it is. */
        if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode))
            return sy__fail(err, SY_E_INVALID_INPUT, "%s: is %s; only regular files are read", path, sy__file_kind(sb.st_mode));
        return sy__fail_sub(err, SY_E_IO, e, "%s: cannot open: %s", path, strerror(e));
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        int e = errno;
        const char *kind = fstat(fd, &sb) == 0 ? sy__file_kind(sb.st_mode) : strerror(e);
        close(fd);
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: is %s; only regular files are read", path, kind);
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 || !(*out = fdopen(fd, "rb"))) {
        int e = errno;
        close(fd);
        return sy__fail_sub(err, SY_E_IO, e, "%s: cannot open: %s", path, strerror(e));
    }
    return SY_OK;
}
