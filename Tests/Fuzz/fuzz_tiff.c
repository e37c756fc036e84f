/* fuzz_tiff.c — libFuzzer harness for the one TIFF/IFD reader (exif/sy_tiff.h)
 * and the Exif operations built on it (exif/sy_exif.h), on arbitrary bytes.
 *
 * Built and run by scripts/fuzz.sh (FUZZ_ONLY=tiff); seeds in
 * Tests/Fuzz/seeds/tiff: the Exif of a 32x24 sample photo with GPS, UserComment
 * and Interop IFDs added by exiftool, little-endian (sample-le) and rewritten
 * big-endian (sample-be), and each with an Apple MakerNote carrying a Live
 * identifier from sy__content_id_with (*-apple), as `exiftool -b -Exif` reads them. Invariants: every IFD, entry and value the reader
 * hands out lies inside the buffer (ASan sees each byte read); the in-place
 * edits keep the length; a TIFF given a new MakerNote opens again, and its Exif
 * IFD's MakerNote is exactly the bytes given; no engine memory is left. */
#include <math.h>
#include <stdlib.h>

#include "fuzz_support.h"
#include "exif/sy_exif.h"
#include "exif/sy_tiff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_IFDS 16 /* a hostile next-IFD chain may loop */

static uint32_t walk_ifd(const sy__tiff *t, const sy__tiff_ifd *ifd) {
    uint32_t sum = 0;
    for (uint32_t i = 0; i < ifd->count; i++) {
        sy__tiff_entry e;
        sy__tiff_entry_at(t, ifd, i, &e);
        if (e.at < ifd->at || e.at + SY__TIFF_ENTRY_BYTES > t->len) abort();
        const uint8_t *v = sy__tiff_value(t, &e);
        if (v && (v < t->data || e.size > t->len || (size_t)(v - t->data) > t->len - e.size)) abort();
        if (v) sum += fuzz_sum(v, (size_t)e.size);
        uint32_t u;
        int32_t n, d;
        if (sy__tiff_uint(t, &e, &u)) sum += u;
        if (sy__tiff_srational(t, &e, &n, &d)) sum += (uint32_t)n ^ (uint32_t)d;
    }
    return sum;
}

static uint32_t walk(const sy__tiff *t) {
    uint32_t sum = 0;
    sy__tiff_ifd ifd, sub, interop;
    if (!sy__tiff_ifd0(t, &ifd)) return 0;
    sy__tiff_ifd ifd0 = ifd;
    for (int k = 0; k < MAX_IFDS; k++) { /* IFD0, IFD1 (thumbnail), ... */
        sum += walk_ifd(t, &ifd);
        if (!sy__tiff_ifd_at(t, sy__tiff_next_ifd(t, &ifd), &ifd)) break;
    }
    if (sy__tiff_sub_ifd(t, &ifd0, SY__TIFF_TAG_GPS_IFD, &sub) == 1) sum += walk_ifd(t, &sub);
    if (sy__exif_ifd(t, &ifd0, &sub) == 1) {
        sum += walk_ifd(t, &sub);
        if (sy__tiff_sub_ifd(t, &sub, SY__TIFF_TAG_INTEROP_IFD, &interop) == 1) sum += walk_ifd(t, &interop);
    }
    sy__tiff mn;
    size_t mn_at;
    if (sy__exif_apple_makernote(t, &mn, &mn_at)) {
        if (mn_at > t->len || mn.len > t->len - mn_at || mn.data != t->data + mn_at) abort();
        if (sy__tiff_ifd_at(&mn, SY__EXIF_APPLE_IFD, &sub)) sum += walk_ifd(&mn, &sub);
    }
    return sum;
}

/* The new MakerNote must read back as given. */
static void check_makernote(const uint8_t *tiff, size_t len, const uint8_t *mn, size_t mn_len) {
    sy__tiff t;
    sy__tiff_ifd ifd0, exif;
    sy__tiff_entry e;
    if (!sy__tiff_open(&t, tiff, len) || !sy__tiff_ifd0(&t, &ifd0) || sy__exif_ifd(&t, &ifd0, &exif) != 1) abort();
    /* the first MakerNote entry is the new one unless the old bytes hide it; the
     * new Exif IFD holds exactly one */
    uint32_t found = 0;
    for (uint32_t i = 0; i < exif.count; i++) {
        sy__tiff_entry_at(&t, &exif, i, &e);
        if (e.tag != 0x927C) continue;
        const uint8_t *v = sy__tiff_value(&t, &e);
        if (!v || e.size != mn_len || memcmp(v, mn, mn_len) != 0) abort();
        found++;
    }
    if (found != 1) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20)) return 0;
    sy_context *ctx = fuzz_context((size_t)64 << 20);
    volatile uint32_t sink = 0;
    sy__tiff t;
    if (sy__tiff_open(&t, data, size)) sink += walk(&t);
    /* headerless views in both byte orders, as a MakerNote is read */
    for (int le = 0; le < 2; le++) {
        sy__tiff v;
        sy__tiff_ifd ifd;
        sy__tiff_view(&v, data, size, le);
        if (sy__tiff_ifd_at(&v, SY__EXIF_APPLE_IFD, &ifd)) sink += walk_ifd(&v, &ifd);
    }

    char date[20];
    uint8_t o = sy__exif_orientation(data, size);
    if (o < 1 || o > 8) abort();
    if (sy__exif_capture_date(data, size, date) && strlen(date) > 19) abort();
    double lat = 0, lon = 0;
    if (sy__exif_gps_position(data, size, &lat, &lon) && !(lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180)) abort();
    sink += (uint32_t)sy__exif_has_gps(data, size) + (uint32_t)sy__exif_has_camera(data, size) +
            (uint32_t)sy__exif_user_comment_has(data, size, "Screenshot") +
            (uint32_t)sy__xmp_user_comment_has(data, size, "Screenshot");

    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) abort();
    memcpy(copy, data, size);
    if (sy__exif_set_orientation(copy, size, 6) && sy__exif_orientation(copy, size) != 6) abort();
    sy__exif_set_dimensions(copy, size, 4032, 3024);
    /* the subject mapped, then the thumbnail dropped: the block stays readable and only shrinks */
    sy__region_map map = {.orientation = (uint8_t)(size ? data[0] % 9 : 1), .crop = {0.25, 0.1, 0.5, 0.8},
                          .quarter_turns = size > 1 ? data[1] & 3u : 0, .flip_h = 1, .inner = {0.1, 0.1, 0.8, 0.8},
                          .out_w = 1000, .out_h = 700};
    sy__exif_map_subject(copy, size, &map, 4032, 3024);
    size_t dropped_len = size;
    if (sy__exif_drop_thumbnail(copy, &dropped_len)) {
        sy__tiff back;
        if (dropped_len > size || !sy__tiff_open(&back, copy, dropped_len)) abort();
        sink += walk(&back);
    }
    if (sy__capture_date(copy, dropped_len, data, size, date) && !sy__capture_date_valid(date)) abort();
    free(copy);
    /* a position stated in XMP only: within the globe when read */
    double xlat = 0, xlon = 0;
    if (sy__xmp_gps_position(data, size, &xlat, &xlon) && !(fabs(xlat) <= 90 && fabs(xlon) <= 180)) abort();
    /* the XMP face regions: a fresh packet or nothing */
    size_t mapped_len = 0;
    uint8_t *mapped = sy__xmp_map_regions(ctx, data, size, &map, &mapped_len, NULL);
    if (mapped) {
        if (mapped_len == 0 && size > 0) abort();
        sy__free(ctx, mapped);
    }

    static const uint8_t makernote[] = "Apple iOS\0\0\1MM\0\0\0\0\0\0";
    uint8_t *out = NULL;
    size_t out_len = 0;
    sy_error err;
    if (sy__tiff_open(&t, data, size)) {
        sy_status st = sy__exif_with_makernote(ctx, &t, makernote, sizeof makernote - 1, 0, 0, &out, &out_len, &err);
        if (st == SY_OK) {
            check_makernote(out, out_len, makernote, sizeof makernote - 1);
            sy__free(ctx, out);
        } else if (out || err.message[0] == 0) {
            abort(); /* failure hands out nothing and says why */
        }
    }
    /* The JPEG fit: at most the limit, and a TIFF every walk reads in bounds. */
    uint32_t dropped = 0;
    out = NULL;
    if (sy__exif_fit(ctx, data, size, 4096, &out, &out_len, &dropped, &err) == SY_OK) {
        sy__tiff back;
        if (!out || out_len > 4096 || !sy__tiff_open(&back, out, out_len)) abort();
        sink += walk(&back);
        sy__free(ctx, out);
    } else if (out) {
        abort();
    }
    /* The JPEG-mandatory tags added: a readable block past the old bytes (only
     * pointers change in them); a second pass finds nothing missing. */
    uint8_t *completed = NULL;
    size_t completed_len = 0;
    if (sy__exif_add_jpeg_tags(ctx, data, size, &completed, &completed_len, &err) == SY_OK && completed) {
        sy__tiff back;
        if (completed_len < size || !sy__tiff_open(&back, completed, completed_len))
            abort();
        sink += walk(&back);
        uint8_t *twice = NULL;
        size_t twice_len = 0;
        if (sy__exif_add_jpeg_tags(ctx, completed, completed_len, &twice, &twice_len, &err) == SY_OK && twice) abort();
        sy__free(ctx, completed);
    }
    /* The Motion Photo remover only ever shrinks the packet. */
    uint8_t *xmp = malloc(size ? size : 1);
    if (!xmp) abort();
    memcpy(xmp, data, size);
    int removed = 0;
    size_t kept = sy__xmp_strip_motion_photo(xmp, size, &removed);
    if (kept > size || (!removed && (kept != size || memcmp(xmp, data, size) != 0))) abort();
    /* Extended XMP: the note's remover only shrinks (the input as its own extension too), and a join
     * with itself is a fresh packet or a failure that said why. */
    memcpy(xmp, data, size);
    char guid[33];
    if (sy__xmp_extended_guid(xmp, size, guid) && strlen(guid) != 32) abort();
    kept = sy__xmp_strip_extended(xmp, size, data, size, &removed);
    if (kept > size || (!removed && (kept != size || memcmp(xmp, data, size) != 0))) abort();
    uint8_t *joined = NULL;
    size_t joined_len = 0;
    err.message[0] = 0;
    if (sy__xmp_join_extension(ctx, data, size, data, size, &joined, &joined_len, &err) == SY_OK) {
        if (!joined || joined_len > 2 * size) abort();
        sy__free(ctx, joined);
    } else if (joined || err.message[0] == 0) {
        abort();
    }
    free(xmp);
    fuzz_require_released(ctx);
    (void)sink;
    return 0;
}
