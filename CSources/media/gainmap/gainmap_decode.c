/* gainmap_decode.c — sy_gainmap_decode: the gain-map JPEG (MPF image 2) via
 * libjpeg, or the HEIF map item ('hvc1' or an AVIF's 'av01', or a 'grid' of
 * them) via our HEIF reader and libavcodec. Greyscale maps keep their luma
 * plane (expanded to full range when the stream says limited). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/sy_input.h"
#include "hevc/sy_av1.h"
#include "hevc/sy_hevc.h"
#include "gainmap/sy_gainmap_internal.h"
#include "base/sy_fourcc.h"
#include "heif/sy_heif.h"

static sy_status decode_jpeg_map(sy_context *ctx, const char *path, const sy_gainmap_info *info, sy_gainmap_image *out,
                                 sy_error *err) {
    FILE *f = NULL;
    sy_status opened = sy__input_open(path, &f, err);
    if (opened != SY_OK) return opened;
    uint8_t *buf = sy__alloc(ctx, (size_t)info->map_length, 1, "gain map JPEG", err);
    sy_status st = buf ? SY_OK : (err ? err->code : SY_E_BUDGET);
    if (st == SY_OK && (fseek(f, (long)info->map_offset, SEEK_SET) != 0 ||
                        fread(buf, 1, (size_t)info->map_length, f) != info->map_length))
        st = sy__fail(err, SY_E_INVALID_INPUT, "%s: gain map JPEG truncated", path);
    fclose(f);
    if (st == SY_OK) st = sy__gainmap_jpeg_decode(ctx, path, buf, (size_t)info->map_length, out, err);
    sy__free(ctx, buf);
    return st;
}

#define MAX_RGB_TILE 8192u /* widest colour map picture converted through the stack row */

/* Copies the decoded picture's window [0, w) x [0, h) into out at (x0, y0). */
static void put_tile(const sy__yuv *yuv, uint32_t channels, uint32_t w, uint32_t h, sy_gainmap_image *out, uint32_t x0,
                     uint32_t y0) {
    uint32_t cw = SY__MIN(w, out->width - x0), chh = SY__MIN(h, out->height - y0);
    if (channels == 3) { /* callers check yuv->width <= MAX_RGB_TILE */
        for (uint32_t y = 0; y < chh; y++) {
            uint8_t row[3 * MAX_RGB_TILE];
            uint8_t *rows[1] = {row};
            sy__yuv_rows(yuv, NULL, 1, y, 1, rows);
            memcpy(out->pixels + (size_t)(y0 + y) * out->stride + (size_t)x0 * 3, row, (size_t)cw * 3);
        }
        return;
    }
    for (uint32_t y = 0; y < chh; y++) {
        const uint8_t *src = yuv->plane[0] + (size_t)y * yuv->stride[0];
        uint8_t *dst = out->pixels + (size_t)(y0 + y) * out->stride + x0;
        if (yuv->bit_depth > 8) {
            for (uint32_t x = 0; x < cw; x++) dst[x] = (uint8_t)(((const uint16_t *)src)[x] >> (yuv->bit_depth - 8));
        } else {
            memcpy(dst, src, cw);
        }
        if (!yuv->vui.full_range) /* limited-range luma: 16..235 -> 0..255 */
            for (uint32_t x = 0; x < cw; x++) {
                int v = ((int)dst[x] - 16) * 255 / 219;
                dst[x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
    }
}

/* Gives a decoded picture back: to `hevc` when it came from that decoder
 * (a warm one keeps the block for the next tile), else to the context. */
static void picture_release(sy_context *ctx, sy__hevc_decoder *hevc, sy__yuv *yuv) {
    if (hevc) sy__hevc_recycle(hevc, yuv);
    else sy__yuv_release(ctx, yuv);
}

/* A map item's decode, checked: a colour picture wider than the RGB rows
 * allow is refused (and released); a failure names the item, as `code`. */
static sy_status checked_picture(sy_context *ctx, sy__hevc_decoder *hevc, const char *path, const char *what,
                                 uint32_t id, uint32_t channels, sy_status st, sy_status code, sy__yuv *yuv,
                                 sy_error *err) {
    if (st == SY_OK && yuv->width > MAX_RGB_TILE && channels == 3) {
        picture_release(ctx, hevc, yuv);
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: colour gain map picture %u px wide (at most %u)", path,
                        yuv->width, MAX_RGB_TILE);
    }
    if (st != SY_OK) {
        char why[200];
        snprintf(why, sizeof why, "%s", err ? err->message : "decode failed");
        return sy__fail(err, code, "%s: %s %u does not decode: %s", path, what, id, why);
    }
    return SY_OK;
}

sy_status sy__gainmap_decode_item(sy_context *ctx, sy_heif_file *file, const char *path, const char *what, uint32_t id,
                                  const uint8_t *hvcc, size_t hvcc_len, uint32_t channels, int warm,
                                  sy__hevc_decoder **dec, sy__yuv *yuv, sy_error *err) {
    if (!*dec) {
        if (!hvcc) return sy__fail(err, SY_E_INVALID_INPUT, "%s: %s %u has no hvcC", path, what, id);
        sy_status st = sy__hevc_decoder_create(ctx, hvcc, hvcc_len, dec, err);
        if (st != SY_OK) return st;
        sy__hevc_decoder_keep_warm(*dec, warm);
    }
    uint8_t *data = NULL;
    size_t len = 0;
    sy_status st = sy_heif_read_item(file, id, &data, &len, err);
    if (st != SY_OK) return st;
    st = sy__hevc_decode(*dec, data, len, yuv, err);
    sy_heif_free_data(file, data);
    return checked_picture(ctx, *dec, path, what, id, channels, st, SY_E_INVALID_INPUT, yuv, err);
}

/* The decoder of a map's coded items: HEVC ('hvc1') or AV1 ('av01', an
 * AVIF's map), made on the first item and reused for the grid's others. */
typedef struct map_decoder {
    sy__hevc_decoder *hevc;
    sy__av1_decoder *av1;
    int warm; /* the HEVC decoder keeps its libavcodec context from tile to tile */
} map_decoder;

static void map_decoder_destroy(map_decoder *d) {
    sy__hevc_decoder_destroy(d->hevc);
    sy__av1_decoder_destroy(d->av1);
    d->hevc = NULL, d->av1 = NULL;
}

static sy_status decode_av1_item(sy_context *ctx, sy_heif_file *file, const char *path, uint32_t id,
                                 uint32_t channels, sy__av1_decoder **dec, sy__yuv *yuv, sy_error *err) {
    const sy_heif_item_info *item = sy_heif_item(file, id);
    if (!*dec) {
        size_t al = 0;
        const uint8_t *av1c = sy_heif_av1c(file, id, &al);
        if (!av1c) return sy__fail(err, SY_E_INVALID_INPUT, "%s: gain map item %u has no av1C", path, id);
        sy_status st = sy__av1_decoder_create(ctx, av1c, al, dec, err);
        if (st != SY_OK) {
            char why[200];
            snprintf(why, sizeof why, "%s", err ? err->message : "bad av1C");
            return sy__fail(err, st == SY_E_BUDGET ? st : SY_E_INVALID_INPUT, "%s: gain map item %u: %s", path, id, why);
        }
    }
    uint8_t *data = NULL;
    size_t len = 0;
    sy_status st = sy_heif_read_item(file, id, &data, &len, err);
    if (st != SY_OK) return st;
    st = sy__av1_decode(*dec, data, len, yuv, err);
    sy_heif_free_data(file, data);
    st = checked_picture(ctx, NULL, path, "gain map item", id, channels, st,
                         st == SY_E_BUDGET ? st : SY_E_INVALID_INPUT, yuv, err);
    if (st != SY_OK) return st;
    /* AVIF: the colr nclx is the range that counts (MIAF); the sequence header's otherwise */
    if (item && item->nclx.present) yuv->vui.full_range = item->nclx.full_range;
    return SY_OK;
}

static sy_status decode_coded(sy_context *ctx, sy_heif_file *file, const char *path, uint32_t id, uint32_t channels,
                              map_decoder *dec, sy__yuv *yuv, sy_error *err) {
    const sy_heif_item_info *item = sy_heif_item(file, id);
    if (item && item->type == SY_FOURCC('a', 'v', '0', '1'))
        return dec->hevc ? sy__fail(err, SY_E_UNSUPPORTED, "%s: gain map grid mixes HEVC and AV1 tiles", path)
                         : decode_av1_item(ctx, file, path, id, channels, &dec->av1, yuv, err);
    if (dec->av1) return sy__fail(err, SY_E_UNSUPPORTED, "%s: gain map grid mixes HEVC and AV1 tiles", path);
    size_t hl = 0;
    const uint8_t *hvcc = sy_heif_hvcc(file, id, &hl);
    return sy__gainmap_decode_item(ctx, file, path, "gain map item", id, hvcc, hl, channels, dec->warm, &dec->hevc, yuv,
                                   err);
}

/* One luma sample of a greyscale map picture as a full-range 8-bit code. */
static int luma8(const sy__yuv *yuv, uint32_t x, uint32_t y) {
    const uint8_t *row = yuv->plane[0] + (size_t)y * yuv->stride[0];
    int v = yuv->bit_depth > 8 ? ((const uint16_t *)row)[x] >> (yuv->bit_depth - 8) : row[x];
    if (!yuv->vui.full_range) v = (v - 16) * 255 / 219; /* limited-range luma: 16..235 -> 0..255 */
    return v < 0 ? 0 : v > 255 ? 255 : v;
}

/* put_tile for a greyscale map reduced `k` times per side: each output code
 * is the mean of its k x k block (fewer at the picture's edge); (x0, y0)
 * and the tile size are multiples of k. */
static void put_tile_reduced(const sy__yuv *yuv, uint32_t k, uint32_t w, uint32_t h, sy_gainmap_image *out,
                             uint32_t x0, uint32_t y0, uint32_t full_w, uint32_t full_h) {
    uint32_t cw = SY__MIN(w, full_w - x0), chh = SY__MIN(h, full_h - y0);
    for (uint32_t y = 0; y < chh; y += k)
        for (uint32_t x = 0; x < cw; x += k) {
            uint32_t sum = 0, n = 0;
            for (uint32_t dy = 0; dy < k && y + dy < chh; dy++)
                for (uint32_t dx = 0; dx < k && x + dx < cw; dx++) sum += (uint32_t)luma8(yuv, x + dx, y + dy), n++;
            out->pixels[(size_t)((y0 + y) / k) * out->stride + (x0 + x) / k] = (uint8_t)((sum + n / 2) / n);
        }
}

/* With room for two tile decodes (sy__gainmap_tile_decodes_in_budget), the
 * grid's tiles share one libavcodec context, kept warm from tile to tile as
 * the main image's tile workers keep theirs (heif_tile_source.c): each tile
 * then skips the context's set-up and the fresh pages it faults in; the
 * pixels are the same (pictures start zeroed, sy__avdec_open_picture) and so
 * are the errors (a failed tile's context is not kept, nor one that saw
 * in-band parameter sets). The kept context stays charged between tiles,
 * hence two: the kept one and one of whatever else shares the context (a
 * collage's other cells); under a tighter budget the tiles are decoded as
 * before, a fresh context each. */
size_t sy__gainmap_tile_decodes_in_budget(sy_context *ctx, sy_heif_file *file, uint32_t tile, uint32_t width,
                                          uint32_t height) {
    size_t hl = 0;
    const uint8_t *hvcc = sy_heif_hvcc(file, tile, &hl);
    if (!hvcc || hl < 23) return 0;
    uint8_t chroma = hvcc[16] & 3, bits = (uint8_t)(8 + SY__MAX(hvcc[17] & 7, hvcc[18] & 7));
    size_t room = sy__headroom(ctx), one = sy__hevc_decode_peak_bytes(width, height, chroma, bits);
    return room == SIZE_MAX ? SIZE_MAX : room / (one ? one : 1);
}

/* A grid map's tiles, claimed in order by one or two workers (the calling
 * thread is worker 0), each with its own decoder: every tile writes its own
 * part of `out`, so the pixels are the same whatever the worker count. The
 * first failing tile in grid order fails the map, as it would on one worker:
 * a worker skips only tiles after a failed one. */
typedef struct grid_job {
    sy_context *ctx;
    sy_heif_file *file;
    const char *path;
    const uint32_t *tiles;
    const sy_heif_grid *g;
    const sy_heif_item_info *t0;
    uint32_t ch, k, full_w, full_h;
    sy_gainmap_image *out;
    atomic_uint next;          /* the next tile to claim */
    atomic_uint failed;        /* the first failed tile (UINT32_MAX: none) */
    pthread_mutex_t lock;      /* guards status, err */
    sy_status status;
    sy_error err;
} grid_job;

typedef struct grid_worker {
    grid_job *job;
    map_decoder dec;
} grid_worker;

static void note_failure(grid_job *job, uint32_t i, sy_status st, const sy_error *e) {
    pthread_mutex_lock(&job->lock);
    if (i < atomic_load(&job->failed)) atomic_store(&job->failed, i), job->status = st, job->err = *e;
    pthread_mutex_unlock(&job->lock);
}

static void *grid_work(void *arg) {
    grid_worker *w = arg;
    grid_job *job = w->job;
    const sy_heif_grid *g = job->g;
    const sy_heif_item_info *t0 = job->t0;
    for (uint32_t i; (i = atomic_fetch_add(&job->next, 1)) < g->rows * g->columns;) {
        if (i > atomic_load(&job->failed)) break;
        uint32_t r = i / g->columns, c = i % g->columns;
        sy__yuv yuv = {0};
        sy_error e = {0};
        sy_status st = decode_coded(job->ctx, job->file, job->path, job->tiles[i], job->ch, &w->dec, &yuv, &e);
        if (st != SY_OK) {
            note_failure(job, i, st, &e);
            break;
        }
        uint32_t tw = SY__MIN(yuv.width, t0->width), th = SY__MIN(yuv.height, t0->height);
        int inside = c * t0->width < job->full_w && r * t0->height < job->full_h; /* else the grid's overhang */
        if (inside && job->k > 1)
            put_tile_reduced(&yuv, job->k, tw, th, job->out, c * t0->width, r * t0->height, job->full_w, job->full_h);
        else if (inside)
            put_tile(&yuv, job->ch, tw, th, job->out, c * t0->width, r * t0->height);
        picture_release(job->ctx, w->dec.hevc, &yuv);
    }
    return NULL;
}

/* Runs the job on `count` workers (1 or 2), their decoders kept warm when `warm`. */
static sy_status grid_run(grid_job *job, uint32_t count, int warm, sy_error *err) {
    grid_worker workers[2] = {{job, {.warm = warm}}, {job, {.warm = warm}}};
    atomic_store(&job->next, 0);
    atomic_store(&job->failed, UINT32_MAX);
    job->status = SY_OK;
    pthread_t helper;
    int started = count > 1 && pthread_create(&helper, NULL, grid_work, &workers[1]) == 0;
    grid_work(&workers[0]);
    if (started) pthread_join(helper, NULL);
    for (uint32_t i = 0; i < 2; i++) map_decoder_destroy(&workers[i].dec);
    if (job->status != SY_OK && err) *err = job->err;
    return job->status;
}

/* Two workers when asked (a whole photo's map: sy_gainmap_decode), the tiles
 * are all HEVC (one decoder kind per worker could not see a grid mixing HEVC
 * and AV1), and the budget holds three tile decodes (two kept warm and one for
 * whoever shares the context); a budget refusal on two is retried on one. */
static sy_status decode_grid(grid_job *job, uint32_t n, uint32_t threads, int warm, sy_error *err) {
    size_t room = warm && job->t0 ? sy__gainmap_tile_decodes_in_budget(job->ctx, job->file, job->tiles[0],
                                                                      job->t0->width, job->t0->height)
                                  : 0;
    int hevc = 1;
    for (uint32_t i = 0; i < n && hevc; i++) {
        const sy_heif_item_info *t = sy_heif_item(job->file, job->tiles[i]);
        hevc = t && t->type == SY_FOURCC('h', 'v', 'c', '1');
    }
    uint32_t count = threads > 1 && hevc && n > 1 && room >= 3 ? 2 : 1;
    sy_status st = grid_run(job, count, n > 1 && room >= 2, err);
    if (st == SY_E_BUDGET && count > 1) st = grid_run(job, 1, 0, err);
    return st;
}

static sy_status decode_heif_map(sy_context *ctx, const char *path, const sy_gainmap_info *info, uint32_t reduce,
                                 uint32_t threads, int warm, sy_gainmap_image *out, sy_error *err) {
    sy_heif_file *file = NULL;
    sy_status st = sy_heif_open(ctx, path, &file, err);
    if (st != SY_OK) return st;
    uint32_t id = (uint32_t)info->map_offset, ch = info->map_channels == 3 ? 3 : 1;
    const sy_heif_item_info *item = sy_heif_item(file, id);
    map_decoder dec = {0};
    if (!item) {
        st = sy__fail(err, SY_E_INVALID_INPUT, "%s: gain map item %u missing", path, id);
        goto done;
    }
    sy_heif_grid g = {0};
    if (item->type == SY_FOURCC('g', 'r', 'i', 'd') && (st = sy_heif_read_grid(file, id, &g, err)) != SY_OK) goto done;
    uint32_t n = 0, k = ch == 1 && reduce > 1 ? reduce : 1;
    const uint32_t *tiles = item->type == SY_FOURCC('g', 'r', 'i', 'd') ? sy_heif_derived(file, id, &n) : NULL;
    const sy_heif_item_info *t0 = tiles && n ? sy_heif_item(file, tiles[0]) : NULL;
    while (k > 1 && t0 && (t0->width % k || t0->height % k)) k /= 2; /* blocks must not straddle tiles */
    const uint32_t full_w = info->map_width, full_h = info->map_height;
    out->width = (full_w + k - 1) / k, out->height = (full_h + k - 1) / k, out->channels = ch;
    out->stride = (size_t)out->width * ch;
    if (!(out->pixels = sy__alloc(ctx, out->stride, out->height, "gain map pixels", err))) {
        st = err ? err->code : SY_E_BUDGET;
        goto done;
    }
    if (item->type == SY_FOURCC('h', 'v', 'c', '1') || item->type == SY_FOURCC('a', 'v', '0', '1')) {
        sy__yuv yuv = {0};
        if ((st = decode_coded(ctx, file, path, id, ch, &dec, &yuv, err)) != SY_OK) goto done;
        if (yuv.width < full_w || yuv.height < full_h)
            st = sy__fail(err, SY_E_INVALID_INPUT, "%s: gain map decoded as %ux%u, ispe says %ux%u", path, yuv.width,
                          yuv.height, full_w, full_h);
        else if (k > 1) put_tile_reduced(&yuv, k, full_w, full_h, out, 0, 0, full_w, full_h);
        else put_tile(&yuv, ch, out->width, out->height, out, 0, 0);
        picture_release(ctx, dec.hevc, &yuv);
    } else if (item->type == SY_FOURCC('g', 'r', 'i', 'd')) {
        grid_job job = {.ctx = ctx, .file = file, .path = path, .tiles = tiles, .g = &g, .t0 = t0, .ch = ch, .k = k,
                        .full_w = full_w, .full_h = full_h, .out = out, .lock = PTHREAD_MUTEX_INITIALIZER};
        st = decode_grid(&job, n, threads, warm, err);
        pthread_mutex_destroy(&job.lock);
    } else {
        st = sy__fail(err, SY_E_UNSUPPORTED, "%s: gain map item %u is neither HEVC nor AV1", path, id);
    }
done:
    map_decoder_destroy(&dec);
    sy_heif_close(file);
    if (st != SY_OK) sy_gainmap_image_free(ctx, out);
    return st;
}

static sy_status decode_map(sy_context *ctx, const char *path, const sy_gainmap_info *info, uint32_t reduce,
                            uint32_t threads, int warm, sy_gainmap_image *out, sy_error *err);

sy_status sy_gainmap_decode(sy_context *ctx, const char *path, const sy_gainmap_info *info, sy_gainmap_image *out,
                            sy_error *err) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return decode_map(ctx, path, info, 1, cores > 1 ? 2 : 1, 1, out, err);
}

sy_status sy__gainmap_decode_reduced(sy_context *ctx, const char *path, const sy_gainmap_info *info, uint32_t reduce,
                                     sy_gainmap_image *out, sy_error *err) {
    return decode_map(ctx, path, info, reduce, 1, 1, out, err);
}

sy_status sy__gainmap_decode_fresh_tiles(sy_context *ctx, const char *path, const sy_gainmap_info *info,
                                         uint32_t reduce, sy_gainmap_image *out, sy_error *err) {
    return decode_map(ctx, path, info, reduce, 1, 0, out, err);
}

static sy_status decode_map(sy_context *ctx, const char *path, const sy_gainmap_info *info, uint32_t reduce,
                            uint32_t threads, int warm, sy_gainmap_image *out, sy_error *err) {
    if (!ctx || !path || !info || !out) return sy__fail(err, SY_E_USAGE, "sy_gainmap_decode: NULL argument");
    memset(out, 0, sizeof *out);
    sy_status st;
    switch (info->kind) {
    case SY_GAINMAP_ULTRAHDR_JPEG:
    case SY_GAINMAP_APPLE_JPEG: st = decode_jpeg_map(ctx, path, info, out, err); break;
    case SY_GAINMAP_APPLE_HEIC:
    case SY_GAINMAP_ISO_HEIC: return decode_heif_map(ctx, path, info, reduce, threads, warm, out, err);
    case SY_GAINMAP_HDR_SIGNAL: {
        /* the probe said which container; an info made without it (0) is probed here */
        sy_image_info img = {.format = (sy_image_format)info->base_format};
        if (img.format != SY_FORMAT_PNG && img.format != SY_FORMAT_HEIF &&
            (st = sy_image_probe(ctx, path, &img, err)) != SY_OK)
            return st;
        return img.format == SY_FORMAT_PNG ? sy__gainmap_decode_png_signal(ctx, path, reduce, out, err)
                                           : sy__gainmap_decode_signal(ctx, path, info, reduce, threads, out, err);
    }
    default: return sy__fail(err, SY_E_USAGE, "%s: no interpretable gain map to decode", path);
    }
    if (st == SY_OK && (out->width != info->map_width || out->height != info->map_height)) {
        st = sy__fail(err, SY_E_INVALID_INPUT, "%s: gain map decoded as %ux%u, header says %ux%u", path, out->width,
                      out->height, info->map_width, info->map_height);
        sy_gainmap_image_free(ctx, out);
    }
    return st;
}
