/* xmp_wrapper.c — a packet inside its xpacket wrapper (sy_exif.h).
 *
 * XMP Part 1 wraps a serialized packet in <?xpacket begin=…?> …
 * <?xpacket end="w"?> so a scanner can find it in any file, and a JPEG's
 * main packet is expected to have it (exiftool's validation flags one
 * without). iPhone HEICs and our own gain-map packets carry none (a HEIF
 * item needs no scanning), so every JPEG save of them lacked it. An XML
 * declaration before the x:xmpmeta element goes: it may only open a document,
 * and the wrapper now does. */
#include <string.h>

#include "exif/sy_exif.h"
#include "exif/sy_xmp_text.h"

static const char HEAD[] = "<?xpacket begin=\"\xEF\xBB\xBF\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n";
static const char TAIL[] = "\n<?xpacket end=\"w\"?>";

static int blank(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

sy_status sy__xmp_wrapped(sy_context *ctx, const uint8_t *xmp, size_t len, uint8_t **out, size_t *out_len,
                          sy_error *err) {
    *out = NULL, *out_len = 0;
    if (!xmp || !len || sy__xmp_find(xmp, xmp + len, "<?xpacket begin")) return SY_OK;
    size_t from = 0, to = len;
    if (len >= 3 && memcmp(xmp, "\xEF\xBB\xBF", 3) == 0) from = 3; /* a byte-order mark: the wrapper says UTF-8 */
    while (from < to && blank(xmp[from])) from++;
    if (to - from >= 5 && memcmp(xmp + from, "<?xml", 5) == 0) {
        const uint8_t *close = sy__xmp_find(xmp + from, xmp + to, "?>");
        if (!close) return SY_OK; /* not text we understand: left as it is */
        from = (size_t)(close + 2 - xmp);
        while (from < to && blank(xmp[from])) from++;
    }
    while (to > from && (blank(xmp[to - 1]) || xmp[to - 1] == 0)) to--;
    size_t n = sizeof HEAD - 1 + (to - from) + sizeof TAIL - 1;
    uint8_t *buf = sy__alloc(ctx, n + 1, 1, "wrapped XMP", err);
    if (!buf) return err ? err->code : SY_E_BUDGET;
    memcpy(buf, HEAD, sizeof HEAD - 1);
    memcpy(buf + sizeof HEAD - 1, xmp + from, to - from);
    memcpy(buf + sizeof HEAD - 1 + (to - from), TAIL, sizeof TAIL - 1);
    buf[n] = 0;
    *out = buf, *out_len = n;
    return SY_OK;
}
