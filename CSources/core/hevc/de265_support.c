/* de265_support.c — libde265 set-up, feeding and picture checks shared by the
 * still and stream decoders (sy_de265.h). */
#include <string.h>

#include "base/sy_nal.h"
#include "hevc/sy_de265.h"

int sy__de265_hold(void) { return de265_init() == DE265_OK; }

void sy__de265_drop(int held) {
    if (held) de265_free();
}

de265_decoder_context *sy__de265_new_decoder(void) {
    de265_decoder_context *de = de265_new_decoder();
    if (de) de265_set_parameter_bool(de, DE265_DECODER_PARAM_BOOL_SEI_CHECK_HASH, 0);
    return de;
}

de265_error sy__de265_push_parameter_sets(de265_decoder_context *de, const uint8_t *record, const sy__hvcc *hvcc) {
    de265_error e = DE265_OK;
    for (uint32_t i = 0; i < hvcc->ps_count && de265_isOK(e); i++)
        e = de265_push_NAL(de, record + hvcc->ps[i].offset, (int)hvcc->ps[i].length, 0, NULL);
    return e;
}

de265_error sy__de265_push_nals(de265_decoder_context *de, const uint8_t *data, size_t len, uint32_t length_size,
                                de265_PTS pts) {
    de265_error e = DE265_OK;
    for (size_t pos = 0; pos < len && de265_isOK(e);) {
        uint32_t n = sy__nal_length(data + pos, length_size);
        pos += length_size;
        if (n) e = de265_push_NAL(de, data + pos, (int)n, pts, NULL);
        pos += n;
    }
    return e;
}

size_t sy__hevc_picture_bytes(const sy__hevc_bound *b) {
    size_t px = (size_t)b->width * b->height;
    size_t bps = b->bit_depth > 8 ? 2 : 1;
    size_t chroma_quarters = b->chroma == 0 ? 0 : b->chroma == 1 ? 2 : b->chroma == 2 ? 4 : 8;
    return (px + px * chroma_quarters / 4) * bps;
}

sy_status sy__de265_view(const struct de265_image *img, sy__yuv *out, int depth[3], const char *where,
                         sy_error *err) {
    memset(out, 0, sizeof *out);
    enum de265_chroma cf = de265_get_chroma_format(img);
    int w = de265_get_image_width(img, 0), h = de265_get_image_height(img, 0);
    if (w <= 0 || h <= 0) return sy__fail(err, SY_E_INVALID_INPUT, "%s: decoded picture is %dx%d", where, w, h);
    if (cf != de265_chroma_mono && cf != de265_chroma_420 && cf != de265_chroma_422 && cf != de265_chroma_444)
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: chroma format %d", where, (int)cf);
    int planes = cf == de265_chroma_mono ? 1 : 3, deepest = 0;
    for (int c = 0; c < 3; c++) depth[c] = 0;
    for (int c = 0; c < planes; c++) {
        depth[c] = de265_get_bits_per_pixel(img, c);
        if (depth[c] < 8 || depth[c] > 16)
            return sy__fail(err, SY_E_UNSUPPORTED, "%s: plane %d has %d bits per sample", where, c, depth[c]);
        deepest = SY__MAX(deepest, depth[c]);
        int stride = 0;
        const uint8_t *plane = de265_get_image_plane(img, c, &stride);
        int cw = de265_get_image_width(img, c), ch = de265_get_image_height(img, c);
        if (!plane || cw <= 0 || ch <= 0 || cw > w || ch > h || stride < cw * (depth[c] > 8 ? 2 : 1))
            return sy__fail(err, SY_E_CODEC, "%s: libde265 gave plane %d as %dx%d, stride %d", where, c, cw, ch,
                            stride);
        out->plane[c] = (uint8_t *)plane;
        out->stride[c] = (uint32_t)stride;
        out->plane_width[c] = (uint32_t)cw;
        out->plane_height[c] = (uint32_t)ch;
    }
    out->width = (uint32_t)w;
    out->height = (uint32_t)h;
    out->bit_depth = (uint8_t)deepest;
    out->chroma = (uint8_t)cf;
    out->vui.present = 1;
    out->vui.primaries = (uint16_t)de265_get_image_colour_primaries(img);
    out->vui.transfer = (uint16_t)de265_get_image_transfer_characteristics(img);
    out->vui.matrix = (uint16_t)de265_get_image_matrix_coefficients(img);
    out->vui.full_range = de265_get_image_full_range_flag(img) ? 1 : 0;
    return SY_OK;
}
