/* metadata.c — metadata dispatch (the format's own reader fills the record)
 * and what an output may still claim of it. */
#include <string.h>

#include "exif/sy_exif.h"
#include "exif/sy_exif_writer.h"
#include "jpeg/sy_jpeg_metadata.h"
#include "png/sy_png_metadata.h"
#include "heif/sy_heif.h"
#include "heif/sy_heif_metadata.h"
#include "base/sy_hdr_tone.h"
#include "base/sy_icc.h"
#include "color/sy_color_transform.h"
#include "still/sy_metadata.h"

/* A PNG's chunks; colour said by cICP (PNG 3rd edition: it outranks iCCP)
 * is carried as the ICC profile that says the same, as a HEIF's nclx is, so
 * the pipelines (which read profiles) and the outputs agree. cICP with a PQ
 * or HLG transfer (and the RGB matrix) is an HDR signal, delivered as its SDR
 * Display P3 rendition (png/sy_png_source.h) and tagged as such, as an
 * HDR-signal HEIF is. */
static sy_status png_metadata_read(sy_context *ctx, const char *path, sy__metadata *out, sy_error *err) {
    int animated = 0;
    sy_status st = sy__png_metadata_read(ctx, path, out, &animated, err);
    const sy_cicp c = out->cicp;
    if (st == SY_OK && c.present && c.matrix == 0 && sy__cicp_is_hdr_transfer(c.transfer)) {
        sy__free(ctx, out->icc);
        out->icc = NULL, out->icc_len = 0;
        st = sy__color_space_icc(ctx, SY__RGB_DISPLAY_P3, &out->icc, &out->icc_len, err);
        if (st != SY_OK) sy__metadata_free(ctx, out);
        return st;
    }
    if (st != SY_OK || !c.present || c.primaries == SY_CICP_UNSPECIFIED || sy__cicp_is_hdr_transfer(c.transfer))
        return st;
    uint8_t *icc = NULL;
    size_t icc_len = 0;
    sy_error ignored = {0};
    if (c.primaries != SY_CICP_PRIMARIES_BT709) {
        sy_status made = sy__color_cicp_icc(ctx, c.primaries, c.transfer, &icc, &icc_len, &ignored);
        if (made == SY_E_BUDGET) {
            sy__metadata_free(ctx, out);
            return sy__fail(err, made, "%s", ignored.message);
        }
        if (made != SY_OK) return SY_OK; /* primaries without known chromaticities: the iCCP (or sRGB) stands */
    }
    sy__free(ctx, out->icc); /* sRGB by cICP: no profile, as for any sRGB source */
    out->icc = icc;
    out->icc_len = icc_len;
    return SY_OK;
}

/* A grey profile on a picture the engine hands out as R = G = B: carried as
 * the RGB profile that shows those values alike (sy__color_gray_as_rgb_icc),
 * never as itself (a grey profile on an RGB file is invalid: lcms2, libpng
 * and vips refuse it, and viewers fall back to sRGB). Unreadable: dropped. */
static sy_status gray_profile_as_rgb(sy_context *ctx, sy__metadata *md, sy_error *err) {
    if (!sy__icc_is_gray(md->icc, md->icc_len)) return SY_OK;
    uint8_t *rgb = NULL;
    size_t rgb_len = 0;
    sy_error ignored = {0};
    sy_status made = sy__color_gray_as_rgb_icc(ctx, md->icc, md->icc_len, &rgb, &rgb_len, &ignored);
    if (made == SY_E_BUDGET) {
        sy__metadata_free(ctx, md);
        return sy__fail(err, made, "%s", ignored.message);
    }
    sy__free(ctx, md->icc);
    md->icc = rgb, md->icc_len = rgb_len;
    return SY_OK;
}

static sy_status read_by_format(sy_context *ctx, const char *path, const sy_image_info *info, sy__metadata *out,
                                sy_error *err);

sy_status sy__metadata_read(sy_context *ctx, const char *path, const sy_image_info *info, sy__metadata *out,
                            sy_error *err) {
    sy_status st = read_by_format(ctx, path, info, out, err);
    return st == SY_OK ? gray_profile_as_rgb(ctx, out, err) : st;
}

static sy_status read_by_format(sy_context *ctx, const char *path, const sy_image_info *info, sy__metadata *out,
                                sy_error *err) {
    memset(out, 0, sizeof *out);
    switch (info->format) {
    case SY_FORMAT_JPEG: {
        sy_status st = sy__jpeg_metadata_read(ctx, path, out, err);
        if (st == SY_OK && sy__icc_is_cmyk(out->icc, out->icc_len)) { /* its pixels are delivered as sRGB (image_probe.c) */
            sy__free(ctx, out->icc);
            out->icc = NULL;
            out->icc_len = 0;
        }
        return st;
    }
    case SY_FORMAT_HEIF: return sy__heif_metadata_read(ctx, path, out, err);
    case SY_FORMAT_PNG: return png_metadata_read(ctx, path, out, err);
    default: return SY_OK;
    }
}

/* The primary's nclx primaries, else its first input's (a grid's tiles); 0 when none says. */
static uint16_t heif_primaries(sy_context *ctx, const char *path) {
    sy_heif_file *file = NULL;
    if (sy_heif_open(ctx, path, &file, NULL) != SY_OK) return 0;
    sy_cicp nclx = sy__heif_primary_nclx(file, sy_heif_primary_id(file));
    sy_heif_close(file);
    return nclx.present ? nclx.primaries : 0;
}

void sy__colour_read(sy_context *ctx, const char *path, const sy_image_info *info, sy__metadata *md,
                     sy__color_source *out) {
    (void)sy__metadata_read(ctx, path, info, md, NULL); /* what could be read; the rest stays NULL */
    sy__colour_of(ctx, path, info, md, out);
}

void sy__colour_of(sy_context *ctx, const char *path, const sy_image_info *info, const sy__metadata *md,
                   sy__color_source *out) {
    memset(out, 0, sizeof *out);
    if (md->icc) {
        out->icc = md->icc;
        out->icc_len = md->icc_len;
    } else if (info->format == SY_FORMAT_HEIF) {
        out->cicp_primaries = heif_primaries(ctx, path);
    }
}

/* The extension joined into md's main packet without its frame-bound data (a depth map, an original): ordinary
 * properties a save moved there (exif/xmp_split.c) outlive the frame and are split again on a JPEG save.
 * 0 when md's main packet does not name the extension read, or they do not join (then all of it goes). */
static int join_without_frame_data(sy_context *ctx, sy__metadata *md, uint32_t *dropped) {
    char guid[33];
    uint8_t *joined = NULL;
    size_t len = 0;
    if (!md->xmp || !md->xmp_ext || !sy__xmp_extended_guid(md->xmp, md->xmp_len, guid) ||
        strcmp(guid, md->xmp_ext_guid) != 0 ||
        sy__xmp_join_extension(ctx, md->xmp, md->xmp_len, md->xmp_ext, md->xmp_ext_len, &joined, &len, NULL) != SY_OK)
        return 0;
    int removed = 0;
    len = sy__xmp_strip_data_namespaces(joined, len, &removed);
    if (removed) *dropped |= SY_DROPPED_EXTENDED_XMP;
    sy__free(ctx, md->xmp);
    sy__free(ctx, md->xmp_ext);
    md->xmp = joined, md->xmp_len = len;
    md->xmp_ext = NULL, md->xmp_ext_len = 0, md->xmp_ext_guid[0] = 0;
    return 1;
}

void sy__metadata_drop_extended_xmp(sy_context *ctx, sy__metadata *md, uint32_t *dropped) {
    if (join_without_frame_data(ctx, md, dropped)) return;
    int named = 0;
    if (md->xmp) md->xmp_len = sy__xmp_strip_extended(md->xmp, md->xmp_len, md->xmp_ext, md->xmp_ext_len, &named);
    if (named || md->xmp_ext) *dropped |= SY_DROPPED_EXTENDED_XMP;
    sy__free(ctx, md->xmp_ext);
    md->xmp_ext = NULL, md->xmp_ext_len = 0, md->xmp_ext_guid[0] = 0;
}

/* The extended XMP goes on when it was read whole and the output can hold it: a JPEG as chunks again,
 * a PNG or HEIC joined into its one packet (still_writer.c) when both packets have an rdf:RDF to join.
 * A note naming an extension that was not read whole is not carried (it would point at nothing). */
static sy_status extension_for_output(sy_context *ctx, sy__metadata *md, sy_still_format format, uint32_t *dropped,
                                      sy_error *err) {
    char guid[33];
    int named = md->xmp && sy__xmp_extended_guid(md->xmp, md->xmp_len, guid);
    if (!named && !md->xmp_ext) return SY_OK;
    if (named && md->xmp_ext && format != SY_STILL_JPEG) {
        uint8_t *joined = NULL;
        size_t len = 0;
        sy_error join_err = {0};
        sy_status st = sy__xmp_join_extension(ctx, md->xmp, md->xmp_len, md->xmp_ext, md->xmp_ext_len, &joined, &len,
                                              &join_err);
        sy__free(ctx, joined); /* only whether it joins; the writer joins what is left after the edit */
        if (st == SY_E_BUDGET) return sy__fail(err, st, "%s", join_err.message);
        if (st == SY_OK) return SY_OK;
    } else if (named && md->xmp_ext) {
        return SY_OK;
    }
    sy__metadata_drop_extended_xmp(ctx, md, dropped);
    return SY_OK;
}

sy_status sy__metadata_for_output(sy_context *ctx, sy__metadata *md, sy_still_format format, uint32_t *dropped,
                                  sy_error *err) {
    if (md->iptc && format != SY_STILL_JPEG) { /* a JPEG-only block */
        sy__free(ctx, md->iptc);
        md->iptc = NULL;
        md->iptc_len = 0;
        *dropped |= SY_DROPPED_IPTC;
    }
    if (md->xmp) {
        int removed = 0;
        md->xmp_len = sy__xmp_strip_motion_photo(md->xmp, md->xmp_len, &removed);
        if (removed) *dropped |= SY_DROPPED_MOTION_PHOTO;
    }
    sy_status kept = extension_for_output(ctx, md, format, dropped, err);
    if (kept != SY_OK) return kept;
    if (format == SY_STILL_JPEG && md->exif) { /* a HEIC's Exif lacks tags a JPEG's must have */
        uint8_t *completed = NULL;
        size_t completed_len = 0;
        sy_status st = sy__exif_add_jpeg_tags(ctx, md->exif, md->exif_len, &completed, &completed_len, err);
        if (st != SY_OK) return st;
        if (completed) {
            sy__free(ctx, md->exif);
            md->exif = completed;
            md->exif_len = completed_len;
        }
    }
    if (format != SY_STILL_JPEG || !md->exif || md->exif_len <= SY__EXIF_APP1_MAX - 6) return SY_OK;
    uint8_t *fitted = NULL;
    size_t fitted_len = 0;
    uint32_t shed = 0;
    sy_error fit_err = {0};
    sy_status st = sy__exif_fit(ctx, md->exif, md->exif_len, SY__EXIF_APP1_MAX - 6, &fitted, &fitted_len, &shed,
                                &fit_err);
    if (st == SY_E_BUDGET) return sy__fail(err, st, "%s", fit_err.message);
    sy__free(ctx, md->exif); /* unfittable: the save goes on without Exif */
    md->exif = fitted;
    md->exif_len = fitted_len;
    if (st != SY_OK) shed = SY__EXIF_FIT_THUMBNAIL | SY__EXIF_FIT_MAKERNOTE | SY__EXIF_FIT_LARGE_VALUES;
    if (shed & SY__EXIF_FIT_THUMBNAIL) *dropped |= SY_DROPPED_EXIF_THUMBNAIL;
    if (shed & SY__EXIF_FIT_MAKERNOTE) *dropped |= SY_DROPPED_MAKERNOTE;
    if (shed & SY__EXIF_FIT_LARGE_VALUES) *dropped |= SY_DROPPED_LARGE_EXIF_VALUES;
    return SY_OK;
}

const char *sy_metadata_dropped_name(uint32_t bit) {
    switch (bit) {
    case SY_DROPPED_EXIF_THUMBNAIL: return "exif-thumbnail";
    case SY_DROPPED_MAKERNOTE: return "makernote";
    case SY_DROPPED_LARGE_EXIF_VALUES: return "large-exif-values";
    case SY_DROPPED_CONTENT_IDENTIFIER: return "content-identifier";
    case SY_DROPPED_MOTION_PHOTO: return "motion-photo";
    case SY_DROPPED_ISO_GAIN_MAP: return "iso-21496-gain-map";
    case SY_DROPPED_HEIC_THUMBNAIL: return "heic-thumbnail";
    case SY_DROPPED_AUXILIARY_IMAGES: return "auxiliary-images";
    case SY_DROPPED_TIMED_METADATA: return "timed-metadata-tracks";
    case SY_DROPPED_EXTRA_VIDEO_TRACKS: return "extra-video-tracks";
    case SY_DROPPED_EXTRA_AUDIO_TRACKS: return "extra-audio-tracks";
    case SY_DROPPED_HDR_VIDEO: return "hdr-video";
    case SY_DROPPED_HDR10_PLUS: return "hdr10plus-metadata";
    case SY_DROPPED_DOLBY_VISION: return "dolby-vision-metadata";
    case SY_DROPPED_IPTC: return "iptc";
    case SY_DROPPED_ALPHA: return "alpha";
    case SY_DROPPED_EXTENDED_XMP: return "extended-xmp";
    case SY_DROPPED_XMP: return "xmp";
    default: return NULL;
    }
}

const char *sy_metadata_dropped_reason(uint32_t bit) {
    switch (bit) {
    case SY_DROPPED_EXIF_THUMBNAIL:
        return "an edit made it stale (it shows the picture before), or it did not fit JPEG's 64 KB of Exif";
    case SY_DROPPED_MAKERNOTE:
    case SY_DROPPED_LARGE_EXIF_VALUES: return "JPEG holds at most 64 KB of Exif";
    case SY_DROPPED_CONTENT_IDENTIFIER: return "the still is saved apart from its Live photo movie";
    case SY_DROPPED_MOTION_PHOTO: return "the Motion Photo video is not in the saved file";
    case SY_DROPPED_ISO_GAIN_MAP: return "the ISO 21496-1 'tmap' item goes with the gain map: this save keeps no gain map, or the item could not be read";
    case SY_DROPPED_HEIC_THUMBNAIL: return "the stored thumbnail shows the picture before the edit";
    case SY_DROPPED_AUXILIARY_IMAGES: return "depth maps and mattes are not carried through edits";
    case SY_DROPPED_TIMED_METADATA:
        return "timed metadata (e.g. Apple's live-photo-info) is copied into Live photo movies only, and only "
               "with the track it describes";
    case SY_DROPPED_EXTRA_VIDEO_TRACKS: return "only the main video track is written";
    case SY_DROPPED_EXTRA_AUDIO_TRACKS: return "only the first audio track is copied, none when the sound is left out";
    case SY_DROPPED_HDR_VIDEO:
        return "the HDR (HLG / PQ) movie is re-encoded in 8 bits: its frames are tone-mapped to SDR Display P3";
    case SY_DROPPED_HDR10_PLUS:
        return "HDR10+ scene metadata goes only with a PQ movie's kept HDR (a player falls back to its HDR10 grade), "
               "and a multi-window message not through a crop";
    case SY_DROPPED_IPTC:
        return "IPTC-IIM (a JPEG's Photoshop APP13 block: keywords, captions, credits) has no place in a HEIC or PNG; "
               "a JPEG keeps it, and the XMP most apps write beside it is carried";
    case SY_DROPPED_ALPHA:
        return "the picture's transparency: edits and conversions write opaque pixels, transparent areas flattened "
               "onto white";
    case SY_DROPPED_EXTENDED_XMP:
        return "extended XMP (a JPEG's XMP past 64 KB, e.g. a portrait's depth map and unblurred original, GDepth and "
               "GImage) shows the picture before a crop, turn, flip, straighten or border, or before it was made "
               "upright, or another picture, or could not be read whole, or was named by an Ultra HDR gain-map XMP that the "
               "save writes anew; the main XMP no longer names it";
    case SY_DROPPED_XMP:
        return "the source's XMP (rating, label, keywords, title, regions...) could not be split into extended XMP "
               "around the Ultra HDR gain map's XMP, which must stay in a JPEG's main XMP segment (65,504 bytes): "
               "the gain map's was written, so the HDR stays readable, and the source's properties were not";
    case SY_DROPPED_DOLBY_VISION:
        return "Dolby Vision RPUs go only with a profile 8 base re-encoded whole from its own samples (an RPU describes "
               "the source's picture): a player shows the base alone";
    default: return NULL;
    }
}

sy_status sy__metadata_map_regions(sy_context *ctx, sy__metadata *md, const sy__region_map *m, uint32_t stored_w,
                                   uint32_t stored_h, uint8_t **exif, uint8_t **xmp, sy_error *err) {
    *exif = *xmp = NULL;
    if (md->exif) {
        if (!(*exif = sy__alloc(ctx, md->exif_len, 1, "exif with subject", err))) return err ? err->code : SY_E_BUDGET;
        memcpy(*exif, md->exif, md->exif_len);
        if (sy__exif_map_subject(*exif, md->exif_len, m, stored_w, stored_h)) md->exif = *exif;
    }
    if (md->xmp) {
        size_t len = 0;
        sy_error map_err = {0};
        if ((*xmp = sy__xmp_map_regions(ctx, md->xmp, md->xmp_len, m, &len, &map_err)))
            md->xmp = *xmp, md->xmp_len = len;
        else if (map_err.code == SY_E_BUDGET)
            return sy__fail(err, map_err.code, "%s", map_err.message);
    }
    return SY_OK;
}
