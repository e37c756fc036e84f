/* sy_still.h — still files as a whole: header probe over every codec, the
 * output formats a still is written in, and a file's identity (SPEC E7). */
#ifndef SY_STILL_H
#define SY_STILL_H

#include "sy_base.h"
#include "sy_image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sy_still_format {
    SY_STILL_JPEG = 0,
    SY_STILL_PNG = 1,
    SY_STILL_HEIC = 2,
} sy_still_format;

/** Metadata a written still (bits 0-7) or movie (bits 8-) does not carry
 *  over from its source, and why (bits of the reports' `dropped`; names from
 *  sy_metadata_dropped_name). */
typedef enum sy_metadata_dropped {
    SY_DROPPED_EXIF_THUMBNAIL = 1u << 0,      /**< the Exif thumbnail (IFD1): stale after an edit, or over 64 KB in a JPEG */
    SY_DROPPED_MAKERNOTE = 1u << 1,           /**< the camera's MakerNote: JPEG's 64 KB APP1 limit */
    SY_DROPPED_LARGE_EXIF_VALUES = 1u << 2,   /**< Exif values over 4 KB: JPEG's 64 KB APP1 limit */
    SY_DROPPED_CONTENT_IDENTIFIER = 1u << 3,  /**< Live photo identifier: the still is saved apart from its movie */
    SY_DROPPED_MOTION_PHOTO = 1u << 4,        /**< Motion Photo XMP: the video that followed the image is not written */
    SY_DROPPED_ISO_GAIN_MAP = 1u << 5,        /**< a HEIC's ISO 21496-1 'tmap' item: not rewritten (the Apple map is) */
    SY_DROPPED_HEIC_THUMBNAIL = 1u << 6,      /**< a HEIC's 'thmb' thumbnail item: it would show the old picture */
    SY_DROPPED_AUXILIARY_IMAGES = 1u << 7,    /**< HEIC auxiliary images / JPEG MPF images other than the gain map (depth, mattes) */
    SY_DROPPED_TIMED_METADATA = 1u << 8,      /**< a movie's timed-metadata ('mebx') tracks: kept by Live saves only */
    SY_DROPPED_EXTRA_VIDEO_TRACKS = 1u << 9,  /**< video tracks besides the main one (auxiliary pictures) */
    SY_DROPPED_EXTRA_AUDIO_TRACKS = 1u << 10, /**< audio tracks besides the first, or all when audio is not copied */
    SY_DROPPED_HDR_VIDEO = 1u << 11,          /**< an HLG / PQ movie's HDR: re-encoded in 8 bits, tone-mapped to SDR */
    SY_DROPPED_HDR10_PLUS = 1u << 12,         /**< a PQ movie's HDR10+ dynamic metadata (SMPTE ST 2094-40), in part or whole */
    SY_DROPPED_DOLBY_VISION = 1u << 13,       /**< a movie's Dolby Vision RPUs and configuration: the base layer alone written */
    SY_DROPPED_IPTC = 1u << 14,               /**< a JPEG's IPTC-IIM (Photoshop APP13) block, in a HEIC or PNG */
    SY_DROPPED_ALPHA = 1u << 15,              /**< transparency: the picture is written opaque, flattened onto white */
    SY_DROPPED_EXTENDED_XMP = 1u << 16,       /**< a JPEG's extended XMP (depth map, original): another frame now */
    SY_DROPPED_XMP = 1u << 17,                /**< the source's XMP: beside an Ultra HDR gain map's, not even splittable */
} sy_metadata_dropped;

/** Name ("exif-thumbnail", ...) and reason of one SY_DROPPED_* bit; NULL for others. */
const char *sy_metadata_dropped_name(uint32_t bit);
const char *sy_metadata_dropped_reason(uint32_t bit);

/** Reads only the header of `path`: format, dimensions, orientation.
 *  Fails with SY_E_INVALID_INPUT (naming the file) for unreadable, truncated or
 *  absurd inputs, SY_E_UNSUPPORTED for other file types, SY_E_IO when the file
 *  cannot be opened. Thread-safe. */
sy_status sy_image_probe(sy_context *ctx, const char *path, sy_image_info *out, sy_error *err);

/** sy_image_probe, and then whether the file holds its whole image: a JPEG
 *  reaches its end-of-image marker (every scan walked), a HEIF's primary tiles
 *  all lie inside the file. A truncated copy, whose header reads fine, fails
 *  with SY_E_INVALID_INPUT naming where it ends. Reads a JPEG through once (no
 *  pixel is decoded); a HEIF's boxes only. For callers that keep or list a
 *  file as it is (probe, a lossless copy, a library import). */
sy_status sy_image_probe_whole(sy_context *ctx, const char *path, sy_image_info *out, sy_error *err);

/** A file's byte size and SHA-256 (lowercase hex): the identity the SPEC E7
 *  gate compares. */
sy_status sy_file_identity(sy_context *ctx, const char *path, uint64_t *bytes, char sha256_hex[65], sy_error *err);

/** What a photo library catalogues about a still, from its header and metadata
 *  only (no pixel is decoded). */
typedef struct sy_still_facts {
    sy_image_info info;
    char capture_date[20]; /* DateTimeOriginal, DateTimeDigitized, XMP dates, then DateTime; "" when absent */
    uint8_t has_location;  /* 1 when the GPS IFD holds a complete, in-range position */
    double latitude;       /* signed decimal degrees: north positive */
    double longitude;      /* east positive */
    char camera[96];       /* Exif Make + Model, "Apple iPhone 15 Plus" (printable ASCII); "" when absent */
    char content_identifier[37]; /* the Live photo content identifier (Apple MakerNote); "" when absent */
} sy_still_facts;

/** Probes `path` as sy_image_probe_whole (a truncated copy fails: a library
 *  does not catalogue half a photo) and reads its capture date, GPS position,
 *  camera name and Live content identifier from the Exif it carries (JPEG
 *  APP1, HEIF Exif item; PNG: none yet). Metadata that is absent or
 *  unreadable leaves the fact empty; only an unreadable file fails. Memory:
 *  the Exif/XMP/ICC blobs, freed before return. Thread-safe with one context
 *  per thread. */
sy_status sy_still_read_facts(sy_context *ctx, const char *path, sy_still_facts *out, sy_error *err);

#ifdef __cplusplus
}
#endif
#endif
