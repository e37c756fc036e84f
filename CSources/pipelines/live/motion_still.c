/* motion_still.c — a Motion Photo's JPEG as a Live still without touching
 * its image data (live/sy_live_motion.h). */
#include <string.h>

#include "base/sy_input.h"
#include "base/sy_output.h"
#include "exif/sy_content_id.h"
#include "exif/sy_exif.h"
#include "exif/sy_exif_writer.h"
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

static sy_status write_still(const char *path, still_bytes *s, const uint8_t *exif, size_t exif_len, FILE *f,
                             sy_error *err) {
    static const uint8_t soi[2] = {0xFF, 0xD8};
    int ok = fwrite(soi, 1, 2, f) == 2;
    /* a new Exif goes first, after a leading JFIF APP0 */
    int insert_after = s->exif >= 0 ? -2 : (s->count && s->seg[0].marker == 0xE0 ? 0 : -1);
    if (ok && insert_after == -1) ok = put_segment(f, 0xE1, EXIF_ID, EXIF_ID_LEN, exif, exif_len);
    for (uint32_t i = 0; ok && i < s->count; i++) {
        const segment *g = &s->seg[i];
        if ((int)i == s->exif) {
            ok = put_segment(f, 0xE1, EXIF_ID, EXIF_ID_LEN, exif, exif_len);
        } else if ((int)i == s->xmp) {
            uint8_t *x = s->p + g->at + 4 + sizeof XMP_PREFIX;
            size_t n = strip_xmp(x, g->len - 4 - sizeof XMP_PREFIX, s->mpf >= 0 && s->mpf < s->xmp);
            ok = put_segment(f, 0xE1, XMP_PREFIX, sizeof XMP_PREFIX, x, n);
        } else {
            ok = fwrite(s->p + g->at, 1, g->len, f) == g->len;
        }
        if (ok && (int)i == insert_after) ok = put_segment(f, 0xE1, EXIF_ID, EXIF_ID_LEN, exif, exif_len);
    }
    if (ok) ok = fwrite(s->p + s->scan, 1, s->len - s->scan, f) == s->len - s->scan;
    return ok ? SY_OK : sy__fail(err, SY_E_IO, "%s: write failed", path);
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
