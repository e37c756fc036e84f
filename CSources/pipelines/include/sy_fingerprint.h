/* sy_fingerprint.h — what the organizer needs to know about one photo, computed
 * once by a scan (SPEC D6–D9): exact-content identity, a perceptual hash, a
 * quality score and the metadata flags of "Life".
 *
 * The analysis luma plane (at most 256 px on the long edge, kept in memory:
 * <= 64 KiB) is what pHash, sharpness and exposure read. JPEG and PNG: one
 * full-resolution, strip-wise decode whose rows stream through a SHA-256 (the
 * exact pixel fingerprint) and the engine's resampler. HEVC HEIF: the exact
 * fingerprint is taken from the coded tiles and the picture is decoded only
 * at the size the plane needs (a thumbnail that covers it, else tile rows
 * box-averaged as they stream). Working memory is the codec's strip (JPEG,
 * PNG) or one tile and a ring of reduced rows (HEIF) plus the resampler's
 * window: within the 12 MB scan budget for a 48 MP photo.
 */
#ifndef SY_FINGERPRINT_H
#define SY_FINGERPRINT_H

#include "sy_base.h"
#include "sy_image.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Long edge of the analysis luma plane (sharpness, exposure, pHash input). */
#define SY_FINGERPRINT_ANALYSIS_EDGE 256u

typedef struct sy_fingerprint {
    sy_image_format format;
    uint32_t width, height;          /* upright */
    uint32_t stored_width, stored_height;
    uint8_t orientation;             /* EXIF 1..8 */

    uint64_t file_bytes;
    char file_sha256[65];            /* SHA-256 of the file's bytes, lowercase hex */
    /** Exact-content fingerprint (SPEC D7 evidence), SHA-256 in lowercase hex.
     *  JPEG, PNG, libheif-decoded HEIF: over "SYPX1", stored width and height
     *  (LE32), the orientation byte, then every decoded row as 8-bit R'G'B'
     *  at full resolution — equal for byte-identical files and for
     *  re-encodings that keep the pixels (JPEG decoded and saved as PNG).
     *  HEVC HEIF: over the coded primary (heif/sy_heif_digest.h) — equal when
     *  only metadata differs. Movies: over "SYMV1", size, duration and the
     *  sampled frames' rows. A resize or a lossy re-save changes it.
     *  A photo with a stored gain map: that digest folded with the map's
     *  metadata and pixels ("SYGM1"; a map that cannot be read: with the
     *  file's SHA-256, "SYGM0"), so an HDR rendition is never a duplicate
     *  of one that differs from it (pipelines/organize/gainmap_evidence.c). */
    char pixel_sha256[65];

    /** 64-bit DCT perceptual hash (pHash): the upright luma plane area-averaged
     *  to 32x32, a 2-D DCT-II, the 8x8 lowest frequencies (DC included)
     *  compared with their median; bit 63 = coefficient (0,0), row-major
     *  (the layout of Python imagehash.phash's hex string). */
    uint64_t phash;

    /** Variance of the 4-neighbour Laplacian of the analysis luma plane:
     *  high for crisp detail, low for blur. */
    double sharpness;
    /** Fraction of analysis pixels at luma <= 4 or >= 251 (clipped shadows/highlights). */
    double clipped_fraction;
    /** Mean analysis luma, 0..255. */
    double mean_luma;
    /** Quality score in [0, 1]:
     *    sharpness / (sharpness + 100)
     *  x (1 - clipped_fraction)
     *  x (1 - 0.5 * ((mean_luma - 128) / 128)^2).
     *  Blurring lowers the first factor, darkening the first and the last. */
    double quality;

    char capture_date[20];           /* DateTimeOriginal, DateTimeDigitized, XMP dates, then DateTime, or "" */
    uint8_t has_camera;              /* Exif Make or Model present */
    /** A real screenshot marker: Exif UserComment or XMP exif:UserComment says
     *  "Screenshot" (what iOS writes). Never inferred from missing camera data. */
    uint8_t screenshot_marker;
    uint8_t animated;                /* animated PNG (acTL before the image data) */

    /** The pHash of the upright picture turned 90, 180 and 270 degrees
     *  clockwise: a rotated copy's phash is close to one of these. */
    uint64_t phash_turned[3];

    /* Movies only (sy_fingerprint_movie): 0 for stills. */
    uint32_t duration_ms;            /* the video track's media duration, rounded */
    uint32_t frames_sampled;         /* frames the pHash and quality were measured on */
} sy_fingerprint;

/** Frames a movie fingerprint samples: the first frame at or after 0, 1, 2
 *  and 3 seconds (fewer for a shorter movie). */
#define SY_FINGERPRINT_MOVIE_FRAMES 4u

/** Fingerprints the still at `path` (JPEG, PNG, HEIF). Fails with the file's
 *  name and the reason for unreadable inputs (SY_E_INVALID_INPUT,
 *  SY_E_UNSUPPORTED, SY_E_IO), SY_E_CANCELLED when the context is cancelled.
 *  Thread-safe for distinct `out`. */
sy_status sy_fingerprint_file(sy_context *ctx, const char *path, sy_fingerprint *out, sy_error *err);

/** sy_fingerprint_file_ex flag: leave pixel_sha256 "" for JPEG, PNG and
 *  libheif-decoded HEIF, which then decode at the analysis size too (JPEG
 *  DCT scaling); HEVC HEIF still gets its coded digest. A scan asks for the
 *  full-resolution digest only where an exact duplicate is possible. */
#define SY_FINGERPRINT_NO_PIXEL_DIGEST 1u

/** sy_fingerprint_file with `flags` (0 or SY_FINGERPRINT_NO_PIXEL_DIGEST). */
sy_status sy_fingerprint_file_ex(sy_context *ctx, const char *path, uint32_t flags, sy_fingerprint *out,
                                 sy_error *err);

/** Fingerprints the main video track of the movie at `path` (QuickTime/MP4,
 *  HEVC or H.264) from up to SY_FINGERPRINT_MOVIE_FRAMES frames: upright
 *  size, duration, file and sampled-frame digests, the pHash of the mean
 *  analysis plane and the frames' mean quality figures. Metadata flags are
 *  left 0 (the movie's metadata is read by the caller); format is
 *  SY_FORMAT_UNKNOWN. Memory: the video reader (decoder pictures and one
 *  upright RGB frame) plus the analysis planes. Errors as for
 *  sy_fingerprint_file. */
sy_status sy_fingerprint_movie(sy_context *ctx, const char *path, sy_fingerprint *out, sy_error *err);


/** Hamming distance between two perceptual hashes (0..64). */
int sy_phash_distance(uint64_t a, uint64_t b);

#ifdef __cplusplus
}
#endif
#endif
