/* fuzz_heif.c — libFuzzer harness for the HEIF structure reader (sy_heif_*),
 * and through it the BMFF box cursor: open, every item's info, hvcC and ICC
 * payloads, grid descriptors, derived references and every item's data
 * (items over 4 MiB are skipped), and for an HDR AV1 primary (AVIF) its
 * signal and libheif's decode of it as SDR rows and gain rows. Every
 * returned byte is read so ASan sees any out-of-range pointer. Built by scripts/fuzz.sh; alone:
 *   /opt/swift/usr/bin/clang -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
 *     -fno-sanitize-recover=undefined -ICSources/include -fuse-ld=lld Tests/Fuzz/fuzz_heif.c \
 *     CSources/bmff/bmff_reader.c CSources/heif/heif_file.c CSources/base/context.c \
 *     $(pkg-config --libs libheif) -lpthread -lm -o /tmp/fuzz_heif */
#include <stdlib.h>

#include "fuzz_support.h"
#include "base/sy_hdr_tone.h"
#include "bmff/sy_bmff.h"
#include "heif/sy_heif.h"
#include "heif/sy_heif_geometry.h"
#include "heif/sy_heif_source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_input_path(data, size);
    if (!path) return 0;
    sy_context *ctx = fuzz_context(256u << 20);
    sy_heif_file *file = NULL;
    sy_error err;
    uint32_t sum = 0;
    if (sy_heif_open(ctx, path, &file, &err) == SY_OK) {
        uint32_t n = sy_heif_item_count(file);
        sum += sy_heif_primary_id(file);
        if (!sy_heif_item(file, sy_heif_primary_id(file))) __builtin_trap(); /* open guarantees the primary */
        for (uint32_t i = 0; i < n; i++) {
            const sy_heif_item_info *it = sy_heif_item_at(file, i);
            if (!it || sy_heif_item(file, it->id) != it) __builtin_trap();
            sum += it->width + it->height + it->rotation + (uint32_t)it->mirror + it->aux_of + it->describes;
            if (it->has_clap &&
                ((uint64_t)it->clap_x + it->clap_width > it->width || (uint64_t)it->clap_y + it->clap_height > it->height ||
                 it->clap_width == 0 || it->clap_height == 0))
                __builtin_trap(); /* a reported clean aperture must lie inside the image */
            size_t len;
            const uint8_t *p = sy_heif_hvcc(file, it->id, &len);
            if (p) sum += fuzz_sum(p, len);
            p = sy_heif_icc(file, it->id, &len);
            if (p) sum += fuzz_sum(p, len);
            uint32_t count;
            const uint32_t *derived = sy_heif_derived(file, it->id, &count);
            if (count != it->derived_count) __builtin_trap();
            for (uint32_t k = 0; k < count; k++) sum += derived[k];
            sy_heif_grid grid;
            if (sy_heif_read_grid(file, it->id, &grid, &err) == SY_OK) {
                if (grid.rows * grid.columns != count || grid.output_width > 65535 || grid.output_height > 65535)
                    __builtin_trap();
                sum += grid.output_width;
            }
            if (it->data_size <= (4u << 20)) {
                uint8_t *buf = NULL;
                if (sy_heif_read_item(file, it->id, &buf, &len, &err) == SY_OK) {
                    if (len != it->data_size) __builtin_trap();
                    sum += fuzz_sum(buf, len);
                    sy_heif_free_data(file, buf);
                }
            }
        }
        /* an HDR AV1 primary (AVIF): its signal, then libheif's decode of its
         * samples as SDR rows and gain rows (the path HDR AVIFs take) */
        sy_cicp signal;
        if (sy__heif_av1_signal(file, sy_heif_primary_id(file), &signal)) {
            if (!signal.present || !sy__cicp_is_hdr_transfer(signal.transfer)) __builtin_trap();
            sy__source *src = NULL;
            if (sy__libheif_source_open(ctx, path, &signal, &src, &err) == SY_OK) {
                uint8_t *row = malloc((size_t)src->width * 3);
                float *gain = malloc((size_t)src->width * sizeof *gain);
                for (uint32_t y = 0; row && gain && y < src->height; y++) {
                    if (src->read_rows(src, &row, 1, &err) != SY_OK) __builtin_trap();
                    sum += fuzz_sum(row, (size_t)src->width * 3);
                }
                src->close(src);
                src = NULL;
                if (gain && sy__libheif_source_open(ctx, path, &signal, &src, &err) == SY_OK) {
                    for (uint32_t y = 0; y < src->height; y++) {
                        if (sy__libheif_read_gain_row(src, gain, &err) != SY_OK) __builtin_trap();
                        for (uint32_t x = 0; x < src->width; x++)
                            if (!(gain[x] >= 1.0f - 1e-3f) || !(gain[x] < 1e4f)) __builtin_trap(); /* HDR never darker */
                    }
                    src->close(src);
                }
                free(row);
                free(gain);
            } else if (err.message[0] == 0) {
                __builtin_trap();
            }
        }
        sy_heif_close(file);
    }
    fuzz_require_released(ctx);
    if (sum == 0xFFFFFFFFu) fprintf(stderr, "unlikely\n");
    return 0;
}
