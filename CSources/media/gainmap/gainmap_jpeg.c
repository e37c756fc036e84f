/* gainmap_jpeg.c — the gain-map JPEG: encoded and decoded in memory (it is
 * small: a quarter of the base's pixels, one channel), with its XMP, through libjpeg. */
#include <stdlib.h>
#include <string.h>

#include "jpeg/sy_jpeg_error.h"
#include "gainmap/sy_gainmap_internal.h"

static const char XMP_NS[] = "http://ns.adobe.com/xap/1.0/"; /* + NUL */

sy_status sy__gainmap_jpeg_encode(sy_context *ctx, const uint8_t *px, size_t stride, uint32_t w, uint32_t h,
                                  uint32_t channels, int quality, const char *xmp, size_t xmp_len,
                                  const uint8_t *iso, size_t iso_len, uint8_t **out, size_t *out_len, sy_error *err) {
    *out = NULL, *out_len = 0;
    if (xmp_len + sizeof XMP_NS > 65533) return sy__fail(err, SY_E_USAGE, "gain map XMP too large (%zu bytes)", xmp_len);
    struct jpeg_compress_struct cinfo;
    sy__jpeg_error jerr;
    unsigned char *mem = NULL;
    unsigned long mem_len = 0;
    cinfo.err = sy__jpeg_error_init(&jerr);
    jpeg_create_compress(&cinfo);
    if (setjmp(jerr.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(mem);
        return sy__fail(err, SY_E_CODEC, "gain map JPEG encoder: %s", jerr.message);
    }
    jpeg_mem_dest(&cinfo, &mem, &mem_len);
    cinfo.image_width = w;
    cinfo.image_height = h;
    cinfo.input_components = (int)channels;
    cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    cinfo.write_JFIF_header = FALSE; /* the gain map carries only its XMP (as libultrahdr and Apple write it) */
    jpeg_start_compress(&cinfo, TRUE);
    if (xmp && xmp_len) {
        jpeg_write_m_header(&cinfo, JPEG_APP0 + 1, (unsigned)(xmp_len + sizeof XMP_NS));
        for (size_t i = 0; i < sizeof XMP_NS; i++) jpeg_write_m_byte(&cinfo, XMP_NS[i]);
        for (size_t i = 0; i < xmp_len; i++) jpeg_write_m_byte(&cinfo, (uint8_t)xmp[i]);
    }
    if (iso && iso_len && iso_len + SY__ISO21496_URN_LEN <= 65533) {
        jpeg_write_m_header(&cinfo, JPEG_APP0 + 2, (unsigned)(iso_len + SY__ISO21496_URN_LEN));
        for (size_t i = 0; i < SY__ISO21496_URN_LEN; i++) jpeg_write_m_byte(&cinfo, (uint8_t)SY__ISO21496_URN[i]);
        for (size_t i = 0; i < iso_len; i++) jpeg_write_m_byte(&cinfo, iso[i]);
    }
    while (cinfo.next_scanline < h) {
        JSAMPROW row = (JSAMPROW)(px + (size_t)cinfo.next_scanline * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = sy__alloc(ctx, mem_len, 1, "gain map JPEG", err);
    if (*out) memcpy(*out, mem, mem_len), *out_len = mem_len;
    free(mem);
    return *out ? SY_OK : (err ? err->code : SY_E_BUDGET);
}

sy_status sy__gainmap_jpeg_decode(sy_context *ctx, const char *path, const uint8_t *data, size_t len,
                                  sy_gainmap_image *out, sy_error *err) {
    memset(out, 0, sizeof *out);
    if (len < 4 || len > 0xFFFFFFFFu) return sy__fail(err, SY_E_INVALID_INPUT, "%s: gain map JPEG of %zu bytes", path, len);
    struct jpeg_decompress_struct cinfo;
    sy__jpeg_error jerr;
    cinfo.err = sy__jpeg_error_init(&jerr);
    jpeg_create_decompress(&cinfo);
    if (setjmp(jerr.jump)) {
        jpeg_destroy_decompress(&cinfo);
        sy_gainmap_image_free(ctx, out);
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: gain map JPEG does not decode: %s", path, jerr.message);
    }
    jpeg_mem_src(&cinfo, data, (unsigned long)len);
    jpeg_read_header(&cinfo, TRUE);
    uint32_t w = cinfo.image_width, h = cinfo.image_height, ch = cinfo.num_components == 1 ? 1 : 3;
    sy_status st = SY_OK;
    if (w < 1 || h < 1 || w > 16384 || h > 16384) {
        st = sy__fail(err, SY_E_INVALID_INPUT, "%s: gain map JPEG is %ux%u", path, w, h);
    } else if (!(out->pixels = sy__alloc(ctx, (size_t)w * ch, h, "gain map pixels", err))) {
        st = err ? err->code : SY_E_BUDGET;
    } else {
        out->width = w, out->height = h, out->channels = ch, out->stride = (size_t)w * ch;
        cinfo.out_color_space = ch == 1 ? JCS_GRAYSCALE : JCS_RGB;
        jpeg_start_decompress(&cinfo);
        while (cinfo.output_scanline < h) {
            JSAMPROW row = out->pixels + (size_t)cinfo.output_scanline * out->stride;
            jpeg_read_scanlines(&cinfo, &row, 1);
        }
        jpeg_finish_decompress(&cinfo);
        if (jerr.warnings || jerr.truncated) /* a damaged map is not a map: never apply guessed gains */
            st = sy__fail(err, SY_E_INVALID_INPUT, "%s: gain map JPEG is damaged: %s", path, jerr.message);
    }
    jpeg_destroy_decompress(&cinfo);
    if (st != SY_OK) sy_gainmap_image_free(ctx, out);
    return st;
}

/* The payload of the first APPn segment (marker `m`) that starts with `id` (id_len bytes). */
static const uint8_t *find_app(const uint8_t *d, size_t len, uint8_t marker, const char *id, size_t id_len,
                               size_t *out_len) {
    if (len < 4 || d[0] != 0xFF || d[1] != 0xD8) return NULL;
    size_t i = 2;
    while (i + 4 <= len && d[i] == 0xFF) {
        uint8_t m = d[i + 1];
        if (m == 0xDA || m == 0xD9) break;
        size_t seg = (size_t)d[i + 2] << 8 | d[i + 3];
        if (seg < 2 || i + 2 + seg > len) break;
        if (m == marker && seg - 2 > id_len && memcmp(d + i + 4, id, id_len) == 0) {
            *out_len = seg - 2 - id_len;
            return d + i + 4 + id_len;
        }
        i += 2 + seg;
    }
    return NULL;
}

const char *sy__jpeg_find_xmp(const uint8_t *d, size_t len, size_t *xmp_len) {
    return (const char *)find_app(d, len, 0xE1, XMP_NS, sizeof XMP_NS, xmp_len);
}

const uint8_t *sy__jpeg_find_iso21496(const uint8_t *d, size_t len, size_t *iso_len) {
    return find_app(d, len, 0xE2, SY__ISO21496_URN, SY__ISO21496_URN_LEN, iso_len);
}

void sy_gainmap_image_free(sy_context *ctx, sy_gainmap_image *img) {
    if (!img) return;
    sy__free(ctx, img->pixels);
    memset(img, 0, sizeof *img);
}
