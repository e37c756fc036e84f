/* png_metadata.c — the PNG ancillary chunks a still carries: eXIf (an Exif
 * TIFF structure, PNG 1.5 / PNG 3rd edition), an uncompressed iTXt with
 * keyword "XML:com.adobe.xmp" (the XMP packet), the colour description —
 * iCCP (a zlib-compressed ICC profile, as iPhone and macOS screenshots carry
 * Display P3) and cICP (code points, PNG 3rd edition; it outranks iCCP) —
 * and acTL (animated PNG). A bounded chunk walk: lengths are checked against
 * the file size, payloads above 1 MiB are skipped, an ICC profile inflates to
 * at most 4 MiB and must look like one (else it is ignored: the picture is
 * then sRGB, as viewers assume); CRCs are not checked (metadata only; the row
 * source checks them when decoding). */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "base/sy_input.h"
#include "png/sy_png_metadata.h"

#define MAX_PAYLOAD ((uint32_t)1 << 20)
#define MAX_CHUNKS 100000u
#define MAX_ICC ((size_t)4 << 20)

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Reads `len` bytes of payload into a fresh accounted buffer. */
static uint8_t *read_payload(sy_context *ctx, FILE *f, uint32_t len, const char *path, sy_status *st, sy_error *err) {
    uint8_t *p = sy__alloc(ctx, len ? len : 1, 1, "PNG metadata chunk", err);
    if (!p) {
        *st = err ? err->code : SY_E_BUDGET;
        return NULL;
    }
    if (fread(p, 1, len, f) != len) {
        sy__free(ctx, p);
        *st = sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG chunk truncated", path);
        return NULL;
    }
    return p;
}

/* The text of an iTXt payload when it is an uncompressed XMP packet: returns
 * its offset inside `p` (0 = not XMP). Layout: keyword\0 flag method lang\0 tkey\0 text. */
static size_t itxt_xmp_offset(const uint8_t *p, uint32_t len) {
    static const char key[] = "XML:com.adobe.xmp";
    if (len < sizeof key + 2 || memcmp(p, key, sizeof key) != 0) return 0; /* includes the NUL */
    size_t at = sizeof key;
    if (p[at] != 0) return 0; /* compressed: not read */
    at += 2;
    for (int field = 0; field < 2; field++) { /* language tag, translated keyword */
        const uint8_t *nul = memchr(p + at, 0, len - at);
        if (!nul) return 0;
        at = (size_t)(nul - p) + 1;
        if (at >= len) return 0;
    }
    return at;
}

/* An iCCP payload (name, NUL, method 0, zlib stream) inflated into an
 * engine block; NULL when it is not a well-formed RGB-or-gray ICC profile. */
static uint8_t *inflate_icc(sy_context *ctx, const uint8_t *p, uint32_t len, size_t *out_len) {
    const uint8_t *nul = memchr(p, 0, len < 81 ? len : 81);
    if (!nul || nul == p || (size_t)(nul - p) + 2 > len || nul[1] != 0) return NULL;
    const uint8_t *z = nul + 2;
    uint8_t head[132];
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit(&zs) != Z_OK) return NULL;
    zs.next_in = (Bytef *)(uintptr_t)z;
    zs.avail_in = (uInt)(len - (uint32_t)(z - p));
    zs.next_out = head;
    zs.avail_out = sizeof head;
    int r = inflate(&zs, Z_NO_FLUSH);
    uint8_t *icc = NULL;
    size_t declared = zs.total_out >= 132 ? (size_t)head[0] << 24 | (size_t)head[1] << 16 | (size_t)head[2] << 8 | head[3]
                                          : 0;
    if ((r == Z_OK || r == Z_STREAM_END) && declared >= 132 && declared <= MAX_ICC && memcmp(head + 36, "acsp", 4) == 0 &&
        (icc = sy__alloc(ctx, declared, 1, "PNG ICC profile", NULL)) != NULL) {
        memcpy(icc, head, 132);
        zs.next_out = icc + 132;
        zs.avail_out = (uInt)(declared - 132);
        while (r == Z_OK && zs.avail_out) r = inflate(&zs, Z_NO_FLUSH);
        if (zs.total_out != declared) { /* shorter than it says (or a stream that stops early): not a profile */
            sy__free(ctx, icc);
            icc = NULL;
        }
    }
    inflateEnd(&zs);
    if (icc) *out_len = declared;
    return icc;
}

sy_status sy__png_metadata_read(sy_context *ctx, const char *path, sy__metadata *out, int *animated,
                                sy_error *err) {
    memset(out, 0, sizeof *out);
    *animated = 0;
    FILE *f = NULL;
    sy_status opened = sy__input_open(path, &f, err);
    if (opened != SY_OK) return opened;
    struct stat sb;
    uint8_t head[8];
    sy_status st = SY_OK;
    if (fstat(fileno(f), &sb) != 0 || fread(head, 1, 8, f) != 8 || memcmp(head, "\x89PNG\r\n\x1a\n", 8) != 0) {
        st = sy__fail(err, SY_E_INVALID_INPUT, "%s: not a PNG file", path);
        goto done;
    }
    uint64_t pos = 8, size = (uint64_t)sb.st_size;
    int seen_idat = 0;
    for (uint32_t n = 0; n < MAX_CHUNKS && pos + 12 <= size; n++) {
        uint8_t hdr[8];
        if (fread(hdr, 1, 8, f) != 8) break;
        uint32_t len = be32(hdr);
        const uint8_t *type = hdr + 4;
        if ((uint64_t)len > size - pos - 12) {
            st = sy__fail(err, SY_E_INVALID_INPUT, "%s: PNG chunk of %u bytes at offset %llu runs past the end", path,
                          len, (unsigned long long)pos);
            goto done;
        }
        if (memcmp(type, "IEND", 4) == 0) break;
        if (memcmp(type, "IDAT", 4) == 0) seen_idat = 1;
        int want_exif = memcmp(type, "eXIf", 4) == 0 && !out->exif && len <= MAX_PAYLOAD;
        int want_itxt = memcmp(type, "iTXt", 4) == 0 && !out->xmp && len <= MAX_PAYLOAD;
        /* the colour chunks count only before the image data (PNG 3rd edition, 5.6) */
        int want_iccp = memcmp(type, "iCCP", 4) == 0 && !out->icc && !seen_idat && len <= MAX_PAYLOAD;
        int want_cicp = memcmp(type, "cICP", 4) == 0 && !out->cicp.present && !seen_idat && len == 4;
        if (memcmp(type, "acTL", 4) == 0 && !seen_idat) *animated = 1;
        if (want_exif || want_itxt || want_iccp || want_cicp) {
            uint8_t *p = read_payload(ctx, f, len, path, &st, err);
            if (!p) goto done;
            size_t xmp_at = want_itxt ? itxt_xmp_offset(p, len) : 0;
            if (want_iccp) {
                out->icc = inflate_icc(ctx, p, len, &out->icc_len);
                sy__free(ctx, p);
            } else if (want_cicp) {
                out->cicp = (sy_cicp){.present = 1, .primaries = p[0], .transfer = p[1], .matrix = p[2],
                                      .full_range = p[3]};
                sy__free(ctx, p);
            } else if (want_exif) {
                out->exif = p, out->exif_len = len;
            } else if (xmp_at) {
                memmove(p, p + xmp_at, len - xmp_at);
                out->xmp = p, out->xmp_len = len - xmp_at;
            } else {
                sy__free(ctx, p);
            }
            if (fseek(f, 4, SEEK_CUR) != 0) break; /* CRC */
        } else if (fseek(f, (long)len + 4, SEEK_CUR) != 0) {
            break;
        }
        pos += 12 + (uint64_t)len;
    }
done:
    if (st != SY_OK) sy__metadata_free(ctx, out);
    fclose(f);
    return st;
}
