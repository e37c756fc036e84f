/* png_reader.c — PNG header probe and streaming row source over zlib.
 *
 * The file is read chunk by chunk through one bounded buffer; IDAT data is
 * inflated incrementally into a single raw row, unfiltered against the previous
 * raw row and converted to 8-bit RGB (16-bit samples rounded to 8, alpha and
 * tRNS composited over white). Only Adam7-interlaced images are decoded whole,
 * into one RGB buffer, because their rows arrive out of order. An HDR PNG
 * (cICP transfer PQ or HLG) is read as signal values and tone-mapped to SDR
 * Display P3 row by row (base/sy_hdr_tone.h); its gains are handed out in
 * file order (an interlaced one pass row by pass row, never decoded whole).
 * The row conversions are png_convert.c's; the state they share is
 * sy_png_source_state.h.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <zlib.h>

#include "base/sy_hdr_tone.h"
#include "base/sy_input.h"
#include "base/sy_internal.h"
#include "png/sy_png_source.h"
#include "png/sy_png_source_state.h"

#define PNG_MAX_CHUNK 0x7fffffffu     /* chunk lengths above 2^31-1 are invalid */
#define PNG_READ_BUFFER (64u * 1024u) /* the only file buffer the source holds */
#define PNG_PROBE_BUFFER 4096u        /* a header probe's: large chunks are skipped, not read */
#define PNG_ZLIB_WINDOW (32u * 1024u)   /* inflate allocates its window on first use */

static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

/* Adam7: each pass's first column and row and their steps. */
static const uint8_t adam7_x0[7] = {0, 4, 0, 2, 0, 1, 0}, adam7_dx[7] = {8, 8, 4, 4, 2, 2, 1};
static const uint8_t adam7_y0[7] = {0, 0, 4, 0, 2, 0, 1}, adam7_dy[7] = {8, 8, 8, 4, 4, 2, 2};

/* How many of `size` columns (rows) a pass starting at `start` with `step` holds. */
static uint32_t adam7_count(uint32_t size, uint8_t start, uint8_t step) {
    return size > start ? (size - start + step - 1) / step : 0;
}

static uint32_t be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static uint32_t png_crc(uint32_t crc, const uint8_t *p, size_t n) {
    /* zlib's crc32 takes uInt lengths; PNG chunks fit, but stay safe. */
    while (n > 0) {
        uInt step = n > 0x40000000u ? 0x40000000u : (uInt)n;
        crc = (uint32_t)crc32(crc, p, step);
        p += step;
        n -= step;
    }
    return crc;
}

static int channels_for(uint8_t color_type) {
    switch (color_type) {
    case CT_GRAY: return 1;
    case CT_RGB: return 3;
    case CT_PALETTE: return 1;
    case CT_GRAY_ALPHA: return 2;
    case CT_RGBA: return 4;
    default: return 0;
    }
}

static int depth_ok(uint8_t color_type, uint8_t depth) {
    switch (color_type) {
    case CT_GRAY: return depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16;
    case CT_PALETTE: return depth == 1 || depth == 2 || depth == 4 || depth == 8;
    case CT_RGB:
    case CT_GRAY_ALPHA:
    case CT_RGBA: return depth == 8 || depth == 16;
    default: return 0;
    }
}

/* Validates the signature and IHDR held in the first `got` (<= 33) bytes. */
static sy_status parse_header(const uint8_t *b, size_t got, const char *path, png_header *h, sy_error *err) {
    if (got < 8)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG truncated in the signature (%zu bytes)", path, got);
    if (memcmp(b, png_signature, 8) != 0)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: not a PNG file (bad signature)", path);
    if (got < 33)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG truncated in IHDR (%zu bytes)", path, got);
    if (memcmp(b + 12, "IHDR", 4) != 0)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG first chunk is not IHDR", path);
    if (be32(b + 8) != 13)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG IHDR length %u, expected 13", path, be32(b + 8));
    if (png_crc(0, b + 12, 17) != be32(b + 29))
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG IHDR bad CRC", path);
    uint32_t w = be32(b + 16), hgt = be32(b + 20);
    uint8_t depth = b[24], ct = b[25], comp = b[26], filter = b[27], interlace = b[28];
    if (w == 0) return sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG IHDR width 0", path);
    if (hgt == 0) return sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG IHDR height 0", path);
    if (w > SY_MAX_INPUT_DIMENSION)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG IHDR width %u exceeds the limit %u", path, w,
                        SY_MAX_INPUT_DIMENSION);
    if (hgt > SY_MAX_INPUT_DIMENSION)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG IHDR height %u exceeds the limit %u", path, hgt,
                        SY_MAX_INPUT_DIMENSION);
    if ((uint64_t)w * hgt > SY_MAX_INPUT_PIXELS)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG IHDR %ux%u = %llu pixels exceeds the limit %llu", path,
                        w, hgt, (unsigned long long)w * hgt, (unsigned long long)SY_MAX_INPUT_PIXELS);
    if (!depth_ok(ct, depth))
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG IHDR invalid colour type %u with bit depth %u", path,
                        ct, depth);
    if (comp != 0)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG IHDR compression method %u", path, comp);
    if (filter != 0) return sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG IHDR filter method %u", path, filter);
    if (interlace > 1)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG IHDR interlace method %u", path, interlace);
    h->width = w;
    h->height = hgt;
    h->depth = depth;
    h->color_type = ct;
    h->interlace = interlace;
    h->channels = (uint8_t)channels_for(ct);
    return SY_OK;
}

sy_status sy__png_probe(sy_context *ctx, FILE *file, const char *path, sy_image_info *out, sy_error *err) {
    (void)ctx;
    if (!file || !out) return sy__fail(err, SY_E_USAGE, "sy__png_probe: NULL argument");
    if (!path) path = "(png)";
    uint8_t b[33];
    size_t got = fread(b, 1, sizeof b, file);
    if (got < sizeof b && ferror(file)) {
        int e = errno;
        return sy__fail_sub(err, SY_E_IO, e, "%s: read failed: %s", path, strerror(e));
    }
    png_header h;
    sy_status st = parse_header(b, got, path, &h, err);
    if (st != SY_OK) return st;
    memset(out, 0, sizeof *out);
    out->format = SY_FORMAT_PNG;
    out->width = out->stored_width = h.width;
    out->height = out->stored_height = h.height;
    out->orientation = 1;
    out->progressive = h.interlace; /* Adam7 is PNG's multi-pass form */
    out->has_alpha = h.color_type == CT_GRAY_ALPHA || h.color_type == CT_RGBA; /* tRNS is past IHDR */
    out->bit_depth = h.depth;
    return SY_OK;
}

/* ---- the row source ---- */

static void *src_alloc(png_source *s, size_t count, size_t size, const char *reason, sy_error *err) {
    void *p = sy__alloc(s->ctx, count, size, reason, err);
    if (p) s->held += count * size;
    return p;
}

static voidpf z_alloc(voidpf opaque, uInt items, uInt size) {
    png_source *s = opaque;
    void *p = src_alloc(s, items, size, "PNG inflate", NULL);
    return p ? p : Z_NULL;
}

static void z_free(voidpf opaque, voidpf p) {
    png_source *s = opaque;
    sy__free(s->ctx, p);
}

/* Remembers the first error so every later call reports it again. */
static sy_status fail_sticky(png_source *s, sy_error *err, sy_status code) {
    if (!s->failed) {
        s->failed = code;
        if (err) s->failure = *err;
        else {
            memset(&s->failure, 0, sizeof s->failure);
            s->failure.code = code;
            snprintf(s->failure.message, sizeof s->failure.message, "%s: PNG decode failed", s->path);
        }
    }
    return code;
}

static sy_status replay_failure(png_source *s, sy_error *err) {
    if (err) *err = s->failure;
    return s->failed;
}

/* Makes at least one byte available unless at end of file; returns the count. */
static size_t rd_fill(png_source *s) {
    if (s->pos < s->len) return s->len - s->pos;
    s->pos = 0;
    s->len = fread(s->buf, 1, s->buf_size, s->file);
    return s->len;
}

/* Reads up to n bytes; returns how many arrived (fewer only at end of file). */
static size_t rd_read(png_source *s, uint8_t *dst, size_t n) {
    size_t done = 0;
    while (done < n) {
        size_t avail = rd_fill(s);
        if (avail == 0) break;
        size_t take = SY__MIN(avail, n - done);
        memcpy(dst + done, s->buf + s->pos, take);
        s->pos += take;
        done += take;
    }
    return done;
}

/* Skips n bytes without reading them into memory (seeks when it can). */
static void rd_skip(png_source *s, uint64_t n) {
    size_t avail = s->len - s->pos;
    if (n <= avail) {
        s->pos += (size_t)n;
        return;
    }
    n -= avail;
    s->pos = s->len = 0;
    if (fseeko(s->file, (off_t)n, SEEK_CUR) == 0) return;
    while (n > 0) { /* not seekable: read through the buffer */
        size_t got = fread(s->buf, 1, (size_t)SY__MIN(n, (uint64_t)s->buf_size), s->file);
        if (got == 0) return; /* end of file: the next read reports truncation */
        n -= got;
    }
}

static sy_status truncated(png_source *s, sy_error *err, const char *where) {
    if (ferror(s->file)) {
        int e = errno;
        sy__fail_sub(err, SY_E_IO, e, "%s: PNG read failed %s: %s", s->path, where, strerror(e));
        return fail_sticky(s, err, SY_E_IO);
    }
    sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG truncated %s", s->path, where);
    return fail_sticky(s, err, SY_E_INVALID_INPUT);
}

static sy_status invalid(png_source *s, sy_error *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static sy_status invalid(png_source *s, sy_error *err, const char *fmt, ...) {
    char msg[192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sy__fail(err, SY_E_INVALID_INPUT, "%s: %s", s->path, msg);
    return fail_sticky(s, err, SY_E_INVALID_INPUT);
}

/* Where decoding is, for messages: "at row N". */
static const char *where_text(png_source *s) {
    if (s->where_pass < 0)
        snprintf(s->where_buf, sizeof s->where_buf, "after the last row");
    else if (s->where_pass > 0)
        snprintf(s->where_buf, sizeof s->where_buf, "at interlace pass %d row %u", s->where_pass, s->where_row);
    else
        snprintf(s->where_buf, sizeof s->where_buf, "at row %u", s->where_row);
    return s->where_buf;
}

static int is_letter(uint8_t c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

/* Reads a chunk's length and type. */
static sy_status read_chunk_header(png_source *s, uint32_t *len, uint8_t type[4], const char *where,
                                   sy_error *err) {
    uint8_t b[8];
    if (rd_read(s, b, 8) != 8) return truncated(s, err, where);
    *len = be32(b);
    memcpy(type, b + 4, 4);
    if (!is_letter(type[0]) || !is_letter(type[1]) || !is_letter(type[2]) || !is_letter(type[3]))
        return invalid(s, err, "PNG bad chunk type 0x%08x %s", be32(b + 4), where);
    if (*len > PNG_MAX_CHUNK) return invalid(s, err, "PNG chunk length %u exceeds 2^31-1 %s", *len, where);
    return SY_OK;
}

/* Reads a small chunk's data plus CRC into dst (len <= dst capacity); returns 1 if the CRC matches. */
static sy_status read_small_chunk(png_source *s, const uint8_t type[4], uint8_t *dst, uint32_t len, int *crc_ok,
                                  sy_error *err) {
    uint8_t c[4];
    if (rd_read(s, dst, len) != len || rd_read(s, c, 4) != 4) return truncated(s, err, "in the header chunks");
    uint32_t crc = png_crc(png_crc(0, type, 4), dst, len);
    *crc_ok = crc == be32(c);
    return SY_OK;
}

/* Reads everything from after IHDR up to the first IDAT's data. */
/* cICP (colour), cLLi (content light level), mDCv (mastering display): a
 * damaged or repeated one is ignored, as any ancillary chunk. */
static void note_hdr_chunk(png_source *s, const uint8_t type[4], const uint8_t *d) {
    if (memcmp(type, "cICP", 4) == 0) {
        if (s->cicp_seen++) return; /* the first one counts, as for the metadata (png_metadata.c) */
        /* PNG allows only the RGB matrix (0); a PQ / HLG transfer is the HDR signal. */
        s->hdr.present = d[2] == 0 && sy__cicp_is_hdr_transfer(d[1]);
        s->hdr.primaries = d[0], s->hdr.transfer = d[1], s->hdr.full_range = d[3];
    } else if (memcmp(type, "cLLi", 4) == 0) {
        uint32_t cll = be32(d) / 10000; /* 0.0001 cd/m² */
        s->grade.has_light_level = 1;
        s->grade.max_cll = (uint16_t)(cll > 65535 ? 65535 : cll);
    } else {
        s->grade.has_mastering = 1;
        s->grade.max_luminance = be32(d + 16);
        s->grade.min_luminance = be32(d + 20);
    }
}

static sy_status read_header_chunks(png_source *s, sy_error *err) {
    int have_plte = 0;
    for (;;) {
        uint32_t len;
        uint8_t type[4];
        sy_status st = read_chunk_header(s, &len, type, "before the image data", err);
        if (st != SY_OK) return st;
        if (memcmp(type, "IDAT", 4) == 0) {
            s->chunk_left = len;
            s->chunk_crc = png_crc(0, type, 4);
            break;
        }
        if (memcmp(type, "IEND", 4) == 0) return invalid(s, err, "PNG has no image data (IEND before IDAT)");
        if (memcmp(type, "IHDR", 4) == 0) return invalid(s, err, "PNG has a second IHDR");
        if (memcmp(type, "PLTE", 4) == 0) {
            if (have_plte) return invalid(s, err, "PNG has a second PLTE");
            if (len == 0 || len % 3 != 0 || len > 768)
                return invalid(s, err, "PNG PLTE length %u", len);
            uint8_t data[768];
            int ok;
            if ((st = read_small_chunk(s, type, data, len, &ok, err)) != SY_OK) return st;
            if (!ok) return invalid(s, err, "PNG PLTE bad CRC");
            if (s->h.color_type == CT_GRAY || s->h.color_type == CT_GRAY_ALPHA) continue; /* ignored */
            have_plte = 1;
            memcpy(s->plte, data, len);
            s->plte_count = len / 3;
            continue;
        }
        if (memcmp(type, "tRNS", 4) == 0 && len <= 256) {
            uint8_t data[256];
            int ok;
            if ((st = read_small_chunk(s, type, data, len, &ok, err)) != SY_OK) return st;
            if (!ok || s->has_trns) continue; /* ancillary: a damaged or repeated one is ignored */
            if (s->h.color_type == CT_PALETTE) {
                memset(s->alpha, 255, sizeof s->alpha);
                memcpy(s->alpha, data, len);
                s->has_trns = 1;
            } else if (s->h.color_type == CT_GRAY && len == 2) {
                s->trns[0] = (uint16_t)((data[0] << 8) | data[1]);
                s->has_trns = 1;
            } else if (s->h.color_type == CT_RGB && len == 6) {
                for (int i = 0; i < 3; i++) s->trns[i] = (uint16_t)((data[2 * i] << 8) | data[2 * i + 1]);
                s->has_trns = 1;
            }
            continue;
        }
        if ((memcmp(type, "cICP", 4) == 0 && len == 4) || (memcmp(type, "cLLi", 4) == 0 && len == 8) ||
            (memcmp(type, "mDCv", 4) == 0 && len == 24)) {
            uint8_t data[24];
            int ok;
            if ((st = read_small_chunk(s, type, data, len, &ok, err)) != SY_OK) return st;
            if (ok) note_hdr_chunk(s, type, data);
            continue;
        }
        if (!(type[0] & 0x20)) { /* critical chunk we do not know */
            char name[5];
            memcpy(name, type, 4);
            name[4] = 0;
            sy__fail(err, SY_E_UNSUPPORTED, "%s: PNG unknown critical chunk '%s'", s->path, name);
            return fail_sticky(s, err, SY_E_UNSUPPORTED);
        }
        rd_skip(s, (uint64_t)len + 4); /* ancillary: data and CRC unread */
    }
    if (s->h.color_type == CT_PALETTE && !have_plte)
        return invalid(s, err, "PNG palette image without PLTE");
    return SY_OK;
}

/* Undoes a row's filter in place; prev is the previous unfiltered row (zeros for the first). */
static int unfilter(unsigned type, uint8_t *cur, const uint8_t *prev, size_t n, unsigned bpp) {
    size_t i;
    switch (type) {
    case 0: return 1;
    case 1:
        for (i = bpp; i < n; i++) cur[i] = (uint8_t)(cur[i] + cur[i - bpp]);
        return 1;
    case 2:
        for (i = 0; i < n; i++) cur[i] = (uint8_t)(cur[i] + prev[i]);
        return 1;
    case 3:
        for (i = 0; i < bpp && i < n; i++) cur[i] = (uint8_t)(cur[i] + (prev[i] >> 1));
        for (; i < n; i++) cur[i] = (uint8_t)(cur[i] + ((cur[i - bpp] + prev[i]) >> 1));
        return 1;
    case 4:
        for (i = 0; i < bpp && i < n; i++) cur[i] = (uint8_t)(cur[i] + prev[i]);
        for (; i < n; i++) {
            int a = cur[i - bpp], b = prev[i], c = prev[i - bpp];
            int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
            int pred = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
            cur[i] = (uint8_t)(cur[i] + pred);
        }
        return 1;
    default: return 0;
    }
}

/* Finishes the current IDAT (CRC) and moves to the next one; sets idat_over when none follows. */
static sy_status next_idat(png_source *s, sy_error *err) {
    const char *where = where_text(s);
    while (s->chunk_left == 0 && !s->idat_over) {
        uint8_t c[4];
        if (rd_read(s, c, 4) != 4) return truncated(s, err, where);
        if (be32(c) != s->chunk_crc) {
            sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG IDAT bad CRC %s", s->path, where);
            return fail_sticky(s, err, SY_E_INVALID_INPUT);
        }
        uint32_t len;
        uint8_t type[4];
        sy_status st = read_chunk_header(s, &len, type, where, err);
        if (st != SY_OK) return st;
        if (memcmp(type, "IDAT", 4) != 0) {
            s->idat_over = 1;
            break;
        }
        s->chunk_left = len;
        s->chunk_crc = png_crc(0, type, 4);
    }
    return SY_OK;
}

/* Inflates exactly n bytes into dst. */
static sy_status inflate_bytes(png_source *s, uint8_t *dst, size_t n, sy_error *err) {
    s->zs.next_out = dst;
    s->zs.avail_out = (uInt)n;
    while (s->zs.avail_out > 0) {
        if (s->z_end) {
            sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG image data ends early %s", s->path, where_text(s));
            return fail_sticky(s, err, SY_E_INVALID_INPUT);
        }
        if (s->zs.avail_in == 0) {
            sy_status st = next_idat(s, err);
            if (st != SY_OK) return st;
            if (s->idat_over) return truncated(s, err, where_text(s));
            size_t avail = rd_fill(s);
            if (avail == 0) return truncated(s, err, where_text(s));
            size_t take = SY__MIN(avail, (size_t)s->chunk_left);
            s->zs.next_in = s->buf + s->pos;
            s->zs.avail_in = (uInt)take;
            s->chunk_crc = png_crc(s->chunk_crc, s->buf + s->pos, take);
            s->pos += take;
            s->chunk_left -= (uint32_t)take;
        }
        uInt in_before = s->zs.avail_in, out_before = s->zs.avail_out;
        int ret = inflate(&s->zs, Z_NO_FLUSH);
        if (ret == Z_STREAM_END) {
            s->z_end = 1;
        } else if (ret == Z_MEM_ERROR) {
            sy__fail(err, SY_E_BUDGET, "%s: PNG inflate out of memory (budget)", s->path);
            return fail_sticky(s, err, SY_E_BUDGET);
        } else if (ret == Z_BUF_ERROR) {
            if (s->zs.avail_in == in_before && s->zs.avail_out == out_before && s->zs.avail_in > 0) {
                sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG zlib stalled %s", s->path, where_text(s));
                return fail_sticky(s, err, SY_E_INVALID_INPUT);
            }
        } else if (ret != Z_OK) {
            sy__fail_sub(err, SY_E_INVALID_INPUT, ret, "%s: PNG zlib error %s: %s", s->path, where_text(s),
                         s->zs.msg ? s->zs.msg : "corrupt data");
            return fail_sticky(s, err, SY_E_INVALID_INPUT);
        }
    }
    return SY_OK;
}

/* After the last row: reads the rest of the current IDAT and checks its CRC. */
static sy_status finish_idat(png_source *s, sy_error *err) {
    s->where_pass = -1;
    const char *where = where_text(s);
    s->zs.avail_in = 0;
    while (s->chunk_left > 0) {
        size_t avail = rd_fill(s);
        if (avail == 0) return truncated(s, err, where);
        size_t take = SY__MIN(avail, (size_t)s->chunk_left);
        s->chunk_crc = png_crc(s->chunk_crc, s->buf + s->pos, take);
        s->pos += take;
        s->chunk_left -= (uint32_t)take;
    }
    if (s->idat_over) return SY_OK;
    uint8_t c[4];
    if (rd_read(s, c, 4) != 4) return truncated(s, err, where);
    if (be32(c) != s->chunk_crc) {
        sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG IDAT bad CRC %s", s->path, where);
        return fail_sticky(s, err, SY_E_INVALID_INPUT);
    }
    s->idat_over = 1;
    return SY_OK;
}

/* Inflates and unfilters one raw row of rb bytes; the result is left in s->prev + 1. */
static sy_status decode_raw_row(png_source *s, size_t rb, sy_error *err) {
    sy_status st = inflate_bytes(s, s->cur, rb + 1, err);
    if (st != SY_OK) return st;
    if (!unfilter(s->cur[0], s->cur + 1, s->prev + 1, rb, s->bpp)) {
        sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG bad filter type %u %s", s->path, s->cur[0], where_text(s));
        return fail_sticky(s, err, SY_E_INVALID_INPUT);
    }
    uint8_t *t = s->prev;
    s->prev = s->cur;
    s->cur = t;
    return SY_OK;
}

static size_t raw_row_bytes(const png_header *h, uint32_t w) {
    return ((size_t)w * h->channels * h->depth + 7) / 8;
}

static sy_status decode_interlaced(png_source *s, sy_error *err) {
    const uint32_t w = s->h.width, hgt = s->h.height;
    for (int p = 0; p < 7; p++) {
        const uint32_t pw = adam7_count(w, adam7_x0[p], adam7_dx[p]), ph = adam7_count(hgt, adam7_y0[p], adam7_dy[p]);
        if (pw == 0 || ph == 0) continue;
        size_t rb = raw_row_bytes(&s->h, pw);
        memset(s->prev, 0, rb + 1);
        for (uint32_t y = 0; y < ph; y++) {
            if ((y & 63) == 0) {
                sy_status st = sy__check_cancel(s->ctx, err);
                if (st != SY_OK) return fail_sticky(s, err, st);
            }
            s->where_pass = p + 1;
            s->where_row = y;
            sy_status st = decode_raw_row(s, rb, err);
            if (st != SY_OK) return st;
            sy__png_convert_row(s, s->prev + 1, s->pass_rgb, pw);
            uint8_t *row = s->image + ((size_t)(adam7_y0[p] + (size_t)y * adam7_dy[p]) * w) * 3;
            const uint8_t *src = s->pass_rgb;
            for (uint32_t i = 0, x = adam7_x0[p]; i < pw; i++, x += adam7_dx[p]) {
                row[3 * (size_t)x] = src[3 * i];
                row[3 * (size_t)x + 1] = src[3 * i + 1];
                row[3 * (size_t)x + 2] = src[3 * i + 2];
            }
        }
    }
    return finish_idat(s, err);
}

static sy_status png_read_rows(sy__source *self, uint8_t *const *rows, uint32_t count, sy_error *err) {
    png_source *s = (png_source *)self;
    if (s->failed) return replay_failure(s, err);
    if (s->gain_only) return sy__fail(err, SY_E_USAGE, "%s: PNG rows of a source opened for its gains", s->path);
    if (count > s->h.height - s->next_row)
        return sy__fail(err, SY_E_USAGE, "%s: PNG read of %u rows past the end (row %u of %u)", s->path, count,
                        s->next_row, s->h.height);
    if (count > 0 && !rows) return sy__fail(err, SY_E_USAGE, "%s: PNG read_rows: rows is NULL", s->path);
    const size_t stride = (size_t)s->h.width * 3;
    for (uint32_t i = 0; i < count; i++) {
        if (s->image) {
            memcpy(rows[i], s->image + (size_t)s->next_row * stride, stride);
        } else {
            s->where_row = s->next_row;
            sy_status st = decode_raw_row(s, s->rowbytes, err);
            if (st != SY_OK) return st;
            sy__png_convert_row(s, s->prev + 1, rows[i], s->h.width);
            if (s->next_row + 1 == s->h.height && (st = finish_idat(s, err)) != SY_OK) return st;
        }
        s->next_row++;
    }
    return SY_OK;
}

static sy_status png_skip_rows(sy__source *self, uint32_t count, sy_error *err) {
    png_source *s = (png_source *)self;
    if (s->failed) return replay_failure(s, err);
    if (s->gain_only) return sy__fail(err, SY_E_USAGE, "%s: PNG rows of a source opened for its gains", s->path);
    if (count > s->h.height - s->next_row)
        return sy__fail(err, SY_E_USAGE, "%s: PNG skip of %u rows past the end (row %u of %u)", s->path, count,
                        s->next_row, s->h.height);
    if (s->image) {
        s->next_row += count;
        return SY_OK;
    }
    for (uint32_t i = 0; i < count; i++) {
        s->where_row = s->next_row;
        sy_status st = decode_raw_row(s, s->rowbytes, err); /* filters need the previous row */
        if (st != SY_OK) return st;
        if (s->next_row + 1 == s->h.height && (st = finish_idat(s, err)) != SY_OK) return st;
        s->next_row++;
    }
    return SY_OK;
}

void sy__png_source_hdr(const sy__source *png, sy__png_hdr *out) {
    const png_source *s = (const png_source *)png;
    *out = s->hdr;
}

int sy__png_source_interlaced(const sy__source *png) { return ((const png_source *)png)->h.interlace; }

/* The next Adam7 pass row of an interlaced source opened for its gains. */
static sy_status read_pass_gains(png_source *s, float *gain, sy__png_gain_run *run, sy_error *err) {
    const uint32_t w = s->h.width, hgt = s->h.height;
    for (; s->gain_pass < 7; s->gain_pass++, s->gain_pass_row = 0) {
        const int p = s->gain_pass;
        const uint32_t pw = adam7_count(w, adam7_x0[p], adam7_dx[p]), ph = adam7_count(hgt, adam7_y0[p], adam7_dy[p]);
        if (pw == 0 || s->gain_pass_row >= ph) continue;
        if (s->gain_pass_row == 0) memset(s->prev, 0, s->rowbytes + 1); /* a pass starts with no row above */
        s->where_pass = p + 1;
        s->where_row = s->gain_pass_row;
        sy_status st = decode_raw_row(s, raw_row_bytes(&s->h, pw), err);
        if (st != SY_OK) return st;
        sy__png_signal_row(s, s->prev + 1, pw);
        sy__hdr_gain(&s->hdr_map, s->signal, pw, gain);
        run->y = adam7_y0[p] + s->gain_pass_row * adam7_dy[p];
        run->x0 = adam7_x0[p], run->step = adam7_dx[p], run->count = pw;
        s->gain_pass_row++;
        return SY_OK;
    }
    s->gains_done = 1;
    return finish_idat(s, err);
}

sy_status sy__png_read_gains(sy__source *png, float *gain, sy__png_gain_run *run, sy_error *err) {
    png_source *s = (png_source *)png;
    memset(run, 0, sizeof *run);
    if (s->failed) return replay_failure(s, err);
    if (!s->gain_only) return sy__fail(err, SY_E_USAGE, "%s: PNG gains of a source opened for its rows", s->path);
    if (!s->signal) return sy__fail(err, SY_E_USAGE, "%s: PNG gain rows of a picture that is not HDR", s->path);
    if (s->gains_done) return SY_OK;
    if (s->h.interlace) return read_pass_gains(s, gain, run, err);
    s->where_row = s->next_row;
    sy_status st = decode_raw_row(s, s->rowbytes, err);
    if (st != SY_OK) return st;
    sy__png_signal_row(s, s->prev + 1, s->h.width);
    sy__hdr_gain(&s->hdr_map, s->signal, s->h.width, gain);
    if (s->next_row + 1 == s->h.height) {
        if ((st = finish_idat(s, err)) != SY_OK) return st;
        s->gains_done = 1;
    }
    run->y = s->next_row++;
    run->x0 = 0, run->step = 1, run->count = s->h.width;
    return SY_OK;
}

static void png_close(sy__source *self) {
    png_source *s = (png_source *)self;
    if (!s) return;
    sy_context *ctx = s->ctx;
    if (s->z_ready) inflateEnd(&s->zs);
    if (s->file) fclose(s->file);
    sy__free(ctx, s->image);
    sy__free(ctx, s->pass_rgb);
    sy__free(ctx, s->signal);
    sy__free(ctx, s->signal_alpha);
    sy__free(ctx, s->prev);
    sy__free(ctx, s->cur);
    sy__free(ctx, s->buf);
    sy__free(ctx, s->path);
    sy__free(ctx, s);
}

/* Puts the file name in front of the allocator's budget message. */
static sy_status budget_failure(sy_error *err, const char *path) {
    if (err) {
        char reason[sizeof err->message];
        memcpy(reason, err->message, sizeof reason);
        reason[sizeof reason - 1] = 0;
        sy__fail(err, SY_E_BUDGET, "%s: %s", path, reason);
    }
    return SY_E_BUDGET;
}

/* What an open is for: rows (an interlaced image decoded whole), gains (in
 * file order, nothing decoded whole) or the header chunks alone (a probe). */
typedef enum open_for { OPEN_ROWS, OPEN_GAINS, OPEN_HEADERS } open_for;

static sy_status open_png(sy_context *ctx, const char *path, open_for what, sy__source **out, sy_error *err) {
    *out = NULL;
    png_source *s = sy__calloc(ctx, 1, sizeof *s, "PNG source", err);
    if (!s) return budget_failure(err, path);
    s->ctx = ctx;
    s->held = sizeof *s;
    sy_status st;
    size_t plen = strlen(path) + 1;
    s->path = src_alloc(s, plen, 1, "PNG source path", err);
    if (!s->path) goto fail_alloc;
    memcpy(s->path, path, plen);
    if ((st = sy__input_open(path, &s->file, err)) != SY_OK) goto fail;
    setvbuf(s->file, NULL, _IONBF, 0); /* our own bounded buffer does the buffering */
    s->buf_size = what == OPEN_HEADERS ? PNG_PROBE_BUFFER : PNG_READ_BUFFER;
    s->buf = src_alloc(s, s->buf_size, 1, "PNG read buffer", err);
    if (!s->buf) goto fail_alloc;

    uint8_t head[33];
    size_t got = rd_read(s, head, sizeof head);
    if (got < sizeof head && ferror(s->file)) {
        int e = errno;
        st = sy__fail_sub(err, SY_E_IO, e, "%s: read failed: %s", path, strerror(e));
        goto fail;
    }
    if ((st = parse_header(head, got, path, &s->h, err)) != SY_OK) goto fail;
    if ((st = read_header_chunks(s, err)) != SY_OK) goto fail;
    sy__png_build_lut(s);
    if (s->hdr.present) {
        s->hdr.peak = s->hdr.transfer == SY_CICP_TRANSFER_PQ ? sy__hdr_content_peak(&s->grade) : 0;
        s->hdr.present = (uint8_t)sy__hdr_map_init(&s->hdr_map, s->hdr.primaries, s->hdr.transfer, s->hdr.peak);
    }
    if (!s->hdr.present) memset(&s->hdr, 0, sizeof s->hdr);
    if (what == OPEN_HEADERS) {
        *out = &s->base; /* only for sy__png_source_hdr and close */
        s->base.close = png_close;
        return SY_OK;
    }
    s->gain_only = what == OPEN_GAINS;
    if (s->hdr.present) {
        int has_alpha = s->has_trns || s->h.color_type == CT_GRAY_ALPHA || s->h.color_type == CT_RGBA;
        s->signal = src_alloc(s, (size_t)s->h.width * 3, sizeof(float), "PNG HDR signal row", err);
        if (!s->signal) goto fail_alloc;
        if (has_alpha && !(s->signal_alpha = src_alloc(s, s->h.width, sizeof(float), "PNG HDR alpha row", err)))
            goto fail_alloc;
    }

    unsigned bits = (unsigned)s->h.channels * s->h.depth;
    s->bpp = bits >= 8 ? bits / 8 : 1;
    s->rowbytes = raw_row_bytes(&s->h, s->h.width);
    s->prev = src_alloc(s, s->rowbytes + 1, 1, "PNG row", err);
    s->cur = s->prev ? src_alloc(s, s->rowbytes + 1, 1, "PNG row", err) : NULL;
    if (!s->cur) goto fail_alloc;
    memset(s->prev, 0, s->rowbytes + 1);

    s->zs.zalloc = z_alloc;
    s->zs.zfree = z_free;
    s->zs.opaque = s;
    int zret = inflateInit(&s->zs);
    if (zret != Z_OK) {
        st = sy__fail(err, zret == Z_MEM_ERROR ? SY_E_BUDGET : SY_E_CODEC, "%s: PNG inflateInit failed (%d)",
                      path, zret);
        goto fail;
    }
    s->z_ready = 1;

    if (s->h.interlace && what == OPEN_ROWS) {
        uint64_t pixels = (uint64_t)s->h.width * s->h.height;
        if (pixels > SY_MAX_INPUT_PIXELS) {
            st = sy__fail(err, SY_E_BUDGET, "%s: interlaced PNG of %llu pixels exceeds the limit %llu", path,
                          (unsigned long long)pixels, (unsigned long long)SY_MAX_INPUT_PIXELS);
            goto fail;
        }
        s->pass_rgb = src_alloc(s, s->h.width, 3, "PNG interlace pass row", err);
        if (!s->pass_rgb) goto fail_alloc;
        s->image = src_alloc(s, (size_t)pixels, 3, "PNG interlaced image", err);
        if (!s->image) goto fail_alloc;
        if ((st = decode_interlaced(s, err)) != SY_OK) goto fail;
        /* Nothing more is read: give back the buffers only the decode needed. */
        inflateEnd(&s->zs);
        s->z_ready = 0;
        fclose(s->file);
        s->file = NULL;
        sy__free(ctx, s->buf);
        sy__free(ctx, s->prev);
        sy__free(ctx, s->cur);
        sy__free(ctx, s->pass_rgb);
        sy__free(ctx, s->signal);
        sy__free(ctx, s->signal_alpha);
        s->buf = s->prev = s->cur = s->pass_rgb = NULL;
        s->signal = s->signal_alpha = NULL;
        s->held = sizeof *s + plen + (size_t)pixels * 3;
    }

    s->base.width = s->h.width;
    s->base.height = s->h.height;
    s->base.orientation = 1;
    s->base.pixels = SY__PIX_RGB;
    s->base.working_bytes = s->held + (s->z_ready ? PNG_ZLIB_WINDOW : 0);
    s->base.read_rows = png_read_rows;
    s->base.skip_rows = png_skip_rows;
    s->base.close = png_close;
    *out = &s->base;
    return SY_OK;

fail_alloc:
    st = budget_failure(err, path);
fail:
    png_close(&s->base);
    return st;
}

sy_status sy__png_source_open(sy_context *ctx, const char *path, sy__source **out, sy_error *err) {
    if (!ctx || !path || !out) return sy__fail(err, SY_E_USAGE, "sy__png_source_open: NULL argument");
    return open_png(ctx, path, OPEN_ROWS, out, err);
}

sy_status sy__png_gain_open(sy_context *ctx, const char *path, sy__source **out, sy_error *err) {
    if (!ctx || !path || !out) return sy__fail(err, SY_E_USAGE, "sy__png_gain_open: NULL argument");
    return open_png(ctx, path, OPEN_GAINS, out, err);
}

sy_status sy__png_probe_hdr(sy_context *ctx, const char *path, sy__png_hdr *out, sy_error *err) {
    if (!ctx || !path || !out) return sy__fail(err, SY_E_USAGE, "sy__png_probe_hdr: NULL argument");
    memset(out, 0, sizeof *out);
    sy__source *src = NULL;
    sy_status st = open_png(ctx, path, OPEN_HEADERS, &src, err);
    if (st != SY_OK) return st;
    sy__png_source_hdr(src, out);
    src->close(src);
    return SY_OK;
}
