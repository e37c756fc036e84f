/* live_still.c — the still side of a Live pair: read the content identifier,
 * strip it (SPEC C4, metadata-only rewrite), write a still carrying it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/sy_input.h"
#include "sy_still.h"
#include "edit/sy_edit_internal.h"
#include "gainmap/sy_gainmap_internal.h"
#include "still/sy_metadata.h"
#include "exif/sy_exif.h"
#include "base/sy_output.h"
#include "exif/sy_exif_writer.h"
#include "jpeg/sy_jpeg_writer.h"
#include "sy_live.h"
#include "sy_mov.h"
#include "exif/sy_content_id.h"
#include "live/sy_live_still_job.h"
#include "video/sy_frame_path.h" /* sy__video_frame_primaries */

/* Stills larger than this are not loaded whole for the strip rewrite. */
#define STRIP_MAX_BYTES ((size_t)256 << 20)

sy_status sy_live_new_identifier(char id[SY_LIVE_ID_LEN + 1], sy_error *err) {
    uint8_t r[16];
    FILE *f = fopen("/dev/urandom", "rb");
    size_t got = f ? fread(r, 1, sizeof r, f) : 0;
    if (f) fclose(f);
    if (got != sizeof r) return sy__fail(err, SY_E_IO, "sy_live_new_identifier: /dev/urandom unreadable");
    r[6] = (uint8_t)((r[6] & 0x0F) | 0x40); /* version 4 */
    r[8] = (uint8_t)((r[8] & 0x3F) | 0x80); /* RFC 4122 variant */
    snprintf(id, SY_LIVE_ID_LEN + 1, "%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-%02X%02X%02X%02X%02X%02X", r[0], r[1],
             r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15]);
    return SY_OK;
}

/* The still's metadata; JPEG and HEIC only (the formats that carry the identifier). */
static sy_status read_metadata(sy_context *ctx, const char *path, sy_image_info *info, sy__metadata *md,
                               sy_error *err) {
    memset(md, 0, sizeof *md);
    sy_status st = sy_image_probe(ctx, path, info, err);
    if (st != SY_OK) return st;
    if (info->format != SY_FORMAT_JPEG && info->format != SY_FORMAT_HEIF)
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: a Live photo still is JPEG or HEIC, not %s", path,
                        sy_image_format_name(info->format));
    return sy__metadata_read(ctx, path, info, md, err);
}

sy_status sy_live_still_read_id(sy_context *ctx, const char *path, char id[SY_LIVE_ID_LEN + 1], int *found,
                                sy_error *err) {
    if (!ctx || !path || !id || !found) return sy__fail(err, SY_E_USAGE, "sy_live_still_read_id: NULL argument");
    id[0] = 0;
    *found = 0;
    sy_image_info info;
    sy__metadata md;
    sy_status st = read_metadata(ctx, path, &info, &md, err);
    if (st == SY_OK && md.exif) *found = sy__content_id_read(md.exif, md.exif_len, id);
    sy__metadata_free(ctx, &md);
    return st;
}

static sy_status read_whole(sy_context *ctx, const char *path, uint8_t **out, size_t *len, sy_error *err) {
    *out = NULL;
    FILE *f = NULL;
    sy_status opened = sy__input_open(path, &f, err);
    if (opened != SY_OK) return opened;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    sy_status st = SY_OK;
    if (size < 0 || (size_t)size > STRIP_MAX_BYTES) {
        st = sy__fail(err, SY_E_BUDGET, "%s: %ld bytes is too large to rewrite", path, size);
    } else if (!(*out = sy__alloc(ctx, (size_t)size + 1, 1, "still bytes", err))) {
        st = err ? err->code : SY_E_BUDGET;
    } else if (fseek(f, 0, SEEK_SET) != 0 || fread(*out, 1, (size_t)size, f) != (size_t)size) {
        st = sy__fail(err, SY_E_IO, "%s: read failed", path);
    }
    fclose(f);
    if (st != SY_OK) {
        sy__free(ctx, *out);
        *out = NULL;
    } else {
        *len = (size_t)size;
    }
    return st;
}

static const uint8_t *find_bytes(const uint8_t *hay, size_t hay_len, const uint8_t *needle, size_t len) {
    if (len == 0 || len > hay_len) return NULL;
    return memmem(hay, hay_len, needle, len);
}

/* Replaces the Exif block inside the file bytes with its same-length copy
 * without the identifier, then proves no copy of the identifier remains. */
static sy_status patch_file(const char *input, uint8_t *file, size_t file_len, const sy__metadata *md,
                            uint8_t *patched, const char *id, sy_error *err) {
    const uint8_t *at = find_bytes(file, file_len, md->exif, md->exif_len);
    if (!at || find_bytes(at + 1, file_len - (size_t)(at - file) - 1, md->exif, md->exif_len))
        return sy__fail(err, SY_E_UNSUPPORTED,
                        "%s: cannot remove the content identifier: the Exif is not stored in one piece", input);
    size_t offset = (size_t)(at - file);
    memcpy(file + offset, patched, md->exif_len);
    const uint8_t *left = find_bytes(file, file_len, (const uint8_t *)id, SY_LIVE_ID_LEN);
    if (left)
        return sy__fail(err, SY_E_UNSUPPORTED,
                        "%s: cannot remove the content identifier: it also appears at byte %zu, outside the "
                        "Apple MakerNote",
                        input, (size_t)(left - file));
    return SY_OK;
}

sy_status sy_live_still_strip(sy_context *ctx, const char *input, const char *output, int *removed, sy_error *err) {
    if (!ctx || !input || !output) return sy__fail(err, SY_E_USAGE, "sy_live_still_strip: NULL argument");
    if (removed) *removed = 0;
    sy_image_info info;
    sy__metadata md;
    uint8_t *file = NULL, *patched = NULL;
    size_t file_len = 0;
    char id[SY_LIVE_ID_LEN + 1] = "";
    memset(&md, 0, sizeof md);
    sy_status st = sy__output_check(output, &input, 1, err); /* the copy never replaces the still */
    if (st == SY_OK) st = read_metadata(ctx, input, &info, &md, err);
    int has_id = st == SY_OK && md.exif && sy__content_id_read(md.exif, md.exif_len, id);
    if (st == SY_OK) st = read_whole(ctx, input, &file, &file_len, err);
    if (st == SY_OK && has_id) {
        patched = sy__alloc(ctx, md.exif_len, 1, "patched exif", err);
        if (!patched) st = err ? err->code : SY_E_BUDGET;
        if (st == SY_OK) {
            memcpy(patched, md.exif, md.exif_len);
            if (sy__content_id_remove(patched, md.exif_len) != 1)
                st = sy__fail(err, SY_E_UNSUPPORTED,
                              "%s: cannot remove the content identifier: the Apple MakerNote is malformed", input);
        }
        if (st == SY_OK) st = patch_file(input, file, file_len, &md, patched, id, err);
    }
    sy__output out = {0};
    if (st == SY_OK) st = sy__output_open(ctx, output, &out, err);
    if (st == SY_OK && fwrite(file, 1, file_len, out.file) != file_len)
        st = sy__write_failed(err, output);
    if (st == SY_OK) st = sy__output_commit(&out, err);
    else sy__output_abort(&out);
    if (st == SY_OK && has_id) { /* read back: the identifier must be gone */
        char again[SY_LIVE_ID_LEN + 1];
        int found = 1;
        sy_error rerr;
        if (sy_live_still_read_id(ctx, output, again, &found, &rerr) != SY_OK || found) {
            unlink(output);
            st = sy__fail(err, SY_E_UNSUPPORTED, "%s: the content identifier survived the rewrite", input);
        }
    }
    if (st == SY_OK && removed) *removed = has_id;
    sy__free(ctx, patched);
    sy__free(ctx, file);
    sy__metadata_free(ctx, &md);
    return st;
}

sy_status sy_live_write_still(sy_context *ctx, const sy_edit_image *image, const char *exif_source,
                              const char *content_identifier, const char *path, sy_still_format format, int quality,
                              sy_error *err) {
    return sy__live_write_still_in(ctx, image, SY__RGB_SRGB, NULL, exif_source, NULL, content_identifier, path, format,
                                   quality, NULL, err);
}

sy_status sy_live_write_frame(sy_context *ctx, const sy_edit_image *image, const char *movie, const char *exif_source,
                              const char *content_identifier, const char *path, sy_still_format format, int quality,
                              sy_error *err) {
    if (!ctx || !movie) return sy__fail(err, SY_E_USAGE, "sy_live_write_frame: NULL argument");
    sy_video_reader *r = NULL;
    sy_status st = sy_video_reader_open(ctx, movie, -1, &r, err);
    if (st != SY_OK) return st;
    uint16_t primaries = sy__video_frame_primaries(sy_video_reader_info_get(r));
    sy_video_reader_close(r);
    return sy__live_write_still_in(ctx, image, sy__color_space_of_primaries(primaries), NULL, exif_source, movie,
                                   content_identifier, path, format, quality, NULL, err);
}

/* ---- a still made of a movie's frame: the movie's capture facts as Exif ---- */

/* Item `key` as printable text in `out` (cap bytes); 0 when absent or not text. */
static int movie_text(const sy_mov *mov, const char *key, char *out, size_t cap) {
    int32_t i = sy_mov_metadata_find(mov, key);
    const uint8_t *v = NULL;
    size_t n = 0;
    uint32_t type = 0;
    out[0] = 0;
    if (i < 0 || sy_mov_metadata_at(mov, (uint32_t)i, NULL, &type, &v, &n) != SY_OK || type != 1 || !v) return 0;
    while (n && (v[n - 1] == 0 || v[n - 1] == ' ')) n--;
    if (n == 0 || n >= cap) return 0;
    for (size_t k = 0; k < n; k++)
        if (v[k] < 0x20 || v[k] > 0x7e) return 0;
    memcpy(out, v, n);
    out[n] = 0;
    return 1;
}

static int digits(const char *s, int n) {
    for (int i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return 1;
}

/* "YYYY-MM-DDTHH:MM:SS[.fff][Z|+HHMM|+HH:MM]" (Apple's creation date, MP4 ©day)
 * -> Exif datetime, sub-seconds, offset (empty when the text states no zone). */
static int parse_creation(const char *t, char dt[20], char sub[10], char off[7]) {
    sub[0] = off[0] = 0;
    if (strlen(t) < 19 || !digits(t, 4) || t[4] != '-' || !digits(t + 5, 2) || t[7] != '-' || !digits(t + 8, 2) ||
        (t[10] != 'T' && t[10] != ' ') || !digits(t + 11, 2) || t[13] != ':' || !digits(t + 14, 2) || t[16] != ':' ||
        !digits(t + 17, 2))
        return 0;
    snprintf(dt, 20, "%.4s:%.2s:%.2s %.8s", t, t + 5, t + 8, t + 11);
    const char *p = t + 19;
    if (*p == '.') {
        size_t n = 0;
        while (p[1 + n] >= '0' && p[1 + n] <= '9') n++;
        if (n) snprintf(sub, 10, "%.*s", (int)(n > 9 ? 9 : n), p + 1);
        p += 1 + n;
    }
    if (*p == 'Z' && !p[1]) snprintf(off, 7, "+00:00");
    else if ((*p == '+' || *p == '-') && digits(p + 1, 2) && digits(p + 3 + (p[3] == ':'), 2) &&
             !p[5 + (p[3] == ':')])
        snprintf(off, 7, "%c%.2s:%.2s", *p, p + 1, p + 3 + (p[3] == ':'));
    return 1;
}

/* ISO 6709 "+35.6895+139.6917+040.000/" -> degrees (and metres when stated). */
static int parse_iso6709(const char *t, double *lat, double *lon, double *alt, int *has_alt) {
    char *e1, *e2, *e3;
    if (*t != '+' && *t != '-') return 0;
    *lat = strtod(t, &e1);
    if (e1 == t || (*e1 != '+' && *e1 != '-')) return 0;
    *lon = strtod(e1, &e2);
    if (e2 == e1) return 0;
    *has_alt = 0;
    if (*e2 == '+' || *e2 == '-') {
        *alt = strtod(e2, &e3);
        *has_alt = e3 != e2;
    }
    return *lat >= -90 && *lat <= 90 && *lon >= -180 && *lon <= 180;
}

/* The Exif a still made of `movie`'s frame carries when it has no Exif
 * source: capture date and zone (Apple's creation date / MP4 ©day; else the
 * movie header's time, which is UTC, with offset +00:00), sub-seconds, GPS
 * (ISO 6709 location), Make, Model, Software. *exif NULL when the movie
 * cannot be read (the still is then written as before). */
static sy_status movie_exif(sy_context *ctx, const char *movie, const sy__exif_info *base, uint8_t **exif,
                            size_t *len, sy_error *err) {
    *exif = NULL;
    *len = 0;
    sy_mov *mov = NULL;
    sy_error ignored;
    if (sy_mov_open(ctx, movie, &mov, &ignored) != SY_OK) return SY_OK;
    sy__exif_info info = *base;
    char text[256], dt[20] = "", sub[10] = "", off[7] = "", make[256], model[256], software[256];
    if (movie_text(mov, "com.apple.quicktime.creationdate", text, sizeof text) && parse_creation(text, dt, sub, off)) {
        info.datetime = dt;
    } else {
        uint64_t c = sy_mov_info_get(mov)->creation_time;
        if (c > 2082844800u) { /* mvhd: seconds since 1904, UTC */
            time_t unix_time = (time_t)(c - 2082844800u);
            struct tm tm;
            if (gmtime_r(&unix_time, &tm) && tm.tm_year + 1900 <= 9999) {
                snprintf(dt, sizeof dt, "%04d:%02d:%02d %02d:%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                         tm.tm_hour, tm.tm_min, tm.tm_sec);
                snprintf(off, sizeof off, "+00:00");
                info.datetime = dt;
            }
        }
    }
    if (info.datetime) {
        info.offset = off[0] ? off : NULL;
        info.subsec = sub[0] ? sub : NULL;
    }
    int has_alt = 0;
    if (movie_text(mov, "com.apple.quicktime.location.ISO6709", text, sizeof text) &&
        parse_iso6709(text, &info.latitude, &info.longitude, &info.altitude, &has_alt)) {
        info.has_gps = 1;
        info.has_altitude = (uint8_t)has_alt;
    }
    if (movie_text(mov, "com.apple.quicktime.make", make, sizeof make)) info.make = make;
    if (movie_text(mov, "com.apple.quicktime.model", model, sizeof model)) info.model = model;
    if (movie_text(mov, "com.apple.quicktime.software", software, sizeof software)) info.software = software;
    sy_mov_close(mov);
    uint8_t buf[1024];
    size_t n = sy__exif_build_tiff(&info, buf, sizeof buf);
    if (!n) { /* a fact the writer refused (never a reason to lose the still): the rest without the GPS */
        info.has_gps = 0;
        n = sy__exif_build_tiff(&info, buf, sizeof buf);
    }
    if (!n) return SY_OK;
    if (!(*exif = sy__alloc(ctx, n, 1, "movie exif", err))) return err ? err->code : SY_E_BUDGET;
    memcpy(*exif, buf, n);
    *len = n;
    return SY_OK;
}

/* A gain map's XMP joined to the Exif source's packet, that packet's own gain-map claims taken out
 * (gainmap_xmp_carry.c); the map's alone when there is none, or when both cannot be split into a JPEG's main
 * and extended XMP (*dropped says so). */
static sy_status take_map_xmp(sy_context *ctx, sy__metadata *md, const sy__still_extra *extra,
                              sy_still_format format, uint32_t *dropped, sy_error *err) {
    size_t len = 0, limit = format == SY_STILL_JPEG ? SY__JPEG_XMP_MAX : 0;
    int source_dropped = 0;
    const uint8_t *source = extra->xmp_join ? md->xmp : NULL;
    uint8_t *xmp = sy__xmp_carry_with_gainmap(ctx, source, md->xmp_len, (const char *)extra->xmp, extra->xmp_len,
                                              limit, &len, &source_dropped, err);
    if (!xmp) return err ? err->code : SY_E_BUDGET;
    if (source_dropped) *dropped |= SY_DROPPED_XMP;
    sy__free(ctx, md->xmp);
    md->xmp = xmp;
    md->xmp_len = len;
    return SY_OK;
}

/* Every Exif subject and XMP face region of `md` removed (sy__region_map's drop); md owns its blobs. */
static sy_status drop_regions(sy_context *ctx, const sy_image_info *info, sy__metadata *md, uint32_t out_w,
                              uint32_t out_h, sy_error *err) {
    sy__region_map all = {.drop = 1, .out_w = out_w, .out_h = out_h};
    uint8_t *old_exif = md->exif, *old_xmp = md->xmp, *exif = NULL, *xmp = NULL;
    sy_status st = sy__metadata_map_regions(ctx, md, &all, info->stored_width, info->stored_height, &exif, &xmp, err);
    if (md->exif != old_exif) sy__free(ctx, old_exif);
    else sy__free(ctx, exif); /* an unchanged copy */
    if (md->xmp != old_xmp) sy__free(ctx, old_xmp);
    return st;
}

sy_status sy__live_write_still_in(sy_context *ctx, const sy_edit_image *image, sy__rgb_space space,
                                  const sy__still_extra *extra, const char *exif_source, const char *facts_movie,
                                  const char *content_identifier, const char *path, sy_still_format format,
                                  int quality, uint32_t *dropped_out, sy_error *err) {
    if (!ctx || !image || !image->pixels || !path) return sy__fail(err, SY_E_USAGE, "sy_live_write_still: NULL argument");
    if (format != SY_STILL_JPEG && format != SY_STILL_HEIC)
        return sy__fail(err, SY_E_USAGE, "%s: a Live photo still is JPEG or HEIC", path);
    sy__metadata md = {0};
    sy_image_info info = {0};
    sy_status st = exif_source ? read_metadata(ctx, exif_source, &info, &md, err) : SY_OK;
    if (st == SY_OK && md.xmp) sy__xmp_set_upright(md.xmp, md.xmp_len); /* the pixels are upright */
    /* no Live still copies the source's appended gain map: its Ultra HDR claims go (a kept map's are joined anew) */
    if (st == SY_OK && md.xmp && sy__xmp_has_hdrgm((const char *)md.xmp, md.xmp_len))
        md.xmp_len = sy__xmp_strip_gainmap_claims(md.xmp, md.xmp_len);
    if (st == SY_OK && md.exif) {
        sy__exif_set_orientation(md.exif, md.exif_len, 1); /* the pixels are upright */
        if (!content_identifier && sy__content_id_remove(md.exif, md.exif_len) < 0)
            st = sy__fail(err, SY_E_UNSUPPORTED, "%s: cannot remove the content identifier: malformed MakerNote",
                          exif_source);
    }
    /* New pixels: the source's Exif thumbnail shows its own picture, not these.
     * A movie's frame is another instant too: the still's face regions and
     * subject point at people and places that moved (or were not there). */
    if (st == SY_OK && md.exif) sy__exif_drop_thumbnail(md.exif, &md.exif_len);
    uint32_t dropped = 0; /* what the still cannot claim (Motion Photo XMP; Exif over JPEG's APP1) */
    if (st == SY_OK) sy__metadata_drop_extended_xmp(ctx, &md, &dropped); /* the source's depth map and original */
    if (st == SY_OK && facts_movie && (md.exif || md.xmp)) st = drop_regions(ctx, &info, &md, image->width, image->height, err);
    if (st == SY_OK) st = sy__metadata_for_output(ctx, &md, format, &dropped, err);
    sy__exif_info fresh = {.orientation = 1, .pixel_x = image->width, .pixel_y = image->height,
                           .uncalibrated = space != SY__RGB_SRGB};
    if (st == SY_OK && facts_movie && !md.exif) /* a frame of a movie: the movie's date, place, camera */
        st = movie_exif(ctx, facts_movie, &fresh, &md.exif, &md.exif_len, err);
    if (st == SY_OK && content_identifier && !md.exif) { /* a minimal Exif exiftool validates */
        uint8_t base[512];
        size_t n = sy__exif_build_tiff(&fresh, base, sizeof base);
        if (n && (md.exif = sy__alloc(ctx, n, 1, "live exif", err)) != NULL) memcpy(md.exif, base, n), md.exif_len = n;
        else st = n ? (err ? err->code : SY_E_BUDGET) : sy__fail(err, SY_E_USAGE, "%s: cannot build an Exif", path);
    }
    if (st == SY_OK && content_identifier) {
        uint8_t *tagged = NULL;
        size_t tagged_len = 0;
        st = sy__content_id_with(ctx, md.exif, md.exif_len, content_identifier, &tagged, &tagged_len, err);
        if (st == SY_OK) {
            sy__free(ctx, md.exif);
            md.exif = tagged;
            md.exif_len = tagged_len;
        }
    }
    if (st == SY_OK && md.exif) sy__exif_set_dimensions(md.exif, md.exif_len, image->width, image->height);
    /* The pixels' own space, never the Exif source's profile (a frame of an
     * sRGB movie beside a still with some display's profile is still sRGB). */
    sy__free(ctx, md.icc);
    md.icc = NULL;
    md.icc_len = 0;
    if (st == SY_OK && space != SY__RGB_SRGB) st = sy__color_space_icc(ctx, space, &md.icc, &md.icc_len, err);
    if (st == SY_OK && extra && extra->xmp) st = take_map_xmp(ctx, &md, extra, format, &dropped, err);
    sy__still_writer *w = NULL;
    if (st == SY_OK)
        st = sy__still_writer_open_extra(ctx, path, format, quality, NULL, image->width, image->height, &md, extra, &w,
                                         err);
    if (st == SY_OK) st = sy__still_writer_write(w, image->pixels, image->stride, image->height, err);
    if (st == SY_OK) st = sy__still_writer_finish(w, err);
    sy__still_writer_destroy(w);
    sy__metadata_free(ctx, &md);
    if (st == SY_OK && dropped_out) *dropped_out |= dropped;
    return st;
}

sy_status sy__live_write_edited_still(sy_context *ctx, const char *source, const sy_recipe *recipe,
                                      sy_still_format format, int quality, uint32_t flags, const char *identifier,
                                      sy__hdr_decision *hdr, const char *path, sy_gainmap_edit_report *rep,
                                      sy_error *err) {
    sy_edit_options eo;
    sy_edit_options_init(&eo);
    eo.flags = SY_EDIT_FULL_DECODE | flags;
    eo.format = format;
    eo.quality = quality;
    sy_edit_job *job = NULL;
    memset(rep, 0, sizeof *rep);
    sy_status st = sy_edit_open(ctx, source, recipe, &eo, &job, NULL, err);
    if (st == SY_OK && identifier) st = sy__edit_job_carry_identifier(job, identifier, err);
    if (st == SY_OK) st = sy__gainmap_job_write_decided(job, path, hdr, rep, err);
    sy_edit_close(job);
    return st;
}
