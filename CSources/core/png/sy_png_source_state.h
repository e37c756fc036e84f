/* sy_png_source_state.h — the PNG row source's state, shared by its two
 * files (engine-private to png/): png_reader.c reads chunks, inflates and
 * unfilters rows; png_convert.c turns a raw row into 8-bit RGB (palette,
 * gray, 16-bit, alpha and tRNS over white) or into HDR signal values. */
#ifndef SY_PNG_SOURCE_STATE_H
#define SY_PNG_SOURCE_STATE_H

#include <stdio.h>
#include <zlib.h>

#include "base/sy_hdr_tone.h"
#include "base/sy_input.h"
#include "base/sy_internal.h"
#include "png/sy_png_source.h"

enum { CT_GRAY = 0, CT_RGB = 2, CT_PALETTE = 3, CT_GRAY_ALPHA = 4, CT_RGBA = 6 };

typedef struct png_header {
    uint32_t width, height;
    uint8_t depth, color_type, interlace, channels;
} png_header;

typedef struct png_source {
    sy__source base;
    sy_context *ctx;
    FILE *file;
    char *path;
    png_header h;
    /* bounded file reader */
    uint8_t *buf;
    size_t buf_size, pos, len;
    /* IDAT stream */
    uint32_t chunk_left; /* data bytes of the current IDAT not yet handed to zlib */
    uint32_t chunk_crc;  /* running CRC of the current IDAT (type + data so far) */
    int idat_over;       /* a non-IDAT chunk followed: no more image data */
    int z_ready, z_end;
    z_stream zs;
    /* rows: [filter byte][row bytes] */
    size_t rowbytes;
    unsigned bpp; /* bytes per complete pixel for the filters (>= 1) */
    uint8_t *prev, *cur;
    /* palette / low-depth gray lookup, already composited over white */
    uint8_t lut[256 * 3];
    uint8_t plte[256 * 3];
    uint8_t alpha[256];
    unsigned plte_count;
    int has_trns;
    uint16_t trns[3];
    /* interlaced: the whole image as RGB */
    uint8_t *image;
    uint8_t *pass_rgb;
    uint32_t next_row;
    /* opened for gains (sy__png_gain_open): where they are in the file's pixel order */
    int gain_only, gains_done;
    int gain_pass;          /* interlaced: Adam7 pass 0..6, 7 after the last */
    uint32_t gain_pass_row; /* its next row */
    int where_pass;    /* for messages: interlace pass 1..7, 0 = not interlaced, -1 = after the rows */
    uint32_t where_row;
    char where_buf[64];
    /* HDR signal: its facts, its mapping, one row of signal values and alpha */
    sy__png_hdr hdr;
    int cicp_seen;
    sy_hdr_static_metadata grade;
    sy__hdr_map hdr_map;
    float *signal, *signal_alpha;
    size_t held; /* bytes allocated by this source (incl. zlib's) */
    sy_status failed;
    sy_error failure;
} png_source;

/* png_convert.c: the palette / low-depth gray lookup (after PLTE and tRNS). */
void sy__png_build_lut(png_source *s);
/* One raw (unfiltered) row of `w` pixels into s->signal (and s->signal_alpha): HDR signal values. */
void sy__png_signal_row(const png_source *s, const uint8_t *src, uint32_t w);
/* One raw row of `w` pixels into 8-bit RGB at dst (an HDR PNG tone-mapped to SDR). */
void sy__png_convert_row(const png_source *s, const uint8_t *src, uint8_t *dst, uint32_t w);

#endif
