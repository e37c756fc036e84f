/* movie_timed_copy.c — the source's timed-metadata (`mebx`) tracks a Live
 * movie keeps, the video track's own `meta`, and what an output movie leaves
 * out or carries (sy_movie_copy.h).
 *
 * Frame times are kept through every Live edit (transcode.c keeps each
 * frame's source presentation time; remux.c copies the samples), so a
 * timed-metadata sample stays at the moment it describes: its track is copied
 * like audio — sample entry (the `keys` table as it is), edit list, samples
 * byte for byte with their durations — with its `tref cdsc` pointed at the
 * new id of the track it describes. The still-image-time track is not among
 * them: the plan's marker re-makes it at the new key photo. */
#include <string.h>

#include "base/sy_fourcc.h"
#include "sy_still.h"
#include "video/sy_movie_copy.h"

static int is_timed(const sy_mov_track_info *ti) {
    return ti->codec == SY_FOURCC('m', 'e', 'b', 'x') && ti->sample_count > 0 && ti->timescale > 0;
}

/* A timed track carrying the marker's key: the plan writes it anew. */
static int remade_by_marker(const sy_mov *mov, uint32_t track, const sy_video_metadata_plan *plan) {
    if (!plan || !plan->marker) return 0;
    for (uint32_t k = 0; k < sy_mov_mebx_key_count(mov, track); k++) {
        const sy_mov_mebx_key *key = sy_mov_mebx_key_at(mov, track, k);
        if (key && key->name && strcmp(key->name, plan->marker->key) == 0) return 1;
    }
    return 0;
}

/* The output id of the track a timed track describes: 0 for none,
 * UINT32_MAX when that track is not written (the description would be about
 * nothing, so the track stays out). */
static uint32_t described_out_id(const sy_mov *mov, const sy_mov_track_info *ti, const sy__movie_written *wr) {
    if (!ti->describes_id) return 0;
    if (wr->video >= 0 && sy_mov_track(mov, (uint32_t)wr->video)->id == ti->describes_id) return wr->video_out;
    if (wr->audio >= 0 && wr->audio_out && sy_mov_track(mov, (uint32_t)wr->audio)->id == ti->describes_id)
        return wr->audio_out;
    return UINT32_MAX;
}

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* One plain box of `len` bytes with a 32-bit size (what the writer copies);
 * anything else in a source is left out rather than failing the save. */
static int whole_box(const uint8_t *box, size_t len, uint32_t type) {
    return box && len >= 16 && be32(box) == len && be32(box + 4) == type;
}

static int copies(const sy_mov *mov, uint32_t track, const sy__movie_written *wr, const sy_video_metadata_plan *plan) {
    const sy_mov_track_info *ti = sy_mov_track(mov, track);
    size_t len = 0;
    const uint8_t *entry = sy_mov_sample_entry(mov, track, &len);
    return plan && plan->copy_timed_metadata && is_timed(ti) && whole_box(entry, len, ti->codec) &&
           !remade_by_marker(mov, track, plan) && described_out_id(mov, ti, wr) != UINT32_MAX;
}

sy_status sy__movie_timed_add(sy_context *ctx, sy_mov_writer *w, sy_mov *mov, const sy__movie_written *wr,
                              const sy_video_metadata_plan *plan, uint32_t movie_timescale, sy__copied_timed *out,
                              sy_error *err) {
    memset(out, 0, sizeof *out);
    uint32_t n = 0;
    for (uint32_t t = 0; t < sy_mov_track_count(mov); t++) n += (uint32_t)copies(mov, t, wr, plan);
    if (!n) return SY_OK;
    out->tracks = sy__calloc(ctx, n, sizeof *out->tracks, "copied timed-metadata tracks", err);
    if (!out->tracks) return err ? err->code : SY_E_BUDGET;
    sy_status st = SY_OK;
    for (uint32_t t = 0; st == SY_OK && t < sy_mov_track_count(mov); t++) {
        if (!copies(mov, t, wr, plan)) continue;
        sy__copied_track *c = &out->tracks[out->count];
        st = sy__copied_track_add(w, mov, t, movie_timescale, c, err);
        if (st != SY_OK) break;
        out->count++;
        uint32_t describes = described_out_id(mov, sy_mov_track(mov, t), wr);
        if (describes) st = sy_mov_writer_set_describes(w, c->out_id, describes, err);
    }
    return st;
}

sy_status sy__movie_timed_pump(sy_context *ctx, sy_mov_writer *w, sy__copied_timed *timed, double until_seconds,
                               sy_error *err) {
    sy_status st = SY_OK;
    for (uint32_t i = 0; st == SY_OK && i < timed->count; i++)
        st = sy__copied_track_pump(ctx, w, &timed->tracks[i], until_seconds, err);
    return st;
}

void sy__movie_timed_free(sy_context *ctx, sy__copied_timed *timed) {
    for (uint32_t i = 0; i < timed->count; i++) sy__copied_track_free(ctx, &timed->tracks[i]);
    sy__free(ctx, timed->tracks);
    memset(timed, 0, sizeof *timed);
}

sy_status sy__movie_copy_track_meta(sy_mov_writer *w, const sy_mov *mov, int32_t src_track, uint32_t out_id,
                                    int *copied, sy_error *err) {
    size_t len = 0;
    const uint8_t *box = src_track >= 0 ? sy_mov_track_meta(mov, (uint32_t)src_track, &len) : NULL;
    if (!whole_box(box, len, SY_FOURCC('m', 'e', 't', 'a')) || len > (1u << 20)) return SY_OK; /* left out */
    sy_status st = sy_mov_writer_set_track_meta(w, out_id, box, len, err);
    if (st == SY_OK) *copied = 1;
    return st;
}

static int timed_copied(const sy_mov *mov, uint32_t track, const sy__copied_timed *timed) {
    for (uint32_t i = 0; timed && i < timed->count; i++)
        if (timed->tracks[i].track == track && timed->tracks[i].mov == mov) return 1;
    return 0;
}

uint32_t sy__movie_uncarried(const sy_mov *mov, const sy__movie_written *wr, const sy__copied_timed *timed,
                             const sy_video_metadata_plan *plan) {
    uint32_t dropped = 0;
    for (uint32_t t = 0; t < sy_mov_track_count(mov); t++) {
        const sy_mov_track_info *ti = sy_mov_track(mov, t);
        if (ti->sample_count == 0 || (int32_t)t == wr->video || ((int32_t)t == wr->audio && wr->audio_out)) continue;
        if (ti->codec == SY_FOURCC('m', 'e', 'b', 'x')) {
            if (!timed_copied(mov, t, timed) && !remade_by_marker(mov, t, plan)) dropped |= SY_DROPPED_TIMED_METADATA;
        } else if (ti->handler == SY_FOURCC('v', 'i', 'd', 'e')) {
            dropped |= SY_DROPPED_EXTRA_VIDEO_TRACKS;
        } else if (ti->handler == SY_FOURCC('s', 'o', 'u', 'n')) {
            dropped |= SY_DROPPED_EXTRA_AUDIO_TRACKS;
        }
    }
    return dropped;
}

uint32_t sy__movie_kept(const sy_mov *mov, const sy__movie_written *wr, const sy__copied_timed *timed,
                        int copy_metadata, int track_meta_copied, uint32_t items_copied) {
    uint32_t kept = 0;
    if (wr->audio_out) kept |= SY_MOVIE_KEPT_AUDIO;
    if (items_copied) kept |= SY_MOVIE_KEPT_METADATA;
    if (copy_metadata && sy_mov_info_get(mov)->creation_time) kept |= SY_MOVIE_KEPT_CREATION_DATE;
    if (track_meta_copied) kept |= SY_MOVIE_KEPT_VIDEO_TRACK_METADATA;
    if (timed && timed->count) kept |= SY_MOVIE_KEPT_TIMED_METADATA;
    return kept;
}

const char *sy_movie_kept_name(uint32_t bit) {
    switch (bit) {
    case SY_MOVIE_KEPT_AUDIO: return "audio";
    case SY_MOVIE_KEPT_METADATA: return "movie-metadata";
    case SY_MOVIE_KEPT_CREATION_DATE: return "creation-date";
    case SY_MOVIE_KEPT_VIDEO_TRACK_METADATA: return "video-track-metadata";
    case SY_MOVIE_KEPT_TIMED_METADATA: return "timed-metadata-tracks";
    case SY_MOVIE_KEPT_HDR_VIDEO: return "hdr-video";
    case SY_MOVIE_KEPT_HDR10_PLUS: return "hdr10plus-metadata";
    case SY_MOVIE_KEPT_DOLBY_VISION: return "dolby-vision-metadata";
    default: return NULL;
    }
}
