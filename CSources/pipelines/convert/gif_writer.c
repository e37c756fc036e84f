/* gif_writer.c — GIF89a with our own LZW (convert/sy_gif_writer.h).
 *
 * LZW as GIF specifies it: minimum code size 8 (indices are bytes), clear
 * code 256, end code 257, the code width growing from 9 bits as the table
 * fills up to 4096 entries, then a clear code and a fresh table. The string
 * table is a hash of (prefix code, next index) -> code. Codes are packed
 * least-significant bit first into data sub-blocks of at most 255 bytes. */
#include <errno.h>
#include <string.h>

#include "convert/sy_gif_writer.h"

#define LZW_MAX_CODES 4096u
#define HASH_SLOTS 8191u /* prime, about twice the table */

struct sy__gif_writer {
    sy_context *ctx;
    FILE *file;
    const char *path;
    uint32_t width, height;
    int failed; /* the errno of the first failed write */
    /* LZW state for the frame being written */
    uint32_t keys[HASH_SLOTS];  /* (prefix << 8 | index) + 1; 0 = empty */
    uint16_t codes[HASH_SLOTS];
    uint32_t next_code, code_bits;
    uint32_t bit_buffer, bit_count;
    uint8_t block[255];
    uint32_t block_len;
};

static void put(sy__gif_writer *g, const void *p, size_t n) {
    if (!g->failed && fwrite(p, 1, n, g->file) != n) g->failed = errno ? errno : EIO;
}

static void put16(sy__gif_writer *g, uint32_t v) {
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    put(g, b, 2);
}

static void flush_block(sy__gif_writer *g) {
    if (!g->block_len) return;
    uint8_t n = (uint8_t)g->block_len;
    put(g, &n, 1);
    put(g, g->block, g->block_len);
    g->block_len = 0;
}

static void emit(sy__gif_writer *g, uint32_t code) {
    g->bit_buffer |= code << g->bit_count;
    g->bit_count += g->code_bits;
    while (g->bit_count >= 8) {
        g->block[g->block_len++] = (uint8_t)g->bit_buffer;
        if (g->block_len == sizeof g->block) flush_block(g);
        g->bit_buffer >>= 8;
        g->bit_count -= 8;
    }
}

static void reset_table(sy__gif_writer *g) {
    memset(g->keys, 0, sizeof g->keys);
    g->next_code = 258;
    g->code_bits = 9;
}

sy_status sy__gif_writer_open(sy_context *ctx, FILE *file, const char *path, uint32_t width, uint32_t height,
                              const uint8_t *palette, uint32_t colors, sy__gif_writer **out, sy_error *err) {
    *out = NULL;
    if (width == 0 || height == 0 || width > 65535 || height > 65535 || colors < 2 || colors > 256)
        return sy__fail(err, SY_E_USAGE, "%s: a GIF is 1..65535 pixels a side with 2..256 colours (%ux%u, %u)", path,
                        width, height, colors);
    sy__gif_writer *g = sy__calloc(ctx, 1, sizeof *g, "gif writer", err);
    if (!g) return err ? err->code : SY_E_BUDGET;
    g->ctx = ctx, g->file = file, g->path = path, g->width = width, g->height = height;
    uint32_t bits = 1;
    while ((1u << bits) < colors) bits++;
    put(g, "GIF89a", 6);
    put16(g, width);
    put16(g, height);
    uint8_t screen[3] = {(uint8_t)(0x80 | (bits - 1) << 4 | (bits - 1)), 0, 0}; /* global table, its size */
    put(g, screen, 3);
    uint8_t rgb[256 * 3] = {0};
    memcpy(rgb, palette, (size_t)colors * 3);
    put(g, rgb, (size_t)3 << bits);
    static const uint8_t loop[19] = {0x21, 0xFF, 11, 'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0', 3, 1, 0, 0, 0};
    put(g, loop, sizeof loop); /* loop forever */
    if (g->failed) {
        int e = g->failed;
        sy__free(ctx, g);
        return sy__fail_sub(err, SY_E_IO, e, "%s: write failed: %s", path, strerror(e));
    }
    *out = g;
    return SY_OK;
}

sy_status sy__gif_writer_frame(sy__gif_writer *g, const uint8_t *indices, size_t stride, uint32_t x, uint32_t y,
                               uint32_t w, uint32_t h, uint32_t delay_cs, int transparent, sy_error *err) {
    if (w == 0 || h == 0 || x + w > g->width || y + h > g->height || delay_cs > 65535)
        return sy__fail(err, SY_E_USAGE, "%s: frame rectangle %ux%u at %u,%u outside the %ux%u screen", g->path, w, h, x,
                        y, g->width, g->height);
    uint8_t gce[8] = {0x21, 0xF9, 4, (uint8_t)(1 << 2 | (transparent >= 0)), (uint8_t)delay_cs,
                      (uint8_t)(delay_cs >> 8), (uint8_t)(transparent >= 0 ? transparent : 0), 0};
    put(g, gce, sizeof gce);
    uint8_t sep = 0x2C;
    put(g, &sep, 1);
    put16(g, x);
    put16(g, y);
    put16(g, w);
    put16(g, h);
    uint8_t flags = 0, min_bits = 8;
    put(g, &flags, 1);
    put(g, &min_bits, 1);
    reset_table(g);
    g->bit_buffer = g->bit_count = g->block_len = 0;
    emit(g, 256);
    uint32_t prefix = indices[0];
    for (uint32_t row = 0; row < h; row++) {
        const uint8_t *p = indices + (size_t)row * stride;
        for (uint32_t i = row == 0 ? 1 : 0; i < w; i++) {
            uint32_t key = (prefix << 8 | p[i]) + 1;
            uint32_t slot = key % HASH_SLOTS;
            while (g->keys[slot] && g->keys[slot] != key) slot = slot + 1 == HASH_SLOTS ? 0 : slot + 1;
            if (g->keys[slot]) { /* the string extends one we know */
                prefix = g->codes[slot];
                continue;
            }
            emit(g, prefix);
            if (g->next_code < LZW_MAX_CODES) {
                g->keys[slot] = key;
                g->codes[slot] = (uint16_t)g->next_code;
                /* the decoder widens one code later than the table grows */
                if (g->next_code++ == (1u << g->code_bits) && g->code_bits < 12) g->code_bits++;
            } else {
                emit(g, 256);
                reset_table(g);
            }
            prefix = p[i];
        }
    }
    emit(g, prefix);
    /* the decoder counts a table entry for the last code too, and may widen before the end code */
    if (g->next_code == (1u << g->code_bits) && g->code_bits < 12) g->code_bits++;
    emit(g, 257);
    if (g->bit_count) {
        g->block[g->block_len++] = (uint8_t)g->bit_buffer;
        if (g->block_len == sizeof g->block) flush_block(g);
    }
    flush_block(g);
    uint8_t end = 0;
    put(g, &end, 1);
    return g->failed ? sy__fail_sub(err, SY_E_IO, g->failed, "%s: write failed: %s", g->path, strerror(g->failed)) : SY_OK;
}

sy_status sy__gif_writer_finish(sy__gif_writer *g, sy_error *err) {
    uint8_t trailer = 0x3B;
    put(g, &trailer, 1);
    if (!g->failed && fflush(g->file) != 0) g->failed = errno ? errno : EIO;
    return g->failed ? sy__fail_sub(err, SY_E_IO, g->failed, "%s: write failed: %s", g->path, strerror(g->failed)) : SY_OK;
}

void sy__gif_writer_destroy(sy__gif_writer *g) {
    if (g) sy__free(g->ctx, g);
}
