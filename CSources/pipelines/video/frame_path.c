/* frame_path.c — the shared frame path of a transcode (see sy_frame_path.h). */
#include <string.h>

#include "render/sy_render_gamut.h"
#include "video/sy_frame_path.h"

sy_status sy__frame_path_open(sy_context *ctx, const sy_recipe *recipe, const sy_video_reader_info *vi,
                              sy__frame_path *out, sy_error *err) {
    return sy__frame_path_open_fitted(ctx, recipe, vi, 0, 0, NULL, out, err);
}

sy_status sy__frame_path_open_fitted(sy_context *ctx, const sy_recipe *recipe, const sy_video_reader_info *vi,
                                     uint32_t max_w, uint32_t max_h, const float *gamut, sy__frame_path *out,
                                     sy_error *err) {
    memset(out, 0, sizeof *out);
    out->frame_width = vi->width;
    out->frame_height = vi->height;
    sy_status st = SY_OK;
    if (recipe) {
        st = sy_render_output_size(recipe, vi->width, vi->height, max_w, max_h, 0, &out->frame_width, &out->frame_height, err);
        if (st == SY_OK)
            st = sy__renderer_create_gamut(ctx, recipe, vi->width, vi->height, out->frame_width, out->frame_height,
                                           gamut, &out->renderer, err);
    }
    out->width = out->frame_width & ~1u;
    out->height = out->frame_height & ~1u;
    return st;
}

sy_status sy__frame_path_render(sy__frame_path *p, const sy_video_frame *frame, uint8_t *dst, size_t dst_stride,
                                sy_error *err) {
    if (!p->renderer) return sy__fail(err, SY_E_USAGE, "sy__frame_path_render: no recipe, nothing to render");
    sy_pixels src = {frame->rgb, frame->stride, frame->width, frame->height};
    return sy__renderer_render_rows_reusing(p->renderer, &src, 0, p->frame_height, dst, dst_stride, &p->scratch, err);
}

sy_status sy__video_check_sdr_consent(const sy_video_reader_info *vi, const char *input, const char *what,
                                      int allow_sdr, sy_error *err) {
    if (allow_sdr || !sy__cicp_is_hdr_transfer(vi->transfer)) return SY_OK;
    return sy__fail(err, SY_E_UNSUPPORTED,
                    "%s: is HDR video (%s) that %s cannot keep: the movie is re-encoded in 8 bits, as SDR; allow_sdr "
                    "records the user's consent to an SDR movie; nothing was written",
                    input, vi->transfer == SY_CICP_TRANSFER_HLG ? "HLG" : "PQ", what);
}

void sy__frame_path_close(sy__frame_path *p) {
    sy__render_scratch_free(&p->scratch);
    sy_renderer_destroy(p->renderer);
    p->renderer = NULL;
}
