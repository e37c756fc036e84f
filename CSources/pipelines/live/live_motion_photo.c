/* live_motion_photo.c — a Motion Photo converted into a Live pair (sy_live.h,
 * SPEC S3). The movie is the embedded one remuxed (sy_mov_open opens a
 * Motion Photo as its movie, so the transcoder's copy path reads it as any
 * movie); the still is the photo itself (live/sy_live_motion.h). Files are
 * written to side names and renamed together: both or neither. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/sy_fourcc.h"
#include "base/sy_internal.h"
#include "base/sy_output.h"
#include "exif/sy_content_id.h"
#include "exif/sy_exif.h"
#include "heif/sy_heif_metadata.h"
#include "heif/sy_heif_metadata_swap.h"
#include "live/sy_live_motion.h"
#include "live/sy_live_movie.h"
#include "live/sy_live_pair_files.h"
#include "live/sy_live_still_job.h"
#include "sy_gainmap.h"
#include "sy_live.h"
#include "sy_mov.h"
#include "still/sy_still_internal.h"
#include "sy_still.h"
#include "sy_video.h"
#include "video/sy_video_reader_scale.h"

void sy_live_motion_options_init(sy_live_motion_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->version = 1;
    opts->quality = 98; /* measured (sample scene, HEIC still): 95 -> 49.5 dB; 97 -> 50.0 dB (50.00 -> 49.9997 with x265 RD level 1); 98 -> 50.9 dB */
}

/* The still time: the photo's presentation timestamp when it lies in the movie, else the middle. */
static double still_time(const sy_motion_photo_info *mp, const sy_video_reader_info *vi, int *from_photo) {
    double t = mp->presentation_us >= 0 ? (double)mp->presentation_us / 1e6 : -1;
    *from_photo = t >= 0 && t <= vi->start_seconds + vi->presentation_seconds + 1e-6; /* on the movie timeline */
    return *from_photo ? t : vi->start_seconds + vi->presentation_seconds / 2;
}

/* A HEIC Motion Photo's still as it is: the file's boxes before the `mpvd`
 * with the identifier added to the Exif and the Motion Photo claims taken
 * out of the XMP (sy__heif_copy_with_metadata), so the pictures, the gain
 * map, a tone map and the thumbnail stay the photo's own bytes. Only when
 * the movie's box ends the file (nothing after it would be lost) and the
 * metadata can be patched in place; SY_E_UNSUPPORTED otherwise, and the
 * caller re-encodes. */
static sy_status heic_still_copy(sy_context *ctx, const char *input, const sy_motion_photo_info *mp, const char *id,
                                 const char *path, sy_live_motion_report *rep, sy_error *err) {
    struct stat sb;
    if (stat(input, &sb) != 0 || mp->movie_offset + mp->movie_length != (uint64_t)sb.st_size)
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: boxes follow the embedded movie", input);
    sy__metadata md;
    sy_status st = sy__heif_metadata_read(ctx, input, &md, err);
    if (st == SY_OK && !md.exif) st = sy__fail(err, SY_E_UNSUPPORTED, "%s: the photo has no Exif item", input);
    uint8_t *tagged = NULL;
    size_t tagged_len = 0, xmp_len = 0;
    int claims = 0;
    if (st == SY_OK) st = sy__content_id_with(ctx, md.exif, md.exif_len, id, &tagged, &tagged_len, err);
    if (st == SY_OK && md.xmp) xmp_len = sy__xmp_strip_motion_photo(md.xmp, md.xmp_len, &claims);
    sy__output out = {0};
    if (st == SY_OK) st = sy__output_open(ctx, path, &out, err);
    if (st == SY_OK)
        st = sy__heif_copy_with_metadata(ctx, input, mp->still_length, tagged, tagged_len, claims ? md.xmp : NULL,
                                         xmp_len, out.file, path, err);
    if (st == SY_OK) st = sy__output_commit(&out, err);
    else if (out.file) sy__output_abort(&out);
    sy_image_info info;
    sy_gainmap_info gm;
    if (st == SY_OK) st = sy_image_probe(ctx, path, &info, err);
    if (st == SY_OK) st = sy_gainmap_probe(ctx, path, &gm, err);
    if (st == SY_OK) {
        rep->still_width = info.width, rep->still_height = info.height;
        rep->still_hdr = gm.kind == SY_GAINMAP_NONE ? SY_HDR_NOT_HDR : SY_HDR_KEPT;
    }
    sy__free(ctx, tagged);
    sy__metadata_free(ctx, &md);
    return st;
}

/* A HEIC Motion Photo's still that cannot be copied: re-encoded as any still edit is (the identity
 * recipe through the edit job), so it keeps what a still edit keeps — its
 * metadata, the new identifier instead of none, and its HDR gain map (SPEC E6:
 * decided first; a map that cannot be kept is refused unless allow_sdr). */
static sy_status heic_still(sy_context *ctx, const char *input, const char *id, const char *path, int quality,
                            int allow_sdr, sy_live_motion_report *rep, sy_error *err) {
    sy__hdr_decision hdr;
    sy_status st = sy__hdr_decide_or_refuse(ctx, input, SY__HDR_SAVE_CARRIES_MAP, SY_STILL_HEIC, allow_sdr,
                                            "the Live still", NULL, &hdr, err);
    if (st != SY_OK) return st;
    sy_recipe identity;
    sy_recipe_init(&identity);
    sy_gainmap_edit_report gr;
    st = sy__live_write_edited_still(ctx, input, &identity, SY_STILL_HEIC, quality, 0, id, &hdr, path, &gr, err);
    sy__hdr_decision_free(ctx, &hdr);
    rep->still_width = gr.edit.width;
    rep->still_height = gr.edit.height;
    rep->still_hdr = gr.outcome;
    return st;
}

/* ---- the frame a photo without a timestamp shows ---- */

#define MATCH_COLUMNS 48u   /* the grid of box means both pictures are compared on */
#define MATCH_MAX_LEVELS 12 /* a nearest frame further than this (mean levels) is not the photo's */

/* Box means of `rgb` (w x h) on a gw x gh grid, 3 doubles a box. */
static void grid_means(const uint8_t *rgb, size_t stride, uint32_t w, uint32_t h, uint32_t gw, uint32_t gh,
                       double *out) {
    memset(out, 0, sizeof *out * gw * gh * 3);
    for (uint32_t gy = 0; gy < gh; gy++) {
        uint32_t y0 = (uint32_t)((uint64_t)gy * h / gh), y1 = (uint32_t)((uint64_t)(gy + 1) * h / gh);
        for (uint32_t gx = 0; gx < gw; gx++) {
            uint32_t x0 = (uint32_t)((uint64_t)gx * w / gw), x1 = (uint32_t)((uint64_t)(gx + 1) * w / gw);
            double sum[3] = {0, 0, 0}, n = (double)(y1 - y0) * (x1 - x0);
            for (uint32_t y = y0; y < y1; y++)
                for (uint32_t x = x0; x < x1; x++)
                    for (int c = 0; c < 3; c++) sum[c] += rgb[(size_t)y * stride + (size_t)x * 3 + (size_t)c];
            for (int c = 0; c < 3; c++) out[((size_t)gy * gw + gx) * 3 + (size_t)c] = n > 0 ? sum[c] / n : 0;
        }
    }
}

/* A photo whose timestamp says nothing (-1, or outside the movie) was taken
 * during the clip: the frame it shows is the one nearest it on a coarse grid
 * of box means (the photo is sharper and wider in range than the frame, so
 * not equal, but no other frame comes as near). 0 with *index and *seconds set
 * when found; -1 when the picture shapes differ (the photo is not a frame),
 * nothing decodes, or no frame is near. */
static int matching_frame(sy_context *ctx, const char *input, uint32_t *index, double *seconds) {
    sy_image_info info;
    if (sy_image_probe(ctx, input, &info, NULL) != SY_OK || !info.width || !info.height) return -1;
    sy_video_reader *r = NULL;
    if (sy_video_reader_open(ctx, input, -1, &r, NULL) != SY_OK) return -1;
    const sy_video_reader_info *vi = sy_video_reader_info_get(r);
    double photo_shape = (double)info.width / info.height, movie_shape = vi->height ? (double)vi->width / vi->height : 0;
    uint32_t gw = MATCH_COLUMNS, gh = (uint32_t)lround(MATCH_COLUMNS / photo_shape);
    sy__upright still = {0};
    double *want = NULL, *got = NULL;
    int found = -1;
    if (fabs(photo_shape - movie_shape) > 0.01 * photo_shape || gh < 4 || gh > 4 * MATCH_COLUMNS) goto done;
    want = sy__alloc(ctx, (size_t)gw * gh * 3, sizeof *want, "photo grid", NULL);
    got = sy__alloc(ctx, (size_t)gw * gh * 3, sizeof *got, "frame grid", NULL);
    if (!want || !got || sy__upright_decode(ctx, input, &info, gw * 8, gh * 8, 0, &still, NULL) != SY_OK) goto done;
    grid_means(still.rgb, still.stride, still.width, still.height, gw, gh, want);
    double best = MATCH_MAX_LEVELS;
    uint32_t w = 0, h = 0;
    (void)sy__video_reader_halve(r, &w, &h, NULL); /* a quarter of the pixels to convert; the grid is coarse */
    for (;;) {
        sy_video_frame f;
        int end = 0;
        if (sy_video_reader_next(r, &f, &end, NULL) != SY_OK || end) break;
        grid_means(f.rgb, f.stride, f.width, f.height, gw, gh, got);
        double d = 0;
        for (size_t i = 0; i < (size_t)gw * gh * 3; i++) d += fabs(got[i] - want[i]);
        d /= (double)gw * gh * 3;
        if (d < best) best = d, *index = f.index, *seconds = f.seconds, found = 0;
    }
done:
    sy__upright_free(ctx, &still);
    sy__free(ctx, want);
    sy__free(ctx, got);
    sy_video_reader_close(r);
    return found;
}

static sy_status write_pair(sy_context *ctx, const char *input, const sy_motion_photo_info *mp, const char *still_path,
                            const char *movie_path, const sy_live_motion_options *o, sy_live_motion_report *rep,
                            sy_error *err) {
    sy_video_reader *r = NULL;
    sy_status st = sy_video_reader_open(ctx, input, -1, &r, err);
    if (st != SY_OK) return st;
    sy_video_reader_info vi = *sy_video_reader_info_get(r);
    double t = still_time(mp, &vi, &rep->still_time_from_photo);
    st = sy_video_reader_frame_at(r, t, &rep->still_frame, &rep->still_time, err); /* the frame shown at t */
    sy_video_reader_close(r);
    if (st != SY_OK) return st;
    if (!rep->still_time_from_photo && matching_frame(ctx, input, &rep->still_frame, &rep->still_time) == 0)
        rep->still_time_from_photo = 2;

    sy_video_transcode_options to;
    sy_video_transcode_options_init(&to);
    to.container = SY_FOURCC('q', 't', ' ', ' ');
    to.copy_video = 1;
    sy__live_movie_plan plan;
    sy__live_movie_plan_init(&plan, rep->content_identifier, (int32_t)rep->still_frame);
    to.metadata = &plan.plan;
    st = sy_video_transcode(ctx, input, movie_path, &to, &rep->movie, err);
    if (st != SY_OK) return st;
    rep->still_time = rep->movie.marker_time;
    if (mp->container == SY_FOURCC('j', 'p', 'e', 'g')) {
        st = sy__live_motion_still_jpeg(ctx, input, mp->still_length, rep->content_identifier, still_path, err);
        sy_image_info info;
        sy_gainmap_info gm; /* the still's bytes kept: so is any gain map they hold */
        if (st == SY_OK) st = sy_image_probe(ctx, still_path, &info, err);
        if (st == SY_OK) st = sy_gainmap_probe(ctx, still_path, &gm, err);
        if (st == SY_OK) {
            rep->still_width = info.width, rep->still_height = info.height;
            rep->still_hdr = gm.kind == SY_GAINMAP_NONE ? SY_HDR_NOT_HDR : SY_HDR_KEPT;
        }
    } else {
        sy_error why = {0};
        st = heic_still_copy(ctx, input, mp, rep->content_identifier, still_path, rep, &why);
        if (st == SY_E_UNSUPPORTED) { /* cannot be copied: re-encoded, as the report says */
            rep->still_reencoded = 1;
            st = heic_still(ctx, input, rep->content_identifier, still_path, o->quality, o->allow_sdr, rep, err);
        } else if (st != SY_OK && err) {
            *err = why;
        }
    }
    if (st == SY_OK) { /* read back: the still carries the identifier the movie does */
        char back[SY_LIVE_ID_LEN + 1];
        int found = 0;
        st = sy_live_still_read_id(ctx, still_path, back, &found, err);
        if (st == SY_OK && (!found || strcmp(back, rep->content_identifier) != 0))
            st = sy__fail(err, SY_E_CODEC, "%s: the written still does not carry the content identifier", input);
    }
    return st;
}

sy_status sy_live_from_motion_photo(sy_context *ctx, const char *input, const char *still_out, const char *movie_out,
                                    const sy_live_motion_options *opts, sy_live_motion_report *report,
                                    sy_error *err) {
    if (!ctx || !input || !still_out || !movie_out || !report)
        return sy__fail(err, SY_E_USAGE, "sy_live_from_motion_photo: NULL argument");
    memset(report, 0, sizeof *report);
    sy_live_motion_options defaults;
    if (!opts) sy_live_motion_options_init(&defaults), opts = &defaults;
    if (opts->version != 1) return sy__fail(err, SY_E_USAGE, "sy_live_from_motion_photo: options version %u", opts->version);
    const char *inputs[] = {input, movie_out};
    sy_status st = sy__output_check(still_out, inputs, 2, err);
    if (st == SY_OK) st = sy__output_check(movie_out, inputs, 1, err);
    if (st == SY_OK && strcmp(still_out, movie_out) == 0)
        st = sy__fail(err, SY_E_USAGE, "%s: the still and the movie cannot be one file", still_out);
    if (st != SY_OK) return st;
    sy_motion_photo_info mp;
    if ((st = sy_motion_photo_probe(ctx, input, &mp, err)) != SY_OK) return st;
    if (!mp.container)
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: not a Motion Photo (no embedded movie)", input);
    report->container = mp.container;
    if (opts->content_identifier) {
        if (!sy__content_id_valid(opts->content_identifier))
            return sy__fail(err, SY_E_USAGE, "sy_live_from_motion_photo: content identifier must be a UUID");
        memcpy(report->content_identifier, opts->content_identifier, SY_LIVE_ID_LEN + 1);
    } else if ((st = sy_live_new_identifier(report->content_identifier, err)) != SY_OK) {
        return st;
    }
    sy__live_pair_files pf;
    if ((st = sy__live_pair_files_open(ctx, still_out, movie_out, &pf, err)) != SY_OK) return st;
    st = write_pair(ctx, input, &mp, pf.still_pending, pf.movie_pending, opts, report, err);
    st = sy__live_pair_files_finish(&pf, st, err);
    sy__live_pair_files_close(ctx, &pf);
    return st;
}
