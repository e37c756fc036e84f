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
    if (ti && movie_scale && single && segment && segment <= (uint64_t)INT32_MAX * 1000) {
        out->end = media_time + (int64_t)((segment * vi->timescale + movie_scale / 2) / movie_scale);
        out->bounded = 1;
    }
    /* the frame shown at the edit's start: the one at its media time, or the one before, still on screen */
    return sy_video_reader_frame_at(reader, 0, &out->first_frame, NULL, err);
}
