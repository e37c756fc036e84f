/* fuzz_jpeg.c — libFuzzer harness for the JPEG reader: header probe (Exif
 * orientation included), then a scaled decode through the cell builder
 * (DCT scaling, resampler, orientation, 4:2:0 store). Built by scripts/fuzz.sh. */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../CSources/base/sy_internal.h"
#include "../../CSources/base/sy_source.h"
#include "../../CSources/collage/sy_cell.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int fd = memfd_create("fuzz-jpeg", 0);
    if (fd < 0) return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    /* One context for the whole run: creating one per input re-runs libheif's
     * global init each time and slows the fuzzer ~50x. */
    static sy_context *ctx = NULL;
    if (!ctx) {
        sy_context_options opts;
        sy_context_options_init(&opts);
        opts.budget_bytes = 256u << 20;
        if (sy_context_create(&opts, &ctx, NULL) != SY_OK) {
            close(fd);
            return 0;
        }
    }
    sy_image_info info;
    sy_error err;
    if (sy_image_probe(ctx, path, &info, &err) == SY_OK && info.format == SY_FORMAT_JPEG &&
        (uint64_t)info.stored_width * info.stored_height <= 4096u * 4096u) {
        sy__cell cell = {0};
        uint32_t sum = 0;
        for (uint32_t chroma_shift = 0; chroma_shift < 2; chroma_shift++) {
            if (sy__cell_build(ctx, path, &info, 64, 48, chroma_shift, &cell, NULL, &err) == SY_OK) {
                for (size_t i = 0; i < cell.bytes; i++) sum += cell.plane[0][i]; /* read every byte */
                sy__cell_release(ctx, &cell);
            }
        }
        if (sum == 0xFFFFFFFFu) fprintf(stderr, "unlikely\n");
    }
    sy_memory_stats stats;
    sy_context_memory_stats(ctx, &stats);
    if (stats.current_bytes != 0) __builtin_trap(); /* every engine allocation released */
    close(fd);
    return 0;
}
