/* geometry.c — crop, straighten (with auto-zoom), quarter turns, flips and
 * the fit to the target, folded into one affine map from output pixels to
 * source positions. Everything here is in upright-source pixel units. */
#include "render/sy_render_internal.h"

static const double pi = 3.14159265358979323846;

/* Rounds [lo, lo + len) of a side of `n` pixels to whole pixels, at least one. */
static void whole_pixels(double lo, double len, uint32_t n, int64_t *start, int64_t *size) {
    int64_t a = llround(lo * n), b = llround((lo + len) * n);
    if (a < 0) a = 0;
    if (b > (int64_t)n) b = n;
    if (b <= a) {
        b = a + 1;
        if (b > (int64_t)n) {
            b = n;
            a = n - 1;
        }
    }
    *start = a;
    *size = b - a;
}

void sy__crop_pixels(const sy_recipe *r, uint32_t src_w, uint32_t src_h, int64_t crop[4], double *zoom) {
    whole_pixels(r->crop.x, r->crop.width, src_w, &crop[0], &crop[2]);
    whole_pixels(r->crop.y, r->crop.height, src_h, &crop[1], &crop[3]);
    double z = 1.0;
    if (r->straighten != 0) {
        /* Shrink the rotated frame about the crop centre until all four
         * corners are inside the source: the largest such z, at most 1. */
        double t = r->straighten * pi / 180.0, c = cos(t), s = sin(t);
        double cx = crop[0] + crop[2] / 2.0, cy = crop[1] + crop[3] / 2.0;
        double a = crop[2] / 2.0, b = crop[3] / 2.0;
        const double corners[4][2] = {{-a, -b}, {a, -b}, {a, b}, {-a, b}};
        for (int i = 0; i < 4; i++) {
            double qx = c * corners[i][0] + s * corners[i][1];
            double qy = -s * corners[i][0] + c * corners[i][1];
            if (qx > 0) z = fmin(z, (src_w - cx) / qx);
            if (qx < 0) z = fmin(z, cx / -qx);
            if (qy > 0) z = fmin(z, (src_h - cy) / qy);
            if (qy < 0) z = fmin(z, cy / -qy);
        }
        if (z < 1e-6) z = 1e-6;
    }
    *zoom = z;
}

void sy__frame_size(const sy_recipe *r, uint32_t src_w, uint32_t src_h, double *fw, double *fh) {
    int64_t crop[4];
    double z;
    sy__crop_pixels(r, src_w, src_h, crop, &z);
    double w = crop[2] * z, h = crop[3] * z;
    *fw = (r->quarter_turns & 1) ? h : w;
    *fh = (r->quarter_turns & 1) ? w : h;
}

/* out = a * b for 2x3 affine maps (b applied first). */
static void compose(const double a[6], const double b[6], double out[6]) {
    double r[6] = {
        a[0] * b[0] + a[1] * b[3], a[0] * b[1] + a[1] * b[4], a[0] * b[2] + a[1] * b[5] + a[2],
        a[3] * b[0] + a[4] * b[3], a[3] * b[1] + a[4] * b[4], a[3] * b[2] + a[4] * b[5] + a[5],
    };
    for (int i = 0; i < 6; i++) out[i] = r[i];
}

void sy__geometry_plan(const sy_recipe *r, uint32_t src_w, uint32_t src_h, uint32_t inner_w, uint32_t inner_h,
                       int fill, sy__geometry *g) {
    int64_t crop[4];
    double z;
    sy__crop_pixels(r, src_w, src_h, crop, &z);
    g->src_w = src_w;
    g->src_h = src_h;
    g->crop_x = crop[0];
    g->crop_y = crop[1];
    g->crop_w = crop[2];
    g->crop_h = crop[3];
    g->zoom = z;
    g->inner_w = inner_w;
    g->inner_h = inner_h;

    int odd = r->quarter_turns & 1;
    double fw = crop[2] * z, fh = crop[3] * z;       /* straightened frame */
    double tw = odd ? fh : fw, th = odd ? fw : fh;   /* turned frame */
    /* Cover: the visible part of the turned frame has the target's aspect.
     * Fill: all of it is visible, each axis scaled on its own. */
    double vw = tw, vh = th;
    if (fill)
        ;
    else if ((double)inner_w * th > (double)inner_h * tw)
        vh = tw * inner_h / inner_w;
    else
        vw = th * inner_w / inner_h;
    double d1 = vw / inner_w, d2 = vh / inner_h;

    /* Output index -> turned-frame position relative to its centre. */
    double m[6] = {d1, 0, d1 / 2 - vw / 2, 0, d2, d2 / 2 - vh / 2};
    /* Flips (their own inverses). */
    double flip[6] = {r->flip_horizontal ? -1 : 1, 0, 0, 0, r->flip_vertical ? -1 : 1, 0};
    compose(flip, m, m);
    /* Undo each clockwise quarter turn: p = (t.y, -t.x). */
    const double unturn[6] = {0, 1, 0, -1, 0, 0};
    for (uint32_t k = 0; k < r->quarter_turns; k++) compose(unturn, m, m);
    /* Undo the straighten (picture turned clockwise by theta), then move to
     * the crop centre in pixel-centre units. */
    double c = 1, s = 0;
    if (r->straighten != 0) {
        double t = r->straighten * pi / 180.0;
        c = cos(t);
        s = sin(t);
    }
    double place[6] = {c, s, crop[0] + crop[2] / 2.0 - 0.5, -s, c, crop[1] + crop[3] / 2.0 - 0.5};
    compose(place, m, g->m);
    g->scale_x = odd ? d2 : d1;
    g->scale_y = odd ? d1 : d2;
}

uint32_t sy__border_pixels(double border_width, uint32_t dst_w, uint32_t dst_h) {
    if (border_width <= 0) return 0;
    uint32_t short_side = dst_w < dst_h ? dst_w : dst_h;
    double b = floor(border_width * short_side / (1 + 2 * border_width) + 0.5);
    uint32_t most = (short_side - 1) / 2; /* keep at least one image pixel */
    return b > most ? most : (uint32_t)b;
}

sy_status sy_render_output_size(const sy_recipe *recipe, uint32_t src_w, uint32_t src_h, uint32_t max_w,
                                uint32_t max_h, uint32_t flags, uint32_t *out_w, uint32_t *out_h, sy_error *err) {
    if (!out_w || !out_h) return sy__fail(err, SY_E_USAGE, "sy_render_output_size: NULL output");
    sy_status st = sy_recipe_validate(recipe, err);
    if (st != SY_OK) return st;
    if (src_w == 0 || src_h == 0 || src_w > SY_RENDER_MAX_SIDE || src_h > SY_RENDER_MAX_SIDE)
        return sy__fail(err, SY_E_USAGE, "sy_render_output_size: source %ux%u is outside 1..%u", src_w, src_h,
                        SY_RENDER_MAX_SIDE);
    double fw, fh;
    sy__frame_size(recipe, src_w, src_h, &fw, &fh);
    double margin = 2 * recipe->border_width * (fw < fh ? fw : fh);
    double tw = fw + margin, th = fh + margin;
    double t = (flags & SY_RENDER_ALLOW_UPSCALE) && (max_w || max_h) ? INFINITY : 1.0;
    if (max_w) t = fmin(t, max_w / tw);
    if (max_h) t = fmin(t, max_h / th);
    double w = floor(t * tw + 0.5), h = floor(t * th + 0.5);
    if (w < 1) w = 1;
    if (h < 1) h = 1;
    if (max_w && w > max_w) w = max_w;
    if (max_h && h > max_h) h = max_h;
    if (w > SY_RENDER_MAX_SIDE || h > SY_RENDER_MAX_SIDE)
        return sy__fail(err, SY_E_USAGE, "sy_render_output_size: %.0fx%.0f exceeds %u", w, h, SY_RENDER_MAX_SIDE);
    *out_w = (uint32_t)w;
    *out_h = (uint32_t)h;
    return SY_OK;
}
