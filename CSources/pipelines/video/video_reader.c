/* video_reader.c — sy_video_reader: one video track of a movie, decoded frame
 * by frame into upright RGB in presentation order (issue 4; sy_video.h).
 *
 * The demuxer (sy_mov) gives the samples in decode order; a per-codec stream
 * decoder (hevc_stream.c, h264_stream.c) turns them into pictures in display
 * order, each tagged with the decode-order index of its sample, so the frame's
 * pts is exactly the track's (stts + ctts) and never a decoder's guess. The
 * reader keeps the tags of samples sent but not yet shown (a few, bounded by
 * the DPB): a picture that comes out while an earlier-presented sample is
 * still waiting means that sample's picture was lost (damaged data) and is
 * reported naming it; a picture whose pts is not past the previous one means
 * the container's timestamps contradict the stream and is reported too.
 *
 * Samples that are not square (an anamorphic movie: 1440x1080 shown
 * 1920x1080, as the sample entry's `pasp` or else the stream's VUI says) are
 * shown at the displayed shape: each upright picture is stretched on one
 * axis by the one renderer (sy_render_stretch.h), the width for samples
 * wider than tall, the height for taller ones, so no detail is thrown away;
 * what a stream states that no player could mean (a zero, a ratio past
 * 4:1) is set aside and named in info.aspect_note.
 *
 * Memory: the codec's pictures (charged by the stream decoder), one sample
 * buffer grown to the largest sample (capped), one RGB frame and, for rotated
 * tracks, a band of converted rows, for anamorphic ones the upright picture
 * before its stretch; a decode-only reader (SPEC C3's check,
 * sy_video_reader_decode_only.h) frees the RGB frames and the band. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bmff/sy_bmff.h"
#include "sy_mov.h"
#include "sy_video.h"
#include "base/sy_video_stream.h"
#include "base/sy_hdr10plus.h"
#include "base/sy_nal.h"
#include "base/sy_hdr_static.h"
#include "base/sy_hdr_tone.h"
#include "still/sy_frame_orient.h"
#include "still/sy_orient.h"
#include "render/sy_render_stretch.h"
#include "hevc/sy_hevc.h"
#include "h264/sy_h264.h"
#include "bmff/sy_bmff_file.h"
#include "video/sy_video_reader_decode_only.h"
#include "video/sy_video_reader_gain.h"
#include "video/sy_video_reader_dynamic.h"
#include "video/sy_video_reader_samples.h"
#include "video/sy_video_reader_scale.h"
#include "video/sy_video_reader_threads.h"
#include "video/sy_video_cuts.h"

#define FCC SY_FOURCC
#define READER_SAMPLE_CAP ((size_t)64 << 20)
#define READER_MAX_PENDING 64u
/* The widest sample aspect ratio believed, either way (2:1 anamorphic lenses
 * and every VUI table entry lie well inside): past it a stated aspect is a
 * damaged or hostile field, and would make a frame many times the stream's. */
#define READER_MAX_SAR 4u

typedef struct pending {
    uint32_t tag;
    int64_t pts;
    uint8_t may_vanish;
} pending;

struct sy_video_reader {
    sy_context *ctx;
    sy_mov *mov;
    char *path;
    uint32_t track;
    sy_video_reader_info info;
    sy__vstream *dec;
    uint8_t *sample;
    size_t sample_cap;
    uint8_t *rgb;
    size_t stride;
    uint8_t *scratch; /* SY__ORIENT_BAND converted rows, rotated/mirrored tracks only */
    int halve;        /* sy__video_reader_halve: frames at half size */
    uint8_t *half;    /* the averaged luma plane when halving */
    uint32_t out_width, out_height; /* the frame's size (upright) */
    sy_renderer *shape; /* non-square samples: the upright picture stretched to the displayed shape, else NULL */
    uint8_t *upright;   /* ... that upright picture (shape_width x shape_height) */
    size_t upright_stride;
    uint32_t shape_width, shape_height;
    char aspect_note[200]; /* info.aspect_note's text */
    int no_pixels;    /* sy__video_reader_decode_only: no RGB, disposable samples before needed_pts skipped */
    uint32_t gain_scale; /* sy__video_reader_keep_gain: HDR frames come with their gain plane (0 = not asked) */
    sy__gain_plane gain;
    uint16_t content_peak;        /* PQ: where its tone mapping reaches white (sy_cicp.peak), from info.hdr */
    int64_t needed_pts;
    uint32_t resume_at; /* decode-only: after sample 0, sending resumes at this random-access sample */
    uint32_t skipped;
    int keep_samples;  /* sy__video_reader_keep_samples: 4:2:0 pictures of the track's depth as samples, not RGB */
    int stored_samples; /* ... of a turned track, as stored (sy__video_reader_keep_stored_samples) */
    sy__yuv samples;   /* the last frame's picture, held from the decoder until the next call, when it came so */
    int have_samples;
    uint32_t next_sample, emitted;
    int finished, ended;
    pending pend[READER_MAX_PENDING];
    uint32_t pend_n;
    int64_t last_pts;
    int have_last;
    sy_status failed; /* sticky: every later call repeats it */
    sy_error failure;
    int64_t *times;   /* presentation times in order, built by the first frame_at (a Live save asks twice) */
    uint32_t times_n;
    uint8_t *hdr10plus; /* sy__video_reader_keep_hdr10plus: the last frame's message (SY__HDR10PLUS_MAX bytes) */
    size_t hdr10plus_len;
    uint8_t *rpu;       /* sy__video_reader_keep_dovi_rpu: the last frame's RPU NAL unit (SY__DOVI_RPU_MAX bytes) */
    size_t rpu_len;
    sy__video_cuts *cuts; /* sy__video_reader_follow_cuts: the track's cuts played, NULL otherwise */
    sy_mov_timeline timeline; /* where the track lies on the movie timeline: frame.seconds */
};

static const char *where(const sy_video_reader *r) { return sy__short_path(r->path); }

/* Re-reports a decoder error (which starts "sample N: ..." when it can) with the file name. */
static sy_status wrap(const sy_video_reader *r, const sy_error *inner, sy_status st, sy_error *err) {
    return sy__fail_sub(err, st, inner->subcode, "%s: %s", where(r), inner->message);
}

/* Sample `index` into r->sample (grown as needed, capped). */
static sy_status read_sample(sy_video_reader *r, uint32_t index, size_t *len, sy_error *err) {
    sy_mov_sample_info si;
    sy_status st = sy_mov_sample(r->mov, r->track, index, &si, err);
    if (st != SY_OK) return st;
    if (si.size > READER_SAMPLE_CAP)
        return sy__fail(err, SY_E_BUDGET, "%s: sample %u is %u bytes, over the %zu MiB sample cap", where(r), index,
                        si.size, READER_SAMPLE_CAP >> 20);
    if (si.size > r->sample_cap) {
        size_t cap = SY__MIN(READER_SAMPLE_CAP, SY__MAX((size_t)si.size, r->sample_cap * 3 / 2));
        uint8_t *b = sy__alloc(r->ctx, cap, 1, "video sample buffer", err);
        if (!b) return err ? err->code : SY_E_BUDGET;
        if (r->sample) sy__free(r->ctx, r->sample);
        r->sample = b;
        r->sample_cap = cap;
    }
    return sy_mov_read_sample(r->mov, r->track, index, r->sample, r->sample_cap, len, err);
}

void sy_video_reader_close(sy_video_reader *r) {
    if (!r) return;
    sy_context *ctx = r->ctx;
    if (r->dec && r->have_samples) r->dec->ops->release(r->dec);
    if (r->dec) r->dec->ops->destroy(r->dec);
    if (r->sample) sy__free(ctx, r->sample);
    if (r->rgb) sy__free(ctx, r->rgb);
    if (r->scratch) sy__free(ctx, r->scratch);
    if (r->upright) sy__free(ctx, r->upright);
    sy_renderer_destroy(r->shape);
    if (r->times) sy_mov_presentation_times_free(ctx, r->times);
    sy__video_cuts_free(ctx, r->cuts);
    if (r->half) sy__free(ctx, r->half);
    if (r->hdr10plus) sy__free(ctx, r->hdr10plus);
    if (r->rpu) sy__free(ctx, r->rpu);
    sy__gain_plane_free(ctx, &r->gain);
    if (r->mov) sy_mov_close(r->mov);
    if (r->path) sy__free(ctx, r->path);
    sy__free(ctx, r);
}

const sy_video_reader_info *sy_video_reader_info_get(const sy_video_reader *r) { return r ? &r->info : NULL; }

/* HEVC sample entries: hvc1 / hev1, and Dolby Vision's dvh1 / dvhe (an hvcC
 * stream whose pictures a Dolby Vision configuration describes). */
static int hevc_entry(uint32_t c) {
    return c == FCC('h', 'v', 'c', '1') || c == FCC('h', 'e', 'v', '1') || c == FCC('d', 'v', 'h', '1') ||
           c == FCC('d', 'v', 'h', 'e');
}

/* Picks the track and checks it is a video track of a codec we decode. A
 * Dolby Vision track is one when its base layer is plain video another
 * player shows (profile 8's HDR10 / SDR / HLG base; signal compatibility
 * 1..6); profile 5's base is IPT-PQ that only a Dolby Vision decoder turns
 * into colour, and would come out as false colours. */
static sy_status choose_track(sy_video_reader *r, int32_t track, sy_error *err) {
    if (track < 0) {
        int32_t t = sy_mov_main_video_track(r->mov);
        if (t < 0) return sy__fail(err, SY_E_INVALID_INPUT, "%s: no video track", where(r));
        track = t;
    }
    if ((uint32_t)track >= sy_mov_track_count(r->mov))
        return sy__fail(err, SY_E_USAGE, "%s: track %d out of range (%u tracks)", where(r), track,
                        sy_mov_track_count(r->mov));
    const sy_mov_track_info *ti = sy_mov_track(r->mov, (uint32_t)track);
    char name[16];
    if (ti->handler != FCC('v', 'i', 'd', 'e'))
        return sy__fail(err, SY_E_USAGE, "%s: track %d is not a video track (handler '%s')", where(r), track,
                        sy_bmff_fourcc_text(ti->handler, name));
    uint32_t c = ti->codec;
    int dolby_entry = c == FCC('d', 'v', 'h', '1') || c == FCC('d', 'v', 'h', 'e');
    if ((!hevc_entry(c) && c != FCC('a', 'v', 'c', '1') && c != FCC('a', 'v', 'c', '3')) || (dolby_entry && !ti->dovi_type))
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: unsupported codec %s", where(r),
                        c ? sy_bmff_fourcc_text(c, name) : "(no sample entry)");
    if (ti->dovi_type && (ti->dovi[4] >> 4) == 0)
        return sy__fail(err, SY_E_UNSUPPORTED,
                        "%s: Dolby Vision profile %u without a base layer other players show (signal compatibility 0): "
                        "its pictures are not plain video", where(r), ti->dovi[2] >> 1);
    r->track = (uint32_t)track;
    return SY_OK;
}

static sy_status create_decoder(sy_video_reader *r, int threads, sy_error *err) {
    const sy_mov_track_info *ti = sy_mov_track(r->mov, r->track);
    int hevc = hevc_entry(ti->codec);
    uint32_t type = 0;
    size_t config_len = 0;
    const uint8_t *config = sy_mov_codec_config(r->mov, r->track, &type, &config_len);
    char name[16];
    if (!config || type != (hevc ? FCC('h', 'v', 'c', 'C') : FCC('a', 'v', 'c', 'C')))
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: '%s' track without its %s configuration", where(r),
                        sy_bmff_fourcc_text(ti->codec, name), hevc ? "hvcC" : "avcC");
    size_t first_len = 0;
    sy_status st = SY_OK;
    if (ti->sample_count && (st = read_sample(r, 0, &first_len, err)) != SY_OK) return st;
    sy_error inner = {0};
    st = hevc ? sy__hevc_stream_create(r->ctx, config, config_len, ti->sample_count ? r->sample : NULL, first_len,
                                       threads, &r->dec, &inner)
              : sy__h264_stream_create(r->ctx, config, config_len, ti->sample_count ? r->sample : NULL, first_len,
                                       threads, &r->dec, &inner);
    if (st != SY_OK) return wrap(r, &inner, st, err);
    uint8_t message[SY__HDR10PLUS_MAX];
    r->info.hdr10plus = first_len && sy__hdr10plus_from_sample(r->sample, first_len, r->dec->params.length_size, hevc,
                                                                message, sizeof message) > 0;
    return SY_OK;
}

/* ---- the samples' aspect ---- */

/* A stated aspect worth believing: both terms set, within READER_MAX_SAR. */
static int plausible_sar(uint32_t h, uint32_t v) {
    return h && v && (uint64_t)h <= (uint64_t)v * READER_MAX_SAR && (uint64_t)v <= (uint64_t)h * READER_MAX_SAR;
}

/* Adds one sentence to info.aspect_note. */
static void note_aspect(sy_video_reader *r, const char *what, uint32_t h, uint32_t v, const char *why) {
    size_t used = strlen(r->aspect_note);
    snprintf(r->aspect_note + used, sizeof r->aspect_note - used, "%s%s %u:%u ignored: %s", used ? "; " : "", what, h,
             v, why);
    r->info.aspect_note = r->aspect_note;
}

static const char *implausible(uint32_t h, uint32_t v) {
    return h && v ? "wider than 4:1 either way" : "a zero term says nothing";
}

/* The aspect the pictures are shown with (info.sar_*): the sample entry's
 * `pasp` when it has a believable one — the container's word wins over the
 * stream's, as QuickTime and ffmpeg have it — else the VUI's; square when
 * neither says. What is not believed is named in the note. */
static void judge_aspect(sy_video_reader *r, const sy_mov_track_info *ti, const sy__vstream_params *p) {
    sy_video_reader_info *in = &r->info;
    uint32_t h = 1, v = 1, vh = p->sar[0], vv = p->sar[1];
    int vui = vh || vv, vui_ok = plausible_sar(vh, vv);
    in->aspect_from = 0;
    if (ti->has_pasp && plausible_sar(ti->pasp[0], ti->pasp[1])) {
        h = ti->pasp[0], v = ti->pasp[1];
        in->aspect_from = SY_FOURCC('p', 'a', 's', 'p');
        if (vui_ok && (uint64_t)vh * v != (uint64_t)vv * h) {
            size_t used = strlen(r->aspect_note);
            snprintf(r->aspect_note + used, sizeof r->aspect_note - used,
                     "%sthe stream's sample aspect %u:%u differs from the sample entry's pasp %u:%u: the pasp applies",
                     used ? "; " : "", vh, vv, h, v);
            in->aspect_note = r->aspect_note;
        }
    } else {
        if (ti->has_pasp) note_aspect(r, "the sample entry's pasp", ti->pasp[0], ti->pasp[1], implausible(ti->pasp[0], ti->pasp[1]));
        if (vui_ok) {
            h = vh, v = vv;
            in->aspect_from = SY_FOURCC('v', 'u', 'i', ' ');
        }
    }
    if (vui && !vui_ok && in->aspect_from != SY_FOURCC('p', 'a', 's', 'p'))
        note_aspect(r, "the stream's sample aspect", vh, vv, implausible(vh, vv));
    uint32_t g = sy__gcd32(h, v);
    in->sar_num = h / g;
    in->sar_den = v / g;
    if (in->sar_num == in->sar_den) in->aspect_from = 0; /* 1:1 said: square, nothing to do */
}

/* The displayed size of an upright picture of w x h stored samples: the
 * side the samples are long on grows (never shrinks: no detail lost), to
 * the nearest pixel, at least as large as it was. */
static void displayed_size(const sy_video_reader *r, uint32_t w, uint32_t h, uint32_t *dw, uint32_t *dh) {
    const sy_video_reader_info *in = &r->info;
    int swap = in->rotation == 90 || in->rotation == 270;
    uint64_t across = swap ? in->sar_den : in->sar_num, down = swap ? in->sar_num : in->sar_den; /* upright */
    *dw = w;
    *dh = h;
    if (across > down) *dw = (uint32_t)SY__MAX((uint64_t)w, (w * across + down / 2) / down);
    else if (down > across) *dh = (uint32_t)SY__MAX((uint64_t)h, (h * down + across / 2) / across);
}

/* Frames of upright pictures of w x h shown at the displayed shape: the
 * renderer and the picture it stretches, made for this size and put in
 * place of any earlier ones only when both are made (nothing for square
 * samples); r->out_width x out_height the frame's size. r->rgb, the frame,
 * is the caller's to size. */
static sy_status shape_frames(sy_video_reader *r, uint32_t w, uint32_t h, sy_error *err) {
    uint32_t dw, dh;
    displayed_size(r, w, h, &dw, &dh);
    sy_renderer *shape = NULL;
    uint8_t *upright = NULL;
    if (dw != w || dh != h) {
        if (dw > SY_RENDER_MAX_SIDE || dh > SY_RENDER_MAX_SIDE)
            return sy__fail(err, SY_E_BUDGET, "%s: %ux%u pictures of %u:%u samples would be shown %ux%u, over %u",
                            where(r), w, h, r->info.sar_num, r->info.sar_den, dw, dh, SY_RENDER_MAX_SIDE);
        sy_status st = sy__renderer_create_stretched(r->ctx, w, h, dw, dh, &shape, err);
        if (st != SY_OK) return st;
        if (!(upright = sy__alloc(r->ctx, (size_t)w * 3, h, "video upright picture", err))) {
            sy_renderer_destroy(shape);
            return err ? err->code : SY_E_BUDGET;
        }
    }
    sy_renderer_destroy(r->shape);
    sy__free(r->ctx, r->upright);
    r->shape = shape;
    r->upright = upright;
    r->upright_stride = (size_t)w * 3;
    r->shape_width = w;
    r->shape_height = h;
    r->out_width = dw;
    r->out_height = dh;
    return SY_OK;
}

static void fill_info(sy_video_reader *r) {
    const sy_mov_track_info *ti = sy_mov_track(r->mov, r->track);
    const sy__vstream_params *p = &r->dec->params;
    sy_video_reader_info *in = &r->info;
    in->track = r->track;
    in->codec = ti->codec;
    in->coded_width = p->width;
    in->coded_height = p->height;
    in->rotation = ti->rotation; /* sy_mov decomposes the matrix as sy_video.h states it */
    in->mirrored = ti->mirrored ? 1 : 0;
    int swap = in->rotation == 90 || in->rotation == 270;
    judge_aspect(r, ti, p);
    displayed_size(r, swap ? p->height : p->width, swap ? p->width : p->height, &in->width, &in->height);
    in->timescale = ti->timescale;
    in->frame_count = ti->sample_count;
    in->duration_seconds = ti->duration_seconds;
    in->duration = ti->duration;
    in->frame_rate = sy_mov_frame_rate(r->mov, r->track);
    /* start_pts: the first non-empty edit's media time, whatever follows it; the times on the movie's
     * timeline (sy_mov_timeline: r->timeline, read at open) */
    in->start_pts = r->timeline.media_time;
    in->delay_seconds = r->timeline.delay;
    in->start_seconds = r->timeline.start;
    in->presentation_seconds = r->timeline.shown;
    in->bit_depth = p->bit_depth;
    in->chroma_format = p->chroma;
    in->full_range = p->colour.present ? p->colour.full_range : 0;
    in->primaries = p->colour.present ? p->colour.primaries : 2;
    in->transfer = p->colour.present ? p->colour.transfer : 2;
    in->matrix = p->colour.present ? p->colour.matrix : 2;
    in->frame_primaries = sy__cicp_frame_primaries(in->primaries, in->transfer);
    in->hdr = ti->hdr;
    sy__hdr_static_merge(&in->hdr, &p->hdr);
    in->dolby_vision_profile = ti->dovi_type ? ti->dovi[2] >> 1 : 0;
    in->dolby_vision_compatibility = ti->dovi_type ? ti->dovi[4] >> 4 : 0;
    if (in->transfer == SY_CICP_TRANSFER_PQ) r->content_peak = sy__hdr_content_peak(&in->hdr);
}

sy_status sy_video_reader_open(sy_context *ctx, const char *path, int32_t track, sy_video_reader **out,
                               sy_error *err) {
    return sy__video_reader_open_threads(ctx, path, track, 0, out, err);
}

sy_status sy__video_reader_open_threads(sy_context *ctx, const char *path, int32_t track, int threads,
                                        sy_video_reader **out, sy_error *err) {
    if (!out) return sy__fail(err, SY_E_USAGE, "sy_video_reader_open: out is NULL");
    *out = NULL;
    if (!ctx || !path) return sy__fail(err, SY_E_USAGE, "sy_video_reader_open: NULL context or path");
    sy_video_reader *r = sy__calloc(ctx, 1, sizeof *r, "video reader", err);
    if (!r) return err ? err->code : SY_E_BUDGET;
    r->ctx = ctx;
    size_t plen = strlen(path);
    sy_status st = SY_OK;
    r->path = sy__alloc(ctx, plen + 1, 1, "video reader path", err);
    if (!r->path) st = err ? err->code : SY_E_BUDGET;
    else memcpy(r->path, path, plen + 1);
    if (st == SY_OK) st = sy_mov_open(ctx, path, &r->mov, err);
    if (st == SY_OK) st = choose_track(r, track, err);
    if (st == SY_OK) st = create_decoder(r, threads, err);
    if (st == SY_OK) st = sy_mov_track_timeline(r->mov, r->track, &r->timeline, err);
    if (st == SY_OK) {
        fill_info(r);
        int swap = r->info.rotation == 90 || r->info.rotation == 270;
        st = shape_frames(r, swap ? r->info.coded_height : r->info.coded_width,
                          swap ? r->info.coded_width : r->info.coded_height, err);
    }
    if (st == SY_OK) {
        size_t bytes;
        r->stride = (size_t)r->info.width * 3;
        if (!sy__mul_ok(r->stride, r->info.height, &bytes)) {
            st = sy__fail(err, SY_E_BUDGET, "%s: %ux%u frame overflows", where(r), r->info.width, r->info.height);
        } else if (!(r->rgb = sy__alloc(ctx, bytes, 1, "video RGB frame", err))) {
            st = err ? err->code : SY_E_BUDGET;
        } else if ((r->info.rotation || r->info.mirrored) &&
                   !(r->scratch = sy__alloc(ctx, (size_t)SY__ORIENT_BAND * r->info.coded_width, 3,
                                            "video rotation band", err))) {
            st = err ? err->code : SY_E_BUDGET;
        }
    }
    if (st != SY_OK) {
        sy_video_reader_close(r);
        return st;
    }
    *out = r;
    return SY_OK;
}

/* ---- time ---- */

sy_status sy_video_reader_frame_at(sy_video_reader *r, double seconds, uint32_t *index, double *frame_seconds,
                                   sy_error *err) {
    if (!r || !index) return sy__fail(err, SY_E_USAGE, "sy_video_reader_frame_at: NULL argument");
    if (!r->times) {
        sy_status st = sy_mov_presentation_times(r->ctx, r->mov, r->track, &r->times, &r->times_n, err);
        if (st != SY_OK) return st;
    }
    if (r->cuts) {
        if (r->times_n == 0) return sy__fail(err, SY_E_INVALID_INPUT, "%s: no video frames", where(r));
        sy__video_cuts_at(r->cuts, seconds + SY_VIDEO_FRAME_TIME_TOLERANCE, index, frame_seconds, NULL);
        return SY_OK;
    }
    const int64_t *pts = r->times;
    uint32_t n = r->times_n;
    if (n == 0) return sy__fail(err, SY_E_INVALID_INPUT, "%s: no video frames", where(r));
    double limit = seconds + SY_VIDEO_FRAME_TIME_TOLERANCE;
    uint32_t lo = 0, hi = n; /* first frame whose time is past the limit */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (sy_mov_timeline_seconds(&r->timeline, pts[mid]) <= limit) lo = mid + 1;
        else hi = mid;
    }
    uint32_t k = lo ? lo - 1 : 0;
    *index = k;
    if (frame_seconds) *frame_seconds = sy_mov_timeline_seconds(&r->timeline, pts[k]);
    return SY_OK;
}

/* ---- decoding loop ---- */

static sy_status send_next(sy_video_reader *r, sy_error *err) {
    uint32_t index = r->next_sample;
    if (r->pend_n == READER_MAX_PENDING)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: sample %u: no picture after %u later samples (damaged stream)",
                        where(r), r->pend[0].tag, READER_MAX_PENDING);
    sy_mov_sample_info si;
    size_t len = 0;
    sy_status st = sy_mov_sample(r->mov, r->track, index, &si, err);
    if (st == SY_OK) st = read_sample(r, index, &len, err);
    if (st != SY_OK) return st;
    if (r->no_pixels && index > 0 && index < r->resume_at) { /* before the needed frame's random-access point */
        r->skipped += r->resume_at - index;
        r->next_sample = r->resume_at;
        return SY_OK;
    }
    if (r->no_pixels && si.pts > r->info.start_pts && si.pts < r->needed_pts && r->dec->ops->disposable &&
        r->dec->ops->disposable(r->dec, r->sample, len)) {
        r->skipped++;
        r->next_sample++;
        return SY_OK;
    }
    int may_vanish = 0;
    sy_error inner = {0};
    st = r->dec->ops->send(r->dec, r->sample, len, index, &may_vanish, &inner);
    if (st != SY_OK) return wrap(r, &inner, st, err);
    r->pend[r->pend_n].tag = index;
    r->pend[r->pend_n].pts = si.pts;
    r->pend[r->pend_n].may_vanish = (uint8_t)may_vanish;
    r->pend_n++;
    r->next_sample++;
    return SY_OK;
}

/* ---- half size ---- */

/* `pic` (4:2:0) as a 4:4:4 picture of half its size: the luma averaged over
 * each 2x2 block into `luma`, the chroma planes as they are. */
static void halve_picture(const sy__yuv *pic, uint8_t *luma, sy__yuv *out) {
    uint32_t w = pic->width / 2, h = pic->height / 2;
    int wide = pic->bit_depth > 8;
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *a = pic->plane[0] + (size_t)(2 * y) * pic->stride[0], *b = a + pic->stride[0];
        if (wide) {
            const uint16_t *a16 = (const uint16_t *)a, *b16 = (const uint16_t *)b;
            uint16_t *o = (uint16_t *)luma + (size_t)y * w;
            for (uint32_t x = 0; x < w; x++)
                o[x] = (uint16_t)((a16[2 * x] + a16[2 * x + 1] + b16[2 * x] + b16[2 * x + 1] + 2) >> 2);
        } else {
            uint8_t *o = luma + (size_t)y * w;
            for (uint32_t x = 0; x < w; x++)
                o[x] = (uint8_t)((a[2 * x] + a[2 * x + 1] + b[2 * x] + b[2 * x + 1] + 2) >> 2);
        }
    }
    *out = *pic;
    out->width = w;
    out->height = h;
    out->chroma = 3;
    out->bytes = 0;
    out->plane[0] = luma;
    out->stride[0] = w * (wide ? 2u : 1u);
    for (int c = 0; c < 3; c++) {
        out->plane_width[c] = w;
        out->plane_height[c] = h;
    }
}

sy_status sy__video_reader_halve(sy_video_reader *r, uint32_t *width, uint32_t *height, sy_error *err) {
    if (!r || !width || !height) return sy__fail(err, SY_E_USAGE, "sy__video_reader_halve: NULL argument");
    const sy__vstream_params *p = &r->dec->params;
    if (!r->halve && p->chroma == 1 && p->width >= 4 && p->height >= 4 && !r->failed) {
        uint32_t w = p->width / 2, h = p->height / 2;
        int swap = r->info.rotation == 90 || r->info.rotation == 270;
        uint8_t *luma = sy__alloc(r->ctx, (size_t)w * h, p->bit_depth > 8 ? 2 : 1, "half-size video luma", err);
        if (!luma) return err ? err->code : SY_E_BUDGET;
        uint32_t ow = swap ? h : w, oh = swap ? w : h, dw, dh;
        displayed_size(r, ow, oh, &dw, &dh);
        uint8_t *rgb = sy__alloc(r->ctx, (size_t)dw * 3, dh, "half-size video RGB frame", err);
        sy_status st = rgb ? shape_frames(r, ow, oh, err) : err ? err->code : SY_E_BUDGET;
        if (st != SY_OK) {
            sy__free(r->ctx, rgb);
            sy__free(r->ctx, luma);
            return st;
        }
        sy__free(r->ctx, r->rgb);
        r->rgb = rgb;
        r->half = luma;
        r->stride = (size_t)r->out_width * 3;
        r->halve = 1;
    }
    *width = r->out_width;
    *height = r->out_height;
    return SY_OK;
}

sy_status sy__video_reader_follow_cuts(sy_video_reader *r, sy_error *err) {
    if (!r) return sy__fail(err, SY_E_USAGE, "sy__video_reader_follow_cuts: NULL reader");
    if (r->cuts || r->next_sample > 0 || r->no_pixels || r->failed) return SY_OK;
    if (!r->times) {
        sy_status st = sy_mov_presentation_times(r->ctx, r->mov, r->track, &r->times, &r->times_n, err);
        if (st != SY_OK) return st;
    }
    sy_status st = sy__video_cuts_build(r->ctx, r->mov, r->track, r->times, r->times_n, r->info.timescale, &r->cuts, err);
    if (st == SY_OK && r->cuts) r->info.presentation_seconds = sy__video_cuts_presentation(r->cuts);
    return st;
}

int sy__video_reader_follows_cuts(const sy_video_reader *r) { return r && r->cuts; }

/* The pts of the first needed frame: the smallest at or after needed_pts
 * (INT64_MAX when none is). needed_pts is a moment, e.g. a still time less a
 * tick of slack, and the frame shown then may start just after it. */
static sy_status first_needed_pts(sy_video_reader *r, const sy_mov_track_info *ti, int64_t *out, sy_error *err) {
    *out = INT64_MAX;
    for (uint32_t i = 0; i < ti->sample_count; i++) {
        sy_mov_sample_info si;
        sy_status st = sy_mov_sample(r->mov, r->track, i, &si, err);
        if (st != SY_OK) return st;
        if (si.pts >= r->needed_pts && si.pts < *out) *out = si.pts;
    }
    return SY_OK;
}

/* The last random-access sample (a sync sample the stream confirms) presented
 * at or before the first needed frame — that frame itself when it is one (a
 * Live movie's key photo, coded as an IDR) — if it comes after sample 0: the
 * needed frames' references all lie from there on, so the samples between
 * sample 0 (kept: its frame is checked too) and it are left unsent. Only
 * before anything was sent. */
static sy_status find_resume_point(sy_video_reader *r, sy_error *err) {
    r->resume_at = 0;
    const sy_mov_track_info *ti = sy_mov_track(r->mov, r->track);
    if (r->next_sample > 0 || !ti || ti->all_sync || r->needed_pts == INT64_MIN || !r->dec->ops->random_access)
        return SY_OK;
    int64_t first_needed;
    sy_status found = first_needed_pts(r, ti, &first_needed, err);
    if (found != SY_OK) return found;
    for (uint32_t i = ti->sample_count; i-- > 1;) {
        sy_mov_sample_info si;
        sy_status st = sy_mov_sample(r->mov, r->track, i, &si, err);
        if (st != SY_OK) return st;
        if (!si.sync || si.pts > first_needed) continue;
        size_t len = 0;
        if ((st = read_sample(r, i, &len, err)) != SY_OK) return st;
        if (r->dec->ops->random_access(r->dec, r->sample, len)) {
            r->resume_at = i;
            break;
        }
    }
    return SY_OK;
}

sy_status sy__video_reader_decode_only(sy_video_reader *r, double needed_from, sy_error *err) {
    if (!r) return sy__fail(err, SY_E_USAGE, "sy__video_reader_decode_only: NULL reader");
    r->no_pixels = 1;
    /* the first pts whose frame time reaches needed_from: skipped samples lie before it */
    double ticks = (needed_from - r->timeline.delay) * r->info.timescale;
    r->needed_pts = needed_from < 0 ? INT64_MIN : r->info.start_pts + (int64_t)ceil(ticks - 1e-6);
    if (r->cuts && needed_from >= 0) { /* the frame on screen then, wherever the cuts put it */
        uint32_t shown;
        sy__video_cuts_at(r->cuts, needed_from, &shown, NULL, &r->needed_pts);
    }
    sy_status st = find_resume_point(r, err);
    if (st != SY_OK) return st;
    sy__free(r->ctx, r->rgb);
    r->rgb = NULL;
    sy__free(r->ctx, r->scratch);
    r->scratch = NULL;
    sy__free(r->ctx, r->upright);
    r->upright = NULL;
    return SY_OK;
}

uint32_t sy__video_reader_skipped(const sy_video_reader *r) { return r ? r->skipped : 0; }

int sy__video_reader_keep_gain(sy_video_reader *r, uint32_t scale) {
    if (!r || r->no_pixels || scale < 1 || scale > 16 || !sy__cicp_is_hdr_transfer(r->info.transfer)) return 0;
    r->gain_scale = scale;
    r->keep_samples = 0; /* the gain comes with RGB frames */
    return 1;
}

int sy__video_reader_take_gain(sy_video_reader *r, sy__gain_plane *out) {
    memset(out, 0, sizeof *out);
    if (!r || !r->gain_scale || !r->gain.log2) return 0;
    *out = r->gain;
    memset(&r->gain, 0, sizeof r->gain);
    return 1;
}

int sy__video_reader_keep_samples(sy_video_reader *r) {
    if (!r || r->info.rotation || r->info.mirrored) return 0;
    return sy__video_reader_keep_stored_samples(r);
}

int sy__video_reader_keep_stored_samples(sy_video_reader *r) {
    if (!r || r->halve || r->no_pixels || r->shape) return 0; /* anamorphic: the samples are not the frame's shape */
    r->keep_samples = 1;
    r->stored_samples = r->info.rotation || r->info.mirrored;
    sy__free(r->ctx, r->rgb); /* made again only for a picture that cannot come as samples */
    r->rgb = NULL;
    return 1;
}

const sy__yuv *sy__video_reader_samples(const sy_video_reader *r) { return r && r->have_samples ? &r->samples : NULL; }

/* The RPU NAL unit (HEVC type 62) among a sample's, copied into r->rpu. */
static void take_rpu(sy_video_reader *r, size_t len) {
    const uint8_t *nal;
    uint32_t n;
    for (size_t pos = 0; sy__nal_next(r->sample, len, r->dec->params.length_size, &pos, &nal, &n);)
        if (n >= 3 && ((nal[0] >> 1) & 0x3F) == 62 && n <= SY__DOVI_RPU_MAX) {
            memcpy(r->rpu, nal, n);
            r->rpu_len = n;
            return;
        }
}

/* What sample `tag` (the picture just decoded) carries for the frame: its
 * HDR10+ message into r->hdr10plus, its RPU into r->rpu (each when asked). */
static sy_status frame_dynamic(sy_video_reader *r, uint32_t tag, sy_error *err) {
    size_t len = 0;
    r->hdr10plus_len = r->rpu_len = 0;
    sy_status st = read_sample(r, tag, &len, err);
    if (st != SY_OK) return st;
    if (r->hdr10plus)
        r->hdr10plus_len = sy__hdr10plus_from_sample(r->sample, len, r->dec->params.length_size, hevc_entry(r->info.codec),
                                                     r->hdr10plus, SY__HDR10PLUS_MAX);
    if (r->rpu) take_rpu(r, len);
    return SY_OK;
}

int sy__video_reader_keep_hdr10plus(sy_video_reader *r) {
    if (!r || !r->info.hdr10plus) return 0;
    if (!r->hdr10plus && !(r->hdr10plus = sy__alloc(r->ctx, SY__HDR10PLUS_MAX, 1, "HDR10+ message", NULL))) return 0;
    return 1;
}

const uint8_t *sy__video_reader_hdr10plus(const sy_video_reader *r, size_t *len) {
    *len = r && r->hdr10plus ? r->hdr10plus_len : 0;
    return *len ? r->hdr10plus : NULL;
}

int sy__video_reader_keep_dovi_rpu(sy_video_reader *r) {
    const sy_mov_track_info *ti = r ? sy_mov_track(r->mov, r->track) : NULL;
    if (!ti || !hevc_entry(r->info.codec) || !ti->dovi_type || !(ti->dovi[3] & 0x04)) return 0; /* rpu_present_flag */
    if (!r->rpu && !(r->rpu = sy__alloc(r->ctx, SY__DOVI_RPU_MAX, 1, "Dolby Vision RPU", NULL))) return 0;
    return 1;
}

const uint8_t *sy__video_reader_dovi_rpu(const sy_video_reader *r, size_t *len) {
    *len = r && r->rpu ? r->rpu_len : 0;
    return *len ? r->rpu : NULL;
}

/* Where `pts` lies in presentation order (r->times, built with the cuts). */
static uint32_t presentation_index(const sy_video_reader *r, int64_t pts) {
    uint32_t lo = 0, hi = r->times_n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->times[mid] < pts) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Turns a received picture into the next frame (or names what went wrong);
 * *hidden when a cut hides it (sy_video_cuts.h): nothing to return. */
static sy_status emit(sy_video_reader *r, const sy__yuv *pic, uint32_t tag, sy_video_frame *frame, int *hidden,
                      sy_error *err) {
    *hidden = 0;
    uint32_t j = 0;
    while (j < r->pend_n && r->pend[j].tag != tag) j++;
    if (j == r->pend_n)
        return sy__fail(err, SY_E_CODEC, "%s: sample %u: the decoder returned a picture that is not pending",
                        where(r), tag);
    int64_t pts = r->pend[j].pts;
    /* Earlier-presented samples still waiting will never be shown. */
    uint32_t kept = 0;
    for (uint32_t k = 0; k < r->pend_n; k++) {
        if (k == j) continue;
        if (r->pend[k].pts < pts) {
            if (!r->pend[k].may_vanish)
                return sy__fail(err, SY_E_INVALID_INPUT,
                                "%s: sample %u: no picture decoded (sample %u, shown later, came out first)", where(r),
                                r->pend[k].tag, tag);
            continue; /* a RASL picture the decoder skipped */
        }
        r->pend[kept++] = r->pend[k];
    }
    r->pend_n = kept;
    if (r->have_last && pts <= r->last_pts) /* ctts contradicts the stream's picture order */
        return sy__fail(err, SY_E_INVALID_INPUT,
                        "%s: sample %u: decoded after the picture at pts %lld but stamped pts %lld (the track's "
                        "timestamps disagree with the stream's picture order)",
                        where(r), tag, (long long)r->last_pts, (long long)pts);
    r->last_pts = pts;
    r->have_last = 1;
    uint32_t shown_index = r->emitted;
    double shown_seconds = sy_mov_timeline_seconds(&r->timeline, pts);
    if (r->cuts && !sy__video_cuts_frame(r->cuts, presentation_index(r, pts), &shown_index, &shown_seconds)) {
        *hidden = 1;
        return SY_OK;
    }
    if (r->hdr10plus || r->rpu) {
        sy_status st = frame_dynamic(r, tag, err);
        if (st != SY_OK) return st;
    }
    sy__yuv half, graded;
    if (r->halve && !r->no_pixels) {
        if (pic->chroma != 1)
            return sy__fail(err, SY_E_UNSUPPORTED, "%s: sample %u: the chroma format changed from 4:2:0", where(r),
                            tag);
        halve_picture(pic, r->half, &half);
        pic = &half;
    }
    uint32_t need_w = r->stored_samples ? r->info.coded_width : r->out_width;
    uint32_t need_h = r->stored_samples ? r->info.coded_height : r->out_height;
    if (r->keep_samples && !r->no_pixels && !r->halve && pic->chroma == 1 && pic->bit_depth == r->info.bit_depth &&
        pic->width >= need_w && pic->height >= need_h) {
        r->samples = *pic; /* the caller releases it at the next call, not now */
        r->have_samples = 1;
    } else if (!r->no_pixels) {
        if (!r->rgb && !(r->rgb = sy__alloc(r->ctx, r->stride, r->out_height, "video RGB frame", err)))
            return err ? err->code : SY_E_BUDGET;
        graded = *pic; /* a PQ movie's frames are tone-mapped to the peak its metadata says */
        graded.vui.peak = r->content_peak;
        pic = &graded;
        if (r->shape) { /* upright as stored, then stretched to the displayed shape */
            sy__orient_rgb(pic, r->info.rotation, r->info.mirrored != 0, r->upright, r->upright_stride, r->scratch);
            sy_pixels stored = {r->upright, r->upright_stride, r->shape_width, r->shape_height};
            sy_status st = sy_renderer_render_rows(r->shape, &stored, 0, r->out_height, r->rgb, r->stride, err);
            if (st != SY_OK) return st;
        } else {
            sy__orient_rgb(pic, r->info.rotation, r->info.mirrored != 0, r->rgb, r->stride, r->scratch);
        }
        if (r->gain_scale) {
            sy_status st = sy__gain_plane_make(r->ctx, pic, r->gain_scale, &r->gain, err);
            if (st == SY_OK && r->shape) st = sy__gain_plane_stretch(r->ctx, &r->gain, r->info.sar_num, r->info.sar_den, err);
            if (st != SY_OK) return st;
            r->gain.orientation = sy__orient_from_rotation(r->info.rotation, r->info.mirrored != 0);
        }
    }
    frame->rgb = r->have_samples ? NULL : r->rgb;
    frame->stride = r->have_samples ? 0 : r->stride;
    frame->width = r->out_width;
    frame->height = r->out_height;
    frame->index = shown_index;
    r->emitted++;
    frame->pts = pts;
    frame->seconds = shown_seconds;
    return SY_OK;
}

static sy_status step(sy_video_reader *r, sy_video_frame *frame, int *end, sy_error *err) {
    sy__vstream *d = r->dec;
    if (r->have_samples) { /* the last frame's picture, lent to the caller until now */
        d->ops->release(d);
        r->have_samples = 0;
    }
    for (;;) {
        sy_status st = sy__check_cancel(r->ctx, err);
        if (st != SY_OK) return st;
        sy__yuv pic;
        uint32_t tag = 0;
        int got = 0;
        sy_error inner = {0};
        st = d->ops->receive(d, &pic, &tag, &got, &inner);
        if (st != SY_OK) return wrap(r, &inner, st, err);
        if (got) {
            int hidden = 0;
            st = emit(r, &pic, tag, frame, &hidden, err);
            if (!r->have_samples) d->ops->release(d);
            if (st != SY_OK || !hidden) return st;
            continue; /* a frame a cut hides */
        }
        if (r->next_sample < r->info.frame_count) {
            if ((st = send_next(r, err)) != SY_OK) return st;
        } else if (!r->finished) {
            r->finished = 1;
            if ((st = d->ops->finish(d, &inner)) != SY_OK) return wrap(r, &inner, st, err);
        } else {
            for (uint32_t k = 0; k < r->pend_n; k++)
                if (!r->pend[k].may_vanish)
                    return sy__fail(err, SY_E_INVALID_INPUT, "%s: sample %u: no picture decoded", where(r),
                                    r->pend[k].tag);
            r->pend_n = 0;
            r->ended = 1;
            *end = 1;
            return SY_OK;
        }
    }
}

sy_status sy_video_reader_next(sy_video_reader *r, sy_video_frame *frame, int *end, sy_error *err) {
    if (frame) memset(frame, 0, sizeof *frame);
    if (end) *end = 0;
    if (!r || !frame || !end) return sy__fail(err, SY_E_USAGE, "sy_video_reader_next: NULL argument");
    if (r->failed) {
        if (err) *err = r->failure;
        return r->failed;
    }
    if (r->ended) {
        *end = 1;
        return SY_OK;
    }
    sy_error local = {0};
    sy_error *e = err ? err : &local;
    sy_status st = step(r, frame, end, e);
    if (st != SY_OK) {
        memset(frame, 0, sizeof *frame);
        if (st != SY_E_CANCELLED) { /* a cancelled reader can go on after sy_context_clear_cancel */
            r->failed = st;
            r->failure = *e;
        }
    }
    return st;
}
