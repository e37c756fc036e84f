/* sy_metadata.h — the metadata record a still carries: the Exif, XMP and ICC
 * blobs (and a PNG's cICP), as each format's reader fills it (jpeg/, png/, heif/) and the
 * writers and pipelines consume it (engine-private). Each blob is owned by
 * the record, allocated through the context; absent parts are NULL. */
#ifndef SY_BASE_METADATA_H
#define SY_BASE_METADATA_H

#include "base/sy_cicp.h"
#include "base/sy_internal.h"

typedef struct sy__metadata {
    uint8_t *exif;   /* TIFF structure ("II*\0" / "MM\0*"), no "Exif\0\0" prefix */
    size_t exif_len;
    uint8_t *xmp;    /* the XMP packet (XML) */
    size_t xmp_len;
    uint8_t *xmp_ext; /* a JPEG's extended XMP, reassembled: the packet the main one names */
    size_t xmp_ext_len;
    char xmp_ext_guid[33]; /* its GUID as the main packet's xmpNote:HasExtendedXMP says it */
    uint8_t *icc;    /* ICC profile, reassembled */
    size_t icc_len;
    uint8_t *iptc;   /* a JPEG's APP13 payload ("Photoshop 3.0\0" + resource blocks) holding IPTC-IIM */
    size_t iptc_len;
    sy_cicp cicp;    /* a PNG's cICP chunk (present = 0 when none); it outranks the ICC profile */
} sy__metadata;

/* Frees the blobs and zeroes the record (safe on a zeroed record). */
void sy__metadata_free(sy_context *ctx, sy__metadata *md);

#endif
