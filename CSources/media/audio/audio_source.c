/* audio_source.c — one sound track of a movie as float PCM (sy_audio.h). */
#include <math.h>
#include <string.h>

#include "audio/sy_audio.h"
#include "base/sy_fourcc.h"
#include "bmff/sy_bmff.h"

#define RUN_BYTES (64u << 10) /* source bytes read at once */
#define PIECES_MAX 256u       /* edits honoured one by one; a longer list plays its first span only */
#define RATE_ONE 0x10000
/* Empty edits are heard as silence made and encoded frame by frame: a list whose pauses add up to weeks (a
 * mutated file: 2,000,000 s) kept a re-encode busy for as long. No phone or camera movie pauses its sound for
 * ten minutes, so the pauses of one list are cut to that in all. */
#define SILENCE_MAX_SECONDS 600u

/* One edit in frames: silence (an empty edit), or `frames` of the sound from media frame `from`
 * (UINT64_MAX frames: to the end). */
typedef struct piece {
    uint64_t silence, from, frames;
} piece;

typedef struct pcm_format {
    uint32_t bytes;            /* per channel sample */
    int is_float, big_endian, is_unsigned;
} pcm_format;

struct sy__audio_source {
    sy_context *ctx;
    sy_mov *mov;
    uint32_t track;
    char label[512];
    pcm_format pcm;            /* LPCM layout (aac = 0) */
    int aac;
    sy__aac_decoder *dec;
    uint32_t channels, rate;
    uint32_t next, count;      /* next source sample */
    uint8_t *raw;              /* one run of source bytes */
    size_t raw_cap;
    float *decoded;            /* PCM converted from `raw` (LPCM) */
    size_t decoded_cap;
    const float *pending;      /* frames converted but not yet read */
    uint32_t pending_frames, pending_pos;
    piece *pieces;             /* the edit list, played in order (read_edit) */
    uint32_t piece_n, piece_at;
    uint64_t media_pos;        /* decoded frames consumed so far (dropped or given) */
    uint64_t silence;          /* the current piece: frames of silence still to give */
    uint64_t skip;             /* ... media frames still to drop before its span */
    uint64_t remaining;        /* ... frames its span still plays (UINT64_MAX = to the end) */
};

static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* The LPCM layout of a sample entry, 0 when it is not LPCM we read. */
static int lpcm_format(const sy_mov *mov, uint32_t track, pcm_format *f) {
    const sy_mov_track_info *ti = sy_mov_track(mov, track);
    size_t len = 0;
    const uint8_t *e = sy_mov_sample_entry(mov, track, &len);
    if (!ti || !e || len < 36) return 0;
    memset(f, 0, sizeof *f);
    uint32_t bits = ti->bits_per_sample;
    if (ti->codec == SY_FOURCC('s', 'o', 'w', 't') || ti->codec == SY_FOURCC('t', 'w', 'o', 's')) {
        f->big_endian = ti->codec == SY_FOURCC('t', 'w', 'o', 's');
        if (be16(e + 16) == 0) bits = be16(e + 26); /* v0: the sample size is the format */
    } else if (ti->codec == SY_FOURCC('l', 'p', 'c', 'm')) {
        if (be16(e + 16) != 2 || len < 72) return 0; /* 'lpcm' is described by sound description v2 only */
        bits = be32(e + 56);
        uint32_t flags = be32(e + 60);
        f->is_float = flags & 1;
        f->big_endian = (flags & 2) != 0;
        f->is_unsigned = !f->is_float && !(flags & 4);
        if (f->is_unsigned && bits != 8) return 0; /* unsigned wider than 8 bits */
    } else {
        return 0;
    }
    f->bytes = bits / 8;
    if (bits % 8) return 0;
    if (f->is_float) return bits == 32 || bits == 64;
    return bits == 8 || bits == 16 || bits == 24 || bits == 32;
}

int sy__audio_source_supported(const sy_mov *mov, uint32_t track) {
    const sy_mov_track_info *ti = sy_mov_track(mov, track);
    pcm_format f;
    if (!ti || ti->handler != SY_FOURCC('s', 'o', 'u', 'n') || ti->sample_count == 0 || ti->timescale == 0) return 0;
    if (ti->codec == SY_FOURCC('m', 'p', '4', 'a')) return 1;
    return lpcm_format(mov, track, &f) && ti->channels >= 1 && ti->channels <= 8 && ti->sample_rate >= 1;
}

static float sample_value(const uint8_t *p, const pcm_format *f) {
    uint8_t b[8];
    for (uint32_t i = 0; i < f->bytes; i++) b[i] = f->big_endian ? p[i] : p[f->bytes - 1 - i]; /* big-endian order */
    if (f->is_float) {
        if (f->bytes == 4) {
            uint32_t u = be32(b);
            float v;
            memcpy(&v, &u, 4);
            return isfinite(v) ? v : 0;
        }
        uint64_t u = (uint64_t)be32(b) << 32 | be32(b + 4);
        double v;
        memcpy(&v, &u, 8);
        return isfinite(v) ? (float)v : 0;
    }
    switch (f->bytes) {
    case 1: return f->is_unsigned ? ((float)b[0] - 128.0f) / 128.0f : (float)(int8_t)b[0] / 128.0f;
    case 2: return (float)(int16_t)be16(b) / 32768.0f;
    case 3: return (float)((int32_t)((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8) >> 8) / 8388608.0f;
    default: return (float)((double)(int32_t)be32(b) / 2147483648.0);
    }
}

static sy_status grow(sy_context *ctx, void **buf, size_t *cap, size_t need, size_t elem, sy_error *err) {
    if (need <= *cap) return SY_OK;
    void *grown = sy__alloc(ctx, need, elem, "audio buffer", err);
    if (!grown) return err ? err->code : SY_E_BUDGET;
    sy__free(ctx, *buf);
    *buf = grown;
    *cap = need;
    return SY_OK;
}

/* The next run of LPCM samples converted into s->decoded. */
static sy_status next_pcm(sy__audio_source *s, sy_error *err) {
    size_t frame_bytes = (size_t)s->pcm.bytes * s->channels;
    sy_mov_sample_info info;
    sy_status st = sy_mov_sample(s->mov, s->track, s->next, &info, err);
    size_t cap = SY__MAX((size_t)RUN_BYTES, (size_t)info.size);
    if (st == SY_OK) st = grow(s->ctx, (void **)&s->raw, &s->raw_cap, cap, 1, err);
    uint32_t n = 0;
    size_t len = 0;
    if (st == SY_OK) st = sy_mov_read_run(s->mov, s->track, s->next, UINT32_MAX, s->raw, s->raw_cap, &n, &len, err);
    if (st != SY_OK) return st;
    if (len % frame_bytes)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: sound samples %u..%u hold %zu bytes, not whole %zu-byte PCM frames",
                        s->label, s->next, s->next + n - 1, len, frame_bytes);
    size_t frames = len / frame_bytes;
    if ((st = grow(s->ctx, (void **)&s->decoded, &s->decoded_cap, frames * s->channels, sizeof(float), err)) != SY_OK)
        return st;
    for (size_t i = 0; i < frames * s->channels; i++) s->decoded[i] = sample_value(s->raw + i * s->pcm.bytes, &s->pcm);
    s->next += n;
    s->pending = s->decoded;
    s->pending_frames = (uint32_t)frames;
    s->pending_pos = 0;
    return SY_OK;
}

/* The next AAC access unit decoded (nothing pending when it gave no frames). */
static sy_status next_aac(sy__audio_source *s, sy_error *err) {
    sy_mov_sample_info info;
    sy_status st = sy_mov_sample(s->mov, s->track, s->next, &info, err);
    if (st == SY_OK) st = grow(s->ctx, (void **)&s->raw, &s->raw_cap, SY__MAX((size_t)info.size, (size_t)1), 1, err);
    size_t len = 0;
    if (st == SY_OK) st = sy_mov_read_sample(s->mov, s->track, s->next, s->raw, s->raw_cap, &len, err);
    uint32_t frames = 0, channels = 0, rate = 0;
    const float *pcm = NULL;
    if (st == SY_OK) st = sy__aac_decoder_decode(s->dec, s->raw, len, &pcm, &frames, &channels, &rate, err);
    if (st != SY_OK) return st;
    s->next++;
    if (frames && s->channels && (channels != s->channels || rate != s->rate))
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: the AAC sound changes from %u Hz x %u to %u Hz x %u mid-stream",
                        s->label, s->rate, s->channels, rate, channels);
    if (frames) s->channels = channels, s->rate = rate;
    s->pending = pcm;
    s->pending_frames = frames;
    s->pending_pos = 0;
    return SY_OK;
}

static sy_status refill(sy__audio_source *s, sy_error *err) {
    while (s->pending_pos >= s->pending_frames && s->next < s->count) {
        sy_status st = s->aac ? next_aac(s, err) : next_pcm(s, err);
        if (st != SY_OK) return st;
    }
    return SY_OK;
}

/* The edit list as pieces in frames (s->pieces): every empty edit silence, every span its media frames. A
 * player plays edit after edit, so a cut (0-1 s, then 1.5-2.5 s) is heard as cut and a pause between spans
 * is silence. Spans one pass can play only (in media order, at rate 1): otherwise, as before, the leading
 * empty edits and the first span. No list: the whole sound. */
static sy_status read_edit(sy__audio_source *s, sy_error *err) {
    const sy_mov_track_info *ti = sy_mov_track(s->mov, s->track);
    uint32_t movie_ts = sy_mov_info_get(s->mov)->timescale;
    uint32_t n = ti->edit_count && movie_ts ? ti->edit_count : 0;
    s->pieces = sy__alloc(s->ctx, n < PIECES_MAX ? n + 1 : PIECES_MAX, sizeof *s->pieces, "sound edits", err);
    if (!s->pieces) return err ? err->code : SY_E_BUDGET;
    uint32_t count = 0, first_span = UINT32_MAX;
    int one_pass = n <= PIECES_MAX;
    uint64_t end = 0; /* where the last span stops in the media */
    uint64_t silence_left = (uint64_t)SILENCE_MAX_SECONDS * s->rate;
    for (uint32_t k = 0; k < n && k < PIECES_MAX; k++) {
        uint64_t segment;
        int64_t media_time;
        int32_t rate;
        sy_status st = sy_mov_edit(s->mov, s->track, k, &segment, &media_time, &rate, err);
        if (st != SY_OK) return st;
        uint64_t frames = (uint64_t)llround((double)segment / movie_ts * s->rate);
        if (media_time < 0) {
            frames = SY__MIN(frames, silence_left);
            silence_left -= frames;
            s->pieces[count++] = (piece){.silence = frames};
            continue;
        }
        piece p = {.from = (uint64_t)llround((double)media_time * s->rate / ti->timescale),
                   .frames = segment ? frames : UINT64_MAX};
        if (rate != RATE_ONE || (first_span != UINT32_MAX && p.from < end)) one_pass = 0;
        if (first_span == UINT32_MAX) first_span = count;
        end = p.frames == UINT64_MAX ? UINT64_MAX : p.from + p.frames;
        s->pieces[count++] = p;
    }
    if (!one_pass && first_span != UINT32_MAX) count = first_span + 1; /* a repeat, slow motion: the first span */
    if (count == 0) s->pieces[count++] = (piece){.frames = UINT64_MAX}; /* no list: all of it */
    s->piece_n = count;
    return SY_OK;
}

/* Starts the next piece; 0 when the list is over. */
static int next_piece(sy__audio_source *s) {
    if (s->piece_at >= s->piece_n) return 0;
    const piece *p = &s->pieces[s->piece_at++];
    s->silence = p->silence;
    s->skip = p->from > s->media_pos ? p->from - s->media_pos : 0;
    s->remaining = p->silence ? 0 : p->frames;
    return 1;
}

sy_status sy__audio_source_open(sy_context *ctx, sy_mov *mov, uint32_t track, const char *label,
                                sy__audio_source **out, sy_error *err) {
    *out = NULL;
    const sy_mov_track_info *ti = sy_mov_track(mov, track);
    if (!ti || !sy__audio_source_supported(mov, track)) {
        char name[16] = "none";
        if (ti) sy_bmff_fourcc_text(ti->codec, name);
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: sound coded as '%s' cannot be decoded (LPCM or AAC only)", label,
                        name);
    }
    sy__audio_source *s = sy__alloc(ctx, 1, sizeof *s, "audio source", err);
    if (!s) return err ? err->code : SY_E_BUDGET;
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    s->mov = mov;
    s->track = track;
    s->count = ti->sample_count;
    snprintf(s->label, sizeof s->label, "%s", label);
    sy_status st = SY_OK;
    if (ti->codec == SY_FOURCC('m', 'p', '4', 'a')) {
        s->aac = 1;
        uint32_t type = 0;
        size_t esds_len = 0, config_len = 0;
        const uint8_t *esds = sy_mov_codec_config(mov, track, &type, &esds_len);
        const uint8_t *config = type == SY_FOURCC('e', 's', 'd', 's') ? sy__aac_config_from_esds(esds, esds_len, &config_len) : NULL;
        st = sy__aac_decoder_open(ctx, config, config_len, label, &s->dec, err);
        /* the first frames tell the decoded rate and channels (HE-AAC doubles the rate) */
        while (st == SY_OK && s->channels == 0 && s->next < s->count) st = next_aac(s, err);
        if (st == SY_OK && s->channels == 0)
            st = sy__fail(err, SY_E_INVALID_INPUT, "%s: the AAC sound decodes to nothing", label);
    } else {
        lpcm_format(mov, track, &s->pcm);
        s->channels = ti->channels;
        s->rate = (uint32_t)lround(ti->sample_rate);
    }
    if (st == SY_OK) st = read_edit(s, err);
    if (st != SY_OK) {
        sy__audio_source_close(s);
        return st;
    }
    *out = s;
    return SY_OK;
}

uint32_t sy__audio_source_rate(const sy__audio_source *s) { return s->rate; }
uint32_t sy__audio_source_channels(const sy__audio_source *s) { return s->channels; }

sy_status sy__audio_source_read(sy__audio_source *s, float *out, uint32_t max_frames, uint32_t *got, sy_error *err) {
    *got = 0;
    uint32_t ch = s->channels;
    while (*got < max_frames) {
        if (!s->silence && !s->remaining && !next_piece(s)) break;
        if (s->silence) {
            uint32_t n = (uint32_t)SY__MIN((uint64_t)(max_frames - *got), s->silence);
            memset(out + (size_t)*got * ch, 0, (size_t)n * ch * sizeof(float));
            *got += n, s->silence -= n;
            continue;
        }
        sy_status st = refill(s, err);
        if (st != SY_OK) return st;
        uint32_t avail = s->pending_frames - s->pending_pos;
        if (avail == 0) { /* the end of the sound: whatever the list says after it is not heard */
            s->remaining = 0;
            s->piece_at = s->piece_n;
            break;
        }
        if (s->skip) {
            uint32_t n = (uint32_t)SY__MIN((uint64_t)avail, s->skip);
            s->pending_pos += n, s->skip -= n, s->media_pos += n;
            continue;
        }
        uint32_t n = (uint32_t)SY__MIN((uint64_t)SY__MIN(avail, max_frames - *got), s->remaining);
        memcpy(out + (size_t)*got * ch, s->pending + (size_t)s->pending_pos * ch, (size_t)n * ch * sizeof(float));
        s->pending_pos += n, *got += n, s->media_pos += n;
        if (s->remaining != UINT64_MAX) s->remaining -= n;
    }
    return SY_OK;
}

void sy__audio_source_close(sy__audio_source *s) {
    if (!s) return;
    sy__aac_decoder_close(s->dec);
    sy__free(s->ctx, s->pieces);
    sy__free(s->ctx, s->raw);
    sy__free(s->ctx, s->decoded);
    sy__free(s->ctx, s);
}
