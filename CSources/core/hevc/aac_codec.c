/* aac_codec.c — AAC-LC encoder and AAC decoder over libavcodec (sy_aac.h). */
#include <libavcodec/avcodec.h>
#include <libavutil/channel_layout.h>
#include <libavutil/frame.h>
#include <libavutil/mem.h>
#include <libavutil/opt.h>
#include <libavutil/samplefmt.h>
#include <string.h>

#include "hevc/sy_aac.h"
#include "hevc/sy_avcodec.h"

/* libavcodec's heap behind one codec, measured with mallinfo2 (FFmpeg 5.1,
 * 48 kHz, 96 kb/s a channel): the encoder's peak over one second 1.20 MB
 * mono, 1.23 MB stereo (its psychoacoustic and quantiser tables); the
 * decoder 0.65 MB once open. Rounded up. */
#define ENCODER_HEAP (2u << 20)
#define DECODER_HEAP (1u << 20)

static sy_status av_fail(sy_error *err, int code, const char *what) {
    char text[AV_ERROR_MAX_STRING_SIZE] = "";
    av_strerror(code, text, sizeof text);
    return sy__fail(err, SY_E_CODEC, "aac: %s: %s", what, text);
}

/* ---- encoder ---- */

struct sy__aac_encoder {
    sy_context *ctx;
    AVCodecContext *av;
    AVFrame *frame;        /* the block being filled (planar float) */
    AVPacket *packet;
    uint32_t fill;         /* frames in `frame` so far */
    int64_t pts;           /* of the next block */
    sy__aac_packet_fn on_packet;
    void *user;
    int charged;
};

static sy_status drain(sy__aac_encoder *e, sy_error *err) {
    for (;;) {
        int r = avcodec_receive_packet(e->av, e->packet);
        if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return SY_OK;
        if (r < 0) return av_fail(err, r, "encoding");
        uint32_t duration = e->packet->duration > 0 ? (uint32_t)e->packet->duration : (uint32_t)e->av->frame_size;
        sy_status st = e->on_packet(e->user, e->packet->data, (size_t)e->packet->size, duration, err);
        av_packet_unref(e->packet);
        if (st != SY_OK) return st;
    }
}

static sy_status send_block(sy__aac_encoder *e, sy_error *err) {
    e->frame->nb_samples = (int)e->fill;
    e->frame->pts = e->pts;
    int r = avcodec_send_frame(e->av, e->frame);
    if (r < 0) return av_fail(err, r, "encoding");
    e->pts += e->fill;
    e->fill = 0;
    return drain(e, err);
}

sy_status sy__aac_encoder_open(sy_context *ctx, uint32_t sample_rate, uint32_t channels, uint32_t bitrate,
                               sy__aac_packet_fn on_packet, void *user, sy__aac_encoder **out, sy_error *err) {
    *out = NULL;
    if (channels < 1 || channels > 2 || !on_packet)
        return sy__fail(err, SY_E_USAGE, "aac: %u channels (the encoder takes 1 or 2)", channels);
    const AVCodec *codec = avcodec_find_encoder_by_name("aac");
    if (!codec) return sy__fail(err, SY_E_UNSUPPORTED, "aac: libavcodec has no native AAC encoder");
    const int *rates = codec->supported_samplerates;
    int ok = 0;
    for (; rates && *rates; rates++) ok |= (uint32_t)*rates == sample_rate;
    if (!ok) return sy__fail(err, SY_E_UNSUPPORTED, "aac: %u Hz is not an AAC sampling rate", sample_rate);
    sy__aac_encoder *e = sy__alloc(ctx, 1, sizeof *e, "aac encoder", err);
    if (!e) return err ? err->code : SY_E_BUDGET;
    memset(e, 0, sizeof *e);
    e->ctx = ctx;
    e->on_packet = on_packet;
    e->user = user;
    sy_status st = sy__charge(ctx, ENCODER_HEAP, "libavcodec AAC encoder (estimate)", err);
    e->charged = st == SY_OK;
    if (st == SY_OK && !(e->av = avcodec_alloc_context3(codec))) st = sy__fail(err, SY_E_BUDGET, "aac: out of memory");
    if (st == SY_OK) {
        e->av->sample_fmt = AV_SAMPLE_FMT_FLTP;
        e->av->sample_rate = (int)sample_rate;
        av_channel_layout_default(&e->av->ch_layout, (int)channels);
        e->av->bit_rate = bitrate ? bitrate : SY__AAC_BITRATE_PER_CHANNEL * channels;
        e->av->profile = FF_PROFILE_AAC_LOW;
        e->av->time_base = (AVRational){1, (int)sample_rate};
        e->av->flags |= AV_CODEC_FLAG_BITEXACT | AV_CODEC_FLAG_GLOBAL_HEADER; /* no version tag; ASC as extradata */
        /* No perceptual noise substitution: it replaces noisy bands (a Live
         * clip's room sound) by made-up noise; without it the iPhone 15 Plus
         * corpus clip decodes at 20.3 dB SNR instead of 19.6 at 96 kb/s. */
        int r = av_opt_set_int(e->av->priv_data, "aac_pns", 0, 0);
        sy__avcodec_install_logging();
        if (r >= 0) r = avcodec_open2(e->av, codec, NULL);
        if (r < 0) st = av_fail(err, r, "opening the encoder");
    }
    if (st == SY_OK && (!(e->frame = av_frame_alloc()) || !(e->packet = av_packet_alloc())))
        st = sy__fail(err, SY_E_BUDGET, "aac: out of memory");
    if (st == SY_OK) {
        e->frame->format = AV_SAMPLE_FMT_FLTP;
        e->frame->nb_samples = e->av->frame_size;
        e->frame->sample_rate = (int)sample_rate;
        int r = av_channel_layout_copy(&e->frame->ch_layout, &e->av->ch_layout);
        if (r >= 0) r = av_frame_get_buffer(e->frame, 0);
        if (r < 0) st = av_fail(err, r, "allocating a block");
    }
    if (st == SY_OK && (!e->av->extradata || e->av->extradata_size < 2))
        st = sy__fail(err, SY_E_CODEC, "aac: the encoder gave no AudioSpecificConfig");
    if (st != SY_OK) {
        sy__aac_encoder_close(e);
        return st;
    }
    *out = e;
    return SY_OK;
}

const uint8_t *sy__aac_encoder_config(const sy__aac_encoder *e, size_t *len) {
    *len = (size_t)e->av->extradata_size;
    return e->av->extradata;
}

uint32_t sy__aac_encoder_delay(const sy__aac_encoder *e) { return (uint32_t)e->av->initial_padding; }
uint32_t sy__aac_encoder_bitrate(const sy__aac_encoder *e) { return (uint32_t)e->av->bit_rate; }

sy_status sy__aac_encoder_push(sy__aac_encoder *e, const float *pcm, uint32_t frames, sy_error *err) {
    uint32_t channels = (uint32_t)e->av->ch_layout.nb_channels, block = (uint32_t)e->av->frame_size;
    while (frames) {
        if (e->fill == 0) {
            int r = av_frame_make_writable(e->frame);
            if (r < 0) return av_fail(err, r, "reusing a block");
        }
        uint32_t n = SY__MIN(frames, block - e->fill);
        for (uint32_t c = 0; c < channels; c++) {
            float *plane = (float *)e->frame->extended_data[c] + e->fill;
            for (uint32_t i = 0; i < n; i++) plane[i] = pcm[(size_t)i * channels + c];
        }
        e->fill += n;
        pcm += (size_t)n * channels;
        frames -= n;
        if (e->fill == block) {
            sy_status st = send_block(e, err);
            if (st != SY_OK) return st;
        }
    }
    return SY_OK;
}

sy_status sy__aac_encoder_flush(sy__aac_encoder *e, sy_error *err) {
    if (e->fill) {
        sy_status st = send_block(e, err);
        if (st != SY_OK) return st;
    }
    int r = avcodec_send_frame(e->av, NULL);
    if (r < 0 && r != AVERROR_EOF) return av_fail(err, r, "draining");
    return drain(e, err);
}

void sy__aac_encoder_close(sy__aac_encoder *e) {
    if (!e) return;
    av_packet_free(&e->packet);
    av_frame_free(&e->frame);
    avcodec_free_context(&e->av);
    if (e->charged) sy__discharge(e->ctx, ENCODER_HEAP);
    sy__free(e->ctx, e);
}

/* ---- decoder ---- */

struct sy__aac_decoder {
    sy_context *ctx;
    AVCodecContext *av;
    AVFrame *frame;
    AVPacket *packet;
    float *pcm;            /* interleaved output, engine block */
    size_t pcm_cap;        /* floats */
    char label[256];
    int charged;
};

sy_status sy__aac_decoder_open(sy_context *ctx, const uint8_t *config, size_t config_len, const char *label,
                               sy__aac_decoder **out, sy_error *err) {
    *out = NULL;
    const AVCodec *codec = avcodec_find_decoder(AV_CODEC_ID_AAC);
    if (!codec) return sy__fail(err, SY_E_UNSUPPORTED, "%s: libavcodec has no AAC decoder", label);
    if (!config || config_len < 2 || config_len > 4096)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: AAC track without a usable AudioSpecificConfig", label);
    sy__aac_decoder *d = sy__alloc(ctx, 1, sizeof *d, "aac decoder", err);
    if (!d) return err ? err->code : SY_E_BUDGET;
    memset(d, 0, sizeof *d);
    d->ctx = ctx;
    snprintf(d->label, sizeof d->label, "%s", label);
    sy_status st = sy__charge(ctx, DECODER_HEAP, "libavcodec AAC decoder (estimate)", err);
    d->charged = st == SY_OK;
    if (st == SY_OK && !(d->av = avcodec_alloc_context3(codec))) st = sy__fail(err, SY_E_BUDGET, "%s: out of memory", label);
    if (st == SY_OK && !(d->av->extradata = av_mallocz(config_len + AV_INPUT_BUFFER_PADDING_SIZE)))
        st = sy__fail(err, SY_E_BUDGET, "%s: out of memory", label);
    if (st == SY_OK) {
        memcpy(d->av->extradata, config, config_len);
        d->av->extradata_size = (int)config_len;
        d->av->request_sample_fmt = AV_SAMPLE_FMT_FLTP;
        sy__avcodec_install_logging();
        int r = avcodec_open2(d->av, codec, NULL);
        if (r < 0) st = av_fail(err, r, "opening the decoder");
    }
    if (st == SY_OK && (!(d->frame = av_frame_alloc()) || !(d->packet = av_packet_alloc())))
        st = sy__fail(err, SY_E_BUDGET, "%s: out of memory", label);
    if (st != SY_OK) {
        sy__aac_decoder_close(d);
        return st;
    }
    *out = d;
    return SY_OK;
}

/* The frame's samples as interleaved float in d->pcm. */
static sy_status interleave(sy__aac_decoder *d, uint32_t *frames, uint32_t *channels, sy_error *err) {
    AVFrame *f = d->frame;
    uint32_t n = (uint32_t)f->nb_samples, ch = (uint32_t)f->ch_layout.nb_channels;
    if (ch == 0 || ch > 8) return sy__fail(err, SY_E_UNSUPPORTED, "%s: AAC with %u channels", d->label, ch);
    if (f->format != AV_SAMPLE_FMT_FLTP && f->format != AV_SAMPLE_FMT_FLT)
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: AAC decoded to an unexpected sample format", d->label);
    size_t need = (size_t)n * ch;
    if (need > d->pcm_cap) {
        float *grown = sy__alloc(d->ctx, need, sizeof *grown, "decoded AAC", err);
        if (!grown) return err ? err->code : SY_E_BUDGET;
        sy__free(d->ctx, d->pcm);
        d->pcm = grown;
        d->pcm_cap = need;
    }
    if (f->format == AV_SAMPLE_FMT_FLT) {
        memcpy(d->pcm, f->data[0], need * sizeof(float));
    } else {
        for (uint32_t c = 0; c < ch; c++) {
            const float *plane = (const float *)f->extended_data[c];
            for (uint32_t i = 0; i < n; i++) d->pcm[(size_t)i * ch + c] = plane[i];
        }
    }
    *frames = n;
    *channels = ch;
    return SY_OK;
}

sy_status sy__aac_decoder_decode(sy__aac_decoder *d, const uint8_t *data, size_t len, const float **pcm,
                                 uint32_t *frames, uint32_t *channels, uint32_t *sample_rate, sy_error *err) {
    *pcm = d->pcm;
    *frames = 0;
    *channels = (uint32_t)d->av->ch_layout.nb_channels;
    *sample_rate = (uint32_t)d->av->sample_rate;
    if (len > INT32_MAX - AV_INPUT_BUFFER_PADDING_SIZE)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: AAC access unit of %zu bytes", d->label, len);
    int r = av_new_packet(d->packet, (int)len);
    if (r < 0) return av_fail(err, r, "a packet");
    memcpy(d->packet->data, data, len);
    r = avcodec_send_packet(d->av, d->packet);
    av_packet_unref(d->packet);
    if (r < 0) return sy__fail(err, SY_E_INVALID_INPUT, "%s: AAC access unit does not decode", d->label);
    /* AAC gives at most one frame per access unit */
    r = avcodec_receive_frame(d->av, d->frame);
    if (r == AVERROR(EAGAIN)) return SY_OK;
    if (r < 0) return sy__fail(err, SY_E_INVALID_INPUT, "%s: AAC access unit does not decode", d->label);
    sy_status st = interleave(d, frames, channels, err);
    *sample_rate = (uint32_t)d->frame->sample_rate;
    *pcm = d->pcm;
    av_frame_unref(d->frame);
    return st;
}

void sy__aac_decoder_close(sy__aac_decoder *d) {
    if (!d) return;
    av_packet_free(&d->packet);
    av_frame_free(&d->frame);
    avcodec_free_context(&d->av); /* frees extradata */
    sy__free(d->ctx, d->pcm);
    if (d->charged) sy__discharge(d->ctx, DECODER_HEAP);
    sy__free(d->ctx, d);
}

/* ---- esds ---- */

/* One MPEG-4 descriptor header: tag, then a size of 1-4 bytes of 7 bits. */
static int descriptor(const uint8_t *p, size_t len, size_t *pos, uint8_t *tag, size_t *size) {
    if (*pos >= len) return 0;
    *tag = p[(*pos)++];
    size_t s = 0;
    for (int i = 0; i < 4; i++) {
        if (*pos >= len) return 0;
        uint8_t b = p[(*pos)++];
        s = s << 7 | (b & 0x7F);
        if (!(b & 0x80)) break;
    }
    if (s > len - *pos) return 0;
    *size = s;
    return 1;
}

const uint8_t *sy__aac_config_from_esds(const uint8_t *esds, size_t len, size_t *config_len) {
    *config_len = 0;
    size_t pos = 0, size;
    uint8_t tag;
    if (!esds || !descriptor(esds, len, &pos, &tag, &size) || tag != 3 || size < 3) return NULL;
    size_t end = pos + size;
    uint8_t flags = esds[pos + 2];
    pos += 3;                               /* ES_ID, flags */
    if (flags & 0x80) pos += 2;             /* dependsOn_ES_ID */
    if (flags & 0x40) pos += pos < end ? 1u + esds[pos] : 0; /* URL */
    if (flags & 0x20) pos += 2;             /* OCR_ES_Id */
    if (pos >= end || !descriptor(esds, end, &pos, &tag, &size) || tag != 4 || size < 13) return NULL;
    size_t dc_end = pos + size;
    pos += 13;                              /* objectType, streamType, buffer size, max and average bitrates */
    if (pos >= dc_end || !descriptor(esds, dc_end, &pos, &tag, &size) || tag != 5 || size == 0) return NULL;
    *config_len = size;
    return esds + pos;
}
