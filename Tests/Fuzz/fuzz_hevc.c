/* fuzz_hevc.c — libFuzzer harness for the HEVC tile decoder (hevc/): the input
 * is a 2-byte big-endian length, that many bytes of hvcC record, then the
 * item's length-prefixed NAL units. Creates a decoder, decodes, and converts
 * every row to RGB and to JFIF YCbCr. Then the same item through a decoder
 * kept warm (the grid workers' way: one libavcodec context, flushed between
 * pictures, pictures given back), twice: every picture must be the fresh
 * decode's, sample for sample, or fail as it did. Built like scripts/fuzz.sh
 * (needs libavcodec on the link line: $(pkg-config --libs libavcodec libavutil)). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/sy_internal.h"
#include "hevc/sy_hevc.h"

/* Whether two decoded pictures hold the same visible samples. */
static int same_picture(const sy__yuv *a, const sy__yuv *b) {
    if (a->width != b->width || a->height != b->height || a->chroma != b->chroma || a->bit_depth != b->bit_depth)
        return 0;
    size_t bps = a->bit_depth > 8 ? 2 : 1;
    for (int c = 0; c < 3; c++) {
        if (!a->plane[c] != !b->plane[c] || a->plane_width[c] != b->plane_width[c] ||
            a->plane_height[c] != b->plane_height[c])
            return 0;
        for (uint32_t y = 0; a->plane[c] && y < a->plane_height[c]; y++)
            if (memcmp(a->plane[c] + (size_t)y * a->stride[c], b->plane[c] + (size_t)y * b->stride[c],
                       a->plane_width[c] * bps))
                return 0;
    }
    return 1;
}

/* The item through a warm decoder, twice, against the fresh decode (`fresh`,
 * or NULL when it failed). */
static void check_warm(sy_context *ctx, const uint8_t *hvcc, size_t hl, const uint8_t *item, size_t item_len,
                       const sy__yuv *fresh) {
    sy_error err;
    sy__hevc_decoder *dec = NULL;
    if (sy__hevc_decoder_create(ctx, hvcc, hl, &dec, &err) != SY_OK) return;
    sy__hevc_decoder_keep_warm(dec, 1);
    for (int round = 0; round < 2; round++) {
        sy__yuv yuv;
        sy_status st = sy__hevc_decode(dec, item, item_len, &yuv, &err);
        if ((st == SY_OK) != (fresh != NULL)) {
            /* a budget refusal may differ (the warm context's charge is held) */
            if (st == SY_E_BUDGET) continue;
            __builtin_trap();
        }
        if (st == SY_OK) {
            if (!same_picture(&yuv, fresh)) __builtin_trap(); /* warm decode differs from fresh */
            sy__hevc_recycle(dec, &yuv);
        }
    }
    sy__hevc_decoder_destroy(dec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    size_t hl = (size_t)data[0] << 8 | data[1];
    if (hl > size - 2) hl = size - 2;
    const uint8_t *hvcc = data + 2, *item = data + 2 + hl;
    size_t item_len = size - 2 - hl;
    sy_context_options opts;
    sy_context_options_init(&opts);
    opts.budget_bytes = 64u << 20;
    sy_context *ctx = NULL;
    if (sy_context_create(&opts, &ctx, NULL) != SY_OK) return 0;
    sy_error err;
    sy__hevc_decoder *dec = NULL;
    if (sy__hevc_decoder_create(ctx, hvcc, hl, &dec, &err) == SY_OK) {
        sy__yuv yuv;
        if (sy__hevc_decode(dec, item, item_len, &yuv, &err) == SY_OK) {
            uint8_t *row = sy__alloc(ctx, yuv.width, 3, "fuzz row", &err);
            if (row) {
                uint32_t sum = 0;
                sy_cicp nclx = {1, 1, 13, (uint16_t)(yuv.bytes % 15), (uint8_t)(yuv.bytes & 1)};
                for (uint32_t y = 0; y < yuv.height; y++) {
                    sy__yuv_rows(&yuv, NULL, 1, y, 1, &row);
                    sum += row[0] + row[yuv.width * 3 - 1];
                    sy__yuv_rows(&yuv, &nclx, 0, y, 1, &row);
                    sum += row[0] + row[yuv.width * 3 - 1];
                }
                if (sum == 0xFFFFFFFFu) fprintf(stderr, "unlikely\n");
                sy__free(ctx, row);
            }
            check_warm(ctx, hvcc, hl, item, item_len, &yuv);
            sy__yuv_release(ctx, &yuv);
        } else if (err.code != SY_E_BUDGET) {
            check_warm(ctx, hvcc, hl, item, item_len, NULL);
        }
        sy__hevc_decoder_destroy(dec);
    }
    sy_memory_stats ms;
    sy_context_memory_stats(ctx, &ms);
    if (ms.current_bytes != 0) __builtin_trap(); /* leak or unbalanced charge */
    sy_context_destroy(ctx);
    return 0;
}
