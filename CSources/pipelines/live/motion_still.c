/* motion_still.c — a JPEG still between the two forms without touching its
 * image data (live/sy_live_motion.h): a Motion Photo's JPEG as a Live still,
 * and a Live still as a Motion Photo's JPEG with the movie appended. */
#include <string.h>

#include "base/sy_input.h"
#include "base/sy_output.h"
#include "exif/sy_content_id.h"
#include "exif/sy_exif.h"
#include "exif/sy_exif_writer.h"
#include "gainmap/sy_gainmap_internal.h"
#include "live/sy_live_motion.h"
#include "sy_still.h"

#define STILL_MAX_BYTES ((uint64_t)256 << 20)
#define MAX_SEGMENTS 4096u
#define EXIF_ID "Exif\0\0"
#define EXIF_ID_LEN 6

static const char XMP_PREFIX[] = "http://ns.adobe.com/xap/1.0/"; /* followed by a NUL */

typedef struct segment {
    size_t at, len; /* marker at `at`, `len` bytes in all (marker + length + payload) */
    uint8_t marker;
} segment;

typedef struct still_bytes {
    uint8_t *p;
    size_t len;
    segment seg[MAX_SEGMENTS];
    uint32_t count;
    size_t scan; /* where the first scan's marker starts */
    int exif, xmp, mpf; /* segment indices, -1 none */
} still_bytes;

static int has_prefix(const still_bytes *s, const segment *g, const void *id, size_t n) {
    return g->len >= 4 + n && memcmp(s->p + g->at + 4, id, n) == 0;
}

static sy_status read_still(sy_context *ctx, const char *path, uint64_t length, still_bytes *s, sy_error *err) {
    if (length > STILL_MAX_BYTES || length < 4)
        return sy__fail(err, SY_E_BUDGET, "%s: a %llu-byte photo is too large to rewrite", path,
                        (unsigned long long)length);
    FILE *f = NULL;
    sy_status st = sy__input_open(path, &f, err);
    if (st != SY_OK) return st;
    if (!(s->p = sy__alloc(ctx, (size_t)length, 1, "motion photo still", err))) st = err ? err->code : SY_E_BUDGET;
    else if (fread(s->p, 1, (size_t)length, f) != (size_t)length) st = sy__fail(err, SY_E_IO, "%s: read failed", path);
    fclose(f);
    s->len = (size_t)length;
    return st;
}

/* The header segments up to the first scan. */
static sy_status index_segments(const char *path, still_bytes *s, sy_error *err) {
    s->exif = s->xmp = s->mpf = -1;
    if (s->p[0] != 0xFF || s->p[1] != 0xD8) return sy__fail(err, SY_E_INVALID_INPUT, "%s: not a JPEG", path);
    size_t pos = 2;
    while (pos + 4 <= s->len) {
        if (s->p[pos] != 0xFF) return sy__fail(err, SY_E_INVALID_INPUT, "%s: JPEG marker expected at byte %zu", path, pos);
        uint8_t m = s->p[pos + 1];
        if (m == 0xFF) { pos++; continue; }
        if (m == 0xDA) { s->scan = pos; return SY_OK; }
        size_t len = (size_t)s->p[pos + 2] << 8 | s->p[pos + 3];
        if (m == 0xD9 || len < 2 || pos + 2 + len > s->len || s->count == MAX_SEGMENTS) break;
        segment g = {pos, 2 + len, m};
        int idx = (int)s->count;
        s->seg[s->count++] = g;
        if (m == 0xE1 && s->exif < 0 && has_prefix(s, &g, EXIF_ID, EXIF_ID_LEN)) s->exif = idx;
        else if (m == 0xE1 && s->xmp < 0 && has_prefix(s, &g, XMP_PREFIX, sizeof XMP_PREFIX)) s->xmp = idx;
        else if (m == 0xE2 && s->mpf < 0 && has_prefix(s, &g, "MPF\0", 4)) s->mpf = idx;
        pos += 2 + len;
    }
    return sy__fail(err, SY_E_INVALID_INPUT, "%s: no image data after the JPEG header segments", path);
}

/* The Exif with the identifier, small enough for one APP1 segment. */
static sy_status tagged_exif(sy_context *ctx, const char *path, const still_bytes *s, const char *id, uint8_t **out,
                             size_t *out_len, sy_error *err) {
    const uint8_t *old = NULL;
    size_t old_len = 0;
    uint8_t fresh[512];
    if (s->exif >= 0) {
        const segment *g = &s->seg[s->exif];
        old = s->p + g->at + 4 + EXIF_ID_LEN;
        old_len = g->len - 4 - EXIF_ID_LEN;
    } else {
        sy_image_info info;
        sy_status st = sy_image_probe(ctx, path, &info, err);
        if (st != SY_OK) return st;
        sy__exif_info minimal = {.orientation = info.orientation, .pixel_x = info.stored_width,
                                 .pixel_y = info.stored_height};
        old_len = sy__exif_build_tiff(&minimal, fresh, sizeof fresh);
        if (!old_len) return sy__fail(err, SY_E_USAGE, "%s: cannot build an Exif", path);
        old = fresh;
    }
    sy_status st = sy__content_id_with(ctx, old, old_len, id, out, out_len, err);
    const size_t limit = SY__EXIF_APP1_MAX - EXIF_ID_LEN;
    if (st != SY_OK || *out_len <= limit) return st;
    /* too large with the MakerNote added: shed what exif_fit sheds from the old one, then tag again */
    size_t growth = *out_len - old_len;
    sy__free(ctx, *out);
    *out = NULL;
    if (growth + 1024 >= limit) return sy__fail(err, SY_E_UNSUPPORTED, "%s: the identifier does not fit the Exif", path);
    uint8_t *fit = NULL;
    size_t fit_len = 0;
    uint32_t dropped = 0;
    st = sy__exif_fit(ctx, old, old_len, limit - growth - 1024, &fit, &fit_len, &dropped, err);
    if (st == SY_OK) st = sy__content_id_with(ctx, fit, fit_len, id, out, out_len, err);
    sy__free(ctx, fit);
    if (st == SY_OK && *out_len > limit) {
        sy__free(ctx, *out);
        *out = NULL;
        st = sy__fail(err, SY_E_UNSUPPORTED, "%s: the identifier does not fit the Exif", path);
    }
    return st;
}

static int put_segment(FILE *f, uint8_t marker, const void *id, size_t id_len, const uint8_t *body, size_t len) {
    size_t total = 2 + id_len + len;
    uint8_t h[4] = {0xFF, marker, (uint8_t)(total >> 8), (uint8_t)total};
    return fwrite(h, 1, 4, f) == 4 && fwrite(id, 1, id_len, f) == id_len && fwrite(body, 1, len, f) == len;
}

/* The XMP without the Motion Photo claims; padded with spaces inside the
 * packet (before its trailer) back to the old length when `keep_length`. */
static size_t strip_xmp(uint8_t *xmp, size_t len, int keep_length) {
    int removed = 0;
    size_t n = sy__xmp_strip_motion_photo(xmp, len, &removed);
    if (!keep_length || n == len) return n;
    const uint8_t *trailer = memmem(xmp, n, "<?xpacket end", 13);
    size_t at = trailer ? (size_t)(trailer - xmp) : n;
    memmove(xmp + at + (len - n), xmp + at, n - at);
    memset(xmp + at, ' ', len - n);
    return len;
}

/* The MPF index's primary size grown by `delta` (header segments written
 * larger or smaller before it), in place in s->p; the gain map's offset
 * counts from the index and does not move. */
static void mpf_resize_primary(still_bytes *s, int64_t delta) {
    if (s->mpf < 0 || delta == 0) return;
    const segment *g = &s->seg[s->mpf];
    sy__mpf_add_primary_size(s->p + g->at + 8, g->len - 8, delta); /* after marker, length, "MPF\0" */
}

static sy_status write_still(const char *path, still_bytes *s, const uint8_t *exif, size_t exif_len, FILE *f,
                             sy_error *err) {
    static const uint8_t soi[2] = {0xFF, 0xD8};
    int ok = fwrite(soi, 1, 2, f) == 2;
    /* a new Exif goes first, after a leading JFIF APP0 */
    int insert_after = s->exif >= 0 ? -2 : (s->count && s->seg[0].marker == 0xE0 ? 0 : -1);
    int64_t grown = 0; /* how much larger the primary's header is so far: the MPF index says its size */
    const int64_t exif_segment = 4 + EXIF_ID_LEN + (int64_t)exif_len;
    if (ok && insert_after == -1) {
        ok = put_segment(f, 0xE1, EXIF_ID, EXIF_ID_LEN, exif, exif_len);
        grown += exif_segment;
    }
    for (uint32_t i = 0; ok && i < s->count; i++) {
        const segment *g = &s->seg[i];
        if ((int)i == s->exif) {
            ok = put_segment(f, 0xE1, EXIF_ID, EXIF_ID_LEN, exif, exif_len);
            grown += exif_segment - (int64_t)g->len;
        } else if ((int)i == s->xmp) {
            uint8_t *x = s->p + g->at + 4 + sizeof XMP_PREFIX;
            size_t n = strip_xmp(x, g->len - 4 - sizeof XMP_PREFIX, s->mpf >= 0 && s->mpf < s->xmp);
            ok = put_segment(f, 0xE1, XMP_PREFIX, sizeof XMP_PREFIX, x, n);
            grown += (int64_t)(4 + sizeof XMP_PREFIX + n) - (int64_t)g->len;
        } else {
            if ((int)i == s->mpf) mpf_resize_primary(s, grown);
            ok = fwrite(s->p + g->at, 1, g->len, f) == g->len;
        }
        if (ok && (int)i == insert_after) {
            ok = put_segment(f, 0xE1, EXIF_ID, EXIF_ID_LEN, exif, exif_len);
            grown += exif_segment;
        }
    }
    if (ok) ok = fwrite(s->p + s->scan, 1, s->len - s->scan, f) == s->len - s->scan;
    return ok ? SY_OK : sy__write_failed(err, path);
}

sy_status sy__live_motion_still_jpeg(sy_context *ctx, const char *input, uint64_t still_length, const char *id,
                                     const char *output, sy_error *err) {
    still_bytes *s = sy__calloc(ctx, 1, sizeof *s, "motion photo segments", err);
    if (!s) return err ? err->code : SY_E_BUDGET;
    uint8_t *exif = NULL;
    size_t exif_len = 0;
    sy_status st = read_still(ctx, input, still_length, s, err);
    if (st == SY_OK) st = index_segments(input, s, err);
    if (st == SY_OK && s->mpf >= 0 && s->exif > s->mpf)
        st = sy__fail(err, SY_E_UNSUPPORTED,
                      "%s: the Exif follows the MPF index; rewriting it would move the gain map the index points at",
                      input);
    if (st == SY_OK) st = tagged_exif(ctx, input, s, id, &exif, &exif_len, err);
    sy__output out = {0};
    if (st == SY_OK) st = sy__output_open(ctx, output, &out, err);
    if (st == SY_OK) st = write_still(output, s, exif, exif_len, out.file, err);
    if (st == SY_OK) st = sy__output_commit(&out, err);
    else if (out.file) sy__output_abort(&out);
    sy__free(ctx, exif);
    sy__free(ctx, s->p);
    sy__free(ctx, s);
    return st;
}

/* ---- Live still -> Motion Photo JPEG ---- */

/* Bytes from the first MPF secondary image (a gain map) to the end of the
 * still: the directory item that follows the primary image. 0 without MPF. */
static sy_status mpf_trailing(const char *path, const still_bytes *s, uint64_t *trailing, sy_error *err) {
    *trailing = 0;
    if (s->mpf < 0) return SY_OK;
    const segment *g = &s->seg[s->mpf];
    size_t tiff_at = g->at + 8; /* marker, length, "MPF\0" */
    sy__mpf_entry e[SY__MPF_MAX_IMAGES];
    int n = sy__mpf_parse(s->p + tiff_at, g->len - 8, e, SY__MPF_MAX_IMAGES);
    if (n < 0) return sy__fail(err, SY_E_INVALID_INPUT, "%s: the MPF index is malformed", path);
    uint64_t first = UINT64_MAX;
    for (int i = 1; i < n; i++)
        if (e[i].offset && tiff_at + (uint64_t)e[i].offset < first) first = tiff_at + (uint64_t)e[i].offset;
    if (first == UINT64_MAX) return SY_OK;
    if (first <= s->scan || first >= s->len)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: the MPF index points outside the photo", path);
    *trailing = s->len - first;
    return SY_OK;
}

static sy_status append_file(const char *movie, FILE *to, const char *output, sy_error *err) {
    FILE *f = NULL;
    sy_status st = sy__input_open(movie, &f, err);
    if (st != SY_OK) return st;
    uint8_t buf[1 << 16];
    size_t n;
    while (st == SY_OK && (n = fread(buf, 1, sizeof buf, f)) > 0)
        if (fwrite(buf, 1, n, to) != n) st = sy__write_failed(err, output);
    if (st == SY_OK && ferror(f)) st = sy__fail(err, SY_E_IO, "%s: read failed", movie);
    fclose(f);
    return st;
}

sy_status sy__motion_photo_jpeg_write(sy_context *ctx, const char *still, const char *movie, int64_t presentation_us,
                                      const char *output, uint64_t *movie_offset, sy_error *err) {
    FILE *sf = NULL, *mf = NULL;
    sy_status st = sy__input_open(still, &sf, err);
    if (st != SY_OK) return st;
    fseeko(sf, 0, SEEK_END);
    uint64_t still_len = (uint64_t)ftello(sf);
    fclose(sf);
    if ((st = sy__input_open(movie, &mf, err)) != SY_OK) return st;
    fseeko(mf, 0, SEEK_END);
    uint64_t movie_len = (uint64_t)ftello(mf);
    fclose(mf);

    still_bytes *s = sy__calloc(ctx, 1, sizeof *s, "motion photo segments", err);
    if (!s) return err ? err->code : SY_E_BUDGET;
    uint8_t *xmp = NULL;
    size_t xmp_len = 0;
    uint64_t trailing = 0;
    st = read_still(ctx, still, still_len, s, err);
    if (st == SY_OK) st = index_segments(still, s, err);
    /* a new XMP goes where the old one was, else after the Exif (or a leading JFIF APP0) */
    int at = s->xmp >= 0 ? s->xmp : s->exif >= 0 ? s->exif + 1 : s->count && s->seg[0].marker == 0xE0 ? 1 : 0;
    if (st == SY_OK && s->mpf >= 0 && at > s->mpf) /* MPF offsets count from the MPF segment */
        st = sy__fail(err, SY_E_UNSUPPORTED,
                      "%s: the XMP follows the MPF index; growing it would move the gain map the index points at",
                      still);
    if (st == SY_OK) st = mpf_trailing(still, s, &trailing, err);
    if (st == SY_OK) {
        const uint8_t *old = NULL;
        size_t old_len = 0;
        if (s->xmp >= 0) {
            const segment *g = &s->seg[s->xmp];
            old = s->p + g->at + 4 + sizeof XMP_PREFIX, old_len = g->len - 4 - sizeof XMP_PREFIX;
        }
        st = sy__xmp_with_motion_photo(ctx, old, old_len, "image/jpeg", presentation_us, trailing, movie_len, &xmp,
                                       &xmp_len, err);
    }
    if (st == SY_OK && 2 + sizeof XMP_PREFIX + xmp_len > 0xFFFF)
        st = sy__fail(err, SY_E_UNSUPPORTED, "%s: the XMP with the Motion Photo does not fit one JPEG segment", still);
    sy__output out = {0};
    if (st == SY_OK) st = sy__output_open(ctx, output, &out, err);
    if (st == SY_OK) {
        /* the primary's header grows by the new XMP, less the old: the MPF index (after it) says so */
        int64_t old_xmp = s->xmp >= 0 ? (int64_t)s->seg[s->xmp].len : 0;
        mpf_resize_primary(s, (int64_t)(4 + sizeof XMP_PREFIX + xmp_len) - old_xmp);
        static const uint8_t soi[2] = {0xFF, 0xD8};
        int ok = fwrite(soi, 1, 2, out.file) == 2;
        for (uint32_t i = 0; ok && i <= s->count; i++) {
            if ((int)i == at) ok = put_segment(out.file, 0xE1, XMP_PREFIX, sizeof XMP_PREFIX, xmp, xmp_len);
            if (ok && i < s->count && (int)i != s->xmp)
                ok = fwrite(s->p + s->seg[i].at, 1, s->seg[i].len, out.file) == s->seg[i].len;
        }
        if (ok) ok = fwrite(s->p + s->scan, 1, s->len - s->scan, out.file) == s->len - s->scan;
        if (ok) *movie_offset = (uint64_t)ftello(out.file);
        st = ok ? append_file(movie, out.file, output, err) : sy__write_failed(err, output);
    }
    if (st == SY_OK) st = sy__output_commit(&out, err);
    else if (out.file) sy__output_abort(&out);
    sy__free(ctx, xmp);
    sy__free(ctx, s->p);
    sy__free(ctx, s);
    return st;
}
