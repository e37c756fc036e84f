/* transcode.c — movie in, HEVC movie out (issue 4, `shiying video transcode`).
 *
 * reader (upright RGB frames, presentation order) -> the shared frame path
 * (sy_render with the caller's recipe, the renderer every still uses) ->
 * x265 encoder (SPEC C14 bitrate) -> muxer. When the renderer would only copy
 * a rectangle at even offsets (no recipe, or a crop alone) and nobody watches
 * the RGB frames, the encoder takes that rectangle of the decoder's own 8-bit
 * 4:2:0 samples instead (sy_video_reader_samples.h): the renderer still
 * decides the geometry, and the chroma is not blurred by a round trip
 * through RGB (TranscodeSamplesTests); the first audio track is copied
 * sample-for-sample and interleaved by time, movie-level `mdta` items are
 * copied and changed as the caller's metadata plan says. Memory stays
 * bounded: the decoder's picture buffer, one RGB frame (or the frame's
 * samples), the encoder's look-ahead, one pending packet and one audio sample.
 *
 * Frame timing: every frame keeps its source presentation time (in the
 * source's media timescale, counted from the first frame shown, which starts
 * the output's video when the source's did: sy_shown_span.h), so a
 * variable-rate iPhone clip (33-75 ms intervals) stays variable, the track
 * keeps the source's length and the copied audio stays in sync; the encoder's
 * rate control runs at the source's mean rate. Because the times are kept,
 * the timed-metadata (`mebx`) tracks a Live plan keeps are copied with their
 * samples' times unchanged (movie_timed_copy.c); the still-image time is the
 * plan's frame marker, written anew. Only the frames the source's edit list
 * shows are encoded, after its delay (sy_shown_span.h): a trimmed file's
 * hidden frames are decoded for prediction, not shown. A cut (several shown
 * spans) keeps every frame and the list, except in a Live plan or with the
 * sound re-encoded as AAC: those encode the frames the spans show at their
 * times on the movie timeline (sy_video_cuts.h), the sound cut alike.
 *
 * Dynamic HDR metadata goes with the samples it describes: a PQ movie's
 * HDR10+ message with every picture (kept through a crop unless it has
 * several windows), a Dolby Vision profile 8 movie's RPU and configuration
 * when the samples are kept whole (sy_video_reader_dynamic.h).
 */
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

#include "base/sy_internal.h"
#include "base/sy_output.h"
#include "base/sy_fourcc.h"
#include "base/sy_hdr10plus.h"
#include "sy_mov.h"
#include "sy_still.h" /* SY_DROPPED_HDR_VIDEO */
#include "mov/sy_mov_writer.h"
#include "sy_video.h"
#include "video/sy_frame_path.h"
#include "video/sy_movie_copy.h"
#include "render/sy_render_copy.h"
#include "video/sy_video_encoder_stage.h"
#include "video/sy_shown_span.h"
#include "video/sy_video_cuts.h"
#include "video/sy_video_reader_dynamic.h"
#include "video/sy_video_reader_samples.h"

#define QT SY_FOURCC('q', 't', ' ', ' ')
#define ISOM SY_FOURCC('i', 's', 'o', 'm')

void sy_video_transcode_options_init(sy_video_transcode_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->version = 1;
    opts->copy_audio = 1;
    opts->copy_metadata = 1;
}

typedef struct job {
    sy_context *ctx;
    const char *input;
    sy_mov_writer *writer;
    uint32_t video_id;
    uint32_t frame_duration;
    uint32_t timescale;
    /* one packet held back: its stts duration is the next packet's dts minus its own */
    uint8_t *held;
    size_t held_cap, held_len;
    int64_t held_pts, held_dts;
    uint32_t held_key;
    int have_held;
    int64_t first_dts, min_pts;
    uint32_t packets;
    sy_mov *source;           /* a second demuxer handle on the input: audio and metadata */
    int32_t audio_track;      /* -1 = none */
    sy__copied_track audio;
    sy__copied_timed timed;   /* the timed-metadata tracks the plan keeps */
    int track_meta;           /* the video track's own meta was copied */
    uint32_t items;           /* source mdta items copied */
    sy__frame_path path;      /* the shared frame path (a renderer with a recipe) */
    uint32_t copy_x, copy_y;  /* frames as the decoder's samples: the rectangle's top-left in the frame */
    int stored;               /* ... of a turned track, as stored: the output keeps the source's matrix */
    uint8_t *rendered;
    size_t rendered_stride;
} job;

/* ---- video packets ---- */

static sy_status write_held(job *j, uint32_t duration, sy_error *err) {
    int64_t offset = j->held_pts - j->held_dts;
    if (offset < INT32_MIN || offset > INT32_MAX)
        return sy__fail(err, SY_E_CODEC, "sy_video_transcode: composition offset %lld out of range", (long long)offset);
    sy_status st = sy_mov_writer_add_sample(j->writer, j->video_id, j->held, j->held_len, duration, (int32_t)offset,
                                            (int)j->held_key, err);
    if (st != SY_OK) return st;
    j->packets++;
    double ahead = (double)(j->held_dts - j->first_dts) / j->timescale + SY__AUDIO_LEAD_SECONDS;
    st = sy__copied_track_pump(j->ctx, j->writer, &j->audio, ahead, err);
    return st == SY_OK ? sy__movie_timed_pump(j->ctx, j->writer, &j->timed, ahead, err) : st;
}

static sy_status on_packet(void *user, const sy_video_packet *p, sy_error *err) {
    job *j = user;
    if (j->have_held) {
        if (p->dts <= j->held_dts)
            return sy__fail(err, SY_E_CODEC, "sy_video_transcode: encoder dts not increasing (%lld after %lld)",
                            (long long)p->dts, (long long)j->held_dts);
        int64_t delta = p->dts - j->held_dts;
        if (delta > UINT32_MAX) return sy__fail(err, SY_E_CODEC, "sy_video_transcode: dts gap %lld", (long long)delta);
        sy_status st = write_held(j, (uint32_t)delta, err);
        if (st != SY_OK) return st;
    } else {
        j->first_dts = p->dts;
        j->min_pts = p->pts;
    }
    if (p->pts < j->min_pts) j->min_pts = p->pts;
    if (p->size > j->held_cap) {
        uint8_t *grown = sy__alloc(j->ctx, p->size, 1, "encoded packet", err);
        if (!grown) return err ? err->code : SY_E_BUDGET;
        sy__free(j->ctx, j->held);
        j->held = grown;
        j->held_cap = p->size;
    }
    memcpy(j->held, p->data, p->size);
    j->held_len = p->size;
    j->held_pts = p->pts;
    j->held_dts = p->dts;
    j->held_key = p->keyframe;
    j->have_held = 1;
    return SY_OK;
}

/* ---- the job ---- */

/* The source's mean frame interval (media timescale units): the rate the
 * encoder's rate control plans for. */
static uint32_t constant_frame_duration(const sy_video_reader_info *vi) {
    if (vi->frame_count == 0 || vi->frame_rate <= 0) return vi->timescale / 30 ? vi->timescale / 30 : 1;
    double mean = vi->timescale / vi->frame_rate;
    uint32_t d = (uint32_t)(mean + 0.5);
    return d ? d : 1;
}

/* A matrix the encoder converts with: BT.709 (1), BT.601 (5, 6), BT.2020 NCL (9); others decode as BT.601. */
static uint16_t encodable_matrix(uint16_t code) { return code == 1 || code == 5 || code == 6 || code == 9 ? code : 6; }

/* Whether the frames can reach the encoder as the decoder's samples: nobody
 * watches them as RGB, the recipe (if any) only crops, at even offsets, an
 * upright 8- or 10-bit track, and the output says the colour the samples are
 * in (the encoder names the matrices it keeps; an unnamed one is BT.601
 * either way). An HDR (HLG, PQ) movie that comes this way keeps its signal:
 * a 10-bit encode with its own colour description, no tone mapping and no
 * consent needed. A turned HDR track (an iPhone's portrait movie) with no
 * recipe comes as stored, and the output keeps its matrix (j->stored; an SDR
 * one is turned upright through RGB, as issue 4 has it). Anamorphic samples
 * (sar_num != sar_den) never come this way: the output has square pixels at
 * the displayed size, what every player shows alike (many ignore `pasp`) and
 * what a Live movie must be to match its still. Sets
 * j->copy_x, copy_y to the rectangle's top-left. */
static int keeps_samples(job *j, const sy_video_reader_info *vi, const sy_video_transcode_options *o) {
    uint16_t m = vi->matrix;
    j->stored = !j->path.renderer && (vi->rotation || vi->mirrored) && sy__cicp_is_hdr_transfer(vi->transfer) &&
                !((vi->coded_width | vi->coded_height) & 1);
    if (o->observer || ((vi->rotation || vi->mirrored) && !j->stored) || vi->sar_num != vi->sar_den ||
        (vi->bit_depth != 8 && vi->bit_depth != 10) ||
        vi->chroma_format != 1 || encodable_matrix(m) != (m == 2 ? 6 : m))
        return 0;
    j->copy_x = j->copy_y = 0;
    if (j->path.renderer && !sy__renderer_copies_rect(j->path.renderer, &j->copy_x, &j->copy_y)) return 0;
    return ((j->copy_x | j->copy_y) & 1) == 0;
}

/* The renderer's output frame (made only when a frame needs the renderer). */
static sy_status make_rendered(job *j, sy_error *err) {
    j->rendered = sy__alloc(j->ctx, j->rendered_stride, j->path.frame_height, "rendered frame", err);
    return j->rendered ? SY_OK : err ? err->code : SY_E_BUDGET;
}

/* Where the output's presentation ends, in ticks from the first frame shown:
 * where the source's does (its edit's end, else its media duration: ffmpeg's
 * B-frame stts sums to the frames' count while its edit starts two frames
 * in, ours lengthens the last sample to the presentation's end — the edit
 * says it either way), or one mean interval past the last frame for a track
 * whose duration does not cover its own frames. */
static int64_t presentation_end(const sy_video_reader_info *vi, const sy__shown_span *span, int64_t first_pts,
                                int64_t last_pts) {
    int64_t end = span->end - first_pts;
    int64_t last = last_pts - first_pts;
    return end > last ? end : last + constant_frame_duration(vi);
}

/* A source whose edit list shows several spans: the video track gets that
 * list again, its media times moved by `video_shift` (the source's time of
 * the output's media time 0); copied sound with such a list of its own keeps
 * it as it is (its samples keep their times). */
static sy_status keep_source_edits(job *j, uint32_t video_track, int64_t video_shift, uint32_t movie_timescale,
                                   sy_error *err) {
    sy_mov_writer_edit *list = NULL;
    uint32_t n = 0;
    sy_status st = sy__shown_spans_mapped(j->ctx, j->source, video_track, movie_timescale, video_shift, &list, &n, err);
    if (st == SY_OK && n) st = sy_mov_writer_set_edit_list(j->writer, j->video_id, list, n, err);
    sy__free(j->ctx, list);
    list = NULL;
    if (st != SY_OK || !j->audio.out_id || !sy__shown_spans_several(j->source, (uint32_t)j->audio_track)) return st;
    st = sy__shown_spans_mapped(j->ctx, j->source, (uint32_t)j->audio_track, movie_timescale, 0, &list, &n, err);
    if (st == SY_OK && n) st = sy_mov_writer_set_edit_list(j->writer, j->audio.out_id, list, n, err);
    sy__free(j->ctx, list);
    return st;
}

/* The staged frame's HDR10+ message, its source picture's: as it is, unless
 * a crop would leave the extra windows of a multi-window message (corners in
 * the source's pixels) pointing elsewhere — then none, counted as dropped. */
static sy_status stage_hdr10plus(const sy_video_reader *reader, sy_video_encoder *enc, int whole, uint32_t *kept,
                                 uint32_t *dropped, sy_error *err) {
    size_t len = 0;
    const uint8_t *message = sy__video_reader_hdr10plus(reader, &len);
    if (!message) return SY_OK;
    sy__hdr10plus m;
    if (!whole && (!sy__hdr10plus_parse(message, len, &m) || m.windows > 1)) {
        (*dropped)++;
        return SY_OK;
    }
    (*kept)++;
    return sy__video_encoder_stage_t35(enc, message, len, err);
}

/* ---- the frame ahead ----
 *
 * Frame k + 1 is decoded and rendered through the frame path on a helper
 * thread while x265 takes frame k (already converted into the encoder's own
 * planes, so the reader's and the renderer's buffers are free). x265 with one
 * frame thread leaves part of the second core idle while it waits for its
 * wavefront rows; the decode and the render fill it. The frames reach the
 * encoder, the observer and the marker in the same order as before, on the
 * calling thread, so the output is byte for byte what a sequential loop
 * writes (TranscodeDeterminismTests). */
typedef struct ahead {
    job *j;
    sy_video_reader *reader;
    sy_video_frame frame;
    const uint8_t *rgb;      /* the frame as the encoder takes it: rendered or the reader's */
    size_t stride;
    const sy__yuv *samples;  /* or the reader's samples (rgb NULL) */
    int end;
    sy_status st;
    sy_error err;
} ahead;

static void fetch_ahead(ahead *a) {
    a->end = 0;
    memset(&a->err, 0, sizeof a->err);
    a->st = sy_video_reader_next(a->reader, &a->frame, &a->end, &a->err);
    if (a->st != SY_OK || a->end) return;
    a->rgb = a->frame.rgb;
    a->stride = a->frame.stride;
    a->samples = a->rgb ? NULL : sy__video_reader_samples(a->reader);
    if (a->samples) return;
    if (a->j->path.renderer && !a->j->rendered && (a->st = make_rendered(a->j, &a->err)) != SY_OK) return;
    if (a->j->path.renderer) {
        a->st = sy__frame_path_render(&a->j->path, &a->frame, a->j->rendered, a->j->rendered_stride, &a->err);
        a->rgb = a->j->rendered;
        a->stride = a->j->rendered_stride;
    }
}

static void *fetch_main(void *arg) {
    fetch_ahead(arg);
    return NULL;
}

static sy_status take_ahead(const ahead *a, sy_error *err) {
    if (a->st != SY_OK && err) *err = a->err;
    return a->st;
}

static sy_status run(job *j, sy_video_reader *reader, const char *output, const sy_video_transcode_options *o,
                     uint32_t container, sy_video_transcode_report *rep, sy_error *err) {
    const sy_video_reader_info *vi = sy_video_reader_info_get(reader);
    /* chosen here, not left to the writer's default: edits and the marker are in these ticks */
    uint32_t movie_timescale = container == QT ? 600 : 1000;
    /* The shared frame path; the encoder reads width*3 bytes per row, so a
     * dropped odd column/row needs no copy. */
    sy_status st = sy__frame_path_open(j->ctx, o->recipe, vi, &j->path, err);
    if (st != SY_OK) return st;
    j->rendered_stride = (size_t)j->path.frame_width * 3;
    int samples = keeps_samples(j, vi, o) &&
                  (j->stored ? sy__video_reader_keep_stored_samples(reader) : sy__video_reader_keep_samples(reader));
    /* SPEC E6: an HDR movie that cannot come as samples becomes SDR, which
     * needs consent, asked before anything is written. */
    int hdr = sy__cicp_is_hdr_transfer(vi->transfer), keeps_hdr = hdr && samples;
    if (hdr && !samples && (st = sy__video_check_sdr_consent(vi, j->input, "this re-encode", o->allow_sdr, err)) != SY_OK)
        return st;
    if (j->path.renderer && !samples && (st = make_rendered(j, err)) != SY_OK) return st;
    uint32_t out_width = j->path.width, out_height = j->path.height;
    if (samples && j->stored) out_width = vi->coded_width, out_height = vi->coded_height;
    if (out_width < 64 || out_height < 64)
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: %ux%u video is too small to encode (64x64 at least)", j->input,
                        j->path.frame_width, j->path.frame_height);
    sy_video_encoder_options eo;
    sy_video_encoder_options_init(&eo);
    eo.width = out_width;
    eo.height = out_height;
    eo.timescale = vi->timescale;
    eo.frame_duration = constant_frame_duration(vi);
    eo.bitrate = o->bitrate ? o->bitrate : sy_video_bitrate_c14(out_width, out_height);
    if (o->preset) eo.preset = o->preset;
    eo.threads = o->threads;
    /* Keep the source's colour description, and re-derive YCbCr with the
     * matrix the reader decoded with, so the output's planes match the
     * source's: a stream that names no matrix was decoded as BT.601 (what
     * decoders assume), and the output says so explicitly. Samples are
     * encoded at their own depth (an HDR movie's 10 bits with its HLG / PQ
     * description). An HDR source that comes as RGB reaches the 8-bit
     * encoder tone-mapped to Display P3: the output is SDR P3 as an iPhone's
     * Live movie is (BT.709 transfer and matrix, limited range). */
    int sdr = hdr && !keeps_hdr;
    eo.bit_depth = samples ? vi->bit_depth : 8;
    eo.primaries = keeps_hdr ? vi->primaries : sy__video_frame_primaries(vi);
    eo.transfer = sdr ? 1 : vi->transfer;
    eo.matrix = sdr ? 1 : encodable_matrix(vi->matrix);
    eo.full_range = sdr ? 0 : vi->full_range;
    if (keeps_hdr) eo.hdr = vi->hdr; /* the mastering display and light levels go with the HDR */
    /* the samples kept whole: not cropped (a turned track's as stored) */
    int whole = samples && j->copy_x == 0 && j->copy_y == 0 &&
                out_width == (j->stored ? vi->coded_width : vi->width) &&
                out_height == (j->stored ? vi->coded_height : vi->height);
    /* HDR10+ goes with a PQ movie's kept HDR, picture by picture */
    int dynamic = keeps_hdr && vi->transfer == SY_CICP_TRANSFER_PQ && sy__video_reader_keep_hdr10plus(reader);
    uint32_t dynamic_kept = 0, dynamic_dropped = 0;
    /* Dolby Vision profile 8 (a base every player shows, the RPUs beside it) goes with the base's samples kept
     * whole: an RPU describes the source's picture (its active area, its levels), not a crop of it */
    int dovi = whole && vi->dolby_vision_profile == 8 && sy__video_reader_keep_dovi_rpu(reader);
    uint32_t rpus = 0;
    const sy_video_frame_marker *marker = o->metadata ? o->metadata->marker : NULL;
    /* Several shown spans (cuts, slow motion): every frame at its own time and the source's list written
     * again — not for a Live plan (its key photo counts on the timeline a viewer sees) nor for sound
     * re-encoded as AAC (its priming moves the sound's media times). Those two play the movie as a viewer
     * sees it (sy_video_cuts.h): the frames the spans show, each at its time on the movie timeline, no list
     * written; a sound with a cut of its own is cut alike, as AAC (sy__audio_source plays its list). Spans
     * one pass cannot play: the media whole, as before. */
    int audio_as_aac = j->audio_track >= 0 && o->copy_audio &&
                       sy__copied_track_should_encode(j->source, (uint32_t)j->audio_track, o->aac_audio);
    int several = sy__shown_spans_several(j->source, vi->track);
    int keep_edits = !marker && !audio_as_aac && several &&
                     sy_mov_track(j->source, vi->track)->edit_count <= SY_MOV_WRITER_MAX_EDITS;
    if (several && (marker || audio_as_aac) && (st = sy__video_reader_follow_cuts(reader, err)) != SY_OK) return st;
    int following = several && (marker || audio_as_aac) && sy__video_reader_follows_cuts(reader);
    int cut_sound = following && j->audio_track >= 0 && o->copy_audio &&
                    sy__shown_spans_several(j->source, (uint32_t)j->audio_track) &&
                    sy__audio_source_supported(j->source, (uint32_t)j->audio_track);
    /* Only what the source's edit shows is encoded, after its delay (sy_shown_span.h). */
    sy__shown_span span;
    if ((st = sy__shown_span_read(j->source, reader, movie_timescale, &span, err)) != SY_OK) return st;
    if (keep_edits) span.first_frame = 0;
    if (following) { /* the spans end where the presentation does, on the movie timeline */
        span.end = llround((vi->start_seconds + vi->presentation_seconds) * vi->timescale);
        span.bounded = 1;
    }
    if (marker && marker->frame > span.first_frame) /* a Live movie's key photo an IDR: the C3 check decodes from it */
        eo.keyframe_at = marker->frame - span.first_frame;
    j->timescale = eo.timescale;
    j->frame_duration = eo.frame_duration;

    sy_video_encoder *enc = NULL;
    st = sy_video_encoder_create(j->ctx, &eo, on_packet, j, &enc, err);
    if (st == SY_OK) {
        sy_mov_writer_options wo;
        sy_mov_writer_options_init(&wo);
        wo.brand = container;
        wo.movie_timescale = movie_timescale;
        if (o->copy_metadata) wo.creation_time = sy_mov_info_get(j->source)->creation_time; /* when it was shot */
        st = sy_mov_writer_open(j->ctx, output, &wo, &j->writer, err);
    }
    if (st == SY_OK) {
        sy_mov_video_track vt = {0};
        vt.codec = SY_FOURCC('h', 'v', 'c', '1');
        vt.width = eo.width;
        vt.height = eo.height;
        vt.timescale = eo.timescale;
        vt.config = sy_video_encoder_hvcc(enc, &vt.config_len);
        vt.primaries = eo.primaries;
        vt.transfer = eo.transfer;
        vt.matrix_coefficients = eo.matrix;
        vt.full_range = eo.full_range;
        vt.hdr = eo.hdr;
        const sy_mov_track_info *source = sy_mov_track(j->source, vi->track);
        if (dovi && source) { /* the configuration goes with the RPUs: same profile, level and base */
            vt.dovi_type = source->dovi_type;
            memcpy(vt.dovi, source->dovi, sizeof vt.dovi);
        }
        if (samples && j->stored && source) memcpy(vt.matrix, source->matrix, sizeof vt.matrix);
        st = sy_mov_writer_add_video(j->writer, &vt, &j->video_id, err);
    }
    if (st == SY_OK && o->copy_metadata)
        st = sy__movie_copy_track_meta(j->writer, j->source, (int32_t)vi->track, j->video_id, &j->track_meta, err);
    if (st == SY_OK && j->audio_track >= 0 && o->copy_audio && (audio_as_aac || cut_sound))
        st = sy__copied_track_add_as_aac(j->ctx, j->writer, j->source, (uint32_t)j->audio_track, j->input, &j->audio,
                                         err);
    else if (st == SY_OK && j->audio_track >= 0 && o->copy_audio)
        st = sy__copied_track_add(j->writer, j->source, (uint32_t)j->audio_track, movie_timescale, &j->audio, err);
    sy__movie_written wr = {(int32_t)vi->track, j->audio.out_id ? j->audio_track : -1, j->video_id, j->audio.out_id};
    if (st == SY_OK)
        st = sy__movie_timed_add(j->ctx, j->writer, j->source, &wr, o->metadata, movie_timescale, &j->timed, err);
    if (st == SY_OK) st = sy__movie_write_metadata(j->writer, j->source, o->copy_metadata, o->metadata, &j->items, err);

    uint32_t frames = 0;
    int64_t first_pts = 0, last_pts = 0, marker_pts = -1, at = 0;
    ahead next = {.j = j, .reader = reader};
    if (st == SY_OK) {
        fetch_ahead(&next);
        st = take_ahead(&next, err);
    }
    while (st == SY_OK && !next.end) {
        sy_video_frame frame = next.frame;
        /* the frame's time: its media time, or where the cuts show it (never two frames at one tick) */
        int64_t t = following ? llround(frame.seconds * vi->timescale) : frame.pts;
        if (following && frames && t <= at) t = at + 1;
        if (span.bounded && t >= span.end) break; /* past the edit: this and every later frame hidden */
        if (frame.index < span.first_frame) { /* before the edit's start: decoded, not shown */
            fetch_ahead(&next);
            st = take_ahead(&next, err);
            continue;
        }
        if (o->observer)
            st = o->observer(o->observer_user, frames, next.rgb, next.stride, out_width, out_height, err);
        if (frames == 0) first_pts = t; /* the reader's pts increase strictly */
        last_pts = at = t;
        if (marker && (marker->frame == frame.index || (frames == 0 && marker->frame < frame.index)))
            marker_pts = t - first_pts; /* a marker on a hidden frame: the first one shown */
        if (st == SY_OK && next.samples) {
            st = sy__video_encoder_stage_samples(enc, next.samples, j->copy_x, j->copy_y, t - first_pts, err);
            if (st == SY_OK && dynamic) st = stage_hdr10plus(reader, enc, whole, &dynamic_kept, &dynamic_dropped, err);
            size_t rpu_len = 0;
            const uint8_t *rpu = dovi ? sy__video_reader_dovi_rpu(reader, &rpu_len) : NULL;
            if (st == SY_OK && rpu) {
                st = sy__video_encoder_stage_rpu(enc, rpu, rpu_len, err);
                rpus++;
            }
        } else if (st == SY_OK && eo.bit_depth != 8)
            st = sy__fail(err, SY_E_INVALID_INPUT, "%s: frame %u is not 4:2:0 at the stream's %u bits", j->input,
                          frames, vi->bit_depth);
        else if (st == SY_OK)
            st = sy__video_encoder_stage_rgb(enc, next.rgb, next.stride, t - first_pts, err);
        frames++;
        if (st != SY_OK) break;
        /* the frame is in the encoder's own planes: the reader's and the
         * renderer's buffers are free for the next one */
        pthread_t helper;
        int threaded = pthread_create(&helper, NULL, fetch_main, &next) == 0;
        st = sy__video_encoder_encode_staged(enc, err);
        if (threaded) pthread_join(helper, NULL);
        else fetch_ahead(&next);
        if (st == SY_OK) st = take_ahead(&next, err);
        sy__progress(j->ctx, "frames", frames, vi->frame_count);
    }
    int64_t end_pts = frames ? presentation_end(vi, &span, first_pts, last_pts) : 0;
    if (st == SY_OK) st = sy_video_encoder_flush(enc, err);
    if (st == SY_OK && j->have_held) { /* the last in decode order runs to the end of presentation */
        int64_t tail = end_pts - j->held_dts;
        st = write_held(j, tail > 0 && tail <= UINT32_MAX ? (uint32_t)tail : eo.frame_duration, err);
    }
    if (st == SY_OK && frames == 0) st = sy__fail(err, SY_E_INVALID_INPUT, "%s: no video frames", j->input);
    /* B-frames delay the first presentation: the edit starts the track at the
     * earliest pts on the muxer's dts-from-zero timeline (after the source's
     * delay) and ends it where the source's presentation ends. */
    if (st == SY_OK && keep_edits)
        st = keep_source_edits(j, (uint32_t)vi->track, first_pts - (j->min_pts - j->first_dts), movie_timescale, err);
    else if (st == SY_OK && (j->min_pts != j->first_dts || span.delay))
        st = sy_mov_writer_set_edit(j->writer, j->video_id, span.delay, j->min_pts - j->first_dts, err);
    if (st == SY_OK && !keep_edits)
        st = sy_mov_writer_set_presentation_end(j->writer, j->video_id, end_pts - j->first_dts, err);
    if (st == SY_OK) st = sy__copied_track_pump(j->ctx, j->writer, &j->audio, 1e300, err);
    if (st == SY_OK) st = sy__copied_track_end(&j->audio, err);
    if (st == SY_OK) st = sy__movie_timed_pump(j->ctx, j->writer, &j->timed, 1e300, err);
    double marker_seconds = -1;
    if (st == SY_OK && marker) {
        if (marker_pts < 0) marker_pts = last_pts - first_pts; /* past the last frame: the last one */
        /* on the output's movie timeline: its video starts after the source's delay, as the source's did */
        marker_seconds = (double)span.delay / movie_timescale + (double)marker_pts / eo.timescale;
        st = sy__movie_add_marker(j->writer, j->video_id, marker, movie_timescale, marker_seconds, err);
    }
    if (st == SY_OK) st = sy_mov_writer_finish(j->writer, err);
    if (st == SY_OK && rep) {
        int turned = samples && j->stored && (vi->rotation == 90 || vi->rotation == 270); /* the matrix turns it */
        rep->width = turned ? eo.height : eo.width;
        rep->height = turned ? eo.width : eo.height;
        rep->decoded_width = vi->width;
        rep->decoded_height = vi->height;
        rep->frames = j->packets;
        rep->audio_samples = j->audio.out_id ? j->audio.next : 0;
        rep->audio_codec = j->audio.out_id ? j->audio.codec : 0;
        rep->bitrate = eo.bitrate;
        rep->duration_seconds = (double)end_pts / eo.timescale;
        rep->source_codec = vi->codec;
        rep->source_rotation = vi->rotation;
        rep->marker_time = marker_seconds;
        rep->dropped = sy__movie_uncarried(j->source, &wr, &j->timed, o->metadata) | (sdr ? SY_DROPPED_HDR_VIDEO : 0) |
                       (vi->hdr10plus && (!dynamic_kept || dynamic_dropped) ? SY_DROPPED_HDR10_PLUS : 0) |
                       (vi->dolby_vision_profile && !rpus ? SY_DROPPED_DOLBY_VISION : 0);
        rep->kept = sy__movie_kept(j->source, &wr, &j->timed, o->copy_metadata, j->track_meta, j->items) |
                    (keeps_hdr ? SY_MOVIE_KEPT_HDR_VIDEO : 0) |
                    (dynamic_kept && !dynamic_dropped ? SY_MOVIE_KEPT_HDR10_PLUS : 0) |
                    (rpus ? SY_MOVIE_KEPT_DOLBY_VISION : 0);
        rep->timed_metadata_tracks = j->timed.count;
    }
    sy_video_encoder_destroy(enc);
    return st;
}

sy_status sy_video_transcode(sy_context *ctx, const char *input, const char *output,
                             const sy_video_transcode_options *opts, sy_video_transcode_report *report,
                             sy_error *err) {
    if (!ctx || !input || !output) return sy__fail(err, SY_E_USAGE, "sy_video_transcode: NULL argument");
    sy_video_transcode_options defaults;
    if (!opts) {
        sy_video_transcode_options_init(&defaults);
        opts = &defaults;
    }
    if (opts->version != 1) return sy__fail(err, SY_E_USAGE, "sy_video_transcode: options version %u", opts->version);
    uint32_t container = opts->container ? opts->container : sy__movie_container_from_path(output);
    if (container != QT && container != ISOM)
        return sy__fail(err, SY_E_USAGE, "%s: unknown movie type; use .mov or .mp4", output);
    /* An ISO MP4 has no LPCM sample entry players take (ffmpeg's MP4 muxer
     * refuses one; Android plays none): its sound is AAC-LC, as a Motion Photo's. */
    sy_video_transcode_options iso;
    if (container == ISOM && !opts->aac_audio) {
        iso = *opts;
        iso.aac_audio = 1;
        opts = &iso;
    }
    sy_status st = sy__movie_check_plan(opts->metadata, "sy_video_transcode", err);
    if (st == SY_OK) st = sy__output_check(output, &input, 1, err); /* before minutes of encoding */
    if (st != SY_OK) return st;
    if (report) memset(report, 0, sizeof *report);
    if (opts->copy_video) st = sy__movie_remux(ctx, input, output, opts, container, report, err);
    if (opts->copy_video || st != SY_OK) return st;

    job j = {.ctx = ctx, .input = input, .audio_track = -1};
    sy_video_reader *reader = NULL;
    st = sy_video_reader_open(ctx, input, -1, &reader, err);
    if (st == SY_OK) st = sy_mov_open(ctx, input, &j.source, err);
    if (st == SY_OK) j.audio_track = sy__movie_first_audio(j.source);
    if (st == SY_OK) st = run(&j, reader, output, opts, container, report, err);
    if (st == SY_OK && report) {
        struct stat info;
        if (stat(output, &info) == 0) report->bytes_written = (uint64_t)info.st_size;
    }
    sy_mov_writer_destroy(j.writer); /* removes the temporary file unless finished */
    sy__free(ctx, j.held);
    sy__free(ctx, j.rendered);
    sy__frame_path_close(&j.path);
    sy__copied_track_free(ctx, &j.audio);
    sy__movie_timed_free(ctx, &j.timed);
    sy_mov_close(j.source);
    sy_video_reader_close(reader);
    return st;
}

/* The outcome from the movie's facts: a fresh reader keeps any picture that
 * keeps_samples lets through (as stored for a turned track), so only the
 * facts and the recipe's frame path decide. */
sy_status sy__video_transcode_hdr_outcome_of(sy_context *ctx, const sy_video_reader_info *vi,
                                            const sy_video_transcode_options *opts, int *outcome, sy_error *err) {
    int hdr = sy__cicp_is_hdr_transfer(vi->transfer);
    *outcome = hdr ? 1 : 0;
    if (!hdr || opts->copy_video) return SY_OK; /* a remux keeps whatever the movie is */
    job j = {.ctx = ctx};
    sy_status st = sy__frame_path_open(ctx, opts->recipe, vi, &j.path, err);
    if (st == SY_OK && !keeps_samples(&j, vi, opts)) *outcome = -1;
    sy__frame_path_close(&j.path);
    return st;
}

sy_status sy_video_transcode_hdr_outcome(sy_context *ctx, const char *input, const sy_video_transcode_options *opts,
                                         int *outcome, sy_error *err) {
    if (!ctx || !input || !outcome) return sy__fail(err, SY_E_USAGE, "sy_video_transcode_hdr_outcome: NULL argument");
    *outcome = 0;
    sy_video_transcode_options defaults;
    if (!opts) {
        sy_video_transcode_options_init(&defaults);
        opts = &defaults;
    }
    sy_video_reader *reader = NULL;
    sy_status st = sy_video_reader_open(ctx, input, -1, &reader, err);
    if (st == SY_OK) st = sy__video_transcode_hdr_outcome_of(ctx, sy_video_reader_info_get(reader), opts, outcome, err);
    sy_video_reader_close(reader);
    return st;
}
