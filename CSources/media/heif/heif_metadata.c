/* heif_metadata.c — Exif and XMP items describing the primary image (cdsc),
 * and its ICC profile, read with our own HEIF reader. */
#include <string.h>

#include "color/sy_color_transform.h"
#include "heif/sy_heif_metadata.h"
#include "bmff/sy_bmff.h"
#include "heif/sy_heif.h"
#include "heif/sy_heif_geometry.h"
#include "sy_still.h"

static sy_status take_item(sy_heif_file *file, uint32_t id, size_t skip, uint8_t **out, size_t *out_len,
                           sy_context *ctx, sy_error *err) {
    uint8_t *data = NULL;
    size_t len = 0;
    sy_status st = sy_heif_read_item(file, id, &data, &len, err);
    if (st != SY_OK) return st;
    if (skip <= len) {
        *out = sy__alloc(ctx, len - skip + 1, 1, "heif metadata", err);
        if (*out) {
            memcpy(*out, data + skip, len - skip);
            *out_len = len - skip;
        } else {
            st = err ? err->code : SY_E_BUDGET;
        }
    }
    sy_heif_free_data(file, data);
    return st;
}

sy_cicp sy__heif_primary_nclx(sy_heif_file *file, uint32_t primary) {
    const sy_heif_item_info *item = sy_heif_item(file, primary);
    if (item && !item->nclx.present) {
        uint32_t count = 0;
        const uint32_t *inputs = sy_heif_derived(file, primary, &count);
        if (inputs && count) item = sy_heif_item(file, inputs[0]);
    }
    sy_cicp none = {0};
    return item ? item->nclx : none;
}

sy_status sy__heif_metadata_read(sy_context *ctx, const char *path, sy__metadata *out, sy_error *err) {
    memset(out, 0, sizeof *out);
    sy_heif_file *file = NULL;
    sy_status st = sy_heif_open(ctx, path, &file, err);
    if (st != SY_OK) return st;
    uint32_t primary = sy_heif_primary_id(file), signalled = sy_heif_signalled_primary_id(file);
    for (uint32_t i = 0; i < sy_heif_item_count(file) && st == SY_OK; i++) {
        const sy_heif_item_info *item = sy_heif_item_at(file, i);
        if (!item || (item->describes != primary && item->describes != signalled)) continue; /* Exif may sit on a tmap primary */
        if (item->type == SY_FOURCC('E', 'x', 'i', 'f') && !out->exif) {
            /* payload: 32-bit offset to the TIFF header, then the Exif data */
            uint8_t *raw = NULL;
            size_t raw_len = 0;
            st = take_item(file, item->id, 0, &raw, &raw_len, ctx, err);
            if (st == SY_OK && raw && raw_len >= 4) {
                uint32_t skip = (uint32_t)raw[0] << 24 | (uint32_t)raw[1] << 16 | (uint32_t)raw[2] << 8 | raw[3];
                if ((uint64_t)skip + 4 + 8 <= raw_len) {
                    out->exif_len = raw_len - 4 - skip;
                    out->exif = sy__alloc(ctx, out->exif_len, 1, "heif exif", err);
                    if (out->exif) memcpy(out->exif, raw + 4 + skip, out->exif_len);
                    else st = err ? err->code : SY_E_BUDGET;
                }
            }
            sy__free(ctx, raw);
        } else if (item->type == SY_FOURCC('m', 'i', 'm', 'e') && !out->xmp &&
                   strcmp(item->content_type, "application/rdf+xml") == 0) {
            st = take_item(file, item->id, 0, &out->xmp, &out->xmp_len, ctx, err);
        }
    }
    size_t icc_len = 0;
    const uint8_t *icc = sy_heif_icc(file, primary, &icc_len);
    sy__heif_geometry g;
    sy_cicp nclx = sy__heif_primary_nclx(file, primary), av1;
    if (st == SY_OK && ((sy__heif_geometry_read(file, path, primary, &g, NULL) == SY_OK && sy__heif_geometry_is_hdr(&g)) ||
                        sy__heif_av1_signal(file, primary, &av1))) {
        /* Its pixels are delivered as SDR Display P3 (sy_heif_geometry.h; an
         * HDR AVIF through libheif likewise), and tagged as such: any profile
         * of the HDR signal describes no pixel we hand out. */
        st = sy__color_space_icc(ctx, SY__RGB_DISPLAY_P3, &out->icc, &out->icc_len, err);
        icc = NULL;
    } else if (st == SY_OK && !(icc && icc_len) && nclx.present && nclx.primaries != SY_CICP_PRIMARIES_BT709 &&
               nclx.primaries != SY_CICP_UNSPECIFIED && nclx.primaries != 0) {
        /* Colour said only by nclx (Display P3, BT.2020 ...): carried as the
         * profile that says the same, so an edit or conversion (which keeps
         * the pixels in their space) stays tagged. Primaries without known
         * chromaticities are left unsaid, as before. */
        sy_error ignored = {0};
        sy_status made = sy__color_cicp_icc(ctx, nclx.primaries, nclx.transfer, &out->icc, &out->icc_len, &ignored);
        if (made == SY_E_BUDGET) st = sy__fail(err, made, "%s", ignored.message);
    }
    if (st == SY_OK && icc && icc_len) {
        out->icc = sy__alloc(ctx, icc_len, 1, "heif icc", err);
        if (out->icc) memcpy(out->icc, icc, icc_len), out->icc_len = icc_len;
        else st = err ? err->code : SY_E_BUDGET;
    }
    sy_heif_close(file);
    if (st != SY_OK) sy__metadata_free(ctx, out);
    return st;
}

void sy__heif_uncarried_items(sy_context *ctx, const char *path, uint32_t *dropped, uint32_t *thumbnail_side) {
    *thumbnail_side = 0;
    static const char gain_map_urn[] = "urn:com:apple:photo:2020:aux:hdrgainmap";
    sy_heif_file *file = NULL;
    if (sy_heif_open(ctx, path, &file, NULL) != SY_OK) return;
    uint32_t primary = sy_heif_primary_id(file);
    for (uint32_t i = 0; i < sy_heif_item_count(file); i++) {
        const sy_heif_item_info *item = sy_heif_item_at(file, i);
        if (!item || item->id == primary) continue;
        if (item->type == SY_FOURCC('t', 'm', 'a', 'p')) *dropped |= SY_DROPPED_ISO_GAIN_MAP;
        else if (item->thumbnail_of == primary) {
            *dropped |= SY_DROPPED_HEIC_THUMBNAIL;
            if (!*thumbnail_side) *thumbnail_side = SY__MAX(item->width, item->height);
        }
        else if (item->aux_of == primary && strcmp(item->aux_type, gain_map_urn) != 0)
            *dropped |= SY_DROPPED_AUXILIARY_IMAGES;
    }
    sy_heif_close(file);
}
