/* live_save.c — writing a Live pair (SPEC S3 video -> Live, Live edit, E1)
 * and SPEC E2's frame -> photo, both on the one frame renderer.
 *
 * The movie goes through sy_video_transcode with the recipe (every frame
 * rendered by sy_render, C14 bitrate, audio copied) and the Live metadata
 * plan (the identifier and the still-image-time track, live/sy_live_movie.h);
 * an observer keeps the rendered frame at the still time, which becomes the
 * still when there is no source still. When nothing changes the movie's
 * pixels (keeps_movie) its samples are remuxed instead, and that still is
 * rendered from the one frame. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/sy_internal.h"
#include "base/sy_output.h"
#include "base/sy_fourcc.h"
#include "edit/sy_edit_internal.h"
#include "sy_gainmap.h"
#include "sy_live.h"
#include "live/sy_live_movie.h"
#include "live/sy_live_pair_files.h"
#include "live/sy_live_still_job.h"
#include "live/sy_frame_gainmap.h"
#include "video/sy_frame_path.h"
#include "video/sy_video_cuts.h"

void sy_live_save_options_init(sy_live_save_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->version = 1;
    opts->still_time = -1;
    opts->still_format = SY_STILL_JPEG;
    opts->quality = 95; /* the key photo is the main image of the asset */
}

/* Keeps the rendered frame `want` (the pixels the encoder gets) and passes
 * every frame on to the caller's observer. */
typedef struct capture {
    sy_context *ctx;
    uint32_t want;
    sy_edit_image image;
    sy_video_frame_observer next;
    void *next_user;
} capture;

static sy_status capture_frame(void *user, uint32_t index, const uint8_t *rgb, size_t stride, uint32_t width,
                               uint32_t height, sy_error *err) {
    capture *c = user;
    if (index == c->want && !c->image.pixels) {
        c->image.pixels = sy__alloc(c->ctx, (size_t)width * 3, height, "live still frame", err);
        if (!c->image.pixels) return err ? err->code : SY_E_BUDGET;
        c->image.stride = (size_t)width * 3;
        c->image.width = width;
        c->image.height = height;
        for (uint32_t y = 0; y < height; y++)
            memcpy(c->image.pixels + (size_t)y * c->image.stride, rgb + (size_t)y * stride, c->image.stride);
    }
    return c->next ? c->next(c->next_user, index, rgb, stride, width, height, err) : SY_OK;
}

/* The middle of what the movie shows of its video, on the movie timeline: where a key photo goes by default. */
static double middle(const sy_video_reader_info *vi) { return vi->start_seconds + vi->presentation_seconds / 2; }

/* The source movie's reader facts (frame count, timing) without decoding;
 * with `frame` non-NULL also the frame shown at `seconds` (movie time; < 0:
 * the middle of the movie) and its time; with `first_shown` non-NULL the
 * index of the first frame its edit shows (the frame on screen when the video
 * starts), from which the transcode numbers the frames it encodes. A cut
 * movie (several shown spans) is timed as a viewer sees it, as the Live
 * movie made of it plays (sy_video_cuts.h): frames counted among those
 * shown, times and length on the movie timeline; *cut (may be NULL) says so. */
static sy_status movie_facts(sy_context *ctx, const char *movie, double seconds, sy_video_reader_info *out,
                             uint32_t *frame, double *frame_seconds, uint32_t *first_shown, int *cut,
                             sy_error *err) {
    sy_video_reader *r = NULL;
    sy_status st = sy_video_reader_open(ctx, movie, -1, &r, err);
    if (st == SY_OK) st = sy__video_reader_follow_cuts(r, err);
    if (st == SY_OK && cut) *cut = sy__video_reader_follows_cuts(r);
    if (st == SY_OK) *out = *sy_video_reader_info_get(r);
    if (st == SY_OK && frame)
        st = sy_video_reader_frame_at(r, seconds >= 0 ? seconds : middle(out), frame, frame_seconds, err);
    if (st == SY_OK && first_shown) st = sy_video_reader_frame_at(r, out->start_seconds, first_shown, NULL, err);
    sy_video_reader_close(r);
    return st;
}

/* A requested time must lie inside the movie: a key photo or saved frame is one
 * of its frames, never the last one standing in for a time past the end (on
 * the movie timeline: a picture that starts after its sound ends later). */
static sy_status check_time(const char *movie, const sy_video_reader_info *vi, double seconds, sy_error *err) {
    double end = vi->start_seconds + vi->presentation_seconds;
    if (seconds > end + 1e-6)
        return sy__fail(err, SY_E_USAGE, "%s: %.3f s is past the movie's end (%.3f s)", movie, seconds, end);
    return SY_OK;
}

/* *primaries (may be NULL): the movie's. A still made of a frame is in the
 * movie's primaries (an iPhone's Display P3) and says so, else a viewer
 * would show P3 values as sRGB, paler than the movie. `gain` (may be NULL):
 * for an HDR movie the frame's gain plane (sy_video_reader_gain.h), else
 * zeroed. */
static sy_status render_frame(sy_context *ctx, const char *movie, double seconds, const sy_recipe *recipe,
                              sy_edit_image *out, uint32_t *frame, uint16_t *primaries, sy__gain_plane *gain,
                              sy_error *err) {
    if (gain) memset(gain, 0, sizeof *gain);
    memset(out, 0, sizeof *out);
    sy_recipe identity;
    sy_recipe_init(&identity);
    if (!recipe) recipe = &identity;
    sy_video_reader *r = NULL;
    sy__frame_path path = {0};
    uint8_t *full = NULL;
    sy_status st = sy_video_reader_open(ctx, movie, -1, &r, err);
    if (st == SY_OK) st = sy__video_reader_follow_cuts(r, err); /* a cut movie's time as a viewer sees it */
    if (st != SY_OK) {
        sy_video_reader_close(r);
        return st;
    }
    const sy_video_reader_info *vi = sy_video_reader_info_get(r);
    if (primaries) *primaries = sy__video_frame_primaries(vi);
    uint32_t want = 0;
    st = check_time(movie, vi, seconds, err);
    if (st == SY_OK) st = sy_video_reader_frame_at(r, seconds, &want, NULL, err);
    /* the frame path exactly as sy_video_transcode opens it for every frame */
    if (st == SY_OK) st = sy__frame_path_open(ctx, recipe, vi, &path, err);
    size_t stride = (size_t)path.frame_width * 3;
    if (st == SY_OK && !(full = sy__alloc(ctx, stride, path.frame_height, "live frame", err)))
        st = err ? err->code : SY_E_BUDGET;
    uint32_t index = 0;
    while (st == SY_OK) {
        sy_video_frame f;
        int end = 0;
        if (gain && index == want) sy__video_reader_keep_gain(r, SY__FRAME_GAINMAP_SCALE); /* this frame's only */
        st = sy_video_reader_next(r, &f, &end, err);
        if (st != SY_OK) break;
        if (end) {
            st = sy__fail(err, SY_E_INVALID_INPUT, "%s: frame %u is missing (the movie ended at %u)", movie, want, index);
            break;
        }
        if (index++ < want) continue;
        st = sy__frame_path_render(&path, &f, full, stride, err);
        if (gain) sy__video_reader_take_gain(r, gain);
        break;
    }
    if (st == SY_OK) { /* the encoder's even size, same row stride */
        out->pixels = full;
        out->stride = stride;
        out->width = path.width;
        out->height = path.height;
        full = NULL;
        if (frame) *frame = want;
    }
    sy__free(ctx, full);
    sy__frame_path_close(&path);
    sy_video_reader_close(r);
    return st;
}

/* Nothing in the movie changes — no recipe touches the pixels, nobody watches
 * the frames, no particular encoding was asked for — so its samples are
 * copied (remuxed) instead of decoded and re-encoded: "set as key photo"
 * (SPEC E2) and video -> Live of a movie as it is keep every packet, and take
 * the time of a file copy. Only a stream Photos plays is copied
 * (sy__live_movie_playable); any other is re-encoded as HEVC 'hvc1'. So is
 * a movie of anamorphic samples (a `pasp` or VUI aspect other than 1:1): a
 * Live movie gets square pixels at its displayed size, the shape of its
 * still (live-photo.md P4, pitfall 9), not a shape left to each player. So
 * is a cut movie (`cut`: several shown spans): a copy keeps only its first
 * edit and would play the media whole; re-encoded, it shows what a player
 * shows, the key photo on that timeline. */
static int keeps_movie(const sy_recipe *recipe, const sy_live_save_options *o, const sy_video_reader_info *vi,
                       int cut) {
    return !cut && sy__live_movie_playable(vi) && vi->sar_num == vi->sar_den && sy_recipe_is_identity(recipe) &&
           !o->observer && o->bitrate == 0 &&
           !o->preset;
}

/* A Live edit's still: the source still re-rendered with the recipe and
 * written with its metadata, the new identifier and — as a still edit keeps
 * it (sy_gainmap_edit) — its HDR gain map through the same geometry, as the
 * HDR decision made before the movie started says. It needs nothing from the
 * movie, so it runs on a second thread while the movie encodes (x265 leaves
 * part of a core to our decode; the still's decode and JPEG/HEIC encode fill
 * it) and is written to a side name that is renamed with the movie. */
typedef struct still_task {
    sy_context *ctx;
    const char *source, *identifier, *path; /* identifier NULL: a still apart from any movie (SPEC E1) */
    const sy_recipe *recipe;
    sy_still_format format;
    int quality;
    sy__hdr_decision *hdr;  /* made by the caller, never ASK; KEEP's map is consumed */
    uint32_t width, height; /* of the written still */
    sy_hdr_outcome outcome;
    uint32_t dropped;
    sy_edit_report read;    /* what the decode read (SPEC E7 evidence) */
    sy_status st;
    sy_error err;
} still_task;

static void *write_edited_still(void *arg) {
    still_task *t = arg;
    sy_gainmap_edit_report gr;
    t->st = sy__live_write_edited_still(t->ctx, t->source, t->recipe, t->format, t->quality, SY_EDIT_IDENTIFY_SOURCE,
                                        t->identifier, t->hdr, t->path, &gr, &t->err);
    t->width = gr.edit.width;
    t->height = gr.edit.height;
    t->outcome = gr.outcome;
    t->dropped = gr.edit.dropped;
    t->read = gr.edit;
    return NULL;
}

/* SPEC E6 before any work: what happens to a gain map in the still. A Live
 * edit keeps the source still's map where a still edit would; a key photo
 * taken from the movie (no source still) cannot keep the map of the still
 * whose metadata it inherits. Refused without consent, nothing written. */
static sy_status decide_hdr(sy_context *ctx, const char *source_still, const sy_live_save_options *o,
                            int frame_keeps_hdr, sy__hdr_decision *d, sy_error *err) {
    memset(d, 0, sizeof *d);
    const char *from = source_still ? source_still : o->metadata_source;
    if (!from || (!source_still && frame_keeps_hdr)) return SY_OK; /* the new key photo brings its own HDR */
    sy__hdr_save save = source_still ? SY__HDR_SAVE_CARRIES_MAP : SY__HDR_SAVE_BASE_ONLY;
    return sy__hdr_decide_or_refuse(ctx, from, save, o->still_format, o->allow_sdr, "this Live save",
                                    source_still ? NULL : "the new key photo is a frame of the SDR movie", d, err);
}

/* A still made of a frame, in the frame's space; with a gain plane (an HDR
 * movie's frame) its HDR goes with it as a gain map. `dropped` (may be NULL):
 * what of exif_source's metadata the still does not carry. */
static sy_status write_frame_still(sy_context *ctx, const sy_edit_image *image, uint16_t primaries,
                                   const sy__gain_plane *gain, const sy_recipe *recipe, const char *exif_source,
                                   const char *movie, const char *identifier, const char *path, sy_still_format format, int quality,
                                   sy_hdr_outcome *outcome, uint32_t *dropped, sy_error *err) {
    sy_gainmap_image map = {0};
    sy__gainmap_save save;
    memset(&save, 0, sizeof save);
    sy_recipe identity;
    sy_recipe_init(&identity);
    sy_status st = SY_OK;
    int hdr = gain->log2 != NULL;
    if (hdr) st = sy__frame_gainmap_prepare(ctx, gain, recipe ? recipe : &identity, path, format, quality, &map, &save, err);
    if (st == SY_OK)
        st = sy__live_write_still_in(ctx, image, sy__color_space_of_primaries(primaries), hdr ? &save.extra : NULL,
                                     exif_source, movie, identifier, path, format, quality, dropped, err);
    if (st == SY_OK && hdr && outcome) *outcome = SY_HDR_KEPT;
    sy__gainmap_save_free(&save);
    sy_gainmap_image_free(ctx, &map);
    return st;
}

/* SPEC E1: a bordered Live photo is saved as a still only, without identifier. */
static sy_status save_still_only(sy_context *ctx, const char *movie, const sy_video_reader_info *vi,
                                 const char *still, const char *still_out, const sy_recipe *recipe,
                                 const sy_live_save_options *o, sy__hdr_decision *hdr, sy_live_save_report *rep,
                                 sy_error *err) {
    if (still) { /* the edited still, its gain map kept as the decision says */
        still_task task = {.ctx = ctx, .source = still, .path = still_out, .recipe = recipe,
                           .format = o->still_format, .quality = o->quality, .hdr = hdr};
        write_edited_still(&task);
        if (task.st != SY_OK && err) *err = task.err;
        rep->still_width = task.width;
        rep->still_height = task.height;
        rep->hdr = task.outcome;
        rep->still_dropped = task.dropped;
        rep->still_source = task.read;
        return task.st;
    }
    double t = o->still_time >= 0 ? o->still_time : middle(vi);
    sy_status st;
    sy_edit_image img = {0};
    uint16_t primaries = 0;
    sy__gain_plane gain = {0};
    st = render_frame(ctx, movie, t, recipe, &img, &rep->still_frame, &primaries, &gain, err);
    if (st == SY_OK)
        st = write_frame_still(ctx, &img, primaries, &gain, recipe, NULL, movie, NULL, still_out, o->still_format, o->quality,
                               &rep->hdr, &rep->still_dropped, err);
    sy__gain_plane_free(ctx, &gain);
    rep->still_width = img.width;
    rep->still_height = img.height;
    sy_edit_image_free(ctx, &img);
    return st;
}

/* The pair (or, with a border, the still alone) once the HDR decision is made. */
/* `vi`: the source movie's facts; rep->still_frame and still_time already say
 * which frame the still shows (live_save). */
static sy_status live_pair(sy_context *ctx, const char *source_movie, const sy_video_reader_info *vi, uint32_t first_shown,
                           int keeps, const char *source_still, const char *still_out, const char *movie_out,
                           const sy_live_save_options *opts, const sy_recipe *recipe, sy__hdr_decision *hdr,
                           sy_live_save_report *rep, sy_error *err) {
    sy_status st;
    if (recipe->border_width > 0)
        return save_still_only(ctx, source_movie, vi, source_still, still_out, recipe, opts, hdr, rep, err);
    if (!movie_out) return sy__fail(err, SY_E_USAGE, "sy_live_save: no movie output");
    if (opts->content_identifier) {
        if (strlen(opts->content_identifier) != SY_LIVE_ID_LEN)
            return sy__fail(err, SY_E_USAGE, "sy_live_save: content identifier must have 36 characters");
        memcpy(rep->content_identifier, opts->content_identifier, SY_LIVE_ID_LEN + 1);
    } else if ((st = sy_live_new_identifier(rep->content_identifier, err)) != SY_OK) {
        return st;
    }
    if (opts->still_time >= 0 && (st = check_time(source_movie, vi, opts->still_time, err)) != SY_OK) return st;

    /* both files go to side names until both are written */
    sy__live_pair_files pf;
    if ((st = sy__live_pair_files_open(ctx, still_out, movie_out, &pf, err)) != SY_OK) return st;
    const char *pending = pf.movie_pending, *still_pending = pf.still_pending;
    still_task task = {.ctx = ctx, .source = source_still, .identifier = rep->content_identifier,
                       .path = still_pending, .recipe = recipe, .format = opts->still_format, .quality = opts->quality,
                       .hdr = hdr};
    pthread_t helper;
    int threaded = source_still && pthread_create(&helper, NULL, write_edited_still, &task) == 0;
    /* The observer numbers the frames the encoder gets, which start at the
     * first frame the source's edit shows; still_frame counts from the media's
     * first (a trimmed movie's hidden frames too): the capture wants the first. */
    capture cap = {.ctx = ctx,
                   .want = rep->still_frame > first_shown ? rep->still_frame - first_shown : 0,
                   .next = opts->observer, .next_user = opts->observer_user};
    sy_video_transcode_options to;
    sy_video_transcode_options_init(&to);
    to.container = SY_FOURCC('q', 't', ' ', ' ');
    to.copy_video = keeps;
    to.bitrate = opts->bitrate;
    to.preset = opts->preset;
    to.allow_sdr = opts->allow_sdr; /* asked already (live_save) when the re-encode makes an HDR movie SDR */
    to.threads = opts->threads;
    to.recipe = recipe;
    /* Without a source still, the still is the frame captured on its way to
     * the encoder. With one, only the caller's observer (if any) watches: the
     * frames may then reach the encoder as the decoder's samples. */
    if (!to.copy_video) {
        to.observer = source_still ? opts->observer : capture_frame;
        to.observer_user = source_still ? opts->observer_user : (void *)&cap;
    }
    sy__live_movie_plan plan;
    sy__live_movie_plan_init(&plan, rep->content_identifier, (int32_t)rep->still_frame);
    to.metadata = &plan.plan;
    st = sy_video_transcode(ctx, source_movie, pending, &to, &rep->movie, err);
    if (source_still) { /* Live edit: the still from the helper thread (or here, if none could start) */
        if (threaded) pthread_join(helper, NULL);
        else if (st == SY_OK) write_edited_still(&task);
        if (st == SY_OK && task.st != SY_OK) {
            st = task.st;
            if (err) *err = task.err;
        }
    } else {
        /* a remux decodes nothing: the still is the key frame rendered on its
         * own; the movie stays as it was, so an HDR movie's still keeps its
         * HDR as a gain map (a re-encoded movie is SDR: so is its still) */
        sy__gain_plane gain = {0};
        if (st == SY_OK && to.copy_video)
            st = render_frame(ctx, source_movie, rep->still_time, recipe, &cap.image, NULL, NULL, &gain, err);
        if (st == SY_OK && !cap.image.pixels)
            st = sy__fail(err, SY_E_INVALID_INPUT, "%s: frame %u never reached the encoder", source_movie,
                          rep->still_frame);
        if (st == SY_OK)
            st = write_frame_still(ctx, &cap.image, sy__video_frame_primaries(vi), &gain, recipe,
                                   opts->metadata_source, source_movie, rep->content_identifier, still_pending, opts->still_format,
                                   opts->quality, &rep->hdr, &rep->still_dropped, err);
        sy__gain_plane_free(ctx, &gain);
        task.width = cap.image.width;
        task.height = cap.image.height;
    }
    st = sy__live_pair_files_finish(&pf, st, err); /* both files or neither */
    if (st == SY_OK) {
        rep->live = 1;
        rep->still_time = rep->movie.marker_time;
        rep->still_width = task.width;
        rep->still_height = task.height;
        if (source_still) rep->hdr = task.outcome, rep->still_dropped = task.dropped, rep->still_source = task.read;
    }
    sy_edit_image_free(ctx, &cap.image);
    sy__live_pair_files_close(ctx, &pf);
    return st;
}

static sy_status live_save(sy_context *ctx, const char *source_movie, const char *source_still, const char *still_out,
                           const char *movie_out, const sy_live_save_options *opts, sy_live_save_report *report,
                           sy_error *err) {
    sy_live_save_options defaults;
    if (!opts) {
        sy_live_save_options_init(&defaults);
        opts = &defaults;
    }
    if (opts->version != 1) return sy__fail(err, SY_E_USAGE, "sy_live_save: options version %u", opts->version);
    sy_live_save_report local;
    sy_live_save_report *rep = report ? report : &local;
    memset(rep, 0, sizeof *rep);
    sy_recipe identity;
    sy_recipe_init(&identity);
    const sy_recipe *recipe = opts->recipe ? opts->recipe : &identity;
    sy_status st = sy_recipe_validate(recipe, err);
    if (st != SY_OK) return st;
    /* The movie's facts, read once, and the frame the still shows (a
     * bordered still made of a frame too: the report says which and when). An HDR movie re-encoded through RGB frames (8 bits) is SDR:
     * consent first, before any work. A key photo made of its frame keeps the frame's HDR (a gain
     * map) when the frame is rendered on its own: the movie kept as it is, or
     * a bordered still; a re-encoded movie is SDR, and so is its frame. */
    sy_video_reader_info vi;
    int bordered = recipe->border_width > 0;
    int frame_still = !(bordered && source_still); /* a bordered edit's still is the source still, no frame */
    uint32_t first_shown = 0;
    int cut = 0;
    st = movie_facts(ctx, source_movie, opts->still_time, &vi, frame_still ? &rep->still_frame : NULL,
                     frame_still ? &rep->still_time : NULL, &first_shown, &cut, err);
    if (st != SY_OK) return st;
    int keeps = keeps_movie(recipe, opts, &vi, cut);
    int reencodes = !bordered && !keeps;
    if (reencodes && sy__cicp_is_hdr_transfer(vi.transfer)) {
        /* The re-encode keeps the HDR when its frames reach the encoder as the
         * decoder's samples (sy_video_transcode_hdr_outcome): a crop at most,
         * and nobody watching them — without a source still they are watched,
         * the still being captured from them. */
        sy_video_transcode_options probe;
        sy_video_transcode_options_init(&probe);
        probe.recipe = recipe;
        probe.observer = source_still ? opts->observer : capture_frame;
        int outcome = -1;
        if ((st = sy__video_transcode_hdr_outcome_of(ctx, &vi, &probe, &outcome, err)) != SY_OK) return st;
        if (outcome < 0 &&
            (st = sy__video_check_sdr_consent(&vi, source_movie, "this Live save", opts->allow_sdr, err)) != SY_OK)
            return st;
    }
    int frame_keeps_hdr = !source_still && !reencodes && sy__cicp_is_hdr_transfer(vi.transfer);
    sy__hdr_decision hdr;
    if ((st = decide_hdr(ctx, source_still, opts, frame_keeps_hdr, &hdr, err)) != SY_OK) return st;
    if (!source_still && hdr.verdict == SY__HDR_DROP) rep->hdr = SY_HDR_DROPPED_WITH_CONSENT;
    st = live_pair(ctx, source_movie, &vi, first_shown, keeps, source_still, still_out, movie_out, opts, recipe, &hdr, rep, err);
    sy__hdr_decision_free(ctx, &hdr);
    return st;
}


/* The public entry points resolve a "cube:<path>" filter (as sy_edit does)
 * once, so every frame and the still use the same loaded LUT. */
sy_status sy_live_render_frame(sy_context *ctx, const char *movie, double seconds, const sy_recipe *recipe,
                               sy_edit_image *out, uint32_t *frame, sy_error *err) {
    if (!ctx || !movie || !out) return sy__fail(err, SY_E_USAGE, "sy_live_render_frame: NULL argument");
    memset(out, 0, sizeof *out);
    sy_recipe r;
    sy_lut *lut = NULL;
    sy_status st = recipe ? sy__recipe_prepare(ctx, recipe, &r, &lut, err) : SY_OK;
    if (st == SY_OK) st = render_frame(ctx, movie, seconds, recipe ? &r : NULL, out, frame, NULL, NULL, err);
    sy_lut_destroy(lut);
    return st;
}

sy_status sy_live_save_frame(sy_context *ctx, const char *movie, double seconds, const sy_recipe *recipe,
                             const char *exif_source, const char *path, sy_still_format format, int quality,
                             sy_edit_image *out, uint32_t *frame, sy_error *err) {
    if (out) memset(out, 0, sizeof *out);
    if (!ctx || !movie || !path) return sy__fail(err, SY_E_USAGE, "sy_live_save_frame: NULL argument");
    sy_recipe r;
    sy_lut *lut = NULL;
    sy_edit_image img = {0};
    uint16_t primaries = 0;
    sy__gain_plane gain = {0};
    const char *inputs[] = {movie, exif_source}; /* the frame never replaces the pair it comes from */
    sy_status st = sy__output_check(path, inputs, 2, err);
    if (st == SY_OK && recipe) st = sy__recipe_prepare(ctx, recipe, &r, &lut, err);
    if (st == SY_OK) st = render_frame(ctx, movie, seconds, recipe ? &r : NULL, &img, frame, &primaries, &gain, err);
    if (st == SY_OK)
        st = write_frame_still(ctx, &img, primaries, &gain, recipe ? &r : NULL, exif_source, movie, NULL, path, format,
                               quality, NULL, NULL, err);
    sy__gain_plane_free(ctx, &gain);
    sy_lut_destroy(lut);
    if (st == SY_OK && out) *out = img;
    else sy_edit_image_free(ctx, &img);
    return st;
}

/* Whether still-image time `t` is another moment than the pair's own: more
 * than half a frame from the time its movie records (any time, when it
 * records none, or cannot be read). */
static int moves_key_photo(sy_context *ctx, const char *movie, double t) {
    sy_live_movie_info info;
    sy_video_reader_info vi;
    if (sy_live_movie_read(ctx, movie, &info, NULL) != SY_OK || !info.has_still_time) return 1;
    double half_frame = movie_facts(ctx, movie, -1, &vi, NULL, NULL, NULL, NULL, NULL) == SY_OK && vi.frame_rate > 0
                            ? 0.5 / vi.frame_rate : 1.0 / 60;
    return fabs(info.still_time - t) > half_frame;
}

sy_status sy_live_save(sy_context *ctx, const char *source_movie, const char *source_still, const char *still_out,
                       const char *movie_out, const sy_live_save_options *opts, sy_live_save_report *report,
                       sy_error *err) {
    if (!ctx || !source_movie || !still_out) return sy__fail(err, SY_E_USAGE, "sy_live_save: NULL argument");
    /* Before any work: neither output may be an input (a generated name can
     * be the input movie's) or the other output. */
    const char *inputs[] = {source_movie, source_still, opts ? opts->metadata_source : NULL, movie_out};
    sy_status checked = sy__output_check(still_out, inputs, 4, err);
    if (checked == SY_OK && movie_out) checked = sy__output_check(movie_out, inputs, 3, err);
    if (checked == SY_OK && movie_out && strcmp(still_out, movie_out) == 0)
        checked = sy__fail(err, SY_E_USAGE, "%s: the still and the movie cannot be one file", still_out);
    if (checked != SY_OK) return checked;
    /* A Live edit that moves the key photo (a still-image time given) shows
     * the movie's frame at that time, as "set as key photo" does: the old
     * still is a picture of another moment (SPEC P4). Its metadata (date,
     * camera, place) still comes from it. */
    sy_live_save_options moved;
    if (source_still && opts && opts->still_time >= 0 && moves_key_photo(ctx, source_movie, opts->still_time)) {
        moved = *opts;
        if (!moved.metadata_source) moved.metadata_source = source_still;
        opts = &moved;
        source_still = NULL;
    }
    if (!opts || !opts->recipe) return live_save(ctx, source_movie, source_still, still_out, movie_out, opts, report, err);
    sy_recipe r;
    sy_lut *lut = NULL;
    sy_status st = sy__recipe_prepare(ctx, opts->recipe, &r, &lut, err);
    if (st == SY_OK) {
        sy_live_save_options resolved = *opts;
        resolved.recipe = &r;
        st = live_save(ctx, source_movie, source_still, still_out, movie_out, &resolved, report, err);
    }
    sy_lut_destroy(lut);
    return st;
}
