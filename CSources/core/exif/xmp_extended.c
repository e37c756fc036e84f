/* xmp_extended.c — the main XMP packet's link to a JPEG's extended XMP
 * (sy_exif.h). XMP Part 3 (JPEG): a packet too large for one APP1 is split;
 * the main packet names the rest by xmpNote:HasExtendedXMP (the GUID, the
 * MD5 of the extended packet as 32 hex digits) and the rest follows in APP1
 * "http://ns.adobe.com/xmp/extension/" chunks. Google Camera keeps portrait
 * depth maps (GDepth:Data) and the unblurred original (GImage:Data) there. In
 * any other format the XMP is one packet, so the two are joined. */
#include <string.h>

#include "exif/sy_exif.h"
#include "exif/sy_xmp_text.h"

#define NS_NOTE "http://ns.adobe.com/xmp/note/"

static int hex_digit(char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f'); }

int sy__xmp_extended_guid(const uint8_t *xmp, size_t len, char out[33]) {
    out[0] = 0;
    if (!xmp || !len) return 0;
    char prefix[SY__XMP_MAX_PREFIX], value[40];
    sy__xmp_prefix_for(xmp, len, NS_NOTE, "xmpNote", prefix);
    if (sy__xmp_value(xmp, xmp + len, prefix, "HasExtendedXMP", value, sizeof value) != 1 || strlen(value) != 32)
        return 0;
    for (int i = 0; i < 32; i++)
        if (!hex_digit(value[i])) return 0;
    memcpy(out, value, 33);
    return 1;
}

size_t sy__xmp_strip_extended_note(uint8_t *xmp, size_t len, int *removed) {
    *removed = 0;
    if (!xmp || !len) return len;
    static const char *const names[] = {"HasExtendedXMP"};
    char prefix[SY__XMP_MAX_PREFIX];
    sy__xmp_prefix_for(xmp, len, NS_NOTE, "xmpNote", prefix);
    return sy__xmp_remove_properties(xmp, len, prefix, names, 1, removed);
}

/* Google's namespaces whose properties describe data held in the XMP itself
 * (a depth map, an image, a sound: GDepth:Data, GImage:Data, GAudio:Data);
 * Format, Near, Far or Mime beside them mean nothing once the data is gone.
 * Other namespaces (xmp:, photoshop:, xmpMM: histories moved out) keep the
 * main packet's properties. */
static int data_namespace(const uint8_t *uri, size_t n) {
    static const char *const ns[] = {"http://ns.google.com/photos/1.0/depthmap/", "http://ns.google.com/photos/1.0/image/",
                                     "http://ns.google.com/photos/1.0/audio/"};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        if (strlen(ns[i]) == n && memcmp(uri, ns[i], n) == 0) return 1;
    return 0;
}

size_t sy__xmp_strip_extended(uint8_t *xmp, size_t len, const uint8_t *ext, size_t ext_len, int *removed) {
    len = sy__xmp_strip_extended_note(xmp, len, removed);
    const uint8_t *end = ext ? ext + ext_len : NULL;
    for (const uint8_t *s = ext ? sy__xmp_find(ext, end, "xmlns:") : NULL; s; s = sy__xmp_find(s + 6, end, "xmlns:")) {
        const uint8_t *q = s + 6;
        while (q < end && *q != '=' && *q != '>') q++;
        if (q + 1 >= end || *q != '=' || (q[1] != '"' && q[1] != '\'')) continue;
        const uint8_t *uri = q + 2, *close = memchr(uri, q[1], (size_t)(end - uri));
        if (!close || !data_namespace(uri, (size_t)(close - uri))) continue;
        char ns[256], prefix[SY__XMP_MAX_PREFIX];
        memcpy(ns, uri, (size_t)(close - uri));
        ns[close - uri] = 0;
        sy__xmp_prefix_for(xmp, len, ns, "", prefix);
        if (!prefix[0]) continue; /* the main packet says nothing in it */
        static const char *const any[] = {""};
        int gone = 0;
        len = sy__xmp_remove_properties(xmp, len, prefix, any, 1, &gone);
        *removed |= gone;
    }
    return len;
}

size_t sy__xmp_strip_data_namespaces(uint8_t *xmp, size_t len, int *removed) {
    *removed = 0;
    char prefixes[8][SY__XMP_MAX_PREFIX];
    size_t count = 0;
    const uint8_t *end = xmp ? xmp + len : NULL;
    for (const uint8_t *s = xmp ? sy__xmp_find(xmp, end, "xmlns:") : NULL; s && count < 8;
         s = sy__xmp_find(s + 6, end, "xmlns:")) { /* every prefix bound to one: a joined packet may use several */
        const uint8_t *name = s + 6, *q = name;
        while (q < end && sy__xmp_name_char(*q)) q++;
        if (q == name || (size_t)(q - name) >= SY__XMP_MAX_PREFIX || q + 1 >= end || *q != '=' ||
            (q[1] != '"' && q[1] != '\''))
            continue;
        const uint8_t *uri = q + 2, *close = memchr(uri, q[1], (size_t)(end - uri));
        if (!close || !data_namespace(uri, (size_t)(close - uri))) continue;
        memcpy(prefixes[count], name, (size_t)(q - name));
        prefixes[count++][q - name] = 0;
    }
    static const char *const any[] = {""};
    for (size_t i = 0; i < count; i++) {
        int gone = 0;
        len = sy__xmp_remove_properties(xmp, len, prefixes[i], any, 1, &gone);
        *removed |= gone;
    }
    return len;
}

/* The body of a packet's rdf:RDF: after its start tag, up to "</rdf:RDF>". */
static int rdf_body(const uint8_t *p, size_t len, const uint8_t **from, const uint8_t **to) {
    const uint8_t *end = p + len, *open = sy__xmp_find(p, end, "<rdf:RDF");
    const uint8_t *gt = open ? memchr(open, '>', (size_t)(end - open)) : NULL;
    const uint8_t *close = gt ? sy__xmp_find(gt, end, "</rdf:RDF>") : NULL;
    if (!close || gt[-1] == '/') return 0;
    *from = gt + 1, *to = close;
    return 1;
}

sy_status sy__xmp_join_extension(sy_context *ctx, const uint8_t *xmp, size_t len, const uint8_t *ext, size_t ext_len,
                                 uint8_t **out, size_t *out_len, sy_error *err) {
    *out = NULL, *out_len = 0;
    const uint8_t *at, *stop, *add, *add_end;
    if (!rdf_body(xmp, len, &at, &stop) || !rdf_body(ext, ext_len, &add, &add_end))
        return sy__fail(err, SY_E_UNSUPPORTED, "extended XMP: a packet without rdf:RDF");
    size_t head = (size_t)(stop - xmp), body = (size_t)(add_end - add), n = len + body;
    uint8_t *joined = sy__alloc(ctx, n, 1, "joined XMP", err);
    if (!joined) return err ? err->code : SY_E_BUDGET;
    memcpy(joined, xmp, head); /* main's descriptions, then the extension's, then main's closing tags */
    memcpy(joined + head, add, body);
    memcpy(joined + head + body, stop, len - head);
    int removed = 0;
    *out_len = sy__xmp_strip_extended_note(joined, n, &removed);
    *out = joined;
    return SY_OK;
}
