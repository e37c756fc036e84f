/* fuzz_hevc.c — libFuzzer harness for the HEVC tile decoder (hevc/): the input
 * is a 2-byte big-endian length, that many bytes of hvcC record, then the
 * item's length-prefixed NAL units. Creates a decoder, decodes, and converts
 * every row to RGB and to JFIF YCbCr. Built like scripts/fuzz.sh (needs
 * libavcodec on the link line: $(pkg-config --libs libavcodec libavutil)). */
#include <stdint.h>
#include <stdio.h>

#include "base/sy_internal.h"
#include "hevc/sy_hevc.h"

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
            sy__yuv_release(ctx, &yuv);
        }
        sy__hevc_decoder_destroy(dec);
    }
    sy_memory_stats ms;
    sy_context_memory_stats(ctx, &ms);
    if (ms.current_bytes != 0) __builtin_trap(); /* leak or unbalanced charge */
    sy_context_destroy(ctx);
    return 0;
}
