/* motion_photo.c — finds the movie inside a Motion Photo (mov/sy_motion_photo.h).
 *
 * JPEG: the header segments are walked up to the first scan; the standard
 * XMP packet (APP1, Adobe namespace) says whether a video is appended and how
 * long each appended item is. Items follow the primary image in directory
 * order, each after the previous item's padding, and the last ends the file,
 * so the movie's start is counted back from the end of the file. HEIC: the
 * movie is the payload of a top-level `mpvd` box. Samsung's JPEGs also end in
 * Samsung's own trailer (SEF, below), which older Galaxy phones wrote with no
 * Motion Photo XMP at all: its MotionPhoto_Data block is the movie. Either way the result must
 * lie inside the file, after the still's header, and start with a movie's
 * first box (`ftyp`, or QuickTime's `wide`/`mdat`/`moov`/`free`/`skip`). */
#include <string.h>

#include "base/sy_fourcc.h"
#include "bmff/sy_bmff_file.h"
#include "exif/sy_exif.h"
#include "heif/sy_heif_metadata.h"
#include "mov/sy_motion_photo.h"

#define FCC SY_FOURCC
#define MAX_SEGMENTS 4096u
#define MAX_TOP_BOXES 4096u

static const char XMP_PREFIX[] = "http://ns.adobe.com/xap/1.0/"; /* followed by a NUL */

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

__attribute__((format(printf, 3, 4))) static sy_status hostile(sy_error *err, const char *path, const char *fmt, ...) {
    char why[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return sy__fail(err, SY_E_INVALID_INPUT, "%s: Motion Photo: %s", sy__short_path(path), why);
}

/* The box types a QuickTime / MP4 file starts with: phones write `ftyp`
 * first; QuickTime movies may open with `wide` padding or `mdat`. */
static int movie_start(uint32_t type) {
    return type == FCC('f', 't', 'y', 'p') || type == FCC('w', 'i', 'd', 'e') || type == FCC('m', 'd', 'a', 't') ||
           type == FCC('m', 'o', 'o', 'v') || type == FCC('f', 'r', 'e', 'e') || type == FCC('s', 'k', 'i', 'p');
}

/* The embedded movie must open with a movie's first box, and that box must fit in it. */
static sy_status check_movie_start(int fd, const char *path, const sy_motion_photo_info *mp, sy_error *err) {
    uint8_t h[8];
    if (mp->movie_length < 16)
        return hostile(err, path, "the movie at byte %llu is only %llu bytes", (unsigned long long)mp->movie_offset,
                       (unsigned long long)mp->movie_length);
    sy_status st = sy__bmff_read_at(fd, path, mp->movie_offset, h, sizeof h, err);
    if (st != SY_OK) return st;
    uint32_t size = be32(h);
    if (!movie_start(be32(h + 4)) || size < 8 || size > mp->movie_length)
        return hostile(err, path,
                       "no movie (ftyp box) at byte %llu where the metadata puts its %llu bytes: the lengths do "
                       "not match the file",
                       (unsigned long long)mp->movie_offset, (unsigned long long)mp->movie_length);
    return SY_OK;
}

/* ---- Samsung's SEF trailer ----
 * The file ends with "SEFH" directory, its length (u32, little-endian) and
 * "SEFT". The directory: "SEFH", version, count (u32 LE each), then per block
 * 12 bytes: 2 zero bytes, the block's type (u16 LE), its distance back from
 * the directory's start and its size (u32 LE). A block: 2 zero bytes, its
 * type again, its name's length (u32 LE), the name, the data. The Motion
 * Photo's block is type 0x0A30, "MotionPhoto_Data", its data the MP4. */

#define SEF_MOTION_PHOTO 0x0A30u
#define SEF_MAX_DIRECTORY (64u << 10)

static uint32_t le16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const uint8_t *p) { return le16(p) | le16(p + 2) << 16; }

/* The movie of a JPEG's SEF trailer, if it has one with a MotionPhoto_Data
 * block. Samsung writes the trailer into ordinary photos too (capture time,
 * camera mode): a trailer that does not parse, or blocks that lie outside it,
 * make no Motion Photo; only a MotionPhoto_Data block that does not hold a
 * movie is an error. */
static sy_status locate_sef(sy_context *ctx, int fd, const char *path, uint64_t file_size, uint64_t header_end,
                            sy_motion_photo_info *out, sy_error *err) {
    uint8_t tail[8];
    if (file_size < header_end + sizeof tail + 12) return SY_OK;
    sy_status st = sy__bmff_read_at(fd, path, file_size - sizeof tail, tail, sizeof tail, err);
    uint32_t len = le32(tail);
    if (st != SY_OK || memcmp(tail + 4, "SEFT", 4) != 0 || len < 12 || len > SEF_MAX_DIRECTORY ||
        len > file_size - sizeof tail - header_end)
        return st;
    const uint64_t directory = file_size - sizeof tail - len;
    uint8_t *dir = sy__alloc(ctx, len, 1, "Samsung trailer directory", err);
    if (!dir) return err ? err->code : SY_E_BUDGET;
    st = sy__bmff_read_at(fd, path, directory, dir, len, err);
    uint32_t count = st == SY_OK && memcmp(dir, "SEFH", 4) == 0 ? le32(dir + 8) : 0;
    if (count > (len - 12) / 12) count = 0;
    uint64_t first = directory, block = 0, size = 0;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *e = dir + 12 + 12 * (size_t)i;
        uint32_t back = le32(e + 4), bytes = le32(e + 8);
        if (back > directory - header_end || bytes > back || bytes < 8) continue; /* not a block of this file */
        if (directory - back < first) first = directory - back;
        if (le16(e + 2) == SEF_MOTION_PHOTO && !size) block = directory - back, size = bytes;
    }
    sy__free(ctx, dir);
    if (st != SY_OK || !size) return st;
    uint8_t h[8];
    if ((st = sy__bmff_read_at(fd, path, block, h, sizeof h, err)) != SY_OK) return st;
    uint32_t name = le32(h + 4);
    if (le16(h + 2) != SEF_MOTION_PHOTO || name > size - 8)
        return hostile(err, path, "Samsung trailer: its MotionPhoto_Data block at byte %llu is not one",
                       (unsigned long long)block);
    out->container = FCC('j', 'p', 'e', 'g');
    out->located_by = FCC('s', 'e', 'f', 't');
    out->movie_offset = block + 8 + name;
    out->movie_length = size - 8 - name;
    out->still_length = first;
    out->presentation_us = out->version = -1;
    return check_movie_start(fd, path, out, err);
}

/* ---- JPEG ---- */

/* The first standard XMP packet of the header segments (*xmp NULL when none)
 * and where the header ends (the first scan's marker). */
static sy_status jpeg_xmp(sy_context *ctx, int fd, const char *path, uint64_t file_size, uint8_t **xmp,
                          size_t *xmp_len, uint64_t *header_end, sy_error *err) {
    *xmp = NULL, *xmp_len = 0;
    uint64_t pos = 2;
    for (uint32_t n = 0; n < MAX_SEGMENTS && pos + 4 <= file_size; n++) {
        uint8_t h[4];
        sy_status st = sy__bmff_read_at(fd, path, pos, h, sizeof h, err);
        if (st != SY_OK) return st;
        if (h[0] != 0xFF) break;                  /* not a marker: a broken header ends the walk */
        if (h[1] == 0xFF) { pos++; continue; }    /* fill byte */
        if (h[1] == 0xDA || h[1] == 0xD9) break;  /* first scan / end of image */
        if (h[1] == 0x01 || (h[1] >= 0xD0 && h[1] <= 0xD7)) { pos += 2; continue; }
        size_t len = (size_t)h[2] << 8 | h[3];
        if (len < 2 || pos + 2 + len > file_size) break;
        size_t payload = len - 2;
        if (h[1] == 0xE1 && !*xmp && payload > sizeof XMP_PREFIX) {
            uint8_t id[sizeof XMP_PREFIX];
            if ((st = sy__bmff_read_at(fd, path, pos + 4, id, sizeof id, err)) != SY_OK) return st;
            if (memcmp(id, XMP_PREFIX, sizeof XMP_PREFIX) == 0) {
                *xmp_len = payload - sizeof XMP_PREFIX;
                if (!(*xmp = sy__alloc(ctx, *xmp_len, 1, "motion photo xmp", err))) return err ? err->code : SY_E_BUDGET;
                if ((st = sy__bmff_read_at(fd, path, pos + 4 + sizeof XMP_PREFIX, *xmp, *xmp_len, err)) != SY_OK) {
                    sy__free(ctx, *xmp);
                    *xmp = NULL;
                    return st;
                }
            }
        }
        pos += 2 + len;
    }
    *header_end = pos;
    return SY_OK;
}

/* Bytes from the start of directory item k to the end of the file. */
static sy_status tail_from(const sy__xmp_motion_photo *x, uint32_t k, const char *path, uint64_t *tail,
                           sy_error *err) {
    uint64_t t = 0;
    for (uint32_t j = k; j < x->item_count; j++) {
        const sy__xmp_motion_item *it = &x->items[j];
        if (it->length < 0 || (j == k && it->length == 0))
            return hostile(err, path, "Container:Directory item %u (%s) has no usable Item:Length", j + 1,
                           it->semantic[0] ? it->semantic : "unnamed");
        if (j > k && x->items[j - 1].padding < 0)
            return hostile(err, path, "Container:Directory item %u has a malformed Item:Padding", j);
        uint64_t add = (uint64_t)it->length + (j > k ? (uint64_t)x->items[j - 1].padding : 0);
        if (__builtin_add_overflow(t, add, &t))
            return hostile(err, path, "Container:Directory item lengths overflow");
    }
    *tail = t;
    return SY_OK;
}

static sy_status locate_jpeg(sy_context *ctx, int fd, const char *path, uint64_t file_size, sy_motion_photo_info *out,
                             sy_error *err) {
    uint8_t *xmp = NULL;
    size_t xmp_len = 0;
    uint64_t header_end = 0;
    sy_status st = jpeg_xmp(ctx, fd, path, file_size, &xmp, &xmp_len, &header_end, err);
    if (st != SY_OK) return st;
    sy__xmp_motion_photo x;
    sy__xmp_motion_photo_read(xmp, xmp_len, &x);
    sy__free(ctx, xmp);
    sy_motion_photo_info sef;
    memset(&sef, 0, sizeof sef);
    if ((st = locate_sef(ctx, fd, path, file_size, header_end, &sef, err)) != SY_OK) return st;
    if (!x.motion_photo && !x.micro_video) {
        if (sef.container) *out = sef;
        return SY_OK;
    }
    if (x.items_seen > SY__XMP_MOTION_ITEMS)
        return hostile(err, path, "Container:Directory lists %u items (at most %u are read)", x.items_seen,
                       SY__XMP_MOTION_ITEMS);
    int32_t k = -1;
    for (uint32_t j = 0; j < x.item_count; j++)
        if (strcmp(x.items[j].semantic, "MotionPhoto") == 0) k = (int32_t)j;
    uint64_t tail = 0;
    if (k > 0) {
        if ((st = tail_from(&x, (uint32_t)k, path, &tail, err)) != SY_OK) return st;
        out->located_by = FCC('c', 'd', 'i', 'r');
    } else if (k == 0) {
        return hostile(err, path, "the Container:Directory's first item is the movie, not the primary image");
    } else if (x.micro_video_offset > 0) {
        tail = (uint64_t)x.micro_video_offset;
        out->located_by = FCC('m', 'v', 'o', 'f');
    } else {
        return hostile(err, path,
                       "the XMP says a video is appended but gives neither a Container:Directory item with "
                       "Semantic MotionPhoto nor a MicroVideoOffset");
    }
    if (tail > file_size - header_end)
        return hostile(err, path,
                       "the metadata puts %llu bytes of appended items after the photo, but only %llu bytes follow "
                       "its header (truncated or hostile file)",
                       (unsigned long long)tail, (unsigned long long)(file_size - header_end));
    out->container = FCC('j', 'p', 'e', 'g');
    out->movie_offset = file_size - tail;
    out->movie_length = k > 0 ? (uint64_t)x.items[k].length : tail;
    out->still_length = out->movie_offset;
    out->presentation_us = x.presentation_us >= 0 ? x.presentation_us : -1;
    out->version = x.version >= 0 ? x.version : -1;
    /* Samsung's XMP counts its trailer into the movie's item; the trailer says where the MP4 ends. */
    if (sef.container && sef.movie_offset == out->movie_offset && sef.movie_length < out->movie_length)
        out->movie_length = sef.movie_length;
    return check_movie_start(fd, path, out, err);
}

/* ---- HEIC ---- */

static int heif_brand(uint32_t b) {
    return b == FCC('h', 'e', 'i', 'c') || b == FCC('h', 'e', 'i', 'x') || b == FCC('m', 'i', 'f', '1') ||
           b == FCC('h', 'e', 'v', 'c') || b == FCC('h', 'e', 'i', 'm') || b == FCC('h', 'e', 'i', 's') ||
           b == FCC('m', 's', 'f', '1');
}

static sy_status locate_heic(int fd, const char *path, uint64_t file_size, sy_motion_photo_info *out, sy_error *err) {
    uint64_t pos = 0;
    for (uint32_t n = 0; n < MAX_TOP_BOXES && file_size - pos >= 8; n++) {
        uint8_t h[16];
        sy_status st = sy__bmff_read_at(fd, path, pos, h, 8, err);
        if (st != SY_OK) return st;
        uint64_t size = be32(h), header = 8;
        uint32_t type = be32(h + 4);
        if (size == 1) {
            if (file_size - pos < 16) return SY_OK;
            if ((st = sy__bmff_read_at(fd, path, pos + 8, h + 8, 8, err)) != SY_OK) return st;
            size = (uint64_t)be32(h + 8) << 32 | be32(h + 12);
            header = 16;
        } else if (size == 0) {
            size = file_size - pos;
        }
        if (size < header || size > file_size - pos) {
            if (type == FCC('m', 'p', 'v', 'd'))
                return hostile(err, path, "the mpvd box at byte %llu claims %llu bytes, past the end of the file",
                               (unsigned long long)pos, (unsigned long long)size);
            return SY_OK; /* a broken still is the still reader's to report */
        }
        if (type == FCC('m', 'p', 'v', 'd')) {
            out->container = FCC('h', 'e', 'i', 'c');
            out->located_by = type;
            out->movie_offset = pos + header;
            out->movie_length = size - header;
            out->still_length = pos;
            out->presentation_us = -1;
            out->version = -1;
            return check_movie_start(fd, path, out, err);
        }
        pos += size;
    }
    return SY_OK;
}

/* A HEIC Motion Photo's timestamp and version from its primary's XMP item,
 * when it says it is one (Camera:MotionPhoto = 1). The movie is found by the
 * `mpvd` box either way; an unreadable XMP only leaves them unset. */
static void heic_timestamp(sy_context *ctx, const char *path, sy_motion_photo_info *found) {
    sy__metadata md;
    sy_error ignored;
    if (sy__heif_metadata_read(ctx, path, &md, &ignored) != SY_OK) return;
    if (md.xmp) {
        sy__xmp_motion_photo x;
        sy__xmp_motion_photo_read(md.xmp, md.xmp_len, &x);
        if (x.motion_photo) {
            found->presentation_us = x.presentation_us >= 0 ? x.presentation_us : -1;
            found->version = x.version;
        }
    }
    sy__metadata_free(ctx, &md);
}

sy_status sy__motion_photo_locate(sy_context *ctx, int fd, const char *path, uint64_t file_size,
                                  sy_motion_photo_info *out, sy_error *err) {
    memset(out, 0, sizeof *out);
    out->presentation_us = out->version = -1;
    uint8_t head[12];
    if (file_size < sizeof head) return SY_OK;
    sy_status st = sy__bmff_read_at(fd, path, 0, head, sizeof head, err);
    if (st != SY_OK) return st;
    sy_motion_photo_info found;
    memset(&found, 0, sizeof found);
    found.presentation_us = found.version = -1;
    if (head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF)
        st = locate_jpeg(ctx, fd, path, file_size, &found, err);
    else if (be32(head + 4) == FCC('f', 't', 'y', 'p') && heif_brand(be32(head + 8)))
        st = locate_heic(fd, path, file_size, &found, err);
    if (st == SY_OK && found.container == FCC('h', 'e', 'i', 'c')) heic_timestamp(ctx, path, &found);
    if (st == SY_OK) *out = found;
    return st;
}

sy_status sy_motion_photo_probe(sy_context *ctx, const char *path, sy_motion_photo_info *out, sy_error *err) {
    if (!ctx || !path || !out) return sy__fail(err, SY_E_USAGE, "sy_motion_photo_probe: NULL argument");
    memset(out, 0, sizeof *out);
    out->presentation_us = out->version = -1;
    char *copy = NULL;
    FILE *fp = NULL;
    int fd = -1;
    uint64_t size = 0;
    sy_status st = sy__bmff_file_open(ctx, path, &copy, &fp, &fd, &size, err);
    if (st != SY_OK) return st;
    st = sy__motion_photo_locate(ctx, fd, path, size, out, err);
    fclose(fp);
    sy__free(ctx, copy);
    return st;
}
