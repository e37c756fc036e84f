/* gainmap_xmp_carry.c — the source's XMP carried into a save beside a gain
 * map's own: the source's gain-map claims taken out (they describe a map and
 * a file layout the save writes anew, or not at all), everything else kept
 * byte for byte, the new Ultra HDR description joined, and JPEG's one-APP1
 * limit respected. Text is only ever removed from the source's copy; the
 * scans are the bounded ones of exif/sy_xmp_text.h. */
#include <string.h>

#include "exif/sy_exif.h"
#include "exif/sy_xmp_text.h"
#include "gainmap/sy_gainmap_internal.h"

#define NS_HDRGM "http://ns.adobe.com/hdr-gain-map/1.0/"

static int space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Whether the start tag [tag, gt) holds only namespace declarations and rdf:about. */
static int only_declarations(const uint8_t *tag, const uint8_t *gt) {
    const uint8_t *p = tag + strlen("<rdf:Description");
    while (p < gt) {
        while (p < gt && (space(*p) || *p == '/')) p++;
        if (p >= gt) break;
        const uint8_t *name = p;
        while (p < gt && *p != '=' && !space(*p)) p++;
        size_t n = (size_t)(p - name);
        if (!(n > 6 && memcmp(name, "xmlns:", 6) == 0) && !(n == 9 && memcmp(name, "rdf:about", 9) == 0)) return 0;
        while (p < gt && *p != '"' && *p != '\'') p++;
        if (p >= gt) return 0;
        const uint8_t *close = memchr(p + 1, *p, (size_t)(gt - p - 1));
        if (!close) return 0;
        p = close + 1;
    }
    return 1;
}

/* Removes the rdf:Descriptions that declare the gain-map namespaces and say
 * nothing else any more (what stripping left of a description that held
 * only the Ultra HDR directory), so repeated saves do not pile them up. */
static void remove_emptied_descriptions(sy__xmp_text *x) {
    for (size_t from = 0; from < x->len;) {
        const uint8_t *end = x->p + x->len, *tag = sy__xmp_find(x->p + from, end, "<rdf:Description");
        if (!tag) return;
        const uint8_t *gt = memchr(tag, '>', (size_t)(end - tag));
        if (!gt) return;
        size_t stop = 0;
        int ours = sy__xmp_find(tag, gt, NS_HDRGM) || sy__xmp_find(tag, gt, SY__XMP_NS_CONTAINER);
        if (ours && only_declarations(tag, gt)) {
            if (gt[-1] == '/') {
                stop = (size_t)(gt + 1 - x->p);
            } else {
                const uint8_t *c = gt + 1;
                while (c < end && space(*c)) c++;
                static const char close[] = "</rdf:Description>";
                if ((size_t)(end - c) >= sizeof close - 1 && memcmp(c, close, sizeof close - 1) == 0)
                    stop = (size_t)(c - x->p) + sizeof close - 1;
            }
        }
        if (stop) sy__xmp_cut(x, (size_t)(tag - x->p), stop);
        else from = (size_t)(gt - x->p) + 1;
    }
}

size_t sy__xmp_strip_gainmap_claims(uint8_t *xmp, size_t len) {
    if (!xmp || !len) return len;
    sy__xmp_text x = {xmp, len};
    char hdrgm[SY__XMP_MAX_PREFIX], container[SY__XMP_MAX_PREFIX];
    sy__xmp_prefix_for(x.p, x.len, NS_HDRGM, "hdrgm", hdrgm);
    sy__xmp_prefix_for(x.p, x.len, SY__XMP_NS_CONTAINER, "Container", container);
    static const char *const every[] = {""}, *const directory[] = {"Directory"};
    int removed = 0;
    x.len = sy__xmp_remove_properties(x.p, x.len, hdrgm, every, 1, &removed);
    x.len = sy__xmp_remove_properties(x.p, x.len, container, directory, 1, &removed);
    remove_emptied_descriptions(&x);
    return x.len;
}

/* Bytes of the whitespace padding before "<?xpacket end" (room left for
 * in-place edits, which XMP allows a writer to shrink); 0 when none. */
static size_t padding(const char *x, size_t len, size_t *at) {
    static const char trailer[] = "<?xpacket end";
    size_t n = sizeof trailer - 1, i = len;
    while (i >= n && memcmp(x + i - n, trailer, n) != 0) i--;
    if (i < n) return 0;
    size_t stop = i - n, start = stop;
    while (start > 0 && space((uint8_t)x[start - 1])) start--;
    *at = start;
    return stop - start > 1 ? stop - start - 1 : 0; /* one newline stays */
}

/* 1 when a JPEG writer can split the packet with its Ultra HDR directory in the main part (exif/xmp_split.c). */
static int splits_under(sy_context *ctx, const uint8_t *xmp, size_t len, size_t limit, sy_error *err) {
    sy__xmp_split split = {0};
    sy_error why = {0};
    sy_status st = sy__xmp_split_for_jpeg(ctx, xmp, len, limit, &split, &why);
    sy__xmp_split_free(ctx, &split);
    if (st == SY_E_BUDGET && err) *err = why;
    return st == SY_OK;
}

uint8_t *sy__xmp_carry_with_gainmap(sy_context *ctx, const uint8_t *source, size_t source_len, const char *gainmap,
                                    size_t gainmap_len, size_t limit, size_t *out_len, int *source_dropped,
                                    sy_error *err) {
    *source_dropped = 0, *out_len = 0;
    uint8_t *copy = source ? sy__alloc(ctx, source_len + 1, 1, "carried XMP", err) : NULL;
    if (source && !copy) return NULL;
    size_t len = 0;
    if (copy) {
        memcpy(copy, source, source_len);
        len = sy__xmp_strip_gainmap_claims(copy, source_len);
        copy[len] = 0;
    }
    if (!gainmap) return *out_len = len, copy;
    size_t joined_len = 0;
    char *joined = sy__xmp_join(ctx, (const char *)copy, len, gainmap, gainmap_len, &joined_len, err);
    sy__free(ctx, copy);
    if (!joined) return NULL;
    size_t pad_at = 0, pad = limit && joined_len > limit ? padding(joined, joined_len, &pad_at) : 0;
    if (pad) { /* the source's padding goes first: it carries nothing */
        memmove(joined + pad_at + 1, joined + pad_at + 1 + pad, joined_len - pad_at - 1 - pad + 1);
        joined[pad_at] = '\n';
        joined_len -= pad;
    }
    if (limit && joined_len > limit && !splits_under(ctx, (const uint8_t *)joined, joined_len, limit, err)) {
        /* the gain map's packet alone: the map must stay readable */
        sy__free(ctx, joined);
        *source_dropped = source != NULL;
        joined = sy__alloc(ctx, gainmap_len + 1, 1, "gain map XMP", err);
        if (!joined) return NULL;
        memcpy(joined, gainmap, gainmap_len);
        joined[gainmap_len] = 0;
        joined_len = gainmap_len;
    }
    *out_len = joined_len;
    return (uint8_t *)joined;
}
