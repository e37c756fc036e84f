/* gainmap_save.c — what a still writer needs to carry a gain map (shared by
 * the edit and the HDR sample generator):
 *  JPEG: the map encoded as its own JPEG with its XMP (hdrgm, plus Apple's
 *        HDRGainMap for Apple maps) and its ISO 21496-1 APP2 block; on the
 *        primary the Ultra HDR Container XMP (added to the source's XMP), the
 *        ISO version block and an MPF APP2 index whose sizes/offset are
 *        patched once the primary's length is known, then the map appended
 *        before the rename (docs/gain-maps.md);
 *  HEIC: for an Apple map, the Apple auxiliary image + its XMP item and a
 *        'tmap' item using the same image, added before finish; for any
 *        other map (Ultra HDR, ISO 21496-1, HDR signal, 3 channels, HDR
 *        base), or when asked for, the ISO form alone: the map a hidden image
 *        only the 'tmap' item uses. */
#include <string.h>
#include <unistd.h>

#include "base/sy_output.h"
#include "gainmap/sy_gainmap_internal.h"
#include "heif/sy_heif_writer.h"

/* Patches the MPF entries now that the primary's length is known, then
 * appends the map. The output's descriptor is read-write (sy__output_open). */
static sy_status jpeg_finish(void *user, FILE *file, sy_error *err) {
    sy__gainmap_save *s = user;
    if (fflush(file) != 0) return sy__write_failed(err, s->output);
    int fd = fileno(file);
    off_t primary_len = lseek(fd, 0, SEEK_END);
    uint8_t b[8];
    off_t at = 2, mpf = -1;
    while (at + 8 <= primary_len && pread(fd, b, 8, at) == 8 && b[0] == 0xFF && b[1] != 0xDA) {
        if (b[1] == 0xE2 && memcmp(b + 4, "MPF\0", 4) == 0) {
            mpf = at + 4; /* the payload */
            break;
        }
        at += 2 + ((off_t)b[2] << 8 | b[3]);
    }
    if (mpf < 0 || primary_len > 0xFFFFFFFFll)
        return sy__fail(err, SY_E_IO, "%s: MPF index not found in the written primary", s->output);
    uint32_t h = (uint32_t)(mpf + 4); /* TIFF header after "MPF\0" */
    uint32_t vals[3] = {(uint32_t)primary_len, (uint32_t)s->map_jpeg_len, (uint32_t)primary_len - h};
    const uint32_t where[3] = {SY__MPF_PRIMARY_SIZE_AT, SY__MPF_MAP_SIZE_AT, SY__MPF_MAP_OFFSET_AT};
    for (int i = 0; i < 3; i++) {
        uint8_t be[4] = {(uint8_t)(vals[i] >> 24), (uint8_t)(vals[i] >> 16), (uint8_t)(vals[i] >> 8), (uint8_t)vals[i]};
        if (pwrite(fd, be, 4, mpf + where[i]) != 4) return sy__fail(err, SY_E_IO, "%s: MPF patch failed", s->output);
    }
    if (fwrite(s->map_jpeg, 1, s->map_jpeg_len, file) != s->map_jpeg_len)
        return sy__fail(err, SY_E_IO, "%s: writing the gain map failed", s->output);
    return SY_OK;
}

static sy_status heic_finish(void *user, sy_heif_writer *w, sy_error *err) {
    sy__gainmap_save *s = user;
    const sy_gainmap_image *m = s->map;
    const uint8_t **rows = sy__alloc(s->ctx, m->height, sizeof *rows, "gain map rows", err);
    if (!rows) return err ? err->code : SY_E_BUDGET;
    for (uint32_t y = 0; y < m->height; y++) rows[y] = m->pixels + (size_t)y * m->stride;
    uint32_t index = 0;
    const int apple = s->forms & SY_GAINMAP_FORM_APPLE;
    sy_status st = apple ? sy_heif_writer_add_auxiliary(w, SY_APPLE_GAINMAP_URN, m->width, m->height, m->channels,
                                                        rows, &index, err)
                         : sy_heif_writer_add_tone_map_image(w, m->width, m->height, m->channels, rows, &index, err);
    sy__free(s->ctx, rows);
    if (st == SY_OK && apple)
        st = sy_heif_writer_set_auxiliary_xmp(w, index, (const uint8_t *)s->map_xmp, s->map_xmp_len, err);
    if (st == SY_OK) st = sy_heif_writer_set_tone_map(w, index, s->iso, s->iso_len, err);
    return st;
}

/* The map's numbers in both forms: the source's own form exactly, the other
 * derived. An Apple map is read as ISO through a fitted gamma (the pixels are
 * shared, as iPhones share one map between the Apple auxiliary item and the
 * 'tmap' item). Any other map has no Apple form: Apple's curve (1 + (H - 1) x
 * rec709^-1(code), one channel, gains >= 1, an SDR base) cannot say what its
 * codes mean under GainMapMin, gamma, offsets or an HDR base, so a HEIC
 * carries its ISO form alone (see apple_form_exact). */
static void both_forms(const sy_gainmap_info *info, uint32_t *apple_version, double *apple_headroom,
                       sy_gainmap_params *iso) {
    int apple = info->kind == SY_GAINMAP_APPLE_HEIC || info->kind == SY_GAINMAP_APPLE_JPEG;
    *apple_version = apple && info->apple_version ? info->apple_version : 131072;
    *apple_headroom = apple ? info->apple_headroom : sy__iso21496_apple_headroom(&info->params);
    if (info->iso_valid) *iso = info->iso;
    else if (apple) sy__iso21496_from_apple(info->apple_headroom, iso);
    else *iso = info->params;
}

/* Whether the Apple description (headroom + XMP) says exactly what the
 * map's codes mean: only for a map whose numbers are Apple's own, one
 * channel. Every other map is described by its ISO numbers only. */
static int apple_form_exact(const sy_gainmap_info *info, const sy_gainmap_image *map) {
    int apple = info->kind == SY_GAINMAP_APPLE_HEIC || info->kind == SY_GAINMAP_APPLE_JPEG;
    return apple && map->channels == 1 && info->apple_headroom >= 1;
}

sy_status sy__gainmap_save_prepare(sy__gainmap_save *s, sy_context *ctx, const char *output, sy_still_format format,
                                   int quality, const sy_gainmap_info *info, const sy_gainmap_image *map,
                                   sy_error *err) {
    return sy__gainmap_save_prepare_forms(s, ctx, output, format, quality, info, map, 0, err);
}

sy_status sy__gainmap_save_prepare_forms(sy__gainmap_save *s, sy_context *ctx, const char *output,
                                         sy_still_format format, int quality, const sy_gainmap_info *info,
                                         const sy_gainmap_image *map, uint32_t heic_forms, sy_error *err) {
    memset(s, 0, sizeof *s);
    s->ctx = ctx, s->output = output, s->map = map;
    s->extra.user = s;
    int apple = info->kind == SY_GAINMAP_APPLE_HEIC || info->kind == SY_GAINMAP_APPLE_JPEG;
    if (format != SY_STILL_HEIC && format != SY_STILL_JPEG)
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: this format cannot carry a gain map", output);
    uint32_t version;
    double headroom;
    sy_gainmap_params iso;
    both_forms(info, &version, &headroom, &iso);
    s->iso_len = sy__iso21496_build(&iso, s->iso);
    if (format == SY_STILL_HEIC) { /* Apple auxiliary map + its XMP, and the 'tmap' item on the same map */
        if (heic_forms != 0 && heic_forms != SY_GAINMAP_FORM_ISO21496 &&
            heic_forms != (SY_GAINMAP_FORM_APPLE | SY_GAINMAP_FORM_ISO21496))
            return sy__fail(err, SY_E_USAGE, "%s: a HEIC gain map is written as Apple + ISO 21496-1 or ISO alone",
                            output);
        s->forms = heic_forms ? heic_forms : SY_GAINMAP_FORM_APPLE | SY_GAINMAP_FORM_ISO21496;
        if (!apple_form_exact(info, map)) s->forms = SY_GAINMAP_FORM_ISO21496; /* no Apple form would be true */
        if (s->forms & SY_GAINMAP_FORM_APPLE) {
            s->map_xmp = sy__xmp_build_apple(ctx, version, headroom, &s->map_xmp_len, err);
            if (!s->map_xmp) return err ? err->code : SY_E_BUDGET;
        }
        s->extra.heic_finish = heic_finish;
        return SY_OK;
    }
    /* JPEG: hdrgm XMP (+ Apple's HDRGainMap fields for an Apple map, so Apple's
     * own JPEG readers keep reading it as before; hdrgm's description last:
     * libultrahdr keeps the values of the packet's last rdf:Description only)
     * and the ISO block in the map;
     * Container XMP, the ISO version block and MPF on the primary. */
    const sy_gainmap_params *hdrgm = apple ? &iso : &info->params;
    size_t ulen = 0, alen = 0;
    char *ultra = sy__xmp_build_gainmap(ctx, hdrgm, &ulen, err);
    char *with_apple = ultra && apple ? sy__xmp_build_apple(ctx, version, headroom, &alen, err) : NULL;
    if (with_apple) s->map_xmp = sy__xmp_join(ctx, with_apple, alen, ultra, ulen, &s->map_xmp_len, err);
    else if (!apple) s->map_xmp = ultra, s->map_xmp_len = ulen, ultra = NULL;
    sy__free(ctx, ultra);
    sy__free(ctx, with_apple);
    if (!s->map_xmp) return err ? err->code : SY_E_BUDGET;
    sy_status st = sy__gainmap_jpeg_encode(ctx, map->pixels, map->stride, map->width, map->height, map->channels,
                                           quality, s->map_xmp, s->map_xmp_len, s->iso, s->iso_len, &s->map_jpeg,
                                           &s->map_jpeg_len, err);
    if (st != SY_OK) return st;
    /* the Container directory names the map's length */
    s->primary_xmp = sy__xmp_build_primary(ctx, s->map_jpeg_len, &s->primary_xmp_len, err);
    if (!s->primary_xmp) return err ? err->code : SY_E_BUDGET;
    s->extra.xmp = (const uint8_t *)s->primary_xmp, s->extra.xmp_len = s->primary_xmp_len;
    s->extra.xmp_join = 1; /* joined to the source's XMP, its old claims out (gainmap_xmp_carry.c) */
    memcpy(s->iso_version, SY__ISO21496_URN, SY__ISO21496_URN_LEN); /* + u16 0, u16 0: "an ISO map follows" */
    s->extra.jpeg_app2_first = s->iso_version, s->extra.jpeg_app2_first_len = sizeof s->iso_version;
    sy__mpf_build(s->mpf, 0, 0, 0); /* sizes and offset patched in jpeg_finish */
    s->extra.jpeg_app2 = s->mpf, s->extra.jpeg_app2_len = sizeof s->mpf;
    s->extra.jpeg_finish = jpeg_finish;
    s->forms = SY_GAINMAP_FORM_ULTRAHDR | SY_GAINMAP_FORM_ISO21496 | (apple ? SY_GAINMAP_FORM_APPLE : 0);
    return SY_OK;
}

const char *sy_gainmap_form_name(uint32_t bit) {
    switch (bit) {
    case SY_GAINMAP_FORM_APPLE: return "apple-gain-map";
    case SY_GAINMAP_FORM_ULTRAHDR: return "ultra-hdr-gain-map";
    case SY_GAINMAP_FORM_ISO21496: return "iso-21496-gain-map";
    default: return NULL;
    }
}

void sy__gainmap_save_free(sy__gainmap_save *s) {
    if (!s || !s->ctx) return;
    sy__free(s->ctx, s->map_jpeg);
    sy__free(s->ctx, s->map_xmp);
    sy__free(s->ctx, s->primary_xmp);
    memset(s, 0, sizeof *s);
}
