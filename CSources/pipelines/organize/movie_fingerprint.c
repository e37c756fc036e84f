/* movie_fingerprint.c — sy_fingerprint_movie: a video's fingerprint from a
 * few frames, decoded in order by the video reader (nothing is sought, so
 * the cost is the decode up to the last sampled second, whatever the
 * movie's length). Each sampled frame is rendered to the analysis size; the
 * pHash is taken from the mean of those planes and the quality figures are
 * the mean of the frames' own. */
#include <string.h>

#include "sy_video.h"
#include "base/sy_internal.h"
#include "base/sy_sha256.h"
#include "still/sy_still_internal.h"
#include "organize/sy_analysis.h"
#include "video/sy_video_cuts.h"

typedef struct sampler {
    sy_renderer *renderer;
    uint32_t w, h;       /* analysis plane */
    uint8_t *rgb;        /* one rendered frame */
    uint8_t *luma;       /* its luma */
    uint32_t *sum;       /* per-pixel sum over the sampled frames */
    sy__sha256 sha;
} sampler;

static void put_le32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static sy_status sample_frame(sampler *s, const sy_video_frame *f, sy_fingerprint *out,
                              sy_error *err) {
    for (uint32_t y = 0; y < f->height; y++) sy__sha256_update(&s->sha, f->rgb + y * f->stride, (size_t)f->width * 3);
    sy_pixels px = {.data = f->rgb, .stride = f->stride, .width = f->width, .height = f->height};
    sy_status st = sy_renderer_render_rows(s->renderer, &px, 0, s->h, s->rgb, (size_t)s->w * 3, err);
    if (st != SY_OK) return st;
    for (uint32_t y = 0; y < s->h; y++)
        sy__analysis_luma_row(s->rgb + (size_t)y * s->w * 3, s->w, s->luma + (size_t)y * s->w);
    for (size_t i = 0; i < (size_t)s->w * s->h; i++) s->sum[i] += s->luma[i];
    sy_fingerprint one;
    sy__quality_luma(s->luma, s->w, s->h, &one);
    out->sharpness += one.sharpness, out->clipped_fraction += one.clipped_fraction;
    out->mean_luma += one.mean_luma, out->quality += one.quality;
    out->frames_sampled++;
    return SY_OK;
}

static void finish(sampler *s, sy_fingerprint *out) {
    size_t n = (size_t)s->w * s->h;
    uint32_t k = out->frames_sampled;
    for (size_t i = 0; i < n; i++) s->luma[i] = (uint8_t)((s->sum[i] + k / 2) / k);
    uint64_t hashes[4];
    sy__phash_luma(s->luma, s->w, s->h, 1, hashes);
    out->phash = hashes[0];
    memcpy(out->phash_turned, hashes + 1, sizeof out->phash_turned);
    out->sharpness /= k, out->clipped_fraction /= k, out->mean_luma /= k, out->quality /= k;
    sy__sha256_hex(&s->sha, out->pixel_sha256);
}

sy_status sy_fingerprint_movie(sy_context *ctx, const char *path, sy_fingerprint *out, sy_error *err) {
    if (!ctx || !path || !out) return sy__fail(err, SY_E_USAGE, "sy_fingerprint_movie: NULL argument");
    memset(out, 0, sizeof *out);
    sy_status st = sy__file_identity(ctx, path, NULL, &out->file_bytes, out->file_sha256, err);
    if (st != SY_OK) return st;
    sy_video_reader *reader = NULL;
    if ((st = sy_video_reader_open(ctx, path, -1, &reader, err)) != SY_OK) return st;
    if ((st = sy__video_reader_follow_cuts(reader, err)) != SY_OK) { /* the frames and length a viewer sees */
        sy_video_reader_close(reader);
        return st;
    }
    const sy_video_reader_info *vi = sy_video_reader_info_get(reader);
    out->width = out->stored_width = vi->width;
    out->height = out->stored_height = vi->height;
    out->orientation = 1; /* frames come out upright */
    out->duration_ms = (uint32_t)(vi->presentation_seconds * 1000 + 0.5);
    sampler s = {0};
    sy__analysis_size(vi->width, vi->height, 0, &s.w, &s.h);
    sy_recipe identity;
    sy_recipe_init(&identity);
    size_t n = (size_t)s.w * s.h;
    s.rgb = sy__alloc(ctx, n, 3, "movie fingerprint frame", err);
    s.luma = sy__alloc(ctx, n, 1, "movie fingerprint plane", err);
    s.sum = sy__calloc(ctx, n, sizeof *s.sum, "movie fingerprint sums", err);
    if (!s.rgb || !s.luma || !s.sum) {
        st = err ? err->code : SY_E_BUDGET;
        goto done;
    }
    if ((st = sy_renderer_create(ctx, &identity, vi->width, vi->height, s.w, s.h, &s.renderer, err)) != SY_OK)
        goto done;
    sy__sha256_init(&s.sha);
    uint8_t header[5 + 12] = {'S', 'Y', 'M', 'V', '1'};
    put_le32(header + 5, vi->width), put_le32(header + 9, vi->height), put_le32(header + 13, out->duration_ms);
    sy__sha256_update(&s.sha, header, sizeof header);
    /* The first frame at or after 0, 1, 2, ... seconds of the picture (from when the movie starts to show it),
     * while the movie lasts. */
    double next_second = vi->start_seconds;
    while (out->frames_sampled < SY_FINGERPRINT_MOVIE_FRAMES) {
        sy_video_frame frame;
        int end = 0;
        if ((st = sy_video_reader_next(reader, &frame, &end, err)) != SY_OK) goto done;
        if (end) break;
        if (frame.seconds + 1e-6 < next_second) continue;
        if ((st = sample_frame(&s, &frame, out, err)) != SY_OK) goto done;
        next_second = vi->start_seconds + (double)out->frames_sampled;
    }
    if (out->frames_sampled == 0) {
        st = sy__fail(err, SY_E_INVALID_INPUT, "%s: the video track has no frame to fingerprint", path);
        goto done;
    }
    finish(&s, out);
done:
    sy_renderer_destroy(s.renderer);
    sy__free(ctx, s.sum);
    sy__free(ctx, s.luma);
    sy__free(ctx, s.rgb);
    sy_video_reader_close(reader);
    return st;
}
