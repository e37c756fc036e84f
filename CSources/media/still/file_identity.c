/* file_identity.c — sy_file_identity: a file's byte size and SHA-256 (FIPS
 * 180-4), the "which file is this" fact of the SPEC E7 full-size gate. The
 * hash is base/sha256.c; 64 KiB reads, no allocation beyond the read buffer. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "base/sy_input.h"
#include "base/sy_sha256.h"
#include "still/sy_still_internal.h"

sy_status sy__file_identity(sy_context *ctx, const char *path, sy__file_stamp *stamp, uint64_t *bytes,
                            char sha256_hex_out[65], sy_error *err) {
    FILE *f = NULL;
    sy_status opened = sy__input_open(path, &f, err);
    if (opened != SY_OK) return opened;
    enum { CHUNK = 64 * 1024 };
    uint8_t *buf = sy__alloc(ctx, CHUNK, 1, "digest buffer", err);
    if (!buf) {
        fclose(f);
        return err ? err->code : SY_E_BUDGET;
    }
    sy_status st = SY_OK;
    if (stamp && (st = sy__file_stamp_fd(fileno(f), path, stamp, err)) != SY_OK) goto done;
    sy__sha256 s;
    sy__sha256_init(&s);
    size_t n;
    uint32_t chunks = 0;
    while ((n = fread(buf, 1, CHUNK, f)) > 0) {
        sy__sha256_update(&s, buf, n);
        if ((++chunks & 63) == 0 && (st = sy__check_cancel(ctx, err)) != SY_OK) goto done;
    }
    if (ferror(f)) {
        st = sy__fail(err, SY_E_IO, "%s: read failed after %llu bytes", path, (unsigned long long)s.bytes);
        goto done;
    }
    *bytes = s.bytes;
    sy__sha256_hex(&s, sha256_hex_out);
done:
    sy__free(ctx, buf);
    fclose(f);
    return st;
}

static void stamp_from_stat(const struct stat *st, sy__file_stamp *stamp) {
    stamp->dev = (uint64_t)st->st_dev;
    stamp->ino = (uint64_t)st->st_ino;
    stamp->size = (uint64_t)st->st_size;
    stamp->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

sy_status sy__file_stamp_fd(int fd, const char *path, sy__file_stamp *stamp, sy_error *err) {
    struct stat st;
    if (fstat(fd, &st) != 0) return sy__fail_sub(err, SY_E_IO, errno, "%s: cannot stat: %s", path, strerror(errno));
    stamp_from_stat(&st, stamp);
    return SY_OK;
}

sy_status sy__file_stamp_path(const char *path, sy__file_stamp *stamp, sy_error *err) {
    struct stat st;
    if (stat(path, &st) != 0) return sy__fail_sub(err, SY_E_IO, errno, "%s: cannot stat: %s", path, strerror(errno));
    stamp_from_stat(&st, stamp);
    return SY_OK;
}

sy_status sy_file_identity(sy_context *ctx, const char *path, uint64_t *bytes, char sha256_hex_out[65],
                           sy_error *err) {
    if (!ctx || !path || !bytes || !sha256_hex_out) return sy__fail(err, SY_E_USAGE, "sy_file_identity: NULL argument");
    return sy__file_identity(ctx, path, NULL, bytes, sha256_hex_out, err);
}
