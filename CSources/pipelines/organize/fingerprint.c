/* fingerprint.c — sy_fingerprint_file: the analysis plane from a decode at
 * the size it needs where the exact-content digest allows it.
 *
 * JPEG, PNG (and HEIF codings only libheif decodes): one full-resolution,
 * strip-wise decode. A pass-through source ("tee") converts rows to R'G'B',
 * feeds them to the pixel SHA-256 and box-averages them by a power of two
 * for the frame renderer, which pulls them down to the analysis plane; rows
 * the renderer leaves unread are drained through the tee afterwards so the
 * digest always covers every row.
 * HEVC HEIF: the digest comes from the coded tiles (heif/sy_heif_digest.h), so
 * the picture is decoded only at the analysis size — the row source's
 * thumbnail pick or its box-averaged tile rows, the same streaming loop
 * collage cells use — in a few megabytes for a 24 MP grid. */
#include <string.h>

#include "sy_still.h"
#include "base/sy_internal.h"
#include "base/sy_sha256.h"
#include "jpeg/sy_jpeg_source.h"
#include "still/sy_still_internal.h"
#include "base/sy_color.h"
#include "still/sy_metadata.h"
#include "exif/sy_exif.h"
#include "png/sy_png_metadata.h"
#include "heif/sy_heif_digest.h"
#include "render/sy_render_window.h"
#include "organize/sy_analysis.h"

/* The source the renderer reads. Over a full-size decoder (`hashing`) each
 * row is converted to R'G'B' and hashed, then k x k boxes are averaged — the
 * same reduction the HEIF source applies to its tiles, so sharpness reads
 * alike whatever the coding; over HEIF's already reduced source (k = 1, no
 * hashing) rows are only converted. */
typedef struct tee {
    sy__source base;
    sy__source *inner;
    sy_context *ctx;
    int hashing;       /* 0: no pixel digest here (from the coded tiles, or not asked for) */
    uint32_t k;        /* box side, a power of two */
    sy__sha256 sha;
    uint32_t rows_done; /* inner rows read */
    uint8_t *scratch;  /* one inner row */
    uint32_t *sums;    /* one reduced row of box sums */
} tee;

/* The next inner row into t->scratch: converted, hashed. */
static sy_status inner_row(tee *t, sy_error *err) {
    sy_status st = t->inner->read_rows(t->inner, &t->scratch, 1, err);
    if (st != SY_OK) return st;
    if (t->inner->pixels == SY__PIX_YCC) sy__ycc_rows_to_rgb(&t->scratch, 1, t->inner->width);
    if (t->hashing) sy__sha256_update(&t->sha, t->scratch, (size_t)t->inner->width * 3);
    t->rows_done++;
    return (t->rows_done & 63) == 0 ? sy__check_cancel(t->ctx, err) : SY_OK;
}

static sy_status tee_read(sy__source *self, uint8_t *const *rows, uint32_t count, sy_error *err) {
    tee *t = (tee *)self;
    size_t n = (size_t)t->base.width * 3;
    if (t->k == 1 && !t->hashing) {
        sy_status st = t->inner->read_rows(t->inner, rows, count, err);
        if (st == SY_OK && t->inner->pixels == SY__PIX_YCC) sy__ycc_rows_to_rgb(rows, count, t->base.width);
        return st;
    }
    for (uint32_t r = 0; r < count; r++) {
        memset(t->sums, 0, n * sizeof *t->sums);
        for (uint32_t i = 0; i < t->k; i++) {
            sy_status st = inner_row(t, err);
            if (st != SY_OK) return st;
            for (size_t j = 0; j < n; j++) {
                const uint8_t *p = t->scratch + (j / 3) * t->k * 3 + j % 3;
                for (uint32_t b = 0; b < t->k; b++) t->sums[j] += p[3 * b];
            }
        }
        uint32_t area = t->k * t->k;
        for (size_t j = 0; j < n; j++) rows[r][j] = (uint8_t)((t->sums[j] + area / 2) / area);
    }
    return SY_OK;
}

static sy_status tee_skip(sy__source *self, uint32_t count, sy_error *err) {
    tee *t = (tee *)self;
    if (!t->hashing) return t->inner->skip_rows(t->inner, count * t->k, err);
    for (uint64_t i = 0; i < (uint64_t)count * t->k; i++) {
        sy_status st = inner_row(t, err);
        if (st != SY_OK) return st;
    }
    return SY_OK;
}

/* The largest power of two k that keeps a w x h frame at least need_w x need_h. */
static uint32_t box_side(uint32_t w, uint32_t h, uint32_t need_w, uint32_t need_h) {
    uint32_t k = 1;
    while (w / (2 * k) >= need_w && h / (2 * k) >= need_h) k *= 2;
    return k;
}

static void tee_close(sy__source *self) { (void)self; /* owned by sy_fingerprint_file */ }

typedef struct analysis {
    uint8_t *luma;
    uint32_t w;
} analysis;

static sy_status analysis_sink(void *user, uint32_t y, uint8_t *row, sy_error *err) {
    (void)err;
    analysis *a = user;
    sy__analysis_luma_row(row, a->w, a->luma + (size_t)y * a->w);
    return SY_OK;
}

static void put_le32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Capture date, camera and screenshot flags from whatever metadata the file carries. */
static sy_status read_flags(sy_context *ctx, const char *path, const sy_image_info *info, sy_fingerprint *out,
                            sy_error *err) {
    sy__metadata md;
    int animated = 0;
    sy_status st = info->format == SY_FORMAT_PNG ? sy__png_metadata_read(ctx, path, &md, &animated, err)
                                                 : sy__metadata_read(ctx, path, info, &md, err);
    if (st != SY_OK) return st;
    out->animated = (uint8_t)animated;
    sy__capture_date(md.exif, md.exif_len, md.xmp, md.xmp_len, out->capture_date);
    if (md.exif) {
        out->has_camera = (uint8_t)sy__exif_has_camera(md.exif, md.exif_len);
        out->screenshot_marker = (uint8_t)sy__exif_user_comment_has(md.exif, md.exif_len, "Screenshot");
    }
    if (md.xmp && sy__xmp_user_comment_has(md.xmp, md.xmp_len, "Screenshot")) out->screenshot_marker = 1;
    sy__metadata_free(ctx, &md);
    return SY_OK;
}

/* Renders `t` (opened over a source) down to the analysis plane and measures
 * it; with t->hashing, drains the rows the renderer skipped into the digest. */
static sy_status analyse(sy_context *ctx, tee *t, uint8_t orientation, sy_fingerprint *out, sy_error *err) {
    uint32_t sw = t->base.width, sh = t->base.height, ah;
    analysis a = {0};
    sy__analysis_size(sw, sh, 0, &a.w, &ah);
    sy_renderer *renderer = NULL;
    sy_status st = SY_OK;
    int boxing = t->hashing || t->k > 1;
    if (boxing) {
        t->scratch = sy__alloc(ctx, t->inner->width, 3, "fingerprint scratch row", err);
        t->sums = t->scratch ? sy__alloc(ctx, (size_t)sw * 3, sizeof *t->sums, "fingerprint box sums", err) : NULL;
    }
    a.luma = sy__alloc(ctx, (size_t)a.w * ah, 1, "fingerprint analysis plane", err);
    if ((boxing && !t->sums) || !a.luma) {
        st = err ? err->code : SY_E_BUDGET;
        goto done;
    }
    sy_recipe identity;
    sy_recipe_init(&identity);
    if ((st = sy_renderer_create(ctx, &identity, sw, sh, a.w, ah, &renderer, err)) != SY_OK ||
        (st = sy__render_source(ctx, &t->base, renderer, analysis_sink, &a, err)) != SY_OK)
        goto done;
    while (t->hashing && t->rows_done < t->inner->height)  /* rows no band read, and the last partial box */
        if ((st = inner_row(t, err)) != SY_OK) goto done;
    uint64_t hashes[4];
    sy__phash_luma(a.luma, a.w, ah, orientation, hashes);
    out->phash = hashes[0];
    memcpy(out->phash_turned, hashes + 1, sizeof out->phash_turned);
    sy__quality_luma(a.luma, a.w, ah, out);
done:
    sy_renderer_destroy(renderer);
    sy__free(ctx, a.luma);
    sy__free(ctx, t->sums);
    sy__free(ctx, t->scratch);
    return st;
}

sy_status sy_fingerprint_file(sy_context *ctx, const char *path, sy_fingerprint *out, sy_error *err) {
    return sy_fingerprint_file_ex(ctx, path, 0, out, err);
}

sy_status sy_fingerprint_file_ex(sy_context *ctx, const char *path, uint32_t flags, sy_fingerprint *out,
                                 sy_error *err) {
    if (!ctx || !path || !out) return sy__fail(err, SY_E_USAGE, "sy_fingerprint_file: NULL argument");
    memset(out, 0, sizeof *out);
    sy_image_info info;
    sy_status st = sy_image_probe(ctx, path, &info, err);
    if (st != SY_OK) return st;
    out->format = info.format;
    out->width = info.width, out->height = info.height;
    out->stored_width = info.stored_width, out->stored_height = info.stored_height;
    out->orientation = info.orientation;
    if ((st = sy__file_identity(ctx, path, NULL, &out->file_bytes, out->file_sha256, err)) != SY_OK) return st;
    if ((st = read_flags(ctx, path, &info, out, err)) != SY_OK) return st;

    /* HEVC HEIF: digest from the coded tiles, pixels at the analysis size.
     * Other HEIF codings (libheif's full-size decode) hash their rows. */
    int coded = 0;
    if (info.format == SY_FORMAT_HEIF) {
        sy_error digest_err = {0};
        st = sy__heif_coded_digest(ctx, path, out->pixel_sha256, &digest_err);
        if (st == SY_OK) coded = 1;
        else if (st != SY_E_UNSUPPORTED) return sy__fail(err, st, "%s", digest_err.message);
    }
    uint32_t need_w, need_h;
    sy__analysis_size(info.stored_width, info.stored_height, 1, &need_w, &need_h);
    /* Without a pixel digest every decoder may reduce: JPEG by its DCT scale. */
    int hashing = !coded && !(flags & SY_FINGERPRINT_NO_PIXEL_DIGEST);
    uint32_t open_w = hashing ? info.stored_width : need_w, open_h = hashing ? info.stored_height : need_h;
    sy__source *src = NULL;
    st = info.format == SY_FORMAT_JPEG ? sy__jpeg_source_open_rgb(ctx, path, open_w, open_h, &src, err)
                                       : sy__source_open(ctx, path, &info, open_w, open_h, NULL, &src, err);
    if (st != SY_OK) return st;
    tee t = {.base = *src, .inner = src, .ctx = ctx, .hashing = hashing, .k = 1};
    if (!coded) { /* the HEIF source reduced its tiles already */
        t.k = box_side(src->width, src->height, need_w, need_h);
        t.base.width = src->width / t.k, t.base.height = src->height / t.k;
    }
    t.base.pixels = SY__PIX_RGB;
    t.base.read_rows = tee_read, t.base.skip_rows = tee_skip, t.base.close = tee_close, t.base.spend_less = NULL;
    if (t.hashing) {
        sy__sha256_init(&t.sha);
        uint8_t header[5 + 9] = {'S', 'Y', 'P', 'X', '1'};
        put_le32(header + 5, src->width), put_le32(header + 9, src->height), header[13] = info.orientation;
        sy__sha256_update(&t.sha, header, sizeof header);
    }
    st = analyse(ctx, &t, src->orientation, out, err);
    if (st == SY_OK && t.hashing) sy__sha256_hex(&t.sha, out->pixel_sha256);
    src->close(src);
    if (st == SY_OK && out->pixel_sha256[0] && info.format != SY_FORMAT_PNG)
        st = sy__fingerprint_mix_gain_map(ctx, path, out->file_sha256, out->pixel_sha256, err);
    return st;
}
