/* fuzz_png.c — libFuzzer harness for the PNG probe and row source.
 *
 * Build (from the package root):
 *   /opt/swift/usr/bin/clang -std=c11 -D_GNU_SOURCE -g -O1 \
 *     -fsanitize=fuzzer,address,undefined -ICSources/include \
 *     Tests/Fuzz/fuzz_png.c CSources/png/png_reader.c CSources/base/context.c \
 *     CSources/io/output.c -lz -lheif -o /tmp/fuzz_png
 *   /tmp/fuzz_png -max_total_time=60 [corpus-dir]
 *
 * Each input is written to a memfd and decoded through its /proc/self/fd path,
 * exactly as a file would be: probe, open, read every row, close. Afterwards
 * the context must report no engine memory still allocated.
 *
 * Mutations almost always break chunk CRCs, which would stop decoding at the
 * first chunk; so for two inputs in three the harness rewrites every complete
 * chunk's CRC before decoding (the third keeps the bytes as they are, to
 * exercise the CRC checks themselves).
 */
#include <stdlib.h>
#include <zlib.h>

#include "fuzz_support.h"
#include "base/sy_internal.h"
#include "png/sy_png_source.h"
#include "exif/sy_exif.h"
#include "png/sy_png_metadata.h"

#define FUZZ_MAX_SIDE 4096u
#define FUZZ_BUDGET ((size_t)256 << 20)

static uint32_t be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* Rewrites the CRC of every complete chunk after the 8-byte signature. */
static void fix_crcs(uint8_t *b, size_t size) {
    size_t pos = 8;
    while (pos + 12 <= size) {
        uint32_t len = be32(b + pos);
        if (len > size - pos - 12) break;
        uint32_t crc = (uint32_t)crc32(0, b + pos + 4, (uInt)len + 4);
        uint8_t *c = b + pos + 8 + len;
        c[0] = (uint8_t)(crc >> 24);
        c[1] = (uint8_t)(crc >> 16);
        c[2] = (uint8_t)(crc >> 8);
        c[3] = (uint8_t)crc;
        pos += 12 + (size_t)len;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *input_path;
    if (size % 3 != 0 && size <= ((size_t)1 << 30)) {
        uint8_t *copy = malloc(size ? size : 1);
        if (!copy) abort();
        memcpy(copy, data, size);
        fix_crcs(copy, size);
        input_path = fuzz_input_path(copy, size);
        free(copy);
    } else {
        input_path = fuzz_input_path(data, size);
    }
    if (!input_path) abort();
    sy_context *ctx = fuzz_context(FUZZ_BUDGET);
    sy_error err;
    memset(&err, 0, sizeof err);

    FILE *f = fopen(input_path, "rb");
    if (!f) abort();
    sy_image_info info;
    sy_status st = sy__png_probe(ctx, f, input_path, &info, &err);
    fclose(f);
    if (st == SY_OK && info.width <= FUZZ_MAX_SIDE && info.height <= FUZZ_MAX_SIDE) {
        sy__source *src = NULL;
        st = sy__png_source_open(ctx, input_path, &src, &err);
        if (st == SY_OK) {
            if (src->width != info.width || src->height != info.height || src->pixels != SY__PIX_RGB ||
                src->orientation != 1)
                abort();
            size_t stride = (size_t)src->width * 3;
            enum { BATCH = 7 };
            uint8_t *block = malloc(stride * BATCH);
            uint8_t *rows[BATCH];
            for (int i = 0; i < BATCH; i++) rows[i] = block + stride * (size_t)i;
            volatile unsigned sum = 0;
            uint32_t y = 0;
            while (y < src->height) {
                uint32_t n = src->height - y < BATCH ? src->height - y : BATCH;
                memset(&err, 0, sizeof err);
                sy_status rs = src->read_rows(src, rows, n, &err);
                if (rs != SY_OK) {
                    if (err.code != rs || err.message[0] == 0) abort();
                    break;
                }
                unsigned s = 0;
                for (size_t i = 0; i < stride * n; i++) s += block[i]; /* touch every output byte */
                sum += s;
                y += n;
            }
            (void)sum;
            free(block);
            src->close(src);
        }
        /* An HDR PNG (cICP PQ / HLG): its gains too, as the gain map reads them (interlaced: pass by pass). */
        sy__png_hdr hdr = {0};
        sy_error gerr = {0};
        if (st == SY_OK && sy__png_gain_open(ctx, input_path, &src, &gerr) == SY_OK) {
            sy__png_source_hdr(src, &hdr);
            float *gain = hdr.present ? malloc((size_t)src->width * sizeof *gain) : NULL;
            uint64_t given = 0;
            for (sy__png_gain_run run = {0}; gain;) {
                memset(&gerr, 0, sizeof gerr);
                sy_status gs = sy__png_read_gains(src, gain, &run, &gerr);
                if (gs != SY_OK) {
                    if (gerr.code != gs || gerr.message[0] == 0) abort();
                    break;
                }
                if (run.count == 0) {
                    if (given != (uint64_t)src->width * src->height) abort(); /* every pixel once */
                    break;
                }
                if (run.y >= src->height || run.x0 + (uint64_t)(run.count - 1) * run.step >= src->width) abort();
                given += run.count;
                for (uint32_t x = 0; x < run.count; x++)
                    if (!(gain[x] >= 0.999f && gain[x] <= 100.0f)) abort(); /* never dimmer than SDR, finite */
            }
            free(gain);
            src->close(src);
            sy__png_hdr probed;
            if (sy__png_probe_hdr(ctx, input_path, &probed, &gerr) != SY_OK || memcmp(&probed, &hdr, sizeof hdr) != 0)
                abort(); /* the cheap probe says what the open read */
        }
    }
    if (st != SY_OK && (err.message[0] == 0 || err.code != st)) abort(); /* failures must explain themselves */

    sy__metadata md;
    int animated = 0;
    memset(&err, 0, sizeof err);
    sy_status ms = sy__png_metadata_read(ctx, input_path, &md, &animated, &err);
    if (ms == SY_OK) {
        char date[20];
        volatile int flags = sy__exif_has_camera(md.exif, md.exif_len) +
                             sy__exif_user_comment_has(md.exif, md.exif_len, "Screenshot") +
                             sy__exif_capture_date(md.exif, md.exif_len, date) +
                             sy__xmp_user_comment_has(md.xmp, md.xmp_len, "Screenshot") + animated +
                             (md.icc ? md.icc[md.icc_len - 1] : 0) + md.cicp.primaries; /* an inflated profile is whole */
        (void)flags;
        sy__metadata_free(ctx, &md);
    } else if (err.message[0] == 0 || err.code != ms) {
        abort();
    }

    fuzz_require_released(ctx);
    return 0;
}
