/* gainmap_probe.c — sy_gainmap_probe: where the gain map is and what its
 * numbers are, for JPEG (MPF + XMP) and HEIF (auxiliary item + XMP item,
 * 'tmap' detection). Reads headers and the small map/XMP payloads only. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/sy_input.h"
#include "sy_still.h"
#include "heif/sy_heif_file_internal.h"
#include "still/sy_metadata.h"
#include "gainmap/sy_gainmap_internal.h"
#include "heif/sy_heif.h"
#include "base/sy_fourcc.h"
#include "sy_image.h"

#define MAP_CAP ((uint64_t)64 << 20) /* largest gain-map JPEG read */

static void set_detail(sy_gainmap_info *info, sy_gainmap_kind kind, const char *text) {
    info->kind = kind;
    snprintf(info->detail, sizeof info->detail, "%s", text);
}

/* Apple: headroom from the XMP (v2) or else the MakerNote; none is uninterpretable. */
static void apple_headroom(sy_gainmap_info *info, const sy__metadata *md, uint32_t version, double xmp_headroom) {
    info->apple_version = version;
    if (sy__apple_makernote_headroom(md->exif, md->exif_len, &info->maker33, &info->maker48) == 0)
        info->maker33 = info->maker48 = NAN;
    if (xmp_headroom >= 1) {
        info->apple_headroom = xmp_headroom, info->apple_headroom_source = 1;
    } else if (!isnan(info->maker33)) {
        info->apple_headroom = sy__apple_headroom_from_makernote(info->maker33, info->maker48);
        info->apple_headroom_source = 2;
    } else {
        set_detail(info, SY_GAINMAP_UNINTERPRETABLE, "Apple gain map without headroom (no HDRGainMapHeadroom, no MakerNote 33/48)");
    }
}

/* ---- JPEG ---- */

typedef struct jpeg_head {
    uint8_t mpf[512];
    size_t mpf_len;
    uint64_t mpf_h;    /* file offset of the MPF TIFF header */
    int primary_hdrgm; /* Container/hdrgm XMP on the primary */
    int iso;           /* ISO 21496-1 APP2 on the primary */
} jpeg_head;

/* Walks the primary's markers up to SOS. */
static sy_status read_head(FILE *f, const char *path, jpeg_head *h, sy_context *ctx, sy_error *err) {
    uint8_t b[4];
    if (fread(b, 1, 2, f) != 2 || b[0] != 0xFF || b[1] != 0xD8) return sy__fail(err, SY_E_INVALID_INPUT, "%s: not a JPEG", path);
    for (;;) {
        /* like libjpeg: skip stray bytes and fill bytes (FF FF ...) before a marker */
        int c;
        while ((c = fgetc(f)) != EOF && c != 0xFF) {}
        while (c == 0xFF) c = fgetc(f);
        long at = ftell(f) - 2;
        if (c == EOF || fread(b + 2, 1, 2, f) != 2)
            return sy__fail(err, SY_E_INVALID_INPUT, "%s: JPEG ends before its image data (byte %ld)", path, at);
        b[0] = 0xFF, b[1] = (uint8_t)c;
        if (b[1] == 0xDA || b[1] == 0xD9) return SY_OK;
        size_t seg = (size_t)b[2] << 8 | b[3];
        if (seg < 2) return sy__fail(err, SY_E_INVALID_INPUT, "%s: JPEG segment length %zu at byte %ld", path, seg, at);
        size_t n = seg - 2;
        if (b[1] == 0xE1 || b[1] == 0xE2) {
            uint8_t *p = sy__alloc(ctx, n ? n : 1, 1, "jpeg segment", err);
            if (!p) return err ? err->code : SY_E_BUDGET;
            if (fread(p, 1, n, f) != n) {
                sy__free(ctx, p);
                return sy__fail(err, SY_E_INVALID_INPUT, "%s: JPEG truncated in a segment at byte %ld", path, at);
            }
            if (b[1] == 0xE2 && n > 4 && memcmp(p, "MPF\0", 4) == 0 && !h->mpf_len && n - 4 <= sizeof h->mpf) {
                memcpy(h->mpf, p + 4, n - 4), h->mpf_len = n - 4, h->mpf_h = (uint64_t)at + 8;
            } else if (b[1] == 0xE2 && n >= SY__ISO21496_URN_LEN && memcmp(p, SY__ISO21496_URN, SY__ISO21496_URN_LEN) == 0) {
                h->iso = 1;
            } else if (b[1] == 0xE1 && n > 29 && memcmp(p, "http://ns.adobe.com/xap/1.0/", 29) == 0) {
                h->primary_hdrgm |= sy__xmp_has_hdrgm((const char *)p + 29, n - 29);
            }
            sy__free(ctx, p);
        } else if (fseek(f, (long)n, SEEK_CUR) != 0) {
            return sy__fail(err, SY_E_INVALID_INPUT, "%s: JPEG truncated at byte %ld", path, at);
        }
    }
}

/* The map's ISO 21496-1 block into info->iso; its parse result (1, 0 none, -1 bad). */
static int read_iso(sy_gainmap_info *info, const uint8_t *map, size_t map_len, char *why, size_t why_len) {
    size_t ilen = 0;
    const uint8_t *iso = sy__jpeg_find_iso21496(map, map_len, &ilen);
    if (!iso) return 0;
    info->has_iso21496 = 1;
    int r = sy__iso21496_parse(iso, ilen, &info->iso, NULL, why, why_len);
    info->iso_valid = r > 0;
    return r;
}

/* Interprets the metadata of MPF image `image` (1-based; the gain map): Apple's HDRGainMap XMP first
 * (our own JPEG outputs of Apple maps carry it beside hdrgm and ISO, and the
 * map's codes are Apple's), then hdrgm XMP, then the ISO block alone. */
static void classify_map(sy_gainmap_info *info, const jpeg_head *h, const uint8_t *map, size_t map_len,
                         const sy__metadata *md, int image) {
    size_t xlen = 0;
    const char *xmp = sy__jpeg_find_xmp(map, map_len, &xlen);
    char why[160] = "", iso_why[160] = "";
    int iso = read_iso(info, map, map_len, iso_why, sizeof iso_why);
    int r = sy__xmp_hdrgm_parse(xmp, xlen, &info->params, why, sizeof why);
    uint32_t version;
    double headroom;
    sy__xmp_apple_parse(xmp, xlen, &version, &headroom);
    if (version) {
        char d[120];
        snprintf(d, sizeof d, "Apple gain map (MPF image %d, HDRGainMap XMP%s)", image,
                 r > 0 || iso > 0 ? "; hdrgm / ISO 21496-1 also present" : "");
        set_detail(info, SY_GAINMAP_APPLE_JPEG, d);
        apple_headroom(info, md, version, headroom);
    } else if (r > 0) {
        set_detail(info, SY_GAINMAP_ULTRAHDR_JPEG, iso > 0 ? "Ultra HDR (hdrgm XMP; ISO 21496-1 block also read)"
                                                           : h->iso ? "Ultra HDR (hdrgm XMP; ISO 21496-1 signalled)"
                                                                    : "Ultra HDR (hdrgm XMP)");
    } else if (r == 0 && iso > 0) { /* an hdrgm XMP we cannot use is never overruled by the block */
        info->params = info->iso;
        set_detail(info, SY_GAINMAP_ULTRAHDR_JPEG, "ISO 21496-1 gain map (APP2 block, no hdrgm XMP)");
    } else if (r < 0 || iso < 0) {
        char d[200];
        snprintf(d, sizeof d, "gain-map metadata not usable: %s", r < 0 ? why : iso_why);
        set_detail(info, SY_GAINMAP_UNINTERPRETABLE, d);
    } else if (h->primary_hdrgm || h->iso) {
        set_detail(info, SY_GAINMAP_UNINTERPRETABLE,
                   h->iso ? "ISO 21496-1 signalled on the primary but the second image has no gain-map metadata"
                          : "primary says Ultra HDR but the second image has no hdrgm XMP");
    }
}

/* MPF image `i` (1-based index into `e`) read whole into *out: 0 read,
 * 1 the index promises bytes the file does not hold (cut short, absurd),
 * -1 with `err` set (allocation, I/O). */
static int read_mpf_image(sy_context *ctx, FILE *f, const char *path, const jpeg_head *h, const sy__mpf_entry *e,
                          uint64_t file_size, uint8_t **out, uint64_t *at_out, sy_error *err) {
    uint64_t at = h->mpf_h + e->offset, len = e->size;
    *out = NULL, *at_out = at;
    if (e->offset == 0 || at >= file_size || len > file_size - at || len < 4 || len > MAP_CAP) return 1;
    uint8_t *map = sy__alloc(ctx, (size_t)len, 1, "gain map JPEG", err);
    if (!map) return -1;
    if (fseek(f, (long)at, SEEK_SET) != 0 || fread(map, 1, (size_t)len, f) != len) {
        sy__free(ctx, map);
        sy__fail(err, SY_E_IO, "%s: cannot read an MPF image at byte %llu", path, (unsigned long long)at);
        return -1;
    }
    *out = map;
    return 0;
}

/* Whether a secondary image says it is a gain map: Apple's HDRGainMapVersion,
 * hdrgm:Version or an ISO 21496-1 block (iPhone JPEGs may put portrait
 * mattes and depth before it). */
static int says_gain_map(const uint8_t *map, size_t len) {
    size_t xlen = 0, ilen = 0;
    const char *xmp = sy__jpeg_find_xmp(map, len, &xlen);
    uint32_t version = 0;
    double headroom = 0;
    sy__xmp_apple_parse(xmp, xlen, &version, &headroom);
    return version || sy__xmp_has_hdrgm(xmp, xlen) || sy__jpeg_find_iso21496(map, len, &ilen) != NULL;
}

static sy_status probe_jpeg(sy_context *ctx, const char *path, sy_gainmap_info *info, const sy__metadata *md,
                            sy_error *err) {
    FILE *f = NULL;
    sy_status opened = sy__input_open(path, &f, err);
    if (opened != SY_OK) return opened;
    jpeg_head h = {0};
    sy_status st = read_head(f, path, &h, ctx, err);
    fseek(f, 0, SEEK_END);
    uint64_t file_size = (uint64_t)ftell(f);
    sy__mpf_entry e[SY__MPF_MAX_IMAGES];
    int n = st == SY_OK && h.mpf_len ? sy__mpf_parse(h.mpf, h.mpf_len, e, SY__MPF_MAX_IMAGES) : 0;
    if (st == SY_OK && n > 0) info->mpf_images = (uint32_t)n;
    if (st == SY_OK && n < 0) {
        set_detail(info, SY_GAINMAP_UNINTERPRETABLE, "MPF index malformed");
    } else if (st == SY_OK && n < 2 && (h.primary_hdrgm || h.iso)) {
        set_detail(info, SY_GAINMAP_UNINTERPRETABLE, "Ultra HDR XMP but no MPF second image");
    } else if (st == SY_OK && n >= 2) {
        /* The gain map is the first secondary image that says so; with none,
         * image 2 is interpreted (and, if the primary promised a map, found
         * wanting). */
        uint8_t *map = NULL;
        uint64_t at = 0;
        int pick = 1, r = 1;
        for (int i = 1; i < n; i++) {
            uint8_t *m = NULL;
            uint64_t a = 0;
            int got = read_mpf_image(ctx, f, path, &h, &e[i], file_size, &m, &a, err);
            if (got < 0) {
                st = err ? err->code : SY_E_IO;
                break;
            }
            if (got == 0 && says_gain_map(m, (size_t)e[i].size)) {
                sy__free(ctx, map);
                map = m, at = a, pick = i, r = 0;
                break;
            }
            if (i == 1) map = m, at = a, r = got; /* the fallback */
            else sy__free(ctx, m);
        }
        uint64_t len = e[pick].size;
        if (st != SY_OK) {
        } else if (r != 0) {
            /* A second image the index promises but the file does not hold (cut
             * short, or absurd): a gain map may be lost, so never "no gain map"
             * (SPEC E6: an unreadable map goes through the SDR hook). */
            set_detail(info, SY_GAINMAP_UNINTERPRETABLE,
                       at >= file_size || len > file_size - at ? "MPF image 2 is cut short or lies outside the file"
                                                                : "MPF image 2 has an impossible size");
        } else {
            info->map_offset = at, info->map_length = len;
            classify_map(info, &h, map, (size_t)len, md, pick + 1);
            int w = 0, hh = 0, sub = 0;
            if (info->kind != SY_GAINMAP_NONE && len > 4 && map[0] == 0xFF && map[1] == 0xD8) {
                /* size from the SOF, without decoding */
                for (size_t i = 2; i + 9 < len && map[i] == 0xFF;) {
                    uint8_t m = map[i + 1];
                    size_t seg = (size_t)map[i + 2] << 8 | map[i + 3];
                    if ((m >= 0xC0 && m <= 0xC3) || (m >= 0xC5 && m <= 0xC7)) {
                        hh = map[i + 5] << 8 | map[i + 6], w = map[i + 7] << 8 | map[i + 8], sub = map[i + 9];
                        break;
                    }
                    if (m == 0xDA || seg < 2) break;
                    i += 2 + seg;
                }
                info->map_width = (uint32_t)w, info->map_height = (uint32_t)hh, info->map_channels = sub == 1 ? 1 : 3;
            }
        }
        sy__free(ctx, map);
    }
    fclose(f);
    if (h.iso) info->has_iso21496 = 1;
    return st;
}

/* ---- HEIF ---- */

/* Parses a 'tmap' item's data (u8 version 0 + the ISO payload) into
 * info->iso; 1 parsed, 0 not (`why` says why). */
static int read_tmap_payload(sy_heif_file *file, uint32_t tmap, sy_gainmap_info *info, char *why, size_t cap) {
    uint8_t *data = NULL;
    size_t len = 0;
    int ok = 0;
    if (sy_heif_read_item(file, tmap, &data, &len, NULL) != SY_OK) {
        snprintf(why, cap, "its data cannot be read");
    } else if (len < 2 || data[0] != 0) {
        snprintf(why, cap, len < 2 ? "its data is empty" : "item version %u is not 0", len ? data[0] : 0);
    } else {
        char iso_why[160] = "ISO 21496-1 metadata holds no gain-map numbers";
        ok = sy__iso21496_parse(data + 1, len - 1, &info->iso, NULL, iso_why, sizeof iso_why) > 0;
        if (!ok) snprintf(why, cap, "%s", iso_why);
    }
    sy_heif_free_data(file, data);
    if (ok) info->iso_valid = 1, info->tmap_item = tmap;
    return ok;
}

/* The ISO 21496-1 'tmap' item derived from [primary, map] (dimg order fixed
 * by HEIF Amd 1). */
static void read_tmap(sy_heif_file *file, uint32_t primary, uint32_t map, sy_gainmap_info *info) {
    for (uint32_t i = 0; i < sy_heif_item_count(file); i++) {
        const sy_heif_item_info *it = sy_heif_item_at(file, i);
        uint32_t n = 0;
        char why[160];
        if (it->type != SY_FOURCC('t', 'm', 'a', 'p')) continue;
        const uint32_t *in = sy__heif_references(file, it->id, SY_FOURCC('d', 'i', 'm', 'g'), &n);
        if (n == 2 && in[0] == primary && in[1] == map && read_tmap_payload(file, it->id, info, why, sizeof why))
            return;
    }
}

/* Whether `item`'s first dimg input is `primary` (a tmap on this image). */
static int derives_from(sy_heif_file *file, uint32_t item, uint32_t primary) {
    uint32_t n = 0;
    const uint32_t *in = sy__heif_references(file, item, SY_FOURCC('d', 'i', 'm', 'g'), &n);
    return n >= 1 && in[0] == primary;
}

/* A 'tmap' item with no Apple map beside it: the ISO form alone, whose gain
 * map is the tmap's second input, a coded image item (hvc1, an AVIF's av01,
 * or a grid of them) that nothing else shows. The numbers are the ISO
 * payload's. */
static void read_iso_only(sy_heif_file *file, uint32_t primary, const sy_heif_item_info *tmap,
                          sy_gainmap_info *info) {
    char why[160] = "";
    uint32_t n = 0;
    const uint32_t *in = sy__heif_references(file, tmap->id, SY_FOURCC('d', 'i', 'm', 'g'), &n);
    const sy_heif_item_info *map = n == 2 && in[1] != primary ? sy_heif_item(file, in[1]) : NULL;
    const sy_heif_item_info *base = sy_heif_item(file, primary);
    if (n != 2 || in[0] != primary)
        snprintf(why, sizeof why, "its inputs are not [primary, gain map]");
    else if (!map)
        snprintf(why, sizeof why, "its gain map input (item %u) is missing", in[1]);
    else if (map->type != SY_FOURCC('h', 'v', 'c', '1') && map->type != SY_FOURCC('a', 'v', '0', '1') &&
             map->type != SY_FOURCC('g', 'r', 'i', 'd'))
        snprintf(why, sizeof why, "its gain map (item %u) is neither HEVC nor AV1", map->id);
    else if (!map->has_ispe || !map->width || !map->height)
        snprintf(why, sizeof why, "its gain map (item %u) has no ispe", map->id);
    /* The map follows the base: the base's irot/imir applied to both. Its
     * own irot/imir may say so too (identical on base, map and tmap: the
     * layout libavif requires); a different one, or any clap, is not aligned. */
    else if (map->has_clap || ((map->rotation || map->mirror >= 0) &&
                               (!base || map->rotation != base->rotation || map->mirror != base->mirror)))
        snprintf(why, sizeof why, "its gain map (item %u) has its own display transform", map->id);
    else
        read_tmap_payload(file, tmap->id, info, why, sizeof why);
    if (!info->iso_valid) {
        char d[200];
        snprintf(d, sizeof d, "ISO 21496-1 'tmap' item %u not usable: %s", tmap->id, why);
        set_detail(info, SY_GAINMAP_UNINTERPRETABLE, d);
        return;
    }
    info->params = info->iso;
    info->map_offset = map->id;
    info->map_width = map->width, info->map_height = map->height;
    info->map_channels = map->channels == 3 || (map->channels == 0 && info->iso.channels == 3) ? 3 : 1;
    uint32_t tiles = 0;
    const uint32_t *tile = map->type == SY_FOURCC('g', 'r', 'i', 'd') ? sy_heif_derived(file, map->id, &tiles) : NULL;
    const sy_heif_item_info *coded = tiles ? sy_heif_item(file, tile[0]) : map;
    set_detail(info, SY_GAINMAP_ISO_HEIC,
               coded && coded->type == SY_FOURCC('a', 'v', '0', '1')
                   ? "ISO 21496-1 gain map ('tmap' item, no Apple map; AV1 map item, as AVIF writes it)"
                   : "ISO 21496-1 gain map ('tmap' item, no Apple map)");
}

static sy_status probe_heif(sy_context *ctx, const char *path, sy_gainmap_info *info, const sy__metadata *md,
                            sy_error *err) {
    sy_heif_file *file = NULL;
    sy_status st = sy_heif_open(ctx, path, &file, err);
    if (st != SY_OK) return st;
    uint32_t primary = sy_heif_primary_id(file);
    const sy_heif_item_info *aux = NULL, *tmap = NULL, *xmp = NULL;
    for (uint32_t i = 0; i < sy_heif_item_count(file); i++) {
        const sy_heif_item_info *it = sy_heif_item_at(file, i);
        if (it->type == SY_FOURCC('t', 'm', 'a', 'p') && (!tmap || !derives_from(file, tmap->id, primary))) tmap = it;
        if (strcmp(it->aux_type, SY_APPLE_GAINMAP_URN) == 0 && !aux) {
            uint32_t n = 0;
            const uint32_t *to = sy__heif_references(file, it->id, SY_FOURCC('a', 'u', 'x', 'l'), &n);
            for (uint32_t k = 0; k < n; k++)
                if (to[k] == primary) aux = it;
        }
    }
    if (aux)
        for (uint32_t i = 0; i < sy_heif_item_count(file); i++) {
            const sy_heif_item_info *it = sy_heif_item_at(file, i);
            if (it->type == SY_FOURCC('m', 'i', 'm', 'e') && it->describes == aux->id &&
                strcmp(it->content_type, "application/rdf+xml") == 0)
                xmp = it;
        }
    info->has_iso21496 = tmap != NULL;
    if (aux) read_tmap(file, primary, aux->id, info);
    if (aux) {
        info->map_offset = aux->id;
        info->map_width = aux->width, info->map_height = aux->height;
        info->map_channels = aux->channels == 3 ? 3 : 1;
        uint32_t version = 0;
        double headroom = 0;
        if (xmp) {
            uint8_t *x = NULL;
            size_t xl = 0;
            if (sy_heif_read_item(file, xmp->id, &x, &xl, NULL) == SY_OK) {
                sy__xmp_apple_parse((const char *)x, xl, &version, &headroom);
                sy_heif_free_data(file, x);
            }
        }
        if (!aux->has_ispe || aux->width == 0) {
            set_detail(info, SY_GAINMAP_UNINTERPRETABLE, "Apple gain map item without ispe");
        } else if (!version) {
            set_detail(info, SY_GAINMAP_UNINTERPRETABLE, "Apple gain map without HDRGainMapVersion XMP");
        } else {
            set_detail(info, SY_GAINMAP_APPLE_HEIC,
                       info->iso_valid ? "Apple gain map (auxiliary item); ISO 21496-1 'tmap' item on the same map"
                       : tmap          ? "Apple gain map (auxiliary item); a 'tmap' item not usable with it"
                                       : "Apple gain map (auxiliary item)");
            apple_headroom(info, md, version, headroom);
        }
        /* The 'tmap' numbers are the map's exact meaning; an Apple description
         * that contradicts them (written from GainMapMax alone by an older
         * writer, ours included: an Ultra HDR map with GainMapMin, a gamma,
         * an HDR base or three channels) is not what the codes say. */
        if (info->iso_valid &&
            (info->kind != SY_GAINMAP_APPLE_HEIC || info->map_channels == 3 ||
             sy__iso21496_contradicts_apple(&info->iso, info->apple_headroom))) {
            info->params = info->iso;
            info->map_channels = info->map_channels == 3 || info->iso.channels == 3 ? 3 : 1;
            set_detail(info, SY_GAINMAP_ISO_HEIC,
                       "ISO 21496-1 gain map ('tmap' item; the Apple description of the same map does not match it)");
        }
    } else if (tmap) {
        read_iso_only(file, primary, tmap, info);
    } else if (!sy__gainmap_probe_signal(file, path, primary, info)) {
        sy__gainmap_probe_av1_signal(file, primary, info);
    }
    sy_heif_close(file);
    return SY_OK;
}

sy_status sy_gainmap_probe(sy_context *ctx, const char *path, sy_gainmap_info *out, sy_error *err) {
    if (!ctx || !path || !out) return sy__fail(err, SY_E_USAGE, "sy_gainmap_probe: NULL argument");
    memset(out, 0, sizeof *out);
    out->maker33 = out->maker48 = NAN;
    set_detail(out, SY_GAINMAP_NONE, "no gain map");
    sy_image_info img;
    sy_status st = sy_image_probe(ctx, path, &img, err);
    if (st != SY_OK) return st;
    out->base_width = img.stored_width, out->base_height = img.stored_height, out->orientation = img.orientation;
    out->base_format = (uint8_t)img.format;
    if (img.format == SY_FORMAT_PNG) {
        sy__gainmap_probe_png_signal(ctx, path, &img, out);
        return SY_OK;
    }
    if (img.format != SY_FORMAT_JPEG && img.format != SY_FORMAT_HEIF) return SY_OK;
    sy__metadata md;
    sy_error md_err = {0};
    if (sy__metadata_read(ctx, path, &img, &md, &md_err) != SY_OK) memset(&md, 0, sizeof md);
    st = img.format == SY_FORMAT_JPEG ? probe_jpeg(ctx, path, out, &md, err) : probe_heif(ctx, path, out, &md, err);
    sy__metadata_free(ctx, &md);
    if (st == SY_OK && (out->kind == SY_GAINMAP_ULTRAHDR_JPEG || out->kind == SY_GAINMAP_APPLE_JPEG ||
                        out->kind == SY_GAINMAP_APPLE_HEIC || out->kind == SY_GAINMAP_ISO_HEIC ||
                        out->kind == SY_GAINMAP_HDR_SIGNAL) &&
        (out->map_width == 0 || out->map_height == 0))
        set_detail(out, SY_GAINMAP_UNINTERPRETABLE, "gain map size unknown (no SOF / ispe)");
    return st;
}
