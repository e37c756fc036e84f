/* fuzz_av1.c — libFuzzer harness for the AV1 still decoder (hevc/sy_av1.h,
 * an AVIF item through libdav1d): the input is a 2-byte big-endian length,
 * that many bytes of av1C record, then the item's OBUs. Parses the record,
 * creates a decoder, decodes, and converts every row to RGB. A decode must
 * fail with a message or give a picture inside its sequence header's size;
 * afterwards no engine memory may be left. Seeds in Tests/Fuzz/seeds/av1. */
#include <stdint.h>
#include <stdio.h>

#include "base/sy_internal.h"
#include "hevc/sy_av1.h"
#include "hevc/sy_hevc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    size_t al = (size_t)data[0] << 8 | data[1];
    if (al > size - 2) al = size - 2;
    const uint8_t *av1c = data + 2, *item = data + 2 + al;
    size_t item_len = size - 2 - al;
    sy__av1_sequence seq;
    uint8_t has = 0;
    size_t at = 0;
    if (!sy__av1_walk_item(item, item_len, &seq, &has, &at) && has && (seq.max_width == 0 || seq.max_height == 0))
        __builtin_trap();
    sy_context_options opts;
    sy_context_options_init(&opts);
    opts.budget_bytes = 64u << 20;
    sy_context *ctx = NULL;
    if (sy_context_create(&opts, &ctx, NULL) != SY_OK) return 0;
    sy_error err = {0};
    sy__av1_decoder *dec = NULL;
    if (sy__av1_decoder_create(ctx, av1c, al, &dec, &err) == SY_OK) {
        sy__yuv yuv;
        sy_status st = sy__av1_decode(dec, item, item_len, &yuv, &err);
        if (st != SY_OK && err.message[0] == 0) __builtin_trap();
        if (st == SY_OK) {
            uint8_t *row = sy__alloc(ctx, yuv.width, 3, "fuzz row", &err);
            if (row) {
                uint32_t sum = 0;
                for (uint32_t y = 0; y < yuv.height; y++) {
                    sy__yuv_rows(&yuv, NULL, 1, y, 1, &row);
                    sum += row[0] + row[yuv.width * 3 - 1];
                }
                if (sum == 0xFFFFFFFFu) fprintf(stderr, "unlikely\n");
                sy__free(ctx, row);
            }
            sy__yuv_release(ctx, &yuv);
        }
        sy__av1_decoder_destroy(dec);
    } else if (err.message[0] == 0) {
        __builtin_trap();
    }
    sy_memory_stats ms;
    sy_context_memory_stats(ctx, &ms);
    if (ms.current_bytes != 0) __builtin_trap(); /* leak or unbalanced charge */
    sy_context_destroy(ctx);
    return 0;
}
