/* png_metadata.c — the PNG ancillary chunks the organizer reads: eXIf (an
 * Exif TIFF structure, PNG 1.5 / PNG 3rd edition), an uncompressed iTXt with
 * keyword "XML:com.adobe.xmp" (the XMP packet), and acTL (animated PNG).
 * A bounded chunk walk: lengths are checked against the file size, payloads
 * above 1 MiB are skipped, CRCs are not checked (metadata only; the row
 * source checks them when decoding). */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "base/sy_input.h"
#include "png/sy_png_metadata.h"

#define MAX_PAYLOAD ((uint32_t)1 << 20)
#define MAX_CHUNKS 100000u

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
        if (memcmp(type, "acTL", 4) == 0 && !seen_idat) *animated = 1;
        if (want_exif || want_itxt) {
            uint8_t *p = read_payload(ctx, f, len, path, &st, err);
            if (!p) goto done;
            size_t xmp_at = want_itxt ? itxt_xmp_offset(p, len) : 0;
            if (want_exif) {
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
