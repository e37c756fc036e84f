/* avcodec_support.c — one libavcodec decoder behind the engine's calls
 * (sy_avcodec.h): configuration, padded packets tagged with their sample,
 * the checks on every returned frame, and the log callback that turns
 * libavcodec's error messages into errors naming the damaged sample. */
#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/mem.h>
#include <libavutil/pixdesc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hevc/sy_avcodec.h"

#define MAX_THREADS 16

struct sy__avdec {
    sy_context *ctx;
    AVCodecContext *av;
    AVPacket *packet;
    AVFrame *frame;       /* the picture received (borrowed until release) */
    int holding;
    int threads;          /* frame threads, 1 = none */
    int engine_pictures;  /* pictures in engine blocks (sy__avdec_open_picture) */
    char label[16];       /* "" = name the sample */
    uint8_t *buffer;      /* padded copy of the sample being sent */
    size_t buffer_cap;
    size_t copies_charged; /* libavcodec's packet copies, charged to ctx */
    char refused[256];     /* why the engine refused libavcodec a picture ("" = it never did) */
    struct engine_picture *spare; /* a taken picture given back, for the next one of its size */
    /* Samples in flight, for naming the one an error without a message concerns. */
    uint32_t ring[MAX_THREADS + 1];
    uint64_t sent, collected;
    int draining;
    /* The first error libavcodec logged for this decoder (registry lock). */
    int logged;
    uint32_t logged_tag;
    char message[160];
    struct sy__avdec *prev, *next; /* registry of live decoders */
};

/* ---- the log callback ---- */

/* libavcodec logs through one process-wide callback. Ours recognises our
 * decoders' contexts (frame threads log from copies whose opaque is the same)
 * by the registry, keeps their first error and prints nothing for them; any
 * other context logs as before. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static sy__avdec *registry;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

static sy__avdec *owner(void *avcl) {
    if (!avcl || *(const AVClass *const *)avcl != avcodec_get_class()) return NULL;
    void *opaque = ((AVCodecContext *)avcl)->opaque;
    for (sy__avdec *d = registry; d; d = d->next)
        if (d == opaque) return d;
    return NULL;
}

static void log_callback(void *avcl, int level, const char *fmt, va_list vl) {
    pthread_mutex_lock(&registry_lock);
    sy__avdec *d = owner(avcl);
    if (d && level <= AV_LOG_ERROR && !d->logged) {
        d->logged = 1;
        /* The logging context's reordered_opaque is the tag of the sample it
         * decodes: libavcodec hands it to each frame thread with its packet. */
        d->logged_tag = (uint32_t)((AVCodecContext *)avcl)->reordered_opaque;
        vsnprintf(d->message, sizeof d->message, fmt, vl);
        size_t n = strlen(d->message);
        while (n && (d->message[n - 1] == '\n' || d->message[n - 1] == ' ')) d->message[--n] = 0;
    }
    pthread_mutex_unlock(&registry_lock);
    /* other contexts (the AAC coder): warnings and errors only — the AAC
     * encoder reports its average quantiser at every close at info level */
    if (!d && level <= AV_LOG_WARNING) av_log_default_callback(avcl, level, fmt, vl);
}

static void install_log_callback(void) { av_log_set_callback(log_callback); }

void sy__avcodec_install_logging(void) { pthread_once(&log_once, install_log_callback); }

static void registry_add(sy__avdec *d) {
    pthread_mutex_lock(&registry_lock);
    d->next = registry;
    if (registry) registry->prev = d;
    registry = d;
    pthread_mutex_unlock(&registry_lock);
}

static void registry_remove(sy__avdec *d) {
    pthread_mutex_lock(&registry_lock);
    if (d->prev) d->prev->next = d->next;
    else if (registry == d) registry = d->next;
    if (d->next) d->next->prev = d->prev;
    d->prev = d->next = NULL;
    pthread_mutex_unlock(&registry_lock);
}

/* ---- errors ---- */

static void where(const sy__avdec *d, uint32_t tag, char *out, size_t cap) {
    if (d->label[0]) snprintf(out, cap, "%s", d->label);
    else snprintf(out, cap, "sample %u", tag);
}

/* The sample an error without a message concerns: with frame threads,
 * libavcodec reports a packet's result when it collects that packet's
 * thread (in the order sent), so the one collected last. */
static uint32_t last_collected(const sy__avdec *d) {
    uint64_t i = d->collected ? d->collected - 1 : d->sent ? d->sent - 1 : 0;
    return d->ring[i % (MAX_THREADS + 1)];
}

/* A logged error becomes the decoder's failure (it is checked after every call).
 * A picture the engine refused (the context's budget) comes first: libavcodec
 * then logs only "get_buffer() failed", and the caller must see SY_E_BUDGET
 * to decode with less at once (the HEIF tile source drops to one worker). */
static sy_status check_logged(sy__avdec *d, sy_error *err) {
    if (d->refused[0]) {
        char at[32];
        where(d, last_collected(d), at, sizeof at);
        return sy__fail(err, SY_E_BUDGET, "%s: %s", at, d->refused);
    }
    pthread_mutex_lock(&registry_lock);
    int logged = d->logged;
    uint32_t tag = d->logged_tag;
    char message[sizeof d->message];
    memcpy(message, d->message, sizeof message);
    pthread_mutex_unlock(&registry_lock);
    if (!logged) return SY_OK;
    char at[32];
    where(d, tag, at, sizeof at);
    return sy__fail(err, SY_E_INVALID_INPUT, "%s: libavcodec: %s", at, message);
}

static sy_status fail_averror(sy__avdec *d, int e, uint32_t tag, sy_error *err) {
    sy_status st = check_logged(d, err);
    if (st != SY_OK) return st;
    char at[32], text[AV_ERROR_MAX_STRING_SIZE];
    where(d, tag, at, sizeof at);
    av_strerror(e, text, sizeof text);
    sy_status code = e == AVERROR(ENOMEM)                                ? SY_E_CODEC
                     : e == AVERROR_PATCHWELCOME || e == AVERROR(ENOSYS) ? SY_E_UNSUPPORTED
                                                                         : SY_E_INVALID_INPUT;
    return sy__fail_sub(err, code, e, "%s: libavcodec: %s", at, text);
}

/* ---- pictures in engine blocks ---- */

/* A still's pictures are allocated by the engine (charged to its context, so
 * no estimate is needed for them) and the one returned is handed over as the
 * caller's block instead of being copied: for a 24 MP iPhone HEIC that is one
 * tile picture less per decoding worker, and one copy less per tile.
 * Layout of a block: this header, then the planes from the first 64-byte
 * boundary (libavcodec's SIMD wants aligned planes and rows). */
typedef struct engine_picture {
    sy_context *ctx;
    size_t bytes; /* of the whole block */
    int taken;    /* handed to the caller: the buffer's last unref must not free it */
    int released; /* taken, and libavcodec holds no reference to it any more */
} engine_picture;

#define ENGINE_ALIGN 64

static void engine_picture_free(void *opaque, uint8_t *data) {
    engine_picture *p = opaque;
    if (!p->taken) sy__free(p->ctx, p);
    else p->released = 1;
}

static int engine_get_buffer(AVCodecContext *av, AVFrame *f, int flags) {
    sy__avdec *d = av->opaque;
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get((enum AVPixelFormat)f->format);
    /* Never libavcodec's own pool here, so every buffer of this decoder is an
     * engine_picture (sy__avdec_take_picture relies on it); view_frame refuses
     * these formats anyway. */
    if (!desc || (desc->flags & (AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM)) ||
        f->width <= 0 || f->height <= 0)
        return AVERROR(ENOSYS);
    int w = f->width, h = f->height, align[AV_NUM_DATA_POINTERS];
    avcodec_align_dimensions2(av, &w, &h, align);
    int linesize[4];
    if (av_image_fill_linesizes(linesize, (enum AVPixelFormat)f->format, w) < 0) return AVERROR(EINVAL);
    int planes = av_pix_fmt_count_planes((enum AVPixelFormat)f->format);
    size_t offset[4] = {0}, total = 0;
    for (int c = 0; c < planes; c++) {
        linesize[c] = FFALIGN(linesize[c], SY__MAX(align[c], ENGINE_ALIGN));
        int rows = c == 0 || c == 3 ? h : -((-h) >> desc->log2_chroma_h);
        offset[c] = total;
        total += (size_t)linesize[c] * (size_t)rows;
    }
    /* libavcodec may read 16 + STRIDE_ALIGN - 1 bytes past the last plane. */
    size_t head = (sizeof(engine_picture) + ENGINE_ALIGN - 1) / ENGINE_ALIGN * ENGINE_ALIGN;
    size_t bytes = ENGINE_ALIGN - 1 + head + total + 16 + ENGINE_ALIGN;
    sy_error refused = {0};
    engine_picture *p = d->spare && d->spare->bytes == bytes ? d->spare : NULL;
    /* Zeroed: a damaged stream may leave blocks of the picture unwritten (no
     * error), which must show neither the previous tile nor old heap bytes,
     * and must be the same whatever decoded before. */
    if (p) d->spare = NULL, memset(p, 0, bytes);
    else p = sy__calloc(d->ctx, bytes, 1, "libavcodec picture", &refused);
    if (!p) {
        snprintf(d->refused, sizeof d->refused, "%s", refused.message[0] ? refused.message : "libavcodec picture refused");
        return AVERROR(ENOMEM);
    }
    p->ctx = d->ctx;
    p->bytes = bytes;
    p->taken = 0;
    p->released = 0;
    uint8_t *base = (uint8_t *)(((uintptr_t)p + head + ENGINE_ALIGN - 1) & ~(uintptr_t)(ENGINE_ALIGN - 1));
    f->buf[0] = av_buffer_create(base, total, engine_picture_free, p, 0);
    if (!f->buf[0]) {
        sy__free(d->ctx, p);
        return AVERROR(ENOMEM);
    }
    for (int c = 0; c < planes; c++) {
        f->data[c] = base + offset[c];
        f->linesize[c] = linesize[c];
    }
    f->extended_data = f->data;
    return 0;
}

void sy__avdec_recycle_picture(sy__avdec *d, uint8_t *block) {
    engine_picture *p = (engine_picture *)block;
    if (!p) return;
    if (!p->released) { /* libavcodec still refers to it: its last unref frees it */
        p->taken = 0;
        return;
    }
    if (d->engine_pictures && !d->spare) d->spare = p;
    else sy__free(d->ctx, p);
}

uint8_t *sy__avdec_take_picture(sy__avdec *d) {
    if (!d->holding || !d->engine_pictures || !d->frame->buf[0] || d->frame->buf[1]) return NULL;
    engine_picture *p = av_buffer_get_opaque(d->frame->buf[0]);
    if (!p || p->taken) return NULL;
    p->taken = 1;
    return (uint8_t *)p;
}

/* ---- open / close ---- */

static sy_status open_decoder(sy_context *ctx, sy__avcodec_id codec, const uint8_t *config, size_t config_len,
                              int threads, int engine_pictures, const char *label, sy__avdec **out, sy_error *err) {
    *out = NULL;
    if (config_len > (size_t)INT32_MAX - AV_INPUT_BUFFER_PADDING_SIZE || (!config && config_len))
        return sy__fail(err, SY_E_USAGE, "sy__avdec_open: bad configuration record");
    /* AV1: libdav1d by name. FFmpeg 5.1's own "av1" decoder parses the
     * bitstream but decodes through a hardware accelerator only ("Your
     * platform doesn't support hardware accelerated AV1 decoding"), so it is
     * no fallback. */
    const AVCodec *c = codec == SY__AVCODEC_AV1    ? avcodec_find_decoder_by_name("libdav1d")
                       : codec == SY__AVCODEC_HEVC ? avcodec_find_decoder(AV_CODEC_ID_HEVC)
                                                   : avcodec_find_decoder(AV_CODEC_ID_H264);
    if (!c)
        return sy__fail(err, SY_E_CODEC, "libavcodec has no %s decoder",
                        codec == SY__AVCODEC_AV1 ? "software AV1 (libdav1d)" : codec == SY__AVCODEC_HEVC ? "HEVC" : "H.264");
    sy__avdec *d = sy__calloc(ctx, 1, sizeof *d, "libavcodec decoder", err);
    if (!d) return err ? err->code : SY_E_BUDGET;
    d->ctx = ctx;
    d->threads = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
    /* libdav1d hands out dav1d's own buffers: never take one as an engine block */
    d->engine_pictures = engine_pictures && d->threads == 1 && codec != SY__AVCODEC_AV1;
    if (label) snprintf(d->label, sizeof d->label, "%s", label);
    sy__avcodec_install_logging();
    registry_add(d); /* before open: libavcodec logs while it reads the extradata */
    d->av = avcodec_alloc_context3(c);
    d->packet = av_packet_alloc();
    d->frame = av_frame_alloc();
    if (!d->av || !d->packet || !d->frame) {
        sy__avdec_close(d);
        return sy__fail(err, SY_E_CODEC, "libavcodec could not allocate a decoder");
    }
    AVCodecContext *av = d->av;
    av->opaque = d;
    if (config_len) {
        av->extradata = av_mallocz(config_len + AV_INPUT_BUFFER_PADDING_SIZE);
        if (!av->extradata) {
            sy__avdec_close(d);
            return sy__fail(err, SY_E_CODEC, "libavcodec could not allocate the configuration record");
        }
        memcpy(av->extradata, config, config_len);
        av->extradata_size = (int)config_len;
    }
    if (d->engine_pictures) av->get_buffer2 = engine_get_buffer;
    av->thread_count = d->threads;
    av->thread_type = d->threads > 1 ? FF_THREAD_FRAME : 0;
    av->err_recognition = AV_EF_EXPLODE | AV_EF_BITSTREAM | AV_EF_BUFFER;
    av->error_concealment = 0; /* report damage instead of patching over it */
    sy__count_codec_open(ctx);
    int e = avcodec_open2(av, c, NULL);
    if (e < 0) {
        char text[AV_ERROR_MAX_STRING_SIZE];
        av_strerror(e, text, sizeof text);
        sy_status st = check_logged(d, err);
        if (st == SY_OK)
            st = sy__fail_sub(err, e == AVERROR(ENOMEM) ? SY_E_CODEC : SY_E_INVALID_INPUT, e,
                              "%s: libavcodec: configuration record: %s", d->label[0] ? d->label : "video", text);
        sy__avdec_close(d);
        return st;
    }
    *out = d;
    return SY_OK;
}

sy_status sy__avdec_open(sy_context *ctx, sy__avcodec_id codec, const uint8_t *config, size_t config_len,
                         int threads, const char *label, sy__avdec **out, sy_error *err) {
    return open_decoder(ctx, codec, config, config_len, threads, 0, label, out, err);
}

sy_status sy__avdec_open_picture(sy_context *ctx, sy__avcodec_id codec, const uint8_t *config, size_t config_len,
                                 const char *label, sy__avdec **out, sy_error *err) {
    return open_decoder(ctx, codec, config, config_len, 1, 1, label, out, err);
}

void sy__avdec_close(sy__avdec *d) {
    if (!d) return;
    av_frame_free(&d->frame);
    av_packet_free(&d->packet);
    avcodec_free_context(&d->av); /* joins the frame threads, which may log until then */
    registry_remove(d);
    if (d->buffer) sy__free(d->ctx, d->buffer);
    if (d->spare) sy__free(d->ctx, d->spare);
    if (d->copies_charged) sy__discharge(d->ctx, d->copies_charged);
    sy__free(d->ctx, d);
}

/* ---- feeding ---- */

/* A padded copy of the sample (libavcodec reads up to 64 bytes past the end),
 * and the charge for libavcodec's own copies of the samples in flight. */
static sy_status stage(sy__avdec *d, const uint8_t *data, size_t len, sy_error *err) {
    size_t need = len + AV_INPUT_BUFFER_PADDING_SIZE;
    if (need > d->buffer_cap) {
        size_t cap = SY__MAX(need, d->buffer_cap + d->buffer_cap / 2);
        uint8_t *b = sy__alloc(d->ctx, cap, 1, "libavcodec packet", err);
        if (!b) return err ? err->code : SY_E_BUDGET;
        if (d->buffer) sy__free(d->ctx, d->buffer);
        d->buffer = b;
        d->buffer_cap = cap;
        size_t copies = (size_t)(d->threads + 1) * need;
        if (copies > d->copies_charged) {
            sy_status st = sy__charge(d->ctx, copies - d->copies_charged, "libavcodec packets (estimate)", err);
            if (st != SY_OK) return st;
            d->copies_charged = copies;
        }
    }
    memcpy(d->buffer, data, len);
    memset(d->buffer + len, 0, AV_INPUT_BUFFER_PADDING_SIZE);
    return SY_OK;
}

sy_status sy__avdec_send(sy__avdec *d, const uint8_t *data, size_t len, uint32_t tag, sy_error *err) {
    if (d->holding) return sy__fail(err, SY_E_USAGE, "libavcodec decoder: send before release");
    if (!data) {
        d->draining = 1;
        int e = avcodec_send_packet(d->av, NULL);
        if (e < 0 && e != AVERROR_EOF) return fail_averror(d, e, last_collected(d), err);
        return check_logged(d, err);
    }
    if (len > (size_t)INT32_MAX - AV_INPUT_BUFFER_PADDING_SIZE)
        return sy__fail(err, SY_E_INVALID_INPUT, "sample %u: %zu bytes", tag, len);
    sy_status st = stage(d, data, len, err);
    if (st != SY_OK) return st;
    av_packet_unref(d->packet);
    d->packet->data = d->buffer;
    d->packet->size = (int)len;
    d->packet->pts = d->packet->dts = tag;
    d->av->reordered_opaque = tag; /* what the log callback reads back (see log_callback) */
    d->ring[d->sent % (MAX_THREADS + 1)] = tag;
    d->sent++;
    int e = avcodec_send_packet(d->av, d->packet); /* copies the packet: d->buffer is ours again */
    av_packet_unref(d->packet);
    if (d->sent >= (uint64_t)d->threads) d->collected = d->sent - (uint64_t)d->threads + 1;
    if (e < 0) return fail_averror(d, e, last_collected(d), err);
    return check_logged(d, err);
}

/* ---- pictures ---- */

static int is_jpeg_range_format(enum AVPixelFormat f) {
    return f == AV_PIX_FMT_YUVJ420P || f == AV_PIX_FMT_YUVJ422P || f == AV_PIX_FMT_YUVJ444P ||
           f == AV_PIX_FMT_YUVJ440P;
}

/* Planar Y'CbCr or grey, one component per plane, 8..16 bits in native-endian
 * samples of 1 or 2 bytes, 4:0:0 / 4:2:0 / 4:2:2 / 4:4:4, every plane within
 * the picture and its stride covering a row. */
static sy_status view_frame(const sy__avdec *d, const AVFrame *f, uint32_t tag, sy__yuv *out, int depth[3],
                            sy_error *err) {
    char at[32];
    where(d, tag, at, sizeof at);
    memset(out, 0, sizeof *out);
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get((enum AVPixelFormat)f->format);
    if (!desc) return sy__fail(err, SY_E_CODEC, "%s: libavcodec gave pixel format %d", at, f->format);
    int planes = desc->nb_components;
    uint64_t foreign = AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM |
                       AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_ALPHA | AV_PIX_FMT_FLAG_FLOAT;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    foreign |= AV_PIX_FMT_FLAG_BE;
#endif
    int chroma = planes == 1 ? 0
                 : desc->log2_chroma_w == 1 && desc->log2_chroma_h == 1 ? 1
                 : desc->log2_chroma_w == 1 && desc->log2_chroma_h == 0 ? 2
                 : desc->log2_chroma_w == 0 && desc->log2_chroma_h == 0 ? 3
                                                                         : -1;
    if ((desc->flags & foreign) || (planes != 1 && planes != 3) || chroma < 0)
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: pixel format %s", at, desc->name);
    if (f->width <= 0 || f->height <= 0)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: decoded picture is %dx%d", at, f->width, f->height);
    int deepest = 0;
    for (int c = 0; c < 3; c++) depth[c] = 0;
    for (int c = 0; c < planes; c++) {
        const AVComponentDescriptor *comp = &desc->comp[c];
        int bps = comp->depth > 8 ? 2 : 1;
        if (comp->depth < 8 || comp->depth > 16 || comp->plane != c || comp->step != bps || comp->shift ||
            comp->offset)
            return sy__fail(err, SY_E_UNSUPPORTED, "%s: pixel format %s (plane %d)", at, desc->name, c);
        int shift_w = c ? desc->log2_chroma_w : 0, shift_h = c ? desc->log2_chroma_h : 0;
        int cw = -((-f->width) >> shift_w), ch = -((-f->height) >> shift_h);
        if (!f->data[c] || f->linesize[c] < cw * bps)
            return sy__fail(err, SY_E_CODEC, "%s: libavcodec gave plane %d as %dx%d, stride %d", at, c, cw, ch,
                            f->linesize[c]);
        depth[c] = comp->depth;
        deepest = SY__MAX(deepest, depth[c]);
        out->plane[c] = f->data[c];
        out->stride[c] = (uint32_t)f->linesize[c];
        out->plane_width[c] = (uint32_t)cw;
        out->plane_height[c] = (uint32_t)ch;
    }
    out->width = (uint32_t)f->width;
    out->height = (uint32_t)f->height;
    out->bit_depth = (uint8_t)deepest;
    out->chroma = (uint8_t)chroma;
    /* libavcodec's colour enums are the ITU-T H.273 code points the VUI carries. */
    out->vui.present = 1;
    out->vui.primaries = (uint16_t)f->color_primaries;
    out->vui.transfer = (uint16_t)f->color_trc;
    out->vui.matrix = (uint16_t)f->colorspace;
    out->vui.full_range = f->color_range == AVCOL_RANGE_JPEG || is_jpeg_range_format((enum AVPixelFormat)f->format);
    return SY_OK;
}

sy_status sy__avdec_receive(sy__avdec *d, sy__yuv *out, int depth[3], uint32_t *tag, int *got, sy_error *err) {
    *got = 0;
    if (d->holding) return sy__fail(err, SY_E_USAGE, "libavcodec decoder: receive before release");
    int e = avcodec_receive_frame(d->av, d->frame);
    if (e == AVERROR(EAGAIN) || e == AVERROR_EOF) return check_logged(d, err);
    if (d->draining && d->collected < d->sent) d->collected++;
    if (e < 0) return fail_averror(d, e, last_collected(d), err);
    d->holding = 1;
    sy_status st = check_logged(d, err);
    int64_t pts = d->frame->pts;
    if (st == SY_OK && (pts < 0 || pts > (int64_t)UINT32_MAX)) {
        char at[32];
        where(d, last_collected(d), at, sizeof at);
        st = sy__fail(err, SY_E_CODEC, "%s: libavcodec returned a picture of no sample", at);
    }
    if (st == SY_OK) st = view_frame(d, d->frame, (uint32_t)pts, out, depth, err);
    if (st != SY_OK) {
        sy__avdec_release(d);
        return st;
    }
    *tag = (uint32_t)pts;
    *got = 1;
    return SY_OK;
}

sy_status sy__avdec_vstream_finish(sy__vstream *s, sy_error *err) {
    return sy__avdec_send(((sy__avdec_vstream *)s)->av, NULL, 0, 0, err);
}

sy_status sy__avdec_vstream_receive(sy__vstream *s, sy__yuv *pic, uint32_t *tag, int *got, sy_error *err) {
    sy__avdec *d = ((sy__avdec_vstream *)s)->av;
    const sy__vstream_params *p = &s->params;
    int depth[3];
    sy_status st = sy__avdec_receive(d, pic, depth, tag, got, err);
    if (st != SY_OK || !*got) return st;
    if (pic->width != p->width || pic->height != p->height)
        st = sy__fail(err, SY_E_UNSUPPORTED, "sample %u: picture of %ux%u in a %ux%u stream", *tag, pic->width,
                      pic->height, p->width, p->height);
    for (int c = 1; st == SY_OK && c < (pic->chroma == 0 ? 1 : 3); c++)
        if (depth[c] != depth[0])
            st = sy__fail(err, SY_E_UNSUPPORTED, "sample %u: luma and chroma bit depths differ", *tag);
    if (st != SY_OK) {
        sy__avdec_release(d);
        *got = 0;
    }
    return st;
}

void sy__avdec_vstream_release(sy__vstream *s) { sy__avdec_release(((sy__avdec_vstream *)s)->av); }

void sy__avdec_vstream_destroy(sy__vstream *s) {
    if (!s) return;
    sy_context *ctx = s->ctx;
    sy__avdec_close(((sy__avdec_vstream *)s)->av);
    if (s->params.charged) sy__discharge(ctx, s->params.charged);
    sy__free(ctx, s);
}

void sy__avdec_release(sy__avdec *d) {
    if (!d->holding) return;
    av_frame_unref(d->frame);
    d->holding = 0;
}

void sy__avdec_reset(sy__avdec *d) {
    sy__avdec_release(d);
    avcodec_flush_buffers(d->av);
    d->sent = d->collected = 0;
    d->draining = 0;
}

size_t sy__avcodec_picture_bytes(uint32_t width, uint32_t height, unsigned chroma, unsigned bit_depth) {
    size_t px = (size_t)width * height;
    size_t bps = bit_depth > 8 ? 2 : 1;
    size_t chroma_quarters = chroma == 0 ? 0 : chroma == 1 ? 2 : chroma == 2 ? 4 : 8;
    return (px + px * chroma_quarters / 4) * bps;
}
