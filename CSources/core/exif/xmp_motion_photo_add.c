/* xmp_motion_photo_add.c — an XMP packet that says "a Motion Photo video is
 * appended" (sy_exif.h), for a still written with a movie after it.
 *
 * Google's Motion Photo format 1.0: Camera:MotionPhoto = 1,
 * MotionPhotoVersion = 1, MotionPhotoPresentationTimestampUs, and a
 * Container:Directory whose items follow the primary image in order, the
 * last (Semantic MotionPhoto, video/mp4) ending the file. The old packet's
 * own Motion Photo claims are removed first (sy__xmp_strip_motion_photo);
 * when it already has a directory (an Ultra HDR gain map), the movie's item
 * joins it at the end, else a new directory lists the primary image, the
 * gain map `trailing_len` bytes long when there is one, then the movie. The
 * new properties go in their own rdf:Description before </rdf:RDF>. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "exif/sy_exif.h"
#include "exif/sy_xmp_text.h"

#define ITEM_LI "<rdf:li rdf:parseType=\"Resource\"><%s:Item %s:Mime=\"%s\" %s:Semantic=\"%s\" %s:Length=\"%" PRIu64 "\" %s:Padding=\"0\"/></rdf:li>"

static const char EMPTY_PACKET[] =
    "<?xpacket begin=\"\xEF\xBB\xBF\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>"
    "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
    "</rdf:RDF></x:xmpmeta><?xpacket end=\"w\"?>";

/* out = [p, p + at) + text + [p + at, p + len): text grows the buffer in place (cap checked). */
static int insert(uint8_t *p, size_t *len, size_t cap, size_t at, const char *text) {
    size_t n = strlen(text);
    if (*len + n > cap) return 0;
    memmove(p + at + n, p + at, *len - at);
    memcpy(p + at, text, n);
    *len += n;
    return 1;
}

sy_status sy__xmp_with_motion_photo(sy_context *ctx, const uint8_t *old, size_t old_len, const char *primary_mime,
                                    int64_t presentation_us, uint64_t trailing_len, uint64_t movie_len, uint8_t **out,
                                    size_t *out_len, sy_error *err) {
    *out = NULL, *out_len = 0;
    if (!old || !old_len) old = (const uint8_t *)EMPTY_PACKET, old_len = sizeof EMPTY_PACKET - 1;
    size_t cap = old_len + 2048;
    uint8_t *p = sy__alloc(ctx, cap, 1, "motion photo xmp", err);
    if (!p) return err ? err->code : SY_E_BUDGET;
    memcpy(p, old, old_len);
    int removed = 0;
    size_t len = sy__xmp_strip_motion_photo(p, old_len, &removed);

    char container[SY__XMP_MAX_PREFIX], item[SY__XMP_MAX_PREFIX];
    sy__xmp_prefix_for(p, len, SY__XMP_NS_CONTAINER, "Container", container);
    sy__xmp_prefix_for(p, len, SY__XMP_NS_ITEM, "Item", item);
    char open_dir[SY__XMP_MAX_PREFIX + 16];
    snprintf(open_dir, sizeof open_dir, "<%s:Directory", container);
    const uint8_t *dir = sy__xmp_find(p, p + len, open_dir);
    const uint8_t *rdf_end = sy__xmp_find(p, p + len, "</rdf:RDF>");
    if (!rdf_end) {
        sy__free(ctx, p);
        return sy__fail(err, SY_E_UNSUPPORTED, "the photo's XMP has no rdf:RDF element to add the Motion Photo to");
    }
    char li[512], text[1536];
    int ok = 1;
    if (dir) { /* join the directory the packet has: the movie's item before its </rdf:Seq> */
        const uint8_t *seq_end = sy__xmp_find(dir, p + len, "</rdf:Seq>");
        if (!seq_end || seq_end > rdf_end) {
            sy__free(ctx, p);
            return sy__fail(err, SY_E_UNSUPPORTED, "the photo's XMP has a Container:Directory without an rdf:Seq");
        }
        snprintf(li, sizeof li, ITEM_LI, container, item, "video/mp4", item, "MotionPhoto", item, movie_len, item);
        ok = insert(p, &len, cap, (size_t)(seq_end - p), li);
        rdf_end = sy__xmp_find(p, p + len, "</rdf:RDF>");
    }
    /* the properties (and, without a directory in the packet, the directory) in a Description of their own */
    int n = snprintf(text, sizeof text,
                     "<rdf:Description rdf:about=\"\" xmlns:Camera=\"" SY__XMP_NS_CAMERA "\" xmlns:Container=\""
                     SY__XMP_NS_CONTAINER "\" xmlns:Item=\"" SY__XMP_NS_ITEM "\" Camera:MotionPhoto=\"1\" "
                     "Camera:MotionPhotoVersion=\"1\" Camera:MotionPhotoPresentationTimestampUs=\"%" PRId64 "\"",
                     presentation_us);
    if (!dir) {
        n += snprintf(text + n, sizeof text - (size_t)n, "><Container:Directory><rdf:Seq>"
                      "<rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Mime=\"%s\" "
                      "Item:Semantic=\"Primary\" Item:Length=\"0\" Item:Padding=\"0\"/></rdf:li>", primary_mime);
        if (trailing_len) {
            snprintf(li, sizeof li, ITEM_LI, "Container", "Item", "image/jpeg", "Item", "GainMap", "Item",
                     trailing_len, "Item");
            n += snprintf(text + n, sizeof text - (size_t)n, "%s", li);
        }
        snprintf(li, sizeof li, ITEM_LI, "Container", "Item", "video/mp4", "Item", "MotionPhoto", "Item", movie_len,
                 "Item");
        snprintf(text + n, sizeof text - (size_t)n, "%s</rdf:Seq></Container:Directory></rdf:Description>", li);
    } else {
        snprintf(text + n, sizeof text - (size_t)n, "/>");
    }
    if (ok && rdf_end) ok = insert(p, &len, cap, (size_t)(rdf_end - p), text);
    if (!ok || !rdf_end) {
        sy__free(ctx, p);
        return sy__fail(err, SY_E_BUDGET, "the Motion Photo XMP does not fit");
    }
    *out = p, *out_len = len;
    return SY_OK;
}
