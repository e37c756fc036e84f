/* libheif_fallback.c — HEIF probe and row source through libheif, for what
 * our own reader does not decode (AV1/AVC/JPEG-coded items, iden/iovl).
 *
 * libheif 1.15 decodes the whole primary image at once (irot/imir applied, so
 * rows are delivered upright with orientation 1). That costs ~6 bytes per
 * pixel while open and is charged to the budget (reported as an over-budget
 * cell by the collage).
 *
 * An HDR AV1 primary (PQ / HLG, sy__heif_av1_signal) is decoded to libheif's
 * R'G'B' at its own depth (10 or 12 bits: libheif applies the nclx matrix and
 * range) and each row handed out as its SDR Display P3 rendition by the tone
 * mapping every HDR signal takes (base/sy_hdr_tone.h), as an HDR PNG's rows
 * are; its gain rows come from the same mapping. libheif's 8-bit R'G'B' would
 * be the signal's code values read as SDR. (libheif 1.15's Y'CbCr output is
 * no way round: it re-quantises limited-range samples to full range.)
 *
 * libheif's initialisation is process-wide and reference counted: the
 * fallback takes one reference on its first use (pthread_once, so concurrent
 * contexts are safe) and holds it for the life of the process, so the engine
 * pays for libheif's plugin loading only when a file needs it. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <libheif/heif.h>

#include "base/sy_hdr_tone.h"
#include "base/sy_internal.h"
#include "heif/sy_heif_source.h"

typedef struct heif_source {
    sy__source base;
    sy_context *ctx;
    struct heif_context *hctx;
    struct heif_image_handle *handle;
    struct heif_image *image;
    const uint8_t *plane;       /* libheif's interleaved R'G'B', 8-bit (SDR) or 16-bit samples (HDR) */
    int stride;
    int hdr;                    /* an HDR signal: rows are its SDR rendition through `map` */
    sy__hdr_map map;
    float scale;                /* 1 / the samples' largest value */
    float *signal;              /* one row of R'G'B' signal, 0..1 */
    uint32_t next_row;
    size_t charged;
} heif_source;

static pthread_once_t libheif_once = PTHREAD_ONCE_INIT;

static void libheif_init_once(void) { heif_init(NULL); }

static sy_status open_primary(const char *path, struct heif_context **hctx, struct heif_image_handle **handle,
                              sy_error *err) {
    pthread_once(&libheif_once, libheif_init_once);
    *hctx = heif_context_alloc();
    if (!*hctx) return sy__fail(err, SY_E_BUDGET, "%s: cannot allocate a libheif context", path);
    heif_context_set_maximum_image_size_limit(*hctx, (int)SY_MAX_INPUT_DIMENSION);
    struct heif_error he = heif_context_read_from_file(*hctx, path, NULL);
    if (he.code == heif_error_Ok) he = heif_context_get_primary_image_handle(*hctx, handle);
    if (he.code != heif_error_Ok) {
        /* he.message lives in the libheif context: copy it before freeing it
         * (without the line break some of its messages end in) */
        char said[160];
        snprintf(said, sizeof said, "%s", he.message ? he.message : "?");
        for (size_t n = strlen(said); n && (said[n - 1] == '\n' || said[n - 1] == ' '); n--) said[n - 1] = 0;
        sy_status st = sy__fail_sub(err, he.code == heif_error_Memory_allocation_error ? SY_E_BUDGET : SY_E_INVALID_INPUT,
                                    he.subcode, "%s: libheif cannot open it: %s", path, said);
        heif_context_free(*hctx);
        *hctx = NULL;
        *handle = NULL;
        return st;
    }
    return SY_OK;
}

static sy_status check_size(const char *path, int w, int h, sy_error *err) {
    if (w <= 0 || h <= 0) return sy__fail(err, SY_E_INVALID_INPUT, "%s: HEIF has size %dx%d", path, w, h);
    if ((uint64_t)w * (uint64_t)h > SY_MAX_INPUT_PIXELS || (uint32_t)w > SY_MAX_INPUT_DIMENSION ||
        (uint32_t)h > SY_MAX_INPUT_DIMENSION)
        return sy__fail(err, SY_E_BUDGET, "%s: HEIF %dx%d exceeds the input limit", path, w, h);
    return SY_OK;
}

sy_status sy__libheif_probe(sy_context *ctx, const char *path, sy_image_info *out, sy_error *err) {
    (void)ctx;
    struct heif_context *hctx;
    struct heif_image_handle *handle;
    sy_status st = open_primary(path, &hctx, &handle, err);
    if (st != SY_OK) return st;
    int w = heif_image_handle_get_width(handle), h = heif_image_handle_get_height(handle);
    st = check_size(path, w, h, err);
    if (st == SY_OK) {
        memset(out, 0, sizeof *out);
        out->format = SY_FORMAT_HEIF;
        out->width = out->stored_width = (uint32_t)w;
        out->height = out->stored_height = (uint32_t)h;
        out->orientation = 1; /* libheif applies irot/imir itself */
        out->has_alpha = heif_image_handle_has_alpha_channel(handle) ? 1 : 0;
        int depth = heif_image_handle_get_luma_bits_per_pixel(handle);
        out->bit_depth = depth > 0 ? (uint8_t)depth : 8;
    }
    heif_image_handle_release(handle);
    heif_context_free(hctx);
    return st;
}

/* Row y of an HDR picture as R'G'B' signal floats (0..1). */
static const float *signal_row(heif_source *s, uint32_t y) {
    const uint16_t *row = (const uint16_t *)(const void *)(s->plane + (size_t)y * (size_t)s->stride);
    for (size_t i = 0; i < (size_t)s->base.width * 3; i++) s->signal[i] = (float)row[i] * s->scale;
    return s->signal;
}

static sy_status heif_read_rows(sy__source *self, uint8_t *const *rows, uint32_t count, sy_error *err) {
    heif_source *s = (heif_source *)self;
    if (s->next_row + count > s->base.height) return sy__fail(err, SY_E_USAGE, "heif: read past the last row");
    for (uint32_t i = 0; i < count; i++, s->next_row++) {
        if (s->hdr) sy__hdr_to_sdr(&s->map, signal_row(s, s->next_row), s->base.width, rows[i]);
        else memcpy(rows[i], s->plane + (size_t)s->next_row * (size_t)s->stride, (size_t)s->base.width * 3);
    }
    return SY_OK;
}

sy_status sy__libheif_read_gain_row(sy__source *src, float *gain, sy_error *err) {
    heif_source *s = (heif_source *)src;
    if (!s->hdr) return sy__fail(err, SY_E_USAGE, "heif: gain rows of a picture that is not HDR");
    if (s->next_row >= s->base.height) return sy__fail(err, SY_E_USAGE, "heif: gain row past the last row");
    sy__hdr_gain(&s->map, signal_row(s, s->next_row), s->base.width, gain);
    s->next_row++;
    return SY_OK;
}

static sy_status heif_skip_rows(sy__source *self, uint32_t count, sy_error *err) {
    heif_source *s = (heif_source *)self;
    if (s->next_row + count > s->base.height) return sy__fail(err, SY_E_USAGE, "heif: skip past the last row");
    s->next_row += count;
    return SY_OK;
}

static void heif_close(sy__source *self) {
    heif_source *s = (heif_source *)self;
    if (!s) return;
    sy__free(s->ctx, s->signal);
    if (s->image) heif_image_release(s->image);
    if (s->handle) heif_image_handle_release(s->handle);
    if (s->hctx) heif_context_free(s->hctx);
    sy__discharge(s->ctx, s->charged);
    sy__free(s->ctx, s);
}

sy_status sy__libheif_source_open(sy_context *ctx, const char *path, const sy_cicp *hdr, sy__source **out,
                                  sy_error *err) {
    *out = NULL;
    heif_source *s = sy__calloc(ctx, 1, sizeof *s, "heif source", err);
    if (!s) return err ? err->code : SY_E_BUDGET;
    s->ctx = ctx;
    s->base.read_rows = heif_read_rows;
    s->base.skip_rows = heif_skip_rows;
    s->base.close = heif_close;
    s->base.orientation = 1;
    s->base.pixels = SY__PIX_RGB;
    sy_status st = open_primary(path, &s->hctx, &s->handle, err);
    if (st != SY_OK) goto fail;
    int w = heif_image_handle_get_width(s->handle), h = heif_image_handle_get_height(s->handle);
    if ((st = check_size(path, w, h, err)) != SY_OK) goto fail;
    /* RGB output plus libde265's YCbCr planes and libheif's copies. */
    size_t working = (size_t)w * (size_t)h * 6;
    if ((st = sy__charge(ctx, working, path, err)) != SY_OK) goto fail;
    s->charged = working;
    s->base.working_bytes = working;
    s->hdr = hdr && hdr->present && sy__hdr_map_init(&s->map, hdr->primaries, hdr->transfer, hdr->peak);
    struct heif_error he = heif_decode_image(s->handle, &s->image, heif_colorspace_RGB,
                                             s->hdr ? heif_chroma_interleaved_RRGGBB_LE : heif_chroma_interleaved_RGB, NULL);
    if (he.code != heif_error_Ok) {
        st = sy__fail_sub(err, SY_E_INVALID_INPUT, he.subcode, "%s: HEIF decode failed: %s", path,
                          he.message ? he.message : "?");
        goto fail;
    }
    int iw = heif_image_get_width(s->image, heif_channel_interleaved);
    int ih = heif_image_get_height(s->image, heif_channel_interleaved);
    s->plane = heif_image_get_plane_readonly(s->image, heif_channel_interleaved, &s->stride);
    const int depth = heif_image_get_bits_per_pixel_range(s->image, heif_channel_interleaved);
    if (!s->plane || iw <= 0 || ih <= 0 || (size_t)s->stride < (size_t)iw * (s->hdr ? 6 : 3) ||
        (s->hdr && (depth < 8 || depth > 16))) {
        st = sy__fail(err, SY_E_CODEC, "%s: libheif returned no %s RGB plane", path, s->hdr ? "high-depth" : "8-bit");
        goto fail;
    }
    if (s->hdr && (iw != w || ih != h)) { /* an HDR picture is made of what the probe announced, or nothing */
        st = sy__fail(err, SY_E_INVALID_INPUT, "%s: the picture decodes as %dx%d, its header says %dx%d", path, iw, ih,
                      w, h);
        goto fail;
    }
    s->base.width = (uint32_t)iw;
    s->base.height = (uint32_t)ih;
    if (s->hdr) {
        s->scale = 1.0f / (float)((1u << depth) - 1);
        if (!(s->signal = sy__alloc(ctx, (size_t)iw * 3, sizeof *s->signal, "heif signal row", err))) {
            st = err ? err->code : SY_E_BUDGET;
            goto fail;
        }
    }
    *out = &s->base;
    return SY_OK;
fail:
    heif_close(&s->base);
    return st;
}
