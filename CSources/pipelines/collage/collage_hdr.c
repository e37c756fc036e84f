/* collage_hdr.c — the gain map of an HDR collage (see sy_collage_hdr.h).
 * One common form for the whole canvas: each cell's map codes read as log2
 * gain through the cell's own metadata (sy_gainmap_log2_gain), re-encoded in
 * the collage's form (sy__gainmap_code_for_log2); everything else is gain 0. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/sy_internal.h"
#include "render/sy_render_window.h"
#include "still/sy_orient.h"
#include "collage/sy_collage_hdr.h"

#define MAP_BAND_ROWS 16u /* target rows rendered per band */

static int is_apple(const sy_gainmap_info *i) {
    return i->kind == SY_GAINMAP_APPLE_HEIC || i->kind == SY_GAINMAP_APPLE_JPEG;
}

/* SPEC E6: the hook, else the consent flag, else a refusal naming the input. */
sy_status sy__collage_hdr_ask(const sy_collage_options *opts, sy__collage_hdr *hdr, const char *input,
                              sy_hdr_loss_reason reason, const char *detail, sy_error *err) {
    int agreed = opts->allow_sdr;
    if (opts->hdr_hook) {
        hdr->hook_calls++;
        agreed = opts->hdr_hook(opts->hdr_hook_context, reason, detail);
    }
    if (!agreed)
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: has %s that the collage cannot keep (%s); %s; nothing was written",
                        input, reason == SY_HDR_LOSS_HDR_VIDEO ? "HDR video" : "an HDR gain map", detail,
                        opts->hdr_hook ? "the hook declined" : "allow_sdr records the user's consent to SDR");
    if (!hdr->detail[0]) snprintf(hdr->detail, sizeof hdr->detail, "%s: %s", input, detail);
    return SY_OK;
}

/* The collage's form from the cells whose maps are kept: Apple's (headroom =
 * the largest cell headroom) when every one is Apple's, so Apple's readers
 * get exact codes, and always for a HEIC (`heic`): its map is Apple's
 * auxiliary image, the 'tmap' item reads the same codes through a fitted
 * gamma, as for any Apple map; otherwise ISO 21496-1 / Ultra HDR with
 * GainMapMin = the lowest cell minimum (<= 0), GainMapMax = HDR capacity =
 * the largest cell maximum (Apple cells count log2 headroom), gamma 1, no
 * offsets. */
static void common_form(const sy_gainmap_info *cells, const uint8_t *state, uint32_t count, int heic,
                        sy_gainmap_info *out) {
    memset(out, 0, sizeof *out);
    int all_apple = 1;
    double lo = 0, hi = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (state[i] != SY_COLLAGE_CELL_HDR_KEPT) continue;
        const sy_gainmap_info *c = &cells[i];
        if (is_apple(c)) {
            hi = fmax(hi, log2(fmax(c->apple_headroom, 1)));
            continue;
        }
        all_apple = 0;
        for (uint32_t ch = 0; ch < (c->params.channels == 3 ? 3u : 1u); ch++)
            lo = fmin(lo, c->params.min_log2[ch]), hi = fmax(hi, c->params.max_log2[ch]);
    }
    if (hi < lo + 0.01) hi = lo + 0.01; /* a range the checks accept even for maps of no gain */
    out->map_channels = 1;
    out->orientation = 1;
    if (all_apple || heic) { /* an Apple map only brightens: a cell's gain below 0 is drawn as 0 */
        out->kind = SY_GAINMAP_APPLE_JPEG;
        out->apple_headroom = exp2(hi);
        out->apple_version = 131072; /* v2: the headroom in the XMP (a collage has no MakerNote) */
        out->apple_headroom_source = 1;
        return;
    }
    out->kind = SY_GAINMAP_ULTRAHDR_JPEG;
    sy_gainmap_params *p = &out->params;
    p->channels = 1;
    p->min_log2[0] = lo, p->max_log2[0] = hi, p->gamma[0] = 1;
    p->capacity_min = 0, p->capacity_max = hi;
    out->apple_headroom = exp2(hi);
}

/* The sources' map resolution: the finest divisor (base / map per side) of
 * the kept maps, 1..8, doubled while the canvas map would exceed its cap. */
static uint32_t map_divisor(const sy_gainmap_info *cells, const uint8_t *state, uint32_t count, uint32_t w,
                            uint32_t h) {
    uint32_t d = 8;
    for (uint32_t i = 0; i < count; i++) {
        const sy_gainmap_info *c = &cells[i];
        if (state[i] != SY_COLLAGE_CELL_HDR_KEPT || !c->map_width || !c->map_height) continue;
        double r = fmin((double)c->base_width / c->map_width, (double)c->base_height / c->map_height);
        uint32_t di = r < 1.5 ? 1 : r > 8 ? 8 : (uint32_t)lround(r);
        if (di < d) d = di;
    }
    while ((uint64_t)((w + d - 1) / d) * ((h + d - 1) / d) > SY__COLLAGE_MAP_BYTES) d *= 2;
    return d;
}

/* One cell: its stored map rendered like its base (identity recipe: centre-
 * cropped to cover, in the stored orientation, then placed upright) into
 * the canvas map, band by band, each band reading only the source rows it
 * needs (widened to RGB for the renderer). */
static sy_status render_cell(sy_context *ctx, const sy_gainmap_info *info, const sy_gainmap_image *stored,
                             const sy__rect *r, uint32_t d, const sy_gainmap_info *common, sy_gainmap_image *canvas,
                             sy_error *err) {
    uint32_t x0 = (r->x + d / 2) / d, y0 = (r->y + d / 2) / d;
    uint32_t x1 = SY__MIN((r->x + r->width + d / 2) / d, canvas->width);
    uint32_t y1 = SY__MIN((r->y + r->height + d / 2) / d, canvas->height);
    if (x0 >= x1 || y0 >= y1) return SY_OK; /* too small to show at map resolution */
    const uint32_t w = x1 - x0, h = y1 - y0, turned = info->orientation >= 5 && info->orientation <= 8;
    const uint32_t tw = turned ? h : w, th = turned ? w : h, sw = stored->width, ch = stored->channels;
    double gain[3][256];
    uint8_t lut[256];
    for (uint32_t c = 0; c < ch; c++)
        for (int v = 0; v < 256; v++) gain[c][v] = sy_gainmap_log2_gain(info, c, (uint8_t)v);
    for (int v = 0; v < 256; v++) lut[v] = sy__gainmap_code_for_log2(common, gain[0][v]);
    sy_recipe identity;
    sy_recipe_init(&identity);
    sy_renderer *rr = NULL;
    sy_status st = sy_renderer_create(ctx, &identity, sw, stored->height, tw, th, &rr, err);
    if (st != SY_OK) return st;
    const sy__orient m = sy__orient_plan(info->orientation, tw, th);
    uint8_t *band = sy__alloc(ctx, (size_t)tw * 3, MAP_BAND_ROWS, "collage map band", err), *win = NULL;
    size_t win_rows = 0;
    if (!band) st = err ? err->code : SY_E_BUDGET;
    for (uint32_t by = 0; by < th && st == SY_OK; by += MAP_BAND_ROWS) {
        uint32_t count = SY__MIN(th - by, (uint32_t)MAP_BAND_ROWS), first = 0, last = 0;
        if (!sy__renderer_source_rows(rr, by, count, &first, &last)) continue;
        uint32_t n = last - first + 1;
        if (n > win_rows) {
            sy__free(ctx, win);
            if (!(win = sy__alloc(ctx, (size_t)sw * 3 * n + 16, 1, "collage map window", err))) {
                st = err ? err->code : SY_E_BUDGET;
                break;
            }
            win_rows = n;
        }
        for (uint32_t y = 0; y < n; y++) {
            const uint8_t *s = stored->pixels + (size_t)(first + y) * stored->stride;
            uint8_t *o = win + (size_t)y * sw * 3;
            if (ch == 3) memcpy(o, s, (size_t)sw * 3);
            else for (uint32_t x = 0; x < sw; x++) o[3 * x] = o[3 * x + 1] = o[3 * x + 2] = s[x];
        }
        st = sy__renderer_render_window(rr, win, (size_t)sw * 3, first, n, by, count, band, (size_t)tw * 3, err);
        for (uint32_t yy = 0; yy < count && st == SY_OK; yy++) {
            const uint8_t *p = band + (size_t)yy * tw * 3;
            const int32_t sy_ = (int32_t)(by + yy);
            for (uint32_t x = 0; x < tw; x++, p += 3) {
                uint8_t code = ch == 1 ? lut[p[0]]
                                       : sy__gainmap_code_for_log2(common, (gain[0][p[0]] + gain[1][p[1]] + gain[2][p[2]]) / 3);
                int32_t ux = m.x0 + m.xx * (int32_t)x + m.xy * sy_, uy = m.y0 + m.yx * (int32_t)x + m.yy * sy_;
                canvas->pixels[(size_t)(y0 + (uint32_t)uy) * canvas->stride + x0 + (uint32_t)ux] = code;
            }
        }
    }
    sy__free(ctx, win);
    sy__free(ctx, band);
    sy_renderer_destroy(rr);
    return st;
}

/* How many times (1, 2, 4) the stored map may be reduced while decoding and
 * still have 1.5x the pixels the cell's map needs per side. */
static uint32_t reduction(const sy_gainmap_info *info, const sy__rect *r, uint32_t d) {
    const int turned = info->orientation >= 5 && info->orientation <= 8;
    double need_w = (double)(turned ? r->height : r->width) / d, need_h = (double)(turned ? r->width : r->height) / d;
    uint32_t k = 1;
    while (k < 4 && info->map_width / (2.0 * k) >= 1.5 * need_w && info->map_height / (2.0 * k) >= 1.5 * need_h) k *= 2;
    return k;
}

/* Decodes and draws every kept map; an undecodable one is asked about (and
 * stays at gain 0 when agreed to). */
static sy_status compose(sy_context *ctx, const sy_collage_options *opts, const sy__cell_job *jobs,
                         const sy_gainmap_info *cells, const sy__layout *layout, uint32_t d, sy__collage_hdr *hdr,
                         sy_gainmap_image *canvas, sy_error *err) {
    for (uint32_t i = 0; i < hdr->count; i++) {
        if (hdr->cell_state[i] != SY_COLLAGE_CELL_HDR_KEPT) continue;
        sy_status st = sy__check_cancel(ctx, err);
        if (st != SY_OK) return st;
        sy_gainmap_image stored = {0};
        sy_error derr = {0};
        if (sy__gainmap_decode_reduced(ctx, jobs[i].path, &cells[i], reduction(&cells[i], &layout->cells[i], d),
                                       &stored, &derr) != SY_OK) {
            if (derr.code == SY_E_BUDGET || derr.code == SY_E_IO || derr.code == SY_E_CANCELLED) {
                if (err) *err = derr;
                return derr.code;
            }
            if ((st = sy__collage_hdr_ask(opts, hdr, jobs[i].path, SY_HDR_LOSS_UNREADABLE_GAIN_MAP, derr.message, err)) != SY_OK)
                return st;
            hdr->cell_state[i] = SY_COLLAGE_CELL_HDR_DROPPED;
            continue;
        }
        st = render_cell(ctx, &cells[i], &stored, &layout->cells[i], d, &hdr->common, canvas, err);
        sy_gainmap_image_free(ctx, &stored);
        if (st != SY_OK) return st;
    }
    return SY_OK;
}

static void release_canvas(sy_context *ctx, sy__collage_hdr *hdr) {
    sy_gainmap_image_free(ctx, &hdr->canvas);
    hdr->save.map = NULL;
}

static sy_status build_map(sy_context *ctx, const sy_collage_options *opts, const sy__cell_job *jobs,
                           const sy_gainmap_info *cells, const sy__layout *layout, const char *output,
                           sy__collage_hdr *hdr, sy_error *err) {
    common_form(cells, hdr->cell_state, hdr->count, opts->format == SY_STILL_HEIC, &hdr->common);
    uint32_t d = map_divisor(cells, hdr->cell_state, hdr->count, layout->width, layout->height);
    sy_gainmap_image *canvas = &hdr->canvas;
    *canvas = (sy_gainmap_image){.width = (layout->width + d - 1) / d, .height = (layout->height + d - 1) / d,
                                 .channels = 1};
    canvas->stride = canvas->width;
    if (!(canvas->pixels = sy__alloc(ctx, canvas->width, canvas->height, "collage gain map", err)))
        return err ? err->code : SY_E_BUDGET;
    memset(canvas->pixels, sy__gainmap_code_for_log2(&hdr->common, 0), (size_t)canvas->width * canvas->height);
    sy_status st = compose(ctx, opts, jobs, cells, layout, d, hdr, canvas, err);
    int kept = 0;
    for (uint32_t i = 0; i < hdr->count; i++) kept += hdr->cell_state[i] == SY_COLLAGE_CELL_HDR_KEPT;
    if (st == SY_OK && kept) {
        st = sy__gainmap_save_prepare(&hdr->save, ctx, output, opts->format, opts->quality, &hdr->common, canvas,
                                      err);
        if (st == SY_OK) hdr->active = 1, hdr->map_width = canvas->width, hdr->map_height = canvas->height;
    }
    /* JPEG: the encoded map holds the pixels now; HEIC: the sink encodes them at its finish */
    if (st != SY_OK || !hdr->active || opts->format != SY_STILL_HEIC) release_canvas(ctx, hdr);
    return st;
}

sy_status sy__collage_hdr_prepare(sy_context *ctx, const sy_collage_options *opts, const sy__cell_job *jobs,
                                  uint32_t count, const sy__layout *layout, const char *output,
                                  sy__collage_hdr *hdr, sy_error *err) {
    memset(hdr, 0, sizeof *hdr);
    hdr->count = count;
    hdr->cell_state = sy__calloc(ctx, count, 1, "collage HDR cells", err);
    sy_gainmap_info *cells = sy__calloc(ctx, count, sizeof *cells, "collage gain maps", err);
    sy_status st = hdr->cell_state && cells ? SY_OK : err ? err->code : SY_E_BUDGET;
    uint32_t with_map = 0;
    for (uint32_t i = 0; i < count && st == SY_OK; i++) {
        sy_error probe_err = {0};
        if (!jobs[i].info) continue;
        if (sy_gainmap_probe(ctx, jobs[i].path, &cells[i], &probe_err) != SY_OK) {
            memset(&cells[i], 0, sizeof cells[i]); /* a broken container: the base decode reports it (grey) */
            continue;
        }
        if (cells[i].kind == SY_GAINMAP_NONE) continue;
        with_map++;
        hdr->cell_state[i] = SY_COLLAGE_CELL_HDR_KEPT;
        /* an HDR base (BaseRenditionIsHDR) would need the whole collage in HDR: not composed */
        const char *why = opts->format == SY_STILL_PNG ? "a PNG collage has no gain map"
                          : cells[i].kind == SY_GAINMAP_UNINTERPRETABLE ? cells[i].detail
                          : (cells[i].kind == SY_GAINMAP_ULTRAHDR_JPEG || cells[i].kind == SY_GAINMAP_ISO_HEIC) &&
                                    cells[i].params.base_is_hdr
                              ? "its base rendition is HDR (hdrgm:BaseRenditionIsHDR)"
                              : NULL;
        if (!why) continue;
        st = sy__collage_hdr_ask(opts, hdr, jobs[i].path,
                 opts->format == SY_STILL_PNG ? SY_HDR_LOSS_UNSUPPORTED_TARGET : SY_HDR_LOSS_UNINTERPRETABLE, why,
                 err);
        hdr->cell_state[i] = SY_COLLAGE_CELL_HDR_DROPPED;
    }
    int any_kept = 0;
    for (uint32_t i = 0; i < count && hdr->cell_state; i++) any_kept |= hdr->cell_state[i] == SY_COLLAGE_CELL_HDR_KEPT;
    if (st == SY_OK && any_kept) st = build_map(ctx, opts, jobs, cells, layout, output, hdr, err);
    if (st == SY_OK && with_map && !hdr->active) hdr->dropped_all = 1;
    sy__free(ctx, cells);
    return st;
}

void sy__collage_hdr_free(sy_context *ctx, sy__collage_hdr *hdr) {
    if (!hdr) return;
    release_canvas(ctx, hdr);
    sy__gainmap_save_free(&hdr->save);
    sy__free(ctx, hdr->cell_state);
    hdr->cell_state = NULL;
}
