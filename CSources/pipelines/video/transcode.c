/* transcode.c — movie in, HEVC movie out (issue 4, `shiying video transcode`).
 *
 * reader (upright RGB frames, presentation order) -> the shared frame path
 * (sy_render with the caller's recipe, the renderer every still uses) ->
 * x265 encoder (SPEC C14 bitrate) -> muxer; the first audio track is copied
 * sample-for-sample and interleaved by time, movie-level `mdta` items are
 * copied and changed as the caller's metadata plan says. Memory stays
 * bounded: the decoder's picture buffer, one RGB frame, the encoder's
 * look-ahead, one pending packet and one audio sample.
 *
 * Frame timing: the output has a constant frame rate taken from the source
 * (media duration / frame count, in the source's media timescale), so a
 * variable-rate iPhone clip becomes its nearest constant-rate equivalent of the
 * same length and audio stays in sync. Timed-metadata (`mebx`) tracks are not
 * copied: their samples describe the source's frames (a plan's frame marker
 * is written instead).
 */
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/sy_internal.h"
#include "base/sy_output.h"
#include "base/sy_fourcc.h"
#include "sy_mov.h"
#include "mov/sy_mov_writer.h"
#include "sy_video.h"
#include "video/sy_frame_path.h"

#define QT SY_FOURCC('q', 't', ' ', ' ')
#define ISOM SY_FOURCC('i', 's', 'o', 'm')
/* Audio is written up to this far ahead of the last video packet (seconds),
 * which keeps chunks interleaved the way players read them. */
#define AUDIO_LEAD_SECONDS 0.5

void sy_video_transcode_options_init(sy_video_transcode_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->version = 1;
    opts->copy_audio = 1;
    opts->copy_metadata = 1;
}

static uint32_t container_from_path(const char *path) {
    const char *dot = strrchr(path, '.');
    if (!dot) return 0;
    if (!strcasecmp(dot, ".mov") || !strcasecmp(dot, ".qt")) return QT;
    if (!strcasecmp(dot, ".mp4") || !strcasecmp(dot, ".m4v")) return ISOM;
    return 0;
}

/* The copied audio track: a second demuxer handle on the input. */
typedef struct audio_copy {
    sy_mov *mov;
    int32_t track;            /* source track index, -1 = none */
    uint32_t out_id;
    uint32_t timescale;
    uint32_t next, count;     /* next sample to copy */
    uint8_t *buffer;
    size_t cap;
    uint32_t codec;
} audio_copy;

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
    audio_copy audio;
    sy__frame_path path;      /* the shared frame path (a renderer with a recipe) */
    uint8_t *rendered;
    size_t rendered_stride;
} job;

/* ---- audio ---- */

static sy_status audio_open(job *j, sy_error *err) {
    audio_copy *a = &j->audio;
    a->track = -1;
    sy_status st = sy_mov_open(j->ctx, j->input, &a->mov, err);
    if (st != SY_OK) return st;
    for (uint32_t t = 0; t < sy_mov_track_count(a->mov); t++) {
        const sy_mov_track_info *ti = sy_mov_track(a->mov, t);
        if (ti->handler == SY_FOURCC('s', 'o', 'u', 'n') && ti->sample_count > 0 && ti->timescale > 0) {
            a->track = (int32_t)t;
            a->count = ti->sample_count;
            a->timescale = ti->timescale;
            a->codec = ti->codec;
            break;
        }
    }
    return SY_OK;
}

/* The source's edit list for the copied track: a leading empty edit and the
 * media time of the first real edit carry over (AAC priming, audio offset). */
static sy_status audio_copy_edit(job *j, uint32_t movie_timescale_out, sy_error *err) {
    audio_copy *a = &j->audio;
    const sy_mov_track_info *ti = sy_mov_track(a->mov, (uint32_t)a->track);
    const sy_mov_info *mi = sy_mov_info_get(a->mov);
    uint64_t empty_ticks = 0;
    int64_t media_time = 0;
    for (uint32_t k = 0; k < ti->edit_count && k < 2; k++) {
        uint64_t segment;
        int64_t mt;
        int32_t rate;
        sy_status st = sy_mov_edit(a->mov, (uint32_t)a->track, k, &segment, &mt, &rate, err);
        if (st != SY_OK) return st;
        if (mt < 0) {
            if (mi->timescale) empty_ticks += segment * movie_timescale_out / mi->timescale;
            continue;
        }
        media_time = mt;
        break;
    }
    if (empty_ticks == 0 && media_time == 0) return SY_OK;
    return sy_mov_writer_set_edit(j->writer, a->out_id, empty_ticks, media_time, err);
}

/* Copies audio samples whose decode time is at or before `until_seconds`. */
static sy_status audio_pump(job *j, double until_seconds, sy_error *err) {
    audio_copy *a = &j->audio;
    if (a->track < 0 || !a->out_id) return SY_OK;
    while (a->next < a->count) {
        sy_mov_sample_info s;
        sy_status st = sy_mov_sample(a->mov, (uint32_t)a->track, a->next, &s, err);
        if (st != SY_OK) return st;
        if ((double)s.dts / a->timescale > until_seconds) return SY_OK;
        if (s.size > a->cap) {
            size_t cap = s.size < 4096 ? 4096 : s.size;
            uint8_t *grown = sy__alloc(j->ctx, cap, 1, "audio sample", err);
            if (!grown) return err ? err->code : SY_E_BUDGET;
            sy__free(j->ctx, a->buffer);
            a->buffer = grown;
            a->cap = cap;
        }
        size_t len = 0;
        st = sy_mov_read_sample(a->mov, (uint32_t)a->track, a->next, a->buffer, a->cap, &len, err);
        if (st != SY_OK) return st;
        st = sy_mov_writer_add_sample(j->writer, a->out_id, a->buffer, len, s.duration, (int32_t)(s.pts - s.dts),
                                      (int)s.sync, err);
        if (st != SY_OK) return st;
        a->next++;
    }
    return SY_OK;
}

static void audio_close(job *j) {
    sy__free(j->ctx, j->audio.buffer);
    sy_mov_close(j->audio.mov);
}

/* ---- video packets ---- */

static sy_status write_held(job *j, uint32_t duration, sy_error *err) {
    int64_t offset = j->held_pts - j->held_dts;
    if (offset < INT32_MIN || offset > INT32_MAX)
        return sy__fail(err, SY_E_CODEC, "sy_video_transcode: composition offset %lld out of range", (long long)offset);
    sy_status st = sy_mov_writer_add_sample(j->writer, j->video_id, j->held, j->held_len, duration, (int32_t)offset,
                                            (int)j->held_key, err);
    if (st != SY_OK) return st;
    j->packets++;
    return audio_pump(j, (double)(j->held_dts - j->first_dts) / j->timescale + AUDIO_LEAD_SECONDS, err);
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

/* Constant frame duration from the source's mean (media timescale units). */
static uint32_t constant_frame_duration(const sy_video_reader_info *vi) {
    if (vi->frame_count == 0 || vi->duration_seconds <= 0) return vi->timescale / 30 ? vi->timescale / 30 : 1;
    double mean = vi->duration_seconds * vi->timescale / vi->frame_count;
    uint32_t d = (uint32_t)(mean + 0.5);
    return d ? d : 1;
}

uint32_t sy_video_transcode_frame_at(const sy_video_reader_info *vi, double seconds, double *frame_seconds) {
    uint32_t d = constant_frame_duration(vi);
    double k = vi->timescale ? seconds * vi->timescale / d : 0;
    uint32_t last = vi->frame_count ? vi->frame_count - 1 : 0;
    uint32_t index = k <= 0 || k != k ? 0 : k >= last ? last : (uint32_t)(k + 0.5);
    if (frame_seconds) *frame_seconds = vi->timescale ? (double)index * d / vi->timescale : 0;
    return index;
}

/* ---- the caller's metadata plan ---- */

#define MARKER_VALUE_MAX 256

static int plan_drops(const sy_video_metadata_plan *plan, const char *key) {
    for (size_t i = 0; plan && i < plan->drop_count; i++)
        if (strcmp(plan->drop[i], key) == 0) return 1;
    return 0;
}

static sy_status check_plan(const sy_video_metadata_plan *plan, sy_error *err) {
    if (!plan) return SY_OK;
    if ((plan->drop_count && !plan->drop) || (plan->add_count && !plan->add))
        return sy__fail(err, SY_E_USAGE, "sy_video_transcode: metadata plan with a count but no list");
    const sy_video_frame_marker *m = plan->marker;
    if (m && (!m->key || !m->value || m->len == 0 || m->len > MARKER_VALUE_MAX))
        return sy__fail(err, SY_E_USAGE, "sy_video_transcode: frame marker needs a key and 1 to %d value bytes",
                        MARKER_VALUE_MAX);
    return SY_OK;
}

/* Movie-level items: the source's (unless dropped), then the plan's. */
static sy_status write_metadata(job *j, const sy_video_transcode_options *o, sy_error *err) {
    const sy_video_metadata_plan *plan = o->metadata;
    sy_status st = SY_OK;
    for (uint32_t i = 0; o->copy_metadata && st == SY_OK && i < sy_mov_metadata_count(j->audio.mov); i++) {
        const char *key;
        uint32_t type;
        const uint8_t *value;
        size_t len;
        if (sy_mov_metadata_at(j->audio.mov, i, &key, &type, &value, &len) != SY_OK) continue;
        if (plan_drops(plan, key)) continue;
        st = sy_mov_writer_add_metadata(j->writer, key, type, value, len, err);
    }
    for (size_t i = 0; plan && st == SY_OK && i < plan->add_count; i++) {
        const sy_video_mdta_item *item = &plan->add[i];
        st = sy_mov_writer_add_metadata(j->writer, item->key, item->type, item->value, item->len, err);
    }
    return st;
}

/* The frame marker's track: one sample (size, key local id 1, value) lasting
 * one movie tick, placed on the movie timeline by an empty edit of the
 * marked frame's time x movie timescale. */
static sy_status add_marker_track(job *j, const sy_video_frame_marker *m, uint32_t movie_timescale, double seconds,
                                  sy_error *err) {
    uint8_t sample[8 + MARKER_VALUE_MAX];
    uint32_t size = (uint32_t)(8 + m->len);
    const uint8_t head[8] = {(uint8_t)(size >> 24), (uint8_t)(size >> 16), (uint8_t)(size >> 8), (uint8_t)size,
                             0, 0, 0, 1};
    memcpy(sample, head, sizeof head);
    memcpy(sample + sizeof head, m->value, m->len);
    sy_mov_mebx_key_spec key = {m->key, m->datatype};
    uint32_t id = 0;
    sy_status st = sy_mov_writer_add_mebx(j->writer, &key, 1, j->video_id, movie_timescale, &id, err);
    if (st == SY_OK) st = sy_mov_writer_add_sample(j->writer, id, sample, size, 1, 0, 1, err);
    uint64_t empty = (uint64_t)(seconds * movie_timescale + 0.5);
    if (st == SY_OK) st = sy_mov_writer_set_edit(j->writer, id, empty, 0, err);
    return st;
}

/* A matrix the encoder converts with: BT.709 (1), BT.601 (5, 6), BT.2020 NCL (9); others decode as BT.601. */
static uint16_t encodable_matrix(uint16_t code) { return code == 1 || code == 5 || code == 6 || code == 9 ? code : 6; }

static sy_status run(job *j, sy_video_reader *reader, const char *output, const sy_video_transcode_options *o,
                     uint32_t container, sy_video_transcode_report *rep, sy_error *err) {
    const sy_video_reader_info *vi = sy_video_reader_info_get(reader);
    /* chosen here, not left to the writer's default: edits and the marker are in these ticks */
    uint32_t movie_timescale = container == QT ? 600 : 1000;
    /* The shared frame path; the encoder reads width*3 bytes per row, so a
     * dropped odd column/row needs no copy. */
    sy_status st = sy__frame_path_open(j->ctx, o->recipe, vi, &j->path, err);
    if (st == SY_OK && j->path.renderer) {
        j->rendered_stride = (size_t)j->path.frame_width * 3;
        j->rendered = sy__alloc(j->ctx, j->rendered_stride, j->path.frame_height, "rendered frame", err);
        if (!j->rendered) st = err ? err->code : SY_E_BUDGET;
    }
    if (st != SY_OK) return st;
    uint32_t out_width = j->path.width, out_height = j->path.height;
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
     * decoders assume), and the output says so explicitly. */
    eo.primaries = vi->primaries;
    eo.transfer = vi->transfer;
    eo.matrix = encodable_matrix(vi->matrix);
    eo.full_range = vi->full_range;
    j->timescale = eo.timescale;
    j->frame_duration = eo.frame_duration;

    sy_video_encoder *enc = NULL;
    st = sy_video_encoder_create(j->ctx, &eo, on_packet, j, &enc, err);
    if (st == SY_OK) {
        sy_mov_writer_options wo;
        sy_mov_writer_options_init(&wo);
        wo.brand = container;
        wo.movie_timescale = movie_timescale;
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
        st = sy_mov_writer_add_video(j->writer, &vt, &j->video_id, err);
    }
    if (st == SY_OK && j->audio.track >= 0 && o->copy_audio) {
        st = sy_mov_writer_add_copied_track(j->writer, j->audio.mov, (uint32_t)j->audio.track, &j->audio.out_id, err);
        if (st == SY_OK) st = audio_copy_edit(j, movie_timescale, err);
    }
    if (st == SY_OK) st = write_metadata(j, o, err);

    uint32_t frames = 0;
    while (st == SY_OK) {
        sy_video_frame frame;
        int end = 0;
        st = sy_video_reader_next(reader, &frame, &end, err);
        if (st != SY_OK || end) break;
        const uint8_t *rgb = frame.rgb;
        size_t stride = frame.stride;
        if (j->path.renderer) {
            st = sy__frame_path_render(&j->path, &frame, j->rendered, j->rendered_stride, err);
            rgb = j->rendered;
            stride = j->rendered_stride;
        }
        if (st == SY_OK && o->observer)
            st = o->observer(o->observer_user, frames, rgb, stride, out_width, out_height, err);
        if (st == SY_OK) st = sy_video_encoder_push_rgb(enc, rgb, stride, (int64_t)frames * eo.frame_duration, err);
        frames++;
        sy__progress(j->ctx, "frames", frames, vi->frame_count);
    }
    if (st == SY_OK) st = sy_video_encoder_flush(enc, err);
    if (st == SY_OK && j->have_held) st = write_held(j, eo.frame_duration, err);
    if (st == SY_OK && frames == 0) st = sy__fail(err, SY_E_INVALID_INPUT, "%s: no video frames", j->input);
    /* B-frames delay the first presentation: the edit starts the track at the
     * earliest pts on the muxer's dts-from-zero timeline. */
    if (st == SY_OK && j->min_pts != j->first_dts)
        st = sy_mov_writer_set_edit(j->writer, j->video_id, 0, j->min_pts - j->first_dts, err);
    if (st == SY_OK) st = audio_pump(j, 1e300, err);
    double marker_seconds = -1;
    const sy_video_frame_marker *marker = o->metadata ? o->metadata->marker : NULL;
    if (st == SY_OK && marker) {
        uint32_t k = marker->frame < frames ? marker->frame : frames - 1;
        marker_seconds = (double)k * eo.frame_duration / eo.timescale;
        st = add_marker_track(j, marker, movie_timescale, marker_seconds, err);
    }
    if (st == SY_OK) st = sy_mov_writer_finish(j->writer, err);
    if (st == SY_OK && rep) {
        rep->width = eo.width;
        rep->height = eo.height;
        rep->frames = j->packets;
        rep->audio_samples = j->audio.out_id ? j->audio.next : 0;
        rep->audio_codec = j->audio.out_id ? j->audio.codec : 0;
        rep->bitrate = eo.bitrate;
        rep->duration_seconds = (double)frames * eo.frame_duration / eo.timescale;
        rep->source_codec = vi->codec;
        rep->source_rotation = vi->rotation;
        rep->marker_time = marker_seconds;
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
    uint32_t container = opts->container ? opts->container : container_from_path(output);
    if (container != QT && container != ISOM)
        return sy__fail(err, SY_E_USAGE, "%s: unknown movie type; use .mov or .mp4", output);
    sy_status st = check_plan(opts->metadata, err);
    if (st == SY_OK) st = sy__output_check(output, &input, 1, err); /* before minutes of encoding */
    if (st != SY_OK) return st;
    if (report) memset(report, 0, sizeof *report);

    job j = {.ctx = ctx, .input = input};
    sy_video_reader *reader = NULL;
    st = sy_video_reader_open(ctx, input, -1, &reader, err);
    if (st == SY_OK) st = audio_open(&j, err);
    if (st == SY_OK) st = run(&j, reader, output, opts, container, report, err);
    if (st == SY_OK && report) {
        struct stat info;
        if (stat(output, &info) == 0) report->bytes_written = (uint64_t)info.st_size;
    }
    sy_mov_writer_destroy(j.writer); /* removes the temporary file unless finished */
    sy__free(ctx, j.held);
    sy__free(ctx, j.rendered);
    sy__frame_path_close(&j.path);
    audio_close(&j);
    sy_video_reader_close(reader);
    return st;
}
