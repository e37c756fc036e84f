/* render_source.c — sy__render_source: a decoder's rows streamed through the
 * renderer band by band, holding only the window of source rows each band
 * reads (see sy_render_window.h). */
#include <string.h>

#include "base/sy_color.h"
#include "render/sy_render_internal.h"
#include "render/sy_render_window.h"

/* Rows of source the window may hold at once: a band of target rows plus
 * the filter taps, within this many bytes (a big downscale narrows the band). */
#define WINDOW_CAP ((size_t)2 << 20)
#define BAND_ROWS 16u

/* Rows of the largest window a band of `band` rows needs. */
static uint32_t window_rows(const sy_renderer *r, uint32_t height, uint32_t band) {
    uint32_t most = 1, first, last;
    for (uint32_t y = 0; y < height; y += band)
        if (sy__renderer_source_rows(r, y, band < height - y ? band : height - y, &first, &last) &&
            last - first + 1 > most)
            most = last - first + 1;
    return most;
}

sy_status sy__render_source(sy_context *ctx, sy__source *src, const sy_renderer *r, sy__render_sink sink, void *user,
                            sy_error *err) {
    uint32_t tw, th;
    sy_renderer_size(r, &tw, &th);
    size_t row_bytes = (size_t)src->width * 3;
    uint32_t band = BAND_ROWS, cap = window_rows(r, th, band);
    while (band > 1 && cap * row_bytes > WINDOW_CAP) cap = window_rows(r, th, band /= 2);
    uint8_t *window = sy__alloc(ctx, (size_t)cap * row_bytes + 16, 1, "render source window", err);
    uint8_t **fill = sy__alloc(ctx, cap, sizeof *fill, "render source rows", err);
    uint8_t *out = sy__alloc(ctx, band, (size_t)tw * 3, "render band", err);
    sy_status st = window && fill && out ? SY_OK : (err ? err->code : SY_E_BUDGET);
    uint32_t win_first = 0, win_rows = 0; /* source rows [win_first, win_first + win_rows) are held */
    for (uint32_t y = 0; y < th && st == SY_OK; y += band) {
        uint32_t count = band < th - y ? band : th - y, first, last;
        if (sy__renderer_source_rows(r, y, count, &first, &last)) {
            uint32_t read_to = win_first + win_rows; /* next row the decoder delivers */
            if (first >= read_to) { /* nothing held is needed: skip ahead */
                if (first > read_to && (st = src->skip_rows(src, first - read_to, err)) != SY_OK) break;
                win_first = first, win_rows = 0;
            } else if (first > win_first) { /* drop the rows above the band */
                memmove(window, window + (size_t)(first - win_first) * row_bytes,
                        (size_t)(read_to - first) * row_bytes);
                win_rows -= first - win_first, win_first = first;
            }
            uint32_t want = last + 1 - win_first;
            if (want > win_rows) {
                for (uint32_t i = win_rows; i < want; i++) fill[i - win_rows] = window + (size_t)i * row_bytes;
                if ((st = src->read_rows(src, fill, want - win_rows, err)) != SY_OK) break;
                if (src->pixels == SY__PIX_YCC) sy__ycc_rows_to_rgb(fill, want - win_rows, src->width); /* renderer: R'G'B' */
                win_rows = want;
            }
        }
        st = sy__renderer_render_window(r, window, row_bytes, win_first, win_rows, y, count, out, (size_t)tw * 3, err);
        for (uint32_t i = 0; i < count && st == SY_OK; i++) st = sink(user, y + i, out + (size_t)i * tw * 3, err);
    }
    sy__free(ctx, window);
    sy__free(ctx, fill);
    sy__free(ctx, out);
    return st;
}

