/* png_writer.c — streaming PNG encoder (8-bit RGB, non-interlaced) over zlib.
 *
 * Each row is filtered with the PNG filter whose output has the smallest sum
 * of absolute values (bytes taken as signed), the usual libpng heuristic, and
 * deflated into a 64 KiB buffer that is emitted as one IDAT chunk whenever it
 * fills. Held: the previous row, one filtered row, the IDAT buffer, zlib.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "png/sy_png_writer.h"

#define PNG_IDAT_MAX (64u * 1024u)

struct sy__png_writer {
    sy_context *ctx;
    FILE *file;
    char *path;
    uint32_t width, height, rows_in;
    size_t rowbytes;
    int level;
    uint8_t *prev;  /* previous raw row (zeros before the first) */
    uint8_t *filt;  /* [filter byte][filtered row] */
    uint8_t *idat;  /* deflate output, one IDAT's worth */
    z_stream zs;
    int z_ready;
    int finished;
    sy_status failed;
    sy_error failure;
};

static void put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static sy_status stick(sy__png_writer *w, sy_error *err, sy_status code) {
    if (!w->failed) {
        w->failed = code;
        if (err) w->failure = *err;
        else {
            memset(&w->failure, 0, sizeof w->failure);
            w->failure.code = code;
            snprintf(w->failure.message, sizeof w->failure.message, "%s: PNG write failed", w->path);
        }
    }
    return code;
}

static sy_status write_bytes(sy__png_writer *w, const void *p, size_t n, sy_error *err) {
    if (n == 0) return SY_OK;
    errno = 0;
    if (fwrite(p, 1, n, w->file) != n || ferror(w->file)) {
        int e = errno ? errno : EIO;
        sy__fail_sub(err, SY_E_IO, e, "%s: PNG write failed: %s", w->path, strerror(e));
        return stick(w, err, SY_E_IO);
    }
    return SY_OK;
}

static sy_status write_chunk(sy__png_writer *w, const char *type, const uint8_t *data, uint32_t len,
                             sy_error *err) {
    uint8_t head[8], tail[4];
    put_be32(head, len);
    memcpy(head + 4, type, 4);
    uLong crc = crc32(0, head + 4, 4);
    if (len) crc = crc32(crc, data, len);
    put_be32(tail, (uint32_t)crc);
    sy_status st = write_bytes(w, head, 8, err);
    if (st == SY_OK) st = write_bytes(w, data, len, err);
    if (st == SY_OK) st = write_bytes(w, tail, 4, err);
    return st;
}

static voidpf z_alloc(voidpf opaque, uInt items, uInt size) {
    sy__png_writer *w = opaque;
    void *p = sy__alloc(w->ctx, items, size, "PNG deflate", NULL);
    return p ? p : Z_NULL;
}

static void z_free(voidpf opaque, voidpf p) {
    sy__png_writer *w = opaque;
    sy__free(w->ctx, p);
}

void sy__png_writer_destroy(sy__png_writer *w) {
    if (!w) return;
    sy_context *ctx = w->ctx;
    if (w->z_ready) deflateEnd(&w->zs);
    sy__free(ctx, w->prev);
    sy__free(ctx, w->filt);
    sy__free(ctx, w->idat);
    sy__free(ctx, w->path);
    sy__free(ctx, w);
}

sy_status sy__png_writer_create(sy_context *ctx, FILE *file, const char *path, uint32_t width,
                                uint32_t height, int level, sy__png_writer **out, sy_error *err) {
    if (!out) return sy__fail(err, SY_E_USAGE, "sy__png_writer_create: out is NULL");
    *out = NULL;
    if (!ctx || !file) return sy__fail(err, SY_E_USAGE, "sy__png_writer_create: NULL argument");
    if (!path) path = "(png)";
    if (width == 0 || height == 0 || width > 0x7fffffffu || height > 0x7fffffffu)
        return sy__fail(err, SY_E_USAGE, "%s: PNG size %ux%u is not encodable", path, width, height);
    if (level < 0 || level > 9)
        return sy__fail(err, SY_E_USAGE, "%s: PNG compression level %d, expected 0..9", path, level);
    size_t rowbytes;
    if (!sy__mul_ok(width, 3, &rowbytes) || rowbytes > SIZE_MAX - 16)
        return sy__fail(err, SY_E_USAGE, "%s: PNG width %u too large", path, width);

    sy__png_writer *w = sy__calloc(ctx, 1, sizeof *w, "PNG writer", err);
    if (!w) return err ? err->code : SY_E_BUDGET;
    w->ctx = ctx;
    w->file = file;
    w->width = width;
    w->height = height;
    w->rowbytes = rowbytes;
    w->level = level;
    size_t plen = strlen(path) + 1;
    w->path = sy__alloc(ctx, plen, 1, "PNG writer path", err);
    if (w->path) memcpy(w->path, path, plen);
    if (w->path) w->prev = sy__calloc(ctx, rowbytes, 1, "PNG writer row", err);
    if (w->prev) w->filt = sy__alloc(ctx, rowbytes + 1, 1, "PNG writer filtered row", err);
    if (w->filt) w->idat = sy__alloc(ctx, PNG_IDAT_MAX, 1, "PNG writer IDAT buffer", err);
    if (!w->idat) {
        sy_status st = err && err->code ? err->code : SY_E_BUDGET;
        sy__png_writer_destroy(w);
        return st;
    }
    w->zs.zalloc = z_alloc;
    w->zs.zfree = z_free;
    w->zs.opaque = w;
    int zret = deflateInit2(&w->zs, level, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY);
    if (zret != Z_OK) {
        sy_status st = sy__fail(err, zret == Z_MEM_ERROR ? SY_E_BUDGET : SY_E_CODEC,
                                "%s: PNG deflateInit failed (%d)", path, zret);
        sy__png_writer_destroy(w);
        return st;
    }
    w->z_ready = 1;
    w->zs.next_out = w->idat;
    w->zs.avail_out = PNG_IDAT_MAX;

    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13];
    put_be32(ihdr, width);
    put_be32(ihdr + 4, height);
    ihdr[8] = 8;  /* bit depth */
    ihdr[9] = 2;  /* RGB */
    ihdr[10] = 0; /* deflate */
    ihdr[11] = 0; /* adaptive filtering */
    ihdr[12] = 0; /* not interlaced */
    sy_status st = write_bytes(w, signature, 8, err);
    if (st == SY_OK) st = write_chunk(w, "IHDR", ihdr, 13, err);
    if (st != SY_OK) {
        sy__png_writer_destroy(w);
        return st;
    }
    *out = w;
    return SY_OK;
}

/* ---- filters: cost (sum of |signed byte|) and apply, bpp = 3 ---- */

#define ABS8(d) ((uint32_t)abs((int)(int8_t)(uint8_t)(d)))

/* Sums run in 32-bit blocks (vectorize twice as wide as 64-bit ones);
 * 2^24 bytes x 128 stays below 2^32. */
#define COST_BLOCK ((size_t)1 << 24)

/* Paeth predictor, written out so loops stay free of calls and vectorize. */
#define PAETH(a, b, c, out)                                                \
    do {                                                                   \
        int pa_ = abs((int)(b) - (int)(c)), pb_ = abs((int)(a) - (int)(c)); \
        int pc_ = abs((int)(a) + (int)(b) - 2 * (int)(c));                 \
        out = (pa_ <= pb_ && pa_ <= pc_) ? (int)(a) : (pb_ <= pc_ ? (int)(b) : (int)(c)); \
    } while (0)

/* Cost of a filter: sum over the row of |filtered byte as signed|. The first
 * pixel (3 bytes) has no left neighbour, so each filter handles it apart. */
#define COST_LOOP(first_expr, rest_expr)                                    \
    uint64_t total = 0;                                                     \
    size_t i;                                                               \
    for (i = 0; i < 3 && i < n; i++) total += ABS8(first_expr);             \
    for (size_t start = 3; start < n; start += COST_BLOCK) {                \
        size_t end = n - start > COST_BLOCK ? start + COST_BLOCK : n;       \
        uint32_t s = 0;                                                     \
        for (i = start; i < end; i++) {                                     \
            rest_expr;                                                      \
        }                                                                   \
        total += s;                                                         \
    }                                                                       \
    return total

static uint64_t cost_none(const uint8_t *x, size_t n) {
    COST_LOOP(x[i], s += ABS8(x[i]));
}

static uint64_t cost_sub(const uint8_t *x, size_t n) {
    COST_LOOP(x[i], s += ABS8(x[i] - x[i - 3]));
}

static uint64_t cost_up(const uint8_t *x, const uint8_t *p, size_t n) {
    COST_LOOP(x[i] - p[i], s += ABS8(x[i] - p[i]));
}

static uint64_t cost_avg(const uint8_t *x, const uint8_t *p, size_t n) {
    COST_LOOP(x[i] - (p[i] >> 1), s += ABS8(x[i] - ((x[i - 3] + p[i]) >> 1)));
}

static uint64_t cost_paeth(const uint8_t *x, const uint8_t *p, size_t n) {
    COST_LOOP(x[i] - p[i], int pred; PAETH(x[i - 3], p[i], p[i - 3], pred); s += ABS8(x[i] - pred));
}

static void apply_filter(int type, const uint8_t *x, const uint8_t *p, uint8_t *o, size_t n) {
    size_t i;
    switch (type) {
    case 0: memcpy(o, x, n); break;
    case 1:
        for (i = 0; i < 3 && i < n; i++) o[i] = x[i];
        for (i = 3; i < n; i++) o[i] = (uint8_t)(x[i] - x[i - 3]);
        break;
    case 2:
        for (i = 0; i < n; i++) o[i] = (uint8_t)(x[i] - p[i]);
        break;
    case 3:
        for (i = 0; i < 3 && i < n; i++) o[i] = (uint8_t)(x[i] - (p[i] >> 1));
        for (i = 3; i < n; i++) o[i] = (uint8_t)(x[i] - ((x[i - 3] + p[i]) >> 1));
        break;
    default:
        for (i = 0; i < 3 && i < n; i++) o[i] = (uint8_t)(x[i] - p[i]);
        for (i = 3; i < n; i++) {
            int pred;
            PAETH(x[i - 3], p[i], p[i - 3], pred);
            o[i] = (uint8_t)(x[i] - pred);
        }
        break;
    }
}

/* Emits the IDAT buffer's contents (if any) as one chunk and resets it. */
static sy_status flush_idat(sy__png_writer *w, sy_error *err) {
    size_t used = PNG_IDAT_MAX - w->zs.avail_out;
    if (used > 0) {
        sy_status st = write_chunk(w, "IDAT", w->idat, (uint32_t)used, err);
        if (st != SY_OK) return st;
    }
    w->zs.next_out = w->idat;
    w->zs.avail_out = PNG_IDAT_MAX;
    return SY_OK;
}

static sy_status deflate_some(sy__png_writer *w, int flush, sy_error *err) {
    for (;;) {
        int ret = deflate(&w->zs, flush);
        if (ret == Z_STREAM_ERROR) {
            sy__fail(err, SY_E_CODEC, "%s: PNG deflate failed", w->path);
            return stick(w, err, SY_E_CODEC);
        }
        int full = w->zs.avail_out == 0;
        if (full) {
            sy_status st = flush_idat(w, err);
            if (st != SY_OK) return st;
        }
        if (flush == Z_FINISH) {
            if (ret == Z_STREAM_END) return SY_OK;
        } else if (!full && w->zs.avail_in == 0) {
            return SY_OK; /* when full, more output may be pending: go round again */
        }
    }
}

sy_status sy__png_writer_write_rows(sy__png_writer *w, const uint8_t *const *rows, uint32_t count,
                                    sy_error *err) {
    if (!w) return sy__fail(err, SY_E_USAGE, "sy__png_writer_write_rows: writer is NULL");
    if (w->failed) {
        if (err) *err = w->failure;
        return w->failed;
    }
    if (w->finished) return sy__fail(err, SY_E_USAGE, "%s: PNG rows written after finish", w->path);
    if (count > w->height - w->rows_in)
        return sy__fail(err, SY_E_USAGE, "%s: PNG got %u more rows at row %u of %u", w->path, count, w->rows_in,
                        w->height);
    if (count > 0 && !rows) return sy__fail(err, SY_E_USAGE, "%s: PNG write_rows: rows is NULL", w->path);
    const size_t n = w->rowbytes;
    for (uint32_t r = 0; r < count; r++) {
        const uint8_t *x = rows[r], *p = w->prev;
        int best = 0;
        if (w->level > 0) {
            uint64_t c[5];
            c[0] = cost_none(x, n);
            c[1] = cost_sub(x, n);
            c[2] = cost_up(x, p, n);
            c[3] = cost_avg(x, p, n);
            c[4] = cost_paeth(x, p, n);
            for (int k = 1; k < 5; k++)
                if (c[k] < c[best]) best = k;
        }
        w->filt[0] = (uint8_t)best;
        apply_filter(best, x, p, w->filt + 1, n);
        memcpy(w->prev, x, n);
        /* rowbytes + 1 may exceed uInt on absurd widths: feed in pieces. */
        const uint8_t *in = w->filt;
        size_t left = n + 1;
        while (left > 0) {
            uInt step = left > 0x40000000u ? 0x40000000u : (uInt)left;
            w->zs.next_in = (Bytef *)in;
            w->zs.avail_in = step;
            sy_status st = deflate_some(w, Z_NO_FLUSH, err);
            if (st != SY_OK) return st;
            in += step;
            left -= step;
        }
        w->rows_in++;
    }
    return SY_OK;
}

sy_status sy__png_writer_finish(sy__png_writer *w, sy_error *err) {
    if (!w) return sy__fail(err, SY_E_USAGE, "sy__png_writer_finish: writer is NULL");
    if (w->failed) {
        if (err) *err = w->failure;
        return w->failed;
    }
    if (w->finished) return sy__fail(err, SY_E_USAGE, "%s: PNG finished twice", w->path);
    if (w->rows_in != w->height)
        return sy__fail(err, SY_E_USAGE, "%s: PNG finished after %u of %u rows", w->path, w->rows_in, w->height);
    w->zs.next_in = NULL;
    w->zs.avail_in = 0;
    sy_status st = deflate_some(w, Z_FINISH, err);
    if (st == SY_OK) st = flush_idat(w, err);
    if (st == SY_OK) st = write_chunk(w, "IEND", NULL, 0, err);
    if (st == SY_OK && fflush(w->file) != 0) {
        int e = errno;
        sy__fail_sub(err, SY_E_IO, e, "%s: PNG write failed: %s", w->path, strerror(e));
        st = stick(w, err, SY_E_IO);
    }
    if (st != SY_OK) return st;
    w->finished = 1;
    return SY_OK;
}

sy_status sy__png_writer_add_chunk(sy__png_writer *w, const char *type, const uint8_t *data, uint32_t len,
                                   sy_error *err) {
    if (w->failed) {
        if (err) *err = w->failure;
        return w->failed;
    }
    if (w->rows_in > 0 || w->finished)
        return sy__fail(err, SY_E_USAGE, "%s: PNG chunk %.4s must come before the image rows", w->path, type);
    return write_chunk(w, type, data, len, err);
}

/* iCCP: "ICC Profile", NUL, compression method 0, then the zlib stream. */
static sy_status write_iccp(sy__png_writer *w, const uint8_t *icc, size_t icc_len, sy_error *err) {
    static const char name[] = "ICC Profile";
    uLong bound = compressBound((uLong)icc_len);
    size_t head = sizeof name + 1;
    uint8_t *chunk = sy__alloc(w->ctx, head + bound, 1, "iCCP", err);
    if (!chunk) return err ? err->code : SY_E_BUDGET;
    memcpy(chunk, name, sizeof name);
    chunk[sizeof name] = 0;
    uLongf packed = bound;
    sy_status st = SY_OK;
    if (compress2(chunk + head, &packed, icc, (uLong)icc_len, 9) == Z_OK)
        st = sy__png_writer_add_chunk(w, "iCCP", chunk, (uint32_t)(head + packed), err);
    sy__free(w->ctx, chunk);
    return st;
}

/* iTXt: "XML:com.adobe.xmp", NUL, flag 0, method 0, "" language, "" translated keyword, the packet. */
static sy_status write_itxt_xmp(sy__png_writer *w, const uint8_t *xmp, size_t xmp_len, sy_error *err) {
    static const char keyword[] = "XML:com.adobe.xmp";
    size_t head = sizeof keyword + 4;
    uint8_t *chunk = sy__alloc(w->ctx, head + xmp_len, 1, "iTXt", err);
    if (!chunk) return err ? err->code : SY_E_BUDGET;
    memcpy(chunk, keyword, sizeof keyword);
    memset(chunk + sizeof keyword, 0, 4);
    memcpy(chunk + head, xmp, xmp_len);
    sy_status st = sy__png_writer_add_chunk(w, "iTXt", chunk, (uint32_t)(head + xmp_len), err);
    sy__free(w->ctx, chunk);
    return st;
}

sy_status sy__png_writer_write_metadata(sy__png_writer *w, const uint8_t *exif_tiff, size_t exif_len,
                                        const uint8_t *xmp, size_t xmp_len, const uint8_t *icc, size_t icc_len,
                                        sy_error *err) {
    sy_status st = SY_OK;
    if (exif_tiff && exif_len < 0x7FFFFFFF) st = sy__png_writer_add_chunk(w, "eXIf", exif_tiff, (uint32_t)exif_len, err);
    if (st == SY_OK && icc && icc_len) st = write_iccp(w, icc, icc_len, err);
    if (st == SY_OK && xmp && xmp_len) st = write_itxt_xmp(w, xmp, xmp_len, err);
    return st;
}
