/* fuzz_heif.c — libFuzzer harness for the HEIF structure reader (sy_heif_*),
 * and through it the BMFF box cursor: open, every item's info, hvcC and ICC
 * payloads, grid descriptors, derived references and every item's data
 * (items over 4 MiB are skipped). Every returned byte is read so ASan sees
 * any out-of-range pointer. Built by scripts/fuzz.sh; alone:
 *   /opt/swift/usr/bin/clang -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
 *     -fno-sanitize-recover=undefined -ICSources/include -fuse-ld=lld Tests/Fuzz/fuzz_heif.c \
 *     CSources/bmff/bmff_reader.c CSources/heif/heif_file.c CSources/base/context.c \
 *     $(pkg-config --libs libheif) -lpthread -lm -o /tmp/fuzz_heif */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sy_bmff.h"
#include "sy_heif.h"

static uint32_t sum_bytes(const uint8_t *p, size_t n) {
    uint32_t s = 0;
    for (size_t i = 0; i < n; i++) s += p[i];
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int fd = memfd_create("fuzz-heif", 0);
    if (fd < 0) return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    /* One context for the whole run: context create/destroy pairs heif_init and
     * heif_deinit, which would cost more than the parse itself. Every input must
     * still give back all it allocated (checked below). */
    static sy_context *ctx = NULL;
    if (!ctx) {
        sy_context_options opts;
        sy_context_options_init(&opts);
        opts.budget_bytes = 256u << 20;
        if (sy_context_create(&opts, &ctx, NULL) != SY_OK) __builtin_trap();
    }
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
            if (p) sum += sum_bytes(p, len);
            p = sy_heif_icc(file, it->id, &len);
            if (p) sum += sum_bytes(p, len);
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
                    sum += sum_bytes(buf, len);
                    sy_heif_free_data(file, buf);
                }
            }
        }
        sy_heif_close(file);
    }
    sy_memory_stats stats;
    sy_context_memory_stats(ctx, &stats);
    if (stats.current_bytes != 0) __builtin_trap(); /* everything freed */
    if (sum == 0xFFFFFFFFu) fprintf(stderr, "unlikely\n");
    close(fd);
    return 0;
}
