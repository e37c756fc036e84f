/* sy_exif.h — the Exif facts the engine reads and the edits it makes
 * (engine-private), all over the one TIFF reader (exif/sy_tiff.h).
 *
 * Every function takes the TIFF structure of an Exif block (from "II*\0" or
 * "MM\0*", i.e. after JPEG's "Exif\0\0" prefix or HEIF's offset word), is
 * bounded by [tiff, tiff + len), and treats an unreadable block as one
 * without the fact. The in-place edits change only bytes of entries that are
 * already there; sy__exif_with_makernote allocates through the context. */
#ifndef SY_EXIF_H
#define SY_EXIF_H

#include <stddef.h>
#include <stdint.h>

#include "base/sy_internal.h"
#include "exif/sy_tiff.h"

/* The Exif IFD (IFD0 tag 0x8769): 1 found, 0 none, -1 pointed to but unreadable. */
int sy__exif_ifd(const sy__tiff *t, const sy__tiff_ifd *ifd0, sy__tiff_ifd *out);

/* The Apple MakerNote (Exif IFD tag 0x927C starting "Apple iOS\0", 00 01, "MM"):
 * 1 with *mn a big-endian view of it (its IFD at SY__EXIF_APPLE_IFD, offsets
 * counting from its start) and *offset where it starts in t; 0 when absent. */
#define SY__EXIF_APPLE_IFD 14u
int sy__exif_apple_makernote(const sy__tiff *t, sy__tiff *mn, size_t *offset);

/* Orientation (1..8) from IFD0 tag 0x0112; 1 when absent or unreadable. */
uint8_t sy__exif_orientation(const uint8_t *tiff, size_t len);
/* When the still was taken, "YYYY:MM:DD HH:MM:SS" into out[20]; 1 if found
 * ("" and 0 if not). The first real date of: Exif DateTimeOriginal, Exif
 * DateTimeDigitized, XMP exif:DateTimeOriginal, xmp:CreateDate,
 * photoshop:DateCreated (the wall-clock time they say; a bare day is its
 * 00:00:00), then Exif DateTime (the last save's). Placeholders such as
 * "0000:00:00 00:00:00" or blanks are skipped. Either block may be NULL. */
int sy__capture_date(const uint8_t *exif, size_t exif_len, const uint8_t *xmp, size_t xmp_len, char out[20]);
/* The same from the Exif alone. */
int sy__exif_capture_date(const uint8_t *tiff, size_t len, char out[20]);
/* 1 when `date` (19 characters) is a real "YYYY:MM:DD HH:MM:SS" (24:00:00 allowed). */
int sy__capture_date_valid(const char date[20]);
/* 1 when IFD0 has a GPS IFD pointer (0x8825). */
int sy__exif_has_gps(const uint8_t *tiff, size_t len);
/* The GPS IFD's position in signed decimal degrees (north and east positive):
 * 1 when GPSLatitude/GPSLongitude (3 RATIONALs each, non-zero denominators)
 * and their N/S, E/W references are all there and in range; 0 otherwise. */
int sy__exif_gps_position(const uint8_t *tiff, size_t len, double *latitude, double *longitude);
/* The same from XMP alone (xmp_gps.c): exif:GPSLatitude / exif:GPSLongitude
 * as XMP GPSCoordinates ("DDD,MM,SSk" or "DDD,MM.mmk"); 1 when both are. */
int sy__xmp_gps_position(const uint8_t *xmp, size_t len, double *latitude, double *longitude);
/* 1 when IFD0 names a camera (Make 0x010F or Model 0x0110). */
int sy__exif_has_camera(const uint8_t *tiff, size_t len);
/* The camera's name, "Make Model" ("Apple iPhone 15 Plus"; the make once when
 * the model starts with it), printable ASCII only, into out[cap]; returns its
 * length, 0 (and "") when IFD0 has neither tag. */
size_t sy__exif_camera(const uint8_t *tiff, size_t len, char *out, size_t cap);
/* 1 when Exif UserComment (0x9286) contains `needle` (ASCII, any case; ASCII or UTF-16 text). */
int sy__exif_user_comment_has(const uint8_t *tiff, size_t len, const char *needle);
/* 1 when an XMP packet's exif:UserComment property contains `needle` (any case). */
int sy__xmp_user_comment_has(const uint8_t *xmp, size_t len, const char *needle);

/* Sets the Orientation tag in place (when present as a SHORT); returns 1 if set. */
int sy__exif_set_orientation(uint8_t *tiff, size_t len, uint8_t orientation);
/* Sets PixelXDimension / PixelYDimension (Exif IFD 0xA002 / 0xA003) in place
 * when present as one SHORT or LONG; returns 1 if either changed. An edit
 * changes the pixel size, and the Exif must not claim the old one. */
int sy__exif_set_dimensions(uint8_t *tiff, size_t len, uint32_t width, uint32_t height);

/* Removes the embedded thumbnail in place: IFD0's link to IFD1 is cut, and
 * IFD1 (and any IFD after it), its values and its JPEG or strips are zeroed,
 * except bytes the kept IFDs (IFD0, Exif, GPS, Interoperability) still use;
 * *len shrinks past the zeroed tail. Every other byte stays where it was, so
 * offsets (a vendor MakerNote's included) hold. For pixels that are no longer
 * the thumbnail's picture. Returns 1 if there was a thumbnail link to cut. */
int sy__exif_drop_thumbnail(uint8_t *tiff, size_t *len);

/* The Exif 2.3 tags a JPEG's Exif must have and a HEIC's may lack
 * (YCbCrPositioning, ExifVersion, ComponentsConfiguration, FlashpixVersion,
 * GPSVersionID; exif_jpeg_tags.c), added where absent: *out a new block
 * (engine-allocated) with the IFDs that gain them copied after the old
 * bytes; NULL when none is missing or the block cannot be read. */
sy_status sy__exif_add_jpeg_tags(sy_context *ctx, const uint8_t *tiff, size_t len, uint8_t **out, size_t *out_len,
                                 sy_error *err);

/* Where an edit moves a place in the picture (regions.c): from the stored
 * frame, through the source's orientation to upright, into the crop (crop =
 * normalized x, y, w, h of the upright source), quarter turns clockwise then
 * flips, into the picture's place inside a border (inner = normalized x, y,
 * w, h of the output). `drop`: a straighten, whose rotated frame no
 * rectangle maps onto: every region goes. */
typedef struct sy__region_map {
    uint8_t orientation;
    double crop[4];
    uint32_t quarter_turns;
    uint8_t flip_h, flip_v;
    double inner[4];
    uint32_t out_w, out_h; /* the output's pixel size */
    int drop;
} sy__region_map;

/* Maps a normalized top-left rectangle r (x, y, w, h) of the stored frame to
 * the output, clipped to what the crop kept; 0 when the crop cut it away
 * (a zero-size rectangle, a point, stays while inside). */
int sy__region_map_rect(const sy__region_map *m, double r[4]);

/* Exif SubjectArea (0x9214) and SubjectLocation (0xA214), pixels of the
 * stored_w x stored_h frame, mapped in place to the output's pixels; a
 * subject the crop cut away is removed (its entry dropped, its value
 * zeroed). Returns 1 when either was there. */
int sy__exif_map_subject(uint8_t *tiff, size_t len, const sy__region_map *m, uint32_t stored_w, uint32_t stored_h);

/* A copy of an XMP packet whose face regions follow the map: each
 * mwg-rs:Regions area (normalized, or in pixels of AppliedToDimensions:
 * then in the output's pixels) and each Microsoft MPReg:Rectangle moved
 * (clipped to the crop); an area cut away, or one that cannot be mapped
 * (pixels without AppliedToDimensions, another unit), removed with its
 * rdf:li; AppliedToDimensions made the output's size; the whole mwg-rs:Regions
 * / MP:RegionInfo property removed when no region is left (or m->drop).
 * Everything else is copied byte for byte. NULL when there is nothing to change (or on
 * a budget failure, said in err); else engine-allocated (sy__free), *out_len. */
uint8_t *sy__xmp_map_regions(sy_context *ctx, const uint8_t *xmp, size_t len, const sy__region_map *m,
                             size_t *out_len, sy_error *err);

/* A copy of the Exif in `t` whose Exif IFD carries `makernote` (mn_len bytes)
 * as its MakerNote (0x927C), keeping every other byte where it was so the old
 * offsets stay valid: the `blank_len` bytes at `blank_at` are zeroed (the old
 * MakerNote, now unreferenced; 0/0 = none), and after the old bytes follow, each
 * 4-byte aligned: IFD0 again with an Exif IFD pointer when it had none (the
 * header's IFD0 offset is patched), else the old pointer is patched; then the
 * Exif IFD (its old entries but the MakerNote, plus the new one); then the
 * MakerNote. *out (engine-allocated, sy__free) and *out_len on SY_OK; NULL on failure. */
sy_status sy__exif_with_makernote(sy_context *ctx, const sy__tiff *t, const uint8_t *makernote, size_t mn_len,
                                  size_t blank_at, size_t blank_len, uint8_t **out, size_t *out_len, sy_error *err);

/* Sets every tiff:Orientation of an XMP packet (attribute or element form)
 * to 1 in place, for pixels written upright. Returns how many it changed. */
int sy__xmp_set_upright(uint8_t *xmp, size_t len);

/* Removes the Motion Photo claims (GCamera MotionPhoto / MicroVideo
 * properties and the Container:Directory item with Semantic "MotionPhoto")
 * from an XMP packet in place, for a still written without its video.
 * Returns the new length; *removed = 1 when anything was removed. */
size_t sy__xmp_strip_motion_photo(uint8_t *xmp, size_t len, int *removed);

/* A copy of the XMP packet `old` (NULL = none: a fresh packet) saying a
 * Motion Photo video of `movie_len` bytes ends the file (the primary image
 * of type `primary_mime`, "image/jpeg" or "image/heic"), its still frame at
 * `presentation_us` (-1 = unspecified): the old Motion Photo claims removed,
 * Camera:MotionPhoto / MotionPhotoVersion / MotionPhotoPresentationTimestampUs
 * added, and the Container:Directory the packet has (an Ultra HDR gain map's)
 * extended with the movie's item, or a new one listing the primary image,
 * a GainMap item of `trailing_len` bytes (0 = none) and the movie.
 * *out is engine-allocated (sy__free). SY_E_UNSUPPORTED for a packet without
 * rdf:RDF or with a directory that has no rdf:Seq. */
sy_status sy__xmp_with_motion_photo(sy_context *ctx, const uint8_t *old, size_t old_len, const char *primary_mime,
                                    int64_t presentation_us, uint64_t trailing_len, uint64_t movie_len, uint8_t **out,
                                    size_t *out_len, sy_error *err);

/* Extended XMP (xmp_extended.c; a JPEG's XMP past one APP1). The GUID the
 * main packet names by xmpNote:HasExtendedXMP (32 hex digits) into out[33]:
 * 1 when there is one. */
int sy__xmp_extended_guid(const uint8_t *xmp, size_t len, char out[33]);
/* Removes xmpNote:HasExtendedXMP in place, for a packet written without the
 * extension it names. Returns the new length; *removed = 1 when it was there. */
size_t sy__xmp_strip_extended_note(uint8_t *xmp, size_t len, int *removed);
/* The same, and the main packet's GDepth / GImage / GAudio properties when
 * the extension `ext` holds data in that namespace (GDepth:Format, Near, Far
 * beside the depth map's GDepth:Data): what described the data goes with it. ext may be NULL
 * (the note alone). */
size_t sy__xmp_strip_extended(uint8_t *xmp, size_t len, const uint8_t *ext, size_t ext_len, int *removed);
/* Removes in place every GDepth / GImage / GAudio property (data held in
 * the XMP that shows one frame, and what describes it), under whatever
 * prefixes the packet binds to them. Returns the new length; *removed = 1
 * when anything went. */
size_t sy__xmp_strip_data_namespaces(uint8_t *xmp, size_t len, int *removed);
/* One packet of the main packet and its extension (the extension's
 * rdf:Descriptions after the main's, the note removed), for formats whose
 * XMP has no size limit. *out engine-allocated (sy__free); SY_E_UNSUPPORTED
 * when either packet has no rdf:RDF. */
sy_status sy__xmp_join_extension(sy_context *ctx, const uint8_t *xmp, size_t len, const uint8_t *ext, size_t ext_len,
                                 uint8_t **out, size_t *out_len, sy_error *err);

/* `xmp` inside an xpacket wrapper (xmp_wrapper.c), as a JPEG's main packet
 * should be: *out engine-allocated (sy__free), or NULL when the packet has
 * one already (or is not text the wrapper can go around). */
sy_status sy__xmp_wrapped(sy_context *ctx, const uint8_t *xmp, size_t len, uint8_t **out, size_t *out_len,
                          sy_error *err);

/* One packet split for a JPEG (xmp_split.c, XMP Part 3): `main` fits one
 * APP1 and names `ext` by xmpNote:HasExtendedXMP = `guid`, the MD5 of `ext`.
 * Which properties stay in `main` is explained at the top of xmp_split.c. */
typedef struct sy__xmp_split {
    uint8_t *main; /* engine-allocated (sy__xmp_split_free), or NULL: the packet fits as it is */
    size_t main_len;
    uint8_t *ext;
    size_t ext_len;
    char guid[33];
} sy__xmp_split;
/* Splits `xmp` when it is over `main_limit` bytes (else *out stays zeroed):
 * whole top-level properties move, largest first, until the main packet
 * fits; a note `xmp` had is replaced. SY_E_UNSUPPORTED when the text is not
 * rdf:Descriptions of properties, or what must stay exceeds the limit. */
sy_status sy__xmp_split_for_jpeg(sy_context *ctx, const uint8_t *xmp, size_t len, size_t main_limit,
                                 sy__xmp_split *out, sy_error *err);
void sy__xmp_split_free(sy_context *ctx, sy__xmp_split *split);

/* What an XMP packet says about a Motion Photo's appended video (Google's
 * Motion Photo format 1.0, Samsung's use of it, and the older MicroVideo
 * properties). Numbers are as written; the caller checks them against the
 * file (sy__xmp_motion_photo_read trusts nothing, but knows no file size). */
#define SY__XMP_MOTION_ITEMS 8

typedef struct sy__xmp_motion_item {
    char semantic[24];         /* Item:Semantic ("Primary", "MotionPhoto", "GainMap", ...) */
    char mime[40];             /* Item:Mime */
    int64_t length;            /* Item:Length; -1 = absent, -2 = not a byte count */
    int64_t padding;           /* Item:Padding (bytes before the next item); 0 when absent, -2 = bad */
} sy__xmp_motion_item;

typedef struct sy__xmp_motion_photo {
    int motion_photo;          /* Camera:MotionPhoto = 1 */
    int micro_video;           /* Camera:MicroVideo = 1 (the pre-2021 form) */
    int64_t version;           /* MotionPhotoVersion / MicroVideoVersion; -1 absent */
    int64_t presentation_us;   /* MotionPhotoPresentationTimestampUs / MicroVideoPresentationTimestampUs; -1 unset */
    int64_t micro_video_offset;/* MicroVideoOffset: bytes from the video's start to the end of the file; -1 absent */
    uint32_t item_count;       /* Container:Directory items kept (at most SY__XMP_MOTION_ITEMS) */
    uint32_t items_seen;       /* all items seen (more than kept: the directory is refused) */
    sy__xmp_motion_item items[SY__XMP_MOTION_ITEMS];
} sy__xmp_motion_photo;

/* Fills *out from the packet (zeroed first, numbers -1 when absent). Bounded by the packet. */
void sy__xmp_motion_photo_read(const uint8_t *xmp, size_t len, sy__xmp_motion_photo *out);

/* What sy__exif_fit shed (bits of *dropped). */
#define SY__EXIF_FIT_THUMBNAIL 1u    /* IFD1 and later IFDs: the embedded thumbnail */
#define SY__EXIF_FIT_MAKERNOTE 2u    /* the Exif IFD's MakerNote (0x927C) */
#define SY__EXIF_FIT_LARGE_VALUES 4u /* other values over 4 KB */

/* A rebuilt copy of the Exif of at most `limit` bytes (see exif_fit.c):
 * IFD0, Exif, GPS and Interoperability IFDs in a fresh layout, shedding the
 * thumbnail IFDs, then the MakerNote, then values over 4 KB until it fits.
 * *out (engine-allocated, sy__free), *out_len and *dropped on SY_OK;
 * SY_E_UNSUPPORTED when even the standard tags do not fit, SY_E_INVALID_INPUT
 * when IFD0 is unreadable. */
sy_status sy__exif_fit(sy_context *ctx, const uint8_t *tiff, size_t len, size_t limit, uint8_t **out,
                       size_t *out_len, uint32_t *dropped, sy_error *err);

#endif
