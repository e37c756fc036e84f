/* audio_sequence.c — segments of movies' sound on one AAC-LC track
 * (sy_audio.h): silence between them, each resampled to the track's rate
 * and mapped to its channels, encoded in 1024-frame blocks as the video
 * advances. */
#include <math.h>
#include <string.h>

#include "audio/sy_audio.h"
#include "base/sy_fourcc.h"

#define WINDOW_FRAMES 4096u  /* source frames held for interpolation */
#define BLOCK_FRAMES 1024u   /* output frames generated at once: one AAC block */
#define NO_END UINT64_MAX

struct sy__audio_sequence {
    sy_context *ctx;
    sy_mov_writer *w;
    sy__aac_encoder *enc;
    uint32_t id, rate, channels, packets;
    sy__audio_segment *segments;
    uint32_t count, cur;       /* the segment playing or next to play */
    uint64_t produced;         /* output frames so far */
    uint64_t end;              /* output frames in all, NO_END = until the last segment ends */
    int ended;                 /* every segment has played and no total was given */
    /* the current segment's source */
    sy_mov *own;               /* opened here (NULL when the segment lends one) */
    sy__audio_source *src;
    uint32_t src_rate, src_channels;
    int src_done;              /* its sound has ended */
    float *window;             /* source frames [window_base, window_base + window_len) */
    uint64_t window_base;
    uint32_t window_len;
    float *block;              /* BLOCK_FRAMES output frames */
};

static const uint32_t aac_rates[] = {96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000};

static int32_t sound_track(const sy_mov *mov) {
    for (uint32_t t = 0; t < sy_mov_track_count(mov); t++)
        if (sy__audio_source_supported(mov, t)) return (int32_t)t;
    return -1;
}

/* The segment's movie and track; `own` gets a movie opened here. */
static sy_status open_movie(sy_context *ctx, const sy__audio_segment *s, sy_mov **mov, sy_mov **own, int32_t *track,
                            sy_error *err) {
    *own = NULL;
    *mov = s->mov;
    if (!*mov) {
        sy_status st = sy_mov_open(ctx, s->movie, own, err);
        if (st != SY_OK) return st;
        *mov = *own;
    }
    *track = s->track >= 0 ? s->track : sound_track(*mov);
    if (*track < 0 || !sy__audio_source_supported(*mov, (uint32_t)*track)) {
        sy_mov_close(*own);
        *own = NULL;
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: no sound track that can be decoded (LPCM or AAC)",
                        s->movie ? s->movie : "movie");
    }
    return SY_OK;
}

static void close_source(sy__audio_sequence *q) {
    sy__free(q->ctx, q->window);
    q->window = NULL;
    sy__audio_source_close(q->src);
    sy_mov_close(q->own);
    q->src = NULL;
    q->own = NULL;
    q->src_done = 0;
    q->window_base = 0;
    q->window_len = 0;
}

static sy_status open_source(sy__audio_sequence *q, sy_error *err) {
    const sy__audio_segment *s = &q->segments[q->cur];
    sy_mov *mov = NULL;
    int32_t track = -1;
    sy_status st = open_movie(q->ctx, s, &mov, &q->own, &track, err);
    if (st == SY_OK) st = sy__audio_source_open(q->ctx, mov, (uint32_t)track, s->movie ? s->movie : "movie", &q->src, err);
    if (st == SY_OK) {
        q->src_rate = sy__audio_source_rate(q->src);
        q->src_channels = sy__audio_source_channels(q->src);
        size_t need = (size_t)WINDOW_FRAMES * q->src_channels;
        q->window = sy__alloc(q->ctx, need, sizeof(float), "audio window", err);
        if (!q->window) st = err ? err->code : SY_E_BUDGET;
    }
    if (st != SY_OK) close_source(q);
    return st;
}

/* Makes the window hold source frames `i` and `i` + 1 (as far as the sound goes). */
static sy_status cover(sy__audio_sequence *q, uint64_t i, sy_error *err) {
    while (!q->src_done && i + 1 >= q->window_base + q->window_len) {
        uint64_t keep_from = i < q->window_base ? q->window_base : i;
        uint64_t drop = keep_from - q->window_base;
        if (drop > q->window_len) drop = q->window_len;
        uint32_t kept = q->window_len - (uint32_t)drop;
        memmove(q->window, q->window + drop * q->src_channels, (size_t)kept * q->src_channels * sizeof(float));
        q->window_base += drop;
        q->window_len = kept;
        uint32_t got = 0;
        sy_status st = sy__audio_source_read(q->src, q->window + (size_t)kept * q->src_channels, WINDOW_FRAMES - kept,
                                             &got, err);
        if (st != SY_OK) return st;
        q->window_len += got;
        if (got == 0) q->src_done = 1;
        if (i >= q->window_base + q->window_len && !q->src_done) { /* far ahead: skip what lies between */
            q->window_base += q->window_len;
            q->window_len = 0;
        }
    }
    return SY_OK;
}

/* Source frame `i` mapped to the track's channels. */
static void frame_at(const sy__audio_sequence *q, uint64_t i, float *out) {
    const float *f = q->window + (i - q->window_base) * q->src_channels;
    uint32_t sc = q->src_channels;
    if (sc == q->channels) {
        memcpy(out, f, sc * sizeof(float));
    } else if (q->channels == 1) {
        float sum = 0;
        for (uint32_t c = 0; c < sc; c++) sum += f[c];
        out[0] = sum / (float)sc;
    } else if (sc == 1) {
        out[0] = out[1] = f[0];
    } else { /* more than two: even channels to the left, odd to the right */
        float l = 0, r = 0;
        for (uint32_t c = 0; c < sc; c++) *(c % 2 ? &r : &l) += f[c];
        out[0] = l / (float)((sc + 1) / 2);
        out[1] = r / (float)(sc / 2);
    }
}

/* Output frame `n` into out[channels]; *stop when the sequence has ended. */
static sy_status output_frame(sy__audio_sequence *q, uint64_t n, float *out, int *stop, sy_error *err) {
    double t = (double)n / q->rate;
    *stop = 0;
    for (;;) {
        if (q->cur >= q->count) {
            if (q->end == NO_END) *stop = 1;
            memset(out, 0, q->channels * sizeof(float));
            return SY_OK;
        }
        const sy__audio_segment *s = &q->segments[q->cur];
        int cut = s->end > s->start && t >= s->end;
        if (!cut && (t < s->start || t < s->from)) {
            memset(out, 0, q->channels * sizeof(float));
            return SY_OK;
        }
        if (!cut && !q->src) {
            sy_status st = open_source(q, err);
            if (st != SY_OK) return st;
        }
        double p = cut ? 0 : (t - s->start) * q->src_rate;
        uint64_t i = (uint64_t)floor(p);
        if (!cut) {
            sy_status st = cover(q, i, err);
            if (st != SY_OK) return st;
        }
        if (cut || i >= q->window_base + q->window_len) { /* this segment is over: the next one */
            close_source(q);
            q->cur++;
            continue;
        }
        double f = p - (double)i;
        frame_at(q, i, out);
        if (f > 1e-9 && i + 1 < q->window_base + q->window_len) {
            float next[2];
            frame_at(q, i + 1, next);
            for (uint32_t c = 0; c < q->channels; c++) out[c] = (float)(out[c] * (1 - f) + next[c] * f);
        }
        return SY_OK;
    }
}

static sy_status on_packet(void *user, const uint8_t *data, size_t len, uint32_t duration, sy_error *err) {
    sy__audio_sequence *q = user;
    q->packets++;
    return sy_mov_writer_add_sample(q->w, q->id, data, len, duration, 0, 1, err);
}

sy_status sy__audio_sequence_add(sy_context *ctx, sy_mov_writer *w, const sy__audio_segment *segments, uint32_t count,
                                 double total_seconds, sy__audio_sequence **out, sy_error *err) {
    *out = NULL;
    if (!segments || count == 0) return sy__fail(err, SY_E_USAGE, "audio sequence: no segments");
    sy__audio_sequence *q = sy__alloc(ctx, 1, sizeof *q, "audio sequence", err);
    if (!q) return err ? err->code : SY_E_BUDGET;
    memset(q, 0, sizeof *q);
    q->ctx = ctx;
    q->w = w;
    q->end = NO_END;
    sy_status st = SY_OK;
    q->segments = sy__alloc(ctx, count, sizeof *segments, "audio segments", err);
    if (!q->segments) st = err ? err->code : SY_E_BUDGET;
    /* the first segment's rate when AAC has it; the most channels, at most 2 */
    for (uint32_t k = 0; k < count && st == SY_OK; k++) {
        sy_mov *mov = NULL, *own = NULL;
        int32_t track = -1;
        st = open_movie(ctx, &segments[k], &mov, &own, &track, err);
        if (st == SY_E_UNSUPPORTED && segments[k].track < 0) { /* no sound we decode: that segment is silent */
            st = SY_OK;
            continue;
        }
        if (st != SY_OK) break;
        q->segments[q->count++] = segments[k];
        const sy_mov_track_info *ti = sy_mov_track(mov, (uint32_t)track);
        if (q->count == 1) {
            q->rate = 48000;
            for (size_t r = 0; r < sizeof aac_rates / sizeof *aac_rates; r++)
                if (lround(ti->sample_rate) == (long)aac_rates[r]) q->rate = aac_rates[r];
        }
        q->channels = SY__MAX(q->channels, SY__MIN(ti->channels, 2u));
        sy_mov_close(own);
    }
    if (st == SY_OK && q->count == 0) { /* nothing to hear: no track */
        sy__audio_sequence_free(q);
        return SY_OK;
    }
    if (st == SY_OK) st = sy__aac_encoder_open(ctx, q->rate, q->channels, 0, on_packet, q, &q->enc, err);
    if (st == SY_OK) {
        q->block = sy__alloc(ctx, (size_t)BLOCK_FRAMES * q->channels, sizeof(float), "audio block", err);
        if (!q->block) st = err ? err->code : SY_E_BUDGET;
    }
    if (st == SY_OK) {
        size_t len = 0;
        const uint8_t *config = sy__aac_encoder_config(q->enc, &len);
        st = sy_mov_writer_add_aac_audio(w, q->rate, (uint16_t)q->channels, config, len,
                                         sy__aac_encoder_bitrate(q->enc), &q->id, err);
    }
    if (st == SY_OK) st = sy_mov_writer_set_alternate_group(w, q->id, 0, err);
    if (st == SY_OK && total_seconds > 0) q->end = (uint64_t)llround(total_seconds * q->rate);
    if (st != SY_OK) {
        sy__audio_sequence_free(q);
        return st;
    }
    *out = q;
    return SY_OK;
}

sy_status sy__audio_sequence_pump(sy__audio_sequence *q, double until_seconds, sy_error *err) {
    double want = ceil(until_seconds * q->rate);
    uint64_t target = want >= (double)q->end ? q->end : want <= 0 ? 0 : (uint64_t)want;
    while (!q->ended && q->produced < target) {
        uint32_t n = 0;
        int stop = 0;
        while (n < BLOCK_FRAMES && q->produced + n < target) {
            sy_status st = output_frame(q, q->produced + n, q->block + (size_t)n * q->channels, &stop, err);
            if (st != SY_OK) return st;
            if (stop) break;
            n++;
        }
        if (n) {
            sy_status st = sy__aac_encoder_push(q->enc, q->block, n, err);
            if (st != SY_OK) return st;
            q->produced += n;
        }
        if (stop) q->ended = 1;
    }
    return SY_OK;
}

sy_status sy__audio_sequence_finish(sy__audio_sequence *q, sy_error *err) {
    sy_status st = SY_OK;
    if (q->produced == 0) { /* a track needs one access unit: one frame of silence */
        memset(q->block, 0, q->channels * sizeof(float));
        st = sy__aac_encoder_push(q->enc, q->block, 1, err);
        q->produced = 1;
    }
    if (st == SY_OK) st = sy__aac_encoder_flush(q->enc, err);
    uint32_t delay = sy__aac_encoder_delay(q->enc);
    if (st == SY_OK) st = sy_mov_writer_set_edit(q->w, q->id, 0, delay, err);
    if (st == SY_OK) st = sy_mov_writer_set_presentation_end(q->w, q->id, (int64_t)(delay + q->produced), err);
    close_source(q);
    return st;
}

uint32_t sy__audio_sequence_track_id(const sy__audio_sequence *q) { return q->id; }
uint32_t sy__audio_sequence_rate(const sy__audio_sequence *q) { return q->rate; }
uint32_t sy__audio_sequence_channels(const sy__audio_sequence *q) { return q->channels; }
uint32_t sy__audio_sequence_bitrate(const sy__audio_sequence *q) { return sy__aac_encoder_bitrate(q->enc); }
uint64_t sy__audio_sequence_frames(const sy__audio_sequence *q) { return q->produced; }
uint32_t sy__audio_sequence_packets(const sy__audio_sequence *q) { return q->packets; }

void sy__audio_sequence_free(sy__audio_sequence *q) {
    if (!q) return;
    close_source(q);
    sy__free(q->ctx, q->block);
    sy__free(q->ctx, q->segments);
    sy__aac_encoder_close(q->enc);
    sy__free(q->ctx, q);
}
