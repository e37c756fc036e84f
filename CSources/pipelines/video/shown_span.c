/* shown_span.c — see sy_shown_span.h. */
#include <string.h>

#include "video/sy_shown_span.h"

sy_status sy__shown_span_read(sy_mov *mov, sy_video_reader *reader, uint32_t out_movie_timescale,
                              sy__shown_span *out, sy_error *err) {
    memset(out, 0, sizeof *out);
    const sy_video_reader_info *vi = sy_video_reader_info_get(reader);
    const sy_mov_track_info *ti = sy_mov_track(mov, vi->track);
    uint32_t movie_scale = sy_mov_info_get(mov)->timescale;
    out->end = vi->duration > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)vi->duration; /* ticks, not a rounded double */
    uint64_t delay, segment;
    int64_t media_time;
    int single = sy_mov_edit_span(mov, vi->track, &delay, &segment, &media_time);
    if (ti && movie_scale && delay <= (uint64_t)INT32_MAX * 1000)
        out->delay = (delay * out_movie_timescale + movie_scale / 2) / movie_scale;
    if (ti && vi->start_seconds > vi->delay_seconds && vi->start_seconds < INT32_MAX) /* its first frame later */
        out->delay = (uint64_t)(vi->start_seconds * out_movie_timescale + 0.5);
    if (ti && movie_scale && single && segment && segment <= (uint64_t)INT32_MAX * 1000) {
        out->end = media_time + (int64_t)((segment * vi->timescale + movie_scale / 2) / movie_scale);
        out->bounded = 1;
    }
    /* the frame shown when the track starts: the one at the edit's media time, or the one before, still on
     * screen */
    return sy_video_reader_frame_at(reader, vi->start_seconds, &out->first_frame, NULL, err);
}

int sy__shown_spans_several(sy_mov *mov, uint32_t track) {
    const sy_mov_track_info *ti = sy_mov_track(mov, track);
    uint32_t shown = 0;
    for (uint32_t k = 0; ti && k < ti->edit_count && shown < 2; k++) {
        uint64_t segment;
        int64_t media_time;
        int32_t rate;
        if (sy_mov_edit(mov, track, k, &segment, &media_time, &rate, NULL) == SY_OK && media_time >= 0 && segment > 0)
            shown++;
    }
    return shown >= 2;
}

sy_status sy__shown_spans_mapped(sy_context *ctx, sy_mov *mov, uint32_t track, uint32_t out_movie_timescale,
                                 int64_t media_shift, sy_mov_writer_edit **out, uint32_t *count, sy_error *err) {
    *out = NULL;
    *count = 0;
    const sy_mov_track_info *ti = sy_mov_track(mov, track);
    uint32_t movie_scale = sy_mov_info_get(mov)->timescale;
    if (!ti || ti->edit_count == 0 || movie_scale == 0) return SY_OK;
    uint32_t n = ti->edit_count > SY_MOV_WRITER_MAX_EDITS ? SY_MOV_WRITER_MAX_EDITS : ti->edit_count;
    sy_mov_writer_edit *list = sy__alloc(ctx, n, sizeof *list, "edit list", err);
    if (!list) return err ? err->code : SY_E_BUDGET;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t segment;
        int64_t media_time;
        int32_t rate;
        sy_status st = sy_mov_edit(mov, track, k, &segment, &media_time, &rate, err);
        if (st != SY_OK) {
            sy__free(ctx, list);
            return st;
        }
        unsigned __int128 scaled = ((unsigned __int128)segment * out_movie_timescale + movie_scale / 2) / movie_scale;
        list[k].segment = scaled > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : (uint64_t)scaled;
        list[k].media_time = media_time < 0 ? -1 : media_time > media_shift ? media_time - media_shift : 0;
        list[k].rate = rate;
    }
    *out = list;
    *count = n;
    return SY_OK;
}
