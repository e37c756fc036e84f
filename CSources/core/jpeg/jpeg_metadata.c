/* jpeg_metadata.c — Exif (APP1 "Exif\0\0"), XMP (APP1 Adobe namespace, and
 * the extended XMP its main packet names) and
 * the ICC profile (APP2 chunks) of a JPEG, read from its markers only. */
#include <stdlib.h>
#include <string.h>

#include "base/sy_input.h"
#include "jpeg/sy_jpeg_metadata.h"
#include "jpeg/sy_jpeg_error.h"
#include "jpeg/sy_jpeg_xmp_extension.h"
#include "exif/sy_exif.h"

static const char XMP_PREFIX[] = "http://ns.adobe.com/xap/1.0/"; /* followed by a NUL */

/* An APP13 "Photoshop 3.0" payload with an IPTC-NAA resource block (8BIM
 * 0x0404): what apps keep keywords and captions in. */
static int holds_iptc(const uint8_t *p, size_t len) {
    static const char sig[] = "Photoshop 3.0";
    if (len < sizeof sig || memcmp(p, sig, sizeof sig) != 0) return 0;
    for (size_t at = sizeof sig; at + 12 <= len;) {
        if (memcmp(p + at, "8BIM", 4) != 0) return 0;
        unsigned id = (unsigned)p[at + 4] << 8 | p[at + 5];
        size_t name = (size_t)p[at + 6] + 1; /* Pascal string, padded to even */
        name += name & 1;
        size_t size_at = at + 6 + name;
        if (size_at + 4 > len) return 0;
        size_t size = (size_t)p[size_at] << 24 | (size_t)p[size_at + 1] << 16 | (size_t)p[size_at + 2] << 8 | p[size_at + 3];
        if (id == 0x0404) return size > 0;
        if (size > len - size_at - 4) return 0;
        at = size_at + 4 + size + (size & 1);
    }
    return 0;
}

sy_status sy__jpeg_metadata_read(sy_context *ctx, const char *path, sy__metadata *out, sy_error *err) {
    memset(out, 0, sizeof *out);
    FILE *file = NULL;
    sy_status opened = sy__input_open(path, &file, err);
    if (opened != SY_OK) return opened;
    struct jpeg_decompress_struct cinfo;
    sy__jpeg_error jerr;
    JOCTET *icc = NULL;
    cinfo.err = sy__jpeg_error_init(&jerr);
    jpeg_create_decompress(&cinfo);
    if (setjmp(jerr.jump)) {
        jpeg_destroy_decompress(&cinfo);
        fclose(file); /* libjpeg errors come only from jpeg_read_header, before icc exists */
        sy__metadata_free(ctx, out);
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: JPEG markers unreadable: %s", path, jerr.message);
    }
    jpeg_stdio_src(&cinfo, file);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 13, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);
    sy_status st = SY_OK;
    for (jpeg_saved_marker_ptr m = cinfo.marker_list; m && st == SY_OK; m = m->next) {
        if (m->marker == JPEG_APP0 + 13 && !out->iptc && holds_iptc(m->data, m->data_length)) {
            out->iptc = sy__alloc_copy(ctx, m->data, m->data_length, "metadata", err);
            out->iptc_len = m->data_length;
            if (!out->iptc) st = err ? err->code : SY_E_BUDGET;
            continue;
        }
        if (m->marker != JPEG_APP0 + 1) continue;
        if (!out->exif && m->data_length > 6 && memcmp(m->data, "Exif\0\0", 6) == 0) {
            out->exif = sy__alloc_copy(ctx, m->data + 6, m->data_length - 6, "metadata", err);
            out->exif_len = m->data_length - 6;
            if (!out->exif) st = err ? err->code : SY_E_BUDGET;
        } else if (!out->xmp && m->data_length > sizeof XMP_PREFIX &&
                   memcmp(m->data, XMP_PREFIX, sizeof XMP_PREFIX) == 0) {
            out->xmp = sy__alloc_copy(ctx, m->data + sizeof XMP_PREFIX, m->data_length - sizeof XMP_PREFIX, "metadata",
                                      err);
            out->xmp_len = m->data_length - sizeof XMP_PREFIX;
            if (!out->xmp) st = err ? err->code : SY_E_BUDGET;
        }
    }
    if (st == SY_OK && out->xmp && sy__xmp_extended_guid(out->xmp, out->xmp_len, out->xmp_ext_guid))
        st = sy__jpeg_xmp_extension_read(ctx, cinfo.marker_list, out->xmp_ext_guid, &out->xmp_ext, &out->xmp_ext_len, err);
    unsigned int icc_len = 0;
    if (st == SY_OK && jpeg_read_icc_profile(&cinfo, &icc, &icc_len) && icc && icc_len) {
        out->icc = sy__alloc_copy(ctx, icc, icc_len, "metadata", err);
        out->icc_len = icc_len;
        if (!out->icc) st = err ? err->code : SY_E_BUDGET;
    }
    if (icc) free(icc); /* libjpeg allocates it with malloc */
    jpeg_destroy_decompress(&cinfo);
    fclose(file);
    if (st != SY_OK) sy__metadata_free(ctx, out);
    return st;
}
