/* remux.c — sy_video_transcode with copy_video: a new movie around the
 * source's own video samples (SPEC E2 "set as key photo", video -> Live with
 * nothing to render). Nothing is decoded or encoded, so the pixels and the
 * packets stay the source's exactly, and it takes as long as copying the file.
 *
 * The main video track is copied with its sample entry (hvcC/avcC, colour),
 * matrix (rotation stays metadata, not pixels), timing, first edit and own
 * `meta`; the first audio track and the timed-metadata tracks the plan keeps
 * are interleaved behind it as a transcode does; movie-level metadata
 * follows the plan; the plan's frame marker is placed at the marked
 * frame's presentation time on the movie timeline, frames counted in
 * presentation order (the order sy_video_reader delivers them). Memory: one
 * sample buffer per copied track and the presentation times of the video
 * samples (8 bytes each) while the marker is placed. */
#include <string.h>
#include <sys/stat.h>

#include "base/sy_internal.h"
#include "base/sy_fourcc.h"
#include "video/sy_movie_copy.h"

static sy_status frame_seconds(sy_context *ctx, const sy__copied_track *video, uint32_t index, double *seconds,
                               sy_error *err) {
    int64_t *pts = NULL;
    uint32_t n = 0;
    sy_status st = sy_mov_presentation_times(ctx, video->mov, video->track, &pts, &n, err);
    if (st == SY_OK && n) *seconds = sy__copied_track_seconds(video, pts[index < n ? index : n - 1]);
    sy_mov_presentation_times_free(ctx, pts);
    return st;
}

typedef struct remux_tracks {
    sy__copied_track video, audio;
    sy__copied_timed timed;
    int track_meta;       /* the video track's own meta was copied */
    uint32_t items;       /* source mdta items copied */
} remux_tracks;

static sy__movie_written written(const remux_tracks *k) {
    return (sy__movie_written){(int32_t)k->video.track, k->audio.out_id ? (int32_t)k->audio.track : -1,
                               k->video.out_id, k->audio.out_id};
}

static void fill_report(const sy_mov *mov, const remux_tracks *k, const sy_video_transcode_options *o,
                        uint64_t video_bytes, double marker_seconds, sy_video_transcode_report *rep) {
    const sy_mov_track_info *ti = sy_mov_track(mov, k->video.track);
    int quarter = ti->rotation == 90 || ti->rotation == 270;
    rep->width = quarter ? ti->height : ti->width;
    rep->height = quarter ? ti->width : ti->height;
    rep->decoded_width = rep->width; /* the samples copied whole */
    rep->decoded_height = rep->height;
    rep->frames = k->video.next;
    rep->audio_samples = k->audio.out_id ? k->audio.next : 0;
    rep->audio_codec = k->audio.out_id ? k->audio.codec : 0;
    rep->duration_seconds = ti->duration_seconds;
    rep->bitrate = ti->duration_seconds > 0 ? (uint64_t)((double)video_bytes * 8 / ti->duration_seconds) : 0;
    rep->source_codec = ti->codec;
    rep->source_rotation = ti->rotation;
    rep->marker_time = marker_seconds;
    sy__movie_written wr = written(k);
    rep->dropped = sy__movie_uncarried(mov, &wr, &k->timed, o->metadata);
    rep->kept = sy__movie_kept(mov, &wr, &k->timed, o->copy_metadata, k->track_meta, k->items);
    rep->timed_metadata_tracks = k->timed.count;
}

static sy_status copy_movie(sy_context *ctx, sy_mov *mov, const char *input, const char *output,
                            const sy_video_transcode_options *o, uint32_t container, sy_mov_writer **writer,
                            remux_tracks *k, sy_video_transcode_report *rep, sy_error *err) {
    sy__copied_track *video = &k->video, *audio = &k->audio;
    int32_t v = sy_mov_main_video_track(mov);
    if (v < 0 || sy_mov_track(mov, (uint32_t)v)->sample_count == 0)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: no video frames", input);
    uint32_t movie_timescale = container == SY_FOURCC('q', 't', ' ', ' ') ? 600 : 1000;
    sy_mov_writer_options wo;
    sy_mov_writer_options_init(&wo);
    wo.brand = container;
    wo.movie_timescale = movie_timescale;
    if (o->copy_metadata) wo.creation_time = sy_mov_info_get(mov)->creation_time; /* when it was shot */
    sy_status st = sy_mov_writer_open(ctx, output, &wo, writer, err);
    if (st == SY_OK) st = sy__copied_track_add(*writer, mov, (uint32_t)v, movie_timescale, video, err);
    if (st == SY_OK && o->copy_metadata)
        st = sy__movie_copy_track_meta(*writer, mov, v, video->out_id, &k->track_meta, err);
    int32_t a = o->copy_audio ? sy__movie_first_audio(mov) : -1;
    if (st == SY_OK && a >= 0 && sy__copied_track_should_encode(mov, (uint32_t)a, o->aac_audio))
        st = sy__copied_track_add_as_aac(ctx, *writer, mov, (uint32_t)a, input, audio, err);
    else if (st == SY_OK && a >= 0)
        st = sy__copied_track_add(*writer, mov, (uint32_t)a, movie_timescale, audio, err);
    sy__movie_written wr = written(k);
    if (st == SY_OK) st = sy__movie_timed_add(ctx, *writer, mov, &wr, o->metadata, movie_timescale, &k->timed, err);
    if (st == SY_OK) st = sy__movie_write_metadata(*writer, mov, o->copy_metadata, o->metadata, &k->items, err);
    /* video in decode order, audio and timed metadata up to half a second ahead of it */
    uint64_t video_bytes = 0;
    while (st == SY_OK && video->next < video->count) {
        sy_mov_sample_info s;
        if ((st = sy__check_cancel(ctx, err)) != SY_OK) break;
        if ((st = sy_mov_sample(mov, video->track, video->next, &s, err)) != SY_OK) break;
        video_bytes += s.size;
        double at = (double)s.dts / video->timescale;
        st = sy__copied_track_pump(ctx, *writer, video, at, err);
        if (st == SY_OK) st = sy__copied_track_pump(ctx, *writer, audio, at + SY__AUDIO_LEAD_SECONDS, err);
        if (st == SY_OK) st = sy__movie_timed_pump(ctx, *writer, &k->timed, at + SY__AUDIO_LEAD_SECONDS, err);
        sy__progress(ctx, "frames", video->next, video->count);
    }
    if (st == SY_OK) st = sy__copied_track_pump(ctx, *writer, audio, 1e300, err);
    if (st == SY_OK) st = sy__copied_track_end(audio, err);
    if (st == SY_OK) st = sy__movie_timed_pump(ctx, *writer, &k->timed, 1e300, err);
    double marker_seconds = -1;
    const sy_video_frame_marker *marker = o->metadata ? o->metadata->marker : NULL;
    if (st == SY_OK && marker) st = frame_seconds(ctx, video, marker->frame, &marker_seconds, err);
    if (st == SY_OK && marker)
        st = sy__movie_add_marker(*writer, video->out_id, marker, movie_timescale, marker_seconds, err);
    if (st == SY_OK) st = sy_mov_writer_finish(*writer, err);
    if (st == SY_OK && rep) fill_report(mov, k, o, video_bytes, marker_seconds, rep);
    return st;
}

sy_status sy__movie_remux(sy_context *ctx, const char *input, const char *output,
                          const sy_video_transcode_options *opts, uint32_t container,
                          sy_video_transcode_report *report, sy_error *err) {
    sy_mov *mov = NULL;
    sy_mov_writer *writer = NULL;
    remux_tracks k = {0};
    sy_status st = sy_mov_open(ctx, input, &mov, err);
    if (st == SY_OK) st = copy_movie(ctx, mov, input, output, opts, container, &writer, &k, report, err);
    if (st == SY_OK && report) {
        struct stat info;
        if (stat(output, &info) == 0) report->bytes_written = (uint64_t)info.st_size;
    }
    sy_mov_writer_destroy(writer); /* removes the temporary file unless finished */
    sy__copied_track_free(ctx, &k.video);
    sy__copied_track_free(ctx, &k.audio);
    sy__movie_timed_free(ctx, &k.timed);
    sy_mov_close(mov);
    return st;
}
