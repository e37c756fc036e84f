/* hevc_stream.c — a movie's HEVC track through one libde265 decoder (issue 4).
 *
 * The hvcC parameter sets (or, for hev1 without them, those of sample 0) are
 * read with hevc_params.c before libde265 sees anything: the picture size,
 * chroma format, bit depth and DPB size bound what libde265 will allocate,
 * and that estimate is charged to the context for the decoder's lifetime.
 * Each sample's NAL units are pushed with the sample's tag as their PTS;
 * libde265 applies the DPB bumping process and hands pictures out in display
 * order, cropped to the conformance window. (de265_push_end_of_frame is not
 * used: in libde265 1.0.11 it also flushes the reorder buffer, which puts
 * B-frame streams out of order.) An in-band SPS asking for more
 * than the stream was set up for is refused before libde265 reads it.
 *
 * libde265 reports damaged slices as warnings and carries on; a warning is
 * turned into an error naming the sample it concerns (decoding is drained
 * after every sample; see slice_data_warning for which sample that is). */
#include <string.h>
#include <unistd.h>

#include "base/sy_nal.h"
#include "hevc/sy_de265.h"
#include "hevc/sy_hevc.h"

enum { NAL_RASL_N = 8, NAL_RASL_R = 9, NAL_FIRST_NON_VCL = 32 };

typedef struct hevc_stream {
    sy__vstream base;
    de265_decoder_context *de;
    int de265_ref;
    uint32_t length_size;
    sy__hevc_bound bound;   /* what the charge covers */
    uint32_t tag;           /* sample whose NAL units were pushed last */
    uint32_t data_tag;      /* sample whose slice data libde265 decodes now (see slice_data_warning) */
    int64_t last_slice_tag; /* last sample with a slice NAL unit, -1 before the first */
    uint32_t decode_budget; /* de265_decode calls left before "no progress" */
    int holding;            /* a picture is borrowed */
} hevc_stream;

/* libde265 1.0.11 reads a slice header when its NAL unit is popped but
 * decodes that picture's slice data only when the next picture's first slice
 * arrives (or at the end of the stream): damage found in slice data belongs
 * to the previous picture's sample, damage in headers to the current one. */
static int slice_data_warning(de265_error w) {
    switch (w) {
    case DE265_WARNING_PREMATURE_END_OF_SLICE_SEGMENT:
    case DE265_WARNING_INCORRECT_ENTRY_POINT_OFFSET:
    case DE265_WARNING_CTB_OUTSIDE_IMAGE_AREA:
    case DE265_WARNING_INCORRECT_MOTION_VECTOR_SCALING:
    case DE265_WARNING_BOTH_PREDFLAGS_ZERO:
    case DE265_WARNING_NONEXISTING_REFERENCE_PICTURE_ACCESSED:
    case DE265_WARNING_NUMMVP_NOT_EQUAL_TO_NUMMVQ:
    case DE265_WARNING_EOSS_BIT_NOT_SET:
    case DE265_WARNING_COLLOCATED_MOTION_VECTOR_OUTSIDE_IMAGE_AREA:
    case DE265_WARNING_PCM_BITDEPTH_TOO_LARGE:
    case DE265_WARNING_REFERENCE_IMAGE_BIT_DEPTH_DOES_NOT_MATCH:
    case DE265_WARNING_REFERENCE_IMAGE_SIZE_DOES_NOT_MATCH_SPS:
    case DE265_WARNING_REFERENCE_IMAGE_CHROMA_FORMAT_DOES_NOT_MATCH: return 1;
    default: return 0;
    }
}

/* Warnings that say nothing about the bitstream. */
static int benign_warning(de265_error w) {
    return w == DE265_WARNING_NO_WPP_CANNOT_USE_MULTITHREADING || w == DE265_WARNING_WARNING_BUFFER_FULL ||
           w == DE265_WARNING_NUMBER_OF_THREADS_LIMITED_TO_MAXIMUM;
}

static sy_status check_warnings(hevc_stream *s, sy_error *err) {
    for (int i = 0; i < 64; i++) { /* libde265 keeps a short queue */
        de265_error w = de265_get_warning(s->de);
        if (w == DE265_OK) break;
        if (!benign_warning(w))
            return sy__fail_sub(err, SY_E_INVALID_INPUT, (int32_t)w, "sample %u: libde265: %s",
                                slice_data_warning(w) ? s->data_tag : s->tag, de265_get_error_text(w));
    }
    return SY_OK;
}

/* Finds the parameters of the first SPS among sample 0's length-prefixed NAL
 * units (hev1 may carry them there) and widens the bound with every SPS. */
static int first_sps_in_sample(const uint8_t *data, size_t len, uint32_t length_size, sy__hevc_sps *sps,
                               sy__hevc_bound *b, sy_error *err, sy_status *st) {
    int found = 0;
    for (size_t pos = 0; pos < len && len - pos >= length_size;) {
        uint32_t n = sy__nal_length(data + pos, length_size);
        pos += length_size;
        if (n > len - pos) break;
        if (n >= 2 && sy__hevc_nal_type(data + pos) == SY__HEVC_NAL_SPS) {
            if ((*st = sy__hevc_note_nal(data + pos, n, b, "sample 0", err)) != SY_OK) return 0;
            if (!found) found = sy__hevc_sps_parse(data + pos, n, sps);
        }
        pos += n;
    }
    return found;
}

static sy_status hevc_send(sy__vstream *base, const uint8_t *data, size_t len, uint32_t tag, int *may_vanish,
                           sy_error *err) {
    hevc_stream *s = (hevc_stream *)base;
    *may_vanish = 0;
    uint32_t nals = 0;
    sy_status st = sy__nal_framing(data, len, s->length_size, tag, &nals, err);
    if (st != SY_OK) return st;
    /* In-band parameter sets must fit what was charged; note the picture type. */
    int first_vcl = -1;
    for (size_t pos = 0; pos < len;) {
        uint32_t n = sy__nal_length(data + pos, s->length_size);
        pos += s->length_size;
        if (n >= 2) {
            unsigned type = sy__hevc_nal_type(data + pos);
            if (type < NAL_FIRST_NON_VCL && first_vcl < 0) first_vcl = (int)type;
            if (type == SY__HEVC_NAL_SPS) {
                sy__hevc_bound b = {0};
                char where[32];
                snprintf(where, sizeof where, "sample %u", tag);
                if ((st = sy__hevc_note_nal(data + pos, n, &b, where, err)) != SY_OK) return st;
                if (b.width > s->bound.width || b.height > s->bound.height || b.chroma > s->bound.chroma ||
                    b.bit_depth > s->bound.bit_depth || b.dpb > s->bound.dpb)
                    return sy__fail(err, SY_E_UNSUPPORTED,
                                    "sample %u: a new sequence parameter set (%ux%u, %u-bit) exceeds the stream's "
                                    "first (%ux%u, %u-bit)",
                                    tag, b.width, b.height, b.bit_depth, s->bound.width, s->bound.height,
                                    s->bound.bit_depth);
            }
        } else if (n == 1) {
            return sy__fail(err, SY_E_INVALID_INPUT, "sample %u: NAL unit of 1 byte", tag);
        }
        pos += n;
    }
    *may_vanish = first_vcl == NAL_RASL_N || first_vcl == NAL_RASL_R;
    s->tag = tag;
    s->data_tag = first_vcl >= 0 && s->last_slice_tag >= 0 ? (uint32_t)s->last_slice_tag : tag;
    if (first_vcl >= 0) s->last_slice_tag = tag;
    de265_error e = sy__de265_push_nals(s->de, data, len, s->length_size, (de265_PTS)tag);
    if (!de265_isOK(e))
        return sy__fail_sub(err, SY_E_CODEC, (int32_t)e, "sample %u: libde265: %s", tag, de265_get_error_text(e));
    s->decode_budget = 2 * nals + 64;
    return SY_OK;
}

static sy_status hevc_finish(sy__vstream *base, sy_error *err) {
    hevc_stream *s = (hevc_stream *)base;
    if (s->last_slice_tag >= 0) s->tag = s->data_tag = (uint32_t)s->last_slice_tag;
    de265_error e = de265_flush_data(s->de);
    if (!de265_isOK(e))
        return sy__fail_sub(err, SY_E_CODEC, (int32_t)e, "libde265: flush: %s", de265_get_error_text(e));
    s->decode_budget = 4096; /* the last picture's slices, then the DPB drains (a guard, not a limit) */
    return SY_OK;
}

/* A borrowed view of libde265's planes, which must match the stream's parameters. */
static sy_status view(hevc_stream *s, const struct de265_image *img, sy__yuv *out, sy_error *err) {
    const sy__vstream_params *p = &s->base.params;
    char where[32];
    snprintf(where, sizeof where, "sample %u", s->tag);
    int depth[3];
    sy_status st = sy__de265_view(img, out, depth, where, err);
    if (st != SY_OK) return st;
    if (out->width != p->width || out->height != p->height)
        return sy__fail(err, SY_E_UNSUPPORTED, "sample %u: picture of %ux%u in a %ux%u stream", s->tag, out->width,
                        out->height, p->width, p->height);
    for (int c = 1; c < (out->chroma == 0 ? 1 : 3); c++)
        if (depth[c] != depth[0])
            return sy__fail(err, SY_E_UNSUPPORTED, "sample %u: luma and chroma bit depths differ", s->tag);
    return SY_OK;
}

static sy_status hevc_receive(sy__vstream *base, sy__yuv *pic, uint32_t *tag, int *got, sy_error *err) {
    hevc_stream *s = (hevc_stream *)base;
    *got = 0;
    if (s->holding) return sy__fail(err, SY_E_USAGE, "hevc stream: receive before release");
    for (;;) {
        const struct de265_image *img = de265_peek_next_picture(s->de);
        if (img) {
            de265_PTS pts = de265_get_image_PTS(img);
            sy_status st = view(s, img, pic, err);
            if (st != SY_OK) return st;
            if (pts < 0 || pts > (de265_PTS)UINT32_MAX)
                return sy__fail(err, SY_E_CODEC, "sample %u: libde265 returned a picture of no sample", s->tag);
            *tag = (uint32_t)pts;
            *got = 1;
            s->holding = 1;
            return SY_OK;
        }
        if (s->decode_budget == 0)
            return sy__fail(err, SY_E_CODEC, "sample %u: libde265 made no progress", s->tag);
        s->decode_budget--;
        int more = 0;
        de265_error e = de265_decode(s->de, &more);
        sy_status st = check_warnings(s, err);
        if (st != SY_OK) return st;
        if (e == DE265_ERROR_WAITING_FOR_INPUT_DATA) return SY_OK;
        if (!de265_isOK(e) && e != DE265_ERROR_IMAGE_BUFFER_FULL)
            return sy__fail_sub(err, SY_E_INVALID_INPUT, (int32_t)e, "sample %u: libde265: %s", s->tag,
                                de265_get_error_text(e));
        if (!more && !de265_peek_next_picture(s->de)) return SY_OK; /* drained */
    }
}

static void hevc_release(sy__vstream *base) {
    hevc_stream *s = (hevc_stream *)base;
    if (!s->holding) return;
    de265_release_next_picture(s->de);
    s->holding = 0;
}

static void hevc_destroy(sy__vstream *base) {
    if (!base) return;
    hevc_stream *s = (hevc_stream *)base;
    sy_context *ctx = base->ctx;
    if (s->de) de265_free_decoder(s->de);
    sy__de265_drop(s->de265_ref);
    if (base->params.charged) sy__discharge(ctx, base->params.charged);
    sy__free(ctx, s);
}

static const sy__vstream_ops hevc_ops = {hevc_send, hevc_finish, hevc_receive, hevc_release, hevc_destroy};

/* libde265's heap for a stream, measured with mallinfo2 over whole decodes
 * (libde265 1.0.11, DPB size 5): 320x240 8-bit 1.8 MB, 10-bit 2.6 MB,
 * 1920x1440 8-bit 46 MB — max_dec_pic_buffering + 2 pictures, each its
 * samples plus ~0.9 bytes per pixel of metadata, and ~0.5 MB of tables.
 * Charged a little above. */
static size_t stream_estimate(const sy__hevc_bound *b) {
    size_t px = (size_t)b->width * b->height;
    size_t picture = sy__hevc_picture_bytes(b);
    size_t pictures = (size_t)(b->dpb ? b->dpb : 16) + 2;
    return (picture + picture / 10 + px * 6 / 5) * pictures + ((size_t)1 << 20);
}

sy_status sy__hevc_stream_create(sy_context *ctx, const uint8_t *config, size_t config_len, const uint8_t *first,
                                 size_t first_len, sy__vstream **out, sy_error *err) {
    *out = NULL;
    sy__hvcc hvcc;
    sy_status st = sy__hvcc_parse(config, config_len, &hvcc, err);
    if (st != SY_OK) return st;
    sy__hevc_sps sps;
    int have_sps = 0;
    for (uint32_t i = 0; i < hvcc.ps_count && !have_sps; i++) {
        const uint8_t *nal = config + hvcc.ps[i].offset;
        if (sy__hevc_nal_type(nal) == SY__HEVC_NAL_SPS) have_sps = sy__hevc_sps_parse(nal, hvcc.ps[i].length, &sps);
    }
    if (!have_sps && first) {
        st = SY_OK;
        have_sps = first_sps_in_sample(first, first_len, hvcc.length_size, &sps, &hvcc.bound, err, &st);
        if (st != SY_OK) return st;
    }
    if (!have_sps) return sy__fail(err, SY_E_INVALID_INPUT, "no sequence parameter set in hvcC or sample 0");
    const sy__hevc_bound *b = &hvcc.bound;
    if (b->width > SY__HEVC_MAX_SIDE || b->height > SY__HEVC_MAX_SIDE)
        return sy__fail(err, SY_E_BUDGET, "coded picture %ux%u exceeds %ux%u", b->width, b->height, SY__HEVC_MAX_SIDE,
                        SY__HEVC_MAX_SIDE);
    if (sps.out_width == 0 || sps.out_height == 0)
        return sy__fail(err, SY_E_INVALID_INPUT, "sequence parameter set gives an empty %ux%u picture", sps.out_width,
                        sps.out_height);
    if (sps.bit_depth_luma != sps.bit_depth_chroma && sps.chroma != 0)
        return sy__fail(err, SY_E_UNSUPPORTED, "luma %u-bit and chroma %u-bit differ", sps.bit_depth_luma,
                        sps.bit_depth_chroma);

    size_t charge = stream_estimate(b);
    if ((st = sy__charge(ctx, charge, "libde265 stream (estimate)", err)) != SY_OK) return st;
    hevc_stream *s = sy__calloc(ctx, 1, sizeof *s, "hevc stream", err);
    if (!s) {
        sy__discharge(ctx, charge);
        return err ? err->code : SY_E_BUDGET;
    }
    s->base.ops = &hevc_ops;
    s->base.ctx = ctx;
    s->base.params.width = sps.out_width;
    s->base.params.height = sps.out_height;
    s->base.params.bit_depth = sps.bit_depth_luma;
    s->base.params.chroma = sps.chroma;
    s->base.params.colour = sps.colour;
    s->base.params.charged = charge;
    s->length_size = hvcc.length_size;
    s->last_slice_tag = -1;
    s->bound = *b;
    if (!s->bound.dpb) s->bound.dpb = 16;
    s->de265_ref = sy__de265_hold();
    s->de = sy__de265_new_decoder();
    if (!s->de) {
        hevc_destroy(&s->base);
        return sy__fail(err, SY_E_CODEC, "libde265 could not create a decoder");
    }
    /* Worker threads decode the rows (WPP) or tiles of one picture in
     * parallel; de265_decode still returns with the picture complete. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores > 1) de265_start_worker_threads(s->de, (int)(cores < 4 ? cores : 4));
    de265_error e = sy__de265_push_parameter_sets(s->de, config, &hvcc);
    if (!de265_isOK(e)) {
        hevc_destroy(&s->base);
        return sy__fail_sub(err, SY_E_CODEC, (int32_t)e, "libde265: parameter sets: %s", de265_get_error_text(e));
    }
    s->decode_budget = 2 * hvcc.ps_count + 64;
    *out = &s->base;
    return SY_OK;
}
