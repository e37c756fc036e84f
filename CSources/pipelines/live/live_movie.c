/* live_movie.c — the movie side of a Live pair: reading its identifier and
 * still-image time (container only), and the metadata plan a Live save hands
 * to the transcoder. */
#include <string.h>

#include "base/sy_internal.h"
#include "base/sy_fourcc.h"
#include "sy_mov.h"
#include "sy_live.h"
#include "live/sy_live_movie.h"

/* The still-image-time sample's value: int8 -1 (live-photo.md §4.3). */
static const uint8_t still_marker_value[1] = {0xFF};

void sy__live_movie_plan_init(sy__live_movie_plan *p, const char *content_identifier, int32_t still_frame) {
    memset(p, 0, sizeof *p);
    p->drop[0] = SY__LIVE_CONTENT_ID_KEY;
    p->add[0] = (sy_video_mdta_item){SY__LIVE_CONTENT_ID_KEY, 1, content_identifier, strlen(content_identifier)};
    p->plan.drop = p->drop;
    p->plan.drop_count = 1;
    p->plan.add = p->add;
    p->plan.add_count = 1;
    p->plan.copy_timed_metadata = 1; /* frame times are kept: Apple's per-frame metadata stays true to them */
    if (still_frame >= 0) {
        p->marker = (sy_video_frame_marker){SY__LIVE_STILL_TIME_KEY, 65, still_marker_value, sizeof still_marker_value,
                                            (uint32_t)still_frame};
        p->plan.marker = &p->marker;
    }
}

/* Movie-timeline seconds of the mebx track's first sample: empty edits
 * shift it, the first real edit's media time is subtracted (live-photo.md
 * §4.4), as every track's times are read (sy_mov_timeline). */
static sy_status still_time_of(sy_mov *mov, uint32_t t, double *seconds, sy_error *err) {
    sy_mov_sample_info s;
    sy_mov_timeline tl;
    sy_status st = sy_mov_sample(mov, t, 0, &s, err);
    if (st == SY_OK) st = sy_mov_track_timeline(mov, t, &tl, err);
    if (st == SY_OK) *seconds = sy_mov_timeline_seconds(&tl, s.pts);
    return st;
}

sy_status sy_live_movie_read(sy_context *ctx, const char *path, sy_live_movie_info *out, sy_error *err) {
    if (!ctx || !path || !out) return sy__fail(err, SY_E_USAGE, "sy_live_movie_read: NULL argument");
    memset(out, 0, sizeof *out);
    out->video_track = out->still_track = -1;
    out->still_time = -1;
    sy_mov *mov = NULL;
    sy_status st = sy_mov_open(ctx, path, &mov, err);
    if (st != SY_OK) return st;
    int32_t item = sy_mov_metadata_find(mov, SY__LIVE_CONTENT_ID_KEY);
    const uint8_t *value = NULL;
    size_t len = 0;
    if (item >= 0 && sy_mov_metadata_at(mov, (uint32_t)item, NULL, NULL, &value, &len) == SY_OK) {
        out->has_identifier = 1;
        if (len > sizeof out->content_identifier - 1) len = sizeof out->content_identifier - 1;
        memcpy(out->content_identifier, value, len);
        out->content_identifier[len] = 0;
    }
    out->video_track = sy_mov_main_video_track(mov);
    sy_mov_timeline video; /* zeroed when its samples cannot be read: the frames' reader says why */
    if (out->video_track >= 0) {
        (void)sy_mov_track_timeline(mov, (uint32_t)out->video_track, &video, NULL);
        out->duration = video.start + sy_mov_track(mov, (uint32_t)out->video_track)->duration_seconds;
    }
    for (uint32_t t = 0; t < sy_mov_track_count(mov) && st == SY_OK && !out->has_still_time; t++) {
        const sy_mov_track_info *ti = sy_mov_track(mov, t);
        if (ti->codec != SY_FOURCC('m', 'e', 'b', 'x') || ti->sample_count == 0) continue;
        for (uint32_t k = 0; k < sy_mov_mebx_key_count(mov, t); k++) {
            const sy_mov_mebx_key *key = sy_mov_mebx_key_at(mov, t, k);
            if (!key || !key->name || strcmp(key->name, SY__LIVE_STILL_TIME_KEY) != 0) continue;
            st = still_time_of(mov, t, &out->still_time, err);
            if (st == SY_OK) {
                out->has_still_time = 1;
                out->still_track = (int32_t)t;
            }
            break;
        }
    }
    sy_mov_close(mov);
    return st;
}

int sy__live_movie_playable(const sy_video_reader_info *vi) {
    return (vi->codec == SY_FOURCC('h', 'v', 'c', '1') || vi->codec == SY_FOURCC('a', 'v', 'c', '1')) &&
           vi->chroma_format == 1;
}
