/* sy_tiff.h — the engine's one bounded TIFF/IFD reader and the IFD layout its
 * writers share (engine-private). Exif, the GPS IFD, MakerNotes and the MPF
 * index are all TIFF structures: every walk over them goes through here.
 *
 * Reading: sy__tiff_open checks the header of a byte buffer (or sy__tiff_view
 * wraps a headerless IFD, such as a MakerNote's); sy__tiff_ifd_at / _ifd0 /
 * _sub_ifd give an IFD whose entries and next-IFD link are known to lie in the
 * buffer; sy__tiff_find / _entry_at describe one entry; sy__tiff_value and the
 * typed getters hand out its value only when all count x type-size bytes lie
 * in the buffer. Every offset is checked in 64-bit arithmetic, so no input
 * makes a read leave [data, data + len). The view borrows the bytes; nothing
 * allocates; any thread may read a view it does not share with a writer.
 *
 * Writing: fill sy__tiff_field entries (values that fit in 4 bytes inline,
 * longer ones by pointer), sort them, ask sy__tiff_ifd_size for the room and
 * sy__tiff_ifd_write them; long values go to a word-aligned data area right
 * after the IFD, as TIFF asks. */
#ifndef SY_TIFF_H
#define SY_TIFF_H

#include <stddef.h>
#include <stdint.h>

/* Field types (TIFF 6.0 §2; IFD from TIFF Technical Note 1). */
enum {
    SY__TIFF_BYTE = 1, SY__TIFF_ASCII = 2, SY__TIFF_SHORT = 3, SY__TIFF_LONG = 4, SY__TIFF_RATIONAL = 5,
    SY__TIFF_SBYTE = 6, SY__TIFF_UNDEFINED = 7, SY__TIFF_SSHORT = 8, SY__TIFF_SLONG = 9, SY__TIFF_SRATIONAL = 10,
    SY__TIFF_FLOAT = 11, SY__TIFF_DOUBLE = 12, SY__TIFF_IFD = 13,
};

/* The sub-IFD pointers Exif defines: IFD0 -> Exif IFD and GPS IFD, Exif IFD -> Interoperability IFD. */
#define SY__TIFF_TAG_EXIF_IFD 0x8769
#define SY__TIFF_TAG_GPS_IFD 0x8825
#define SY__TIFF_TAG_INTEROP_IFD 0xA005

#define SY__TIFF_ENTRY_BYTES 12u

/* Bytes of an IFD table of `entries` entries: the count, the entries, the next-IFD link. */
static inline uint64_t sy__tiff_ifd_bytes(uint32_t entries) { return 2 + (uint64_t)SY__TIFF_ENTRY_BYTES * entries + 4; }
/* Where a table or value placed at `v` or after starts: TIFF keeps them on word boundaries. */
static inline uint64_t sy__tiff_align4(uint64_t v) { return (v + 3) & ~(uint64_t)3; }

/* A read-only view of TIFF bytes (borrowed; valid while they are). */
typedef struct sy__tiff {
    const uint8_t *data;
    size_t len;
    int little_endian; /* "II" = 1, "MM" = 0 */
    uint32_t ifd0;     /* offset of IFD0 (0 for a headerless view) */
} sy__tiff;

/* An IFD whose entry table and 4-byte next-IFD link lie inside the view. */
typedef struct sy__tiff_ifd {
    size_t at;      /* offset of the 16-bit entry count */
    uint32_t count; /* number of 12-byte entries that follow */
} sy__tiff_ifd;

/* One decoded entry. */
typedef struct sy__tiff_entry {
    size_t at;       /* offset of the 12-byte entry */
    uint16_t tag;
    uint16_t type;
    uint32_t count;
    uint64_t size;   /* value bytes: count x type size (0 for an unknown type) */
    uint64_t value_at; /* the value's offset: at + 8 when size <= 4, else the stored offset (unchecked) */
} sy__tiff_entry;

/* Bytes per value of `type`; 0 for a type TIFF does not define. */
uint32_t sy__tiff_type_size(uint32_t type);

/* 1 when data holds a TIFF header ("II*\0" or "MM\0*") whose IFD0 offset
 * lies after the header and leaves room for an entry count; 0 otherwise. */
int sy__tiff_open(sy__tiff *t, const uint8_t *data, size_t len);

/* A headerless view (e.g. a MakerNote, whose offsets count from its own start). */
void sy__tiff_view(sy__tiff *t, const uint8_t *data, size_t len, int little_endian);

/* Unsigned 16/32-bit reads in the view's byte order; 0 when not inside the view. */
uint32_t sy__tiff_u16(const sy__tiff *t, uint64_t at);
uint32_t sy__tiff_u32(const sy__tiff *t, uint64_t at);

/* The IFD at `at` (0 means "none" in TIFF): 1 when its entries and next link fit, 0 otherwise. */
int sy__tiff_ifd_at(const sy__tiff *t, uint64_t at, sy__tiff_ifd *out);
int sy__tiff_ifd0(const sy__tiff *t, sy__tiff_ifd *out);

/* The offset stored in the IFD's next-IFD link (0 = last). */
uint32_t sy__tiff_next_ifd(const sy__tiff *t, const sy__tiff_ifd *ifd);

/* Entry `index` (< ifd->count) of the IFD. */
void sy__tiff_entry_at(const sy__tiff *t, const sy__tiff_ifd *ifd, uint32_t index, sy__tiff_entry *out);

/* The first entry with `tag`: 1 found, 0 not. */
int sy__tiff_find(const sy__tiff *t, const sy__tiff_ifd *ifd, uint16_t tag, sy__tiff_entry *out);

/* Follows a sub-IFD pointer tag of `parent` (its value field read as an
 * offset, whatever type and count the entry claims, as common readers do):
 * 1 = *out is that IFD, 0 = no such tag, -1 = the tag is there but its IFD is unreadable. */
int sy__tiff_sub_ifd(const sy__tiff *t, const sy__tiff_ifd *parent, uint16_t tag, sy__tiff_ifd *out);

/* The entry's e->size value bytes, or NULL when the type is unknown or they
 * are not all inside the view. */
const uint8_t *sy__tiff_value(const sy__tiff *t, const sy__tiff_entry *e);

/* One SHORT or LONG value (count 1): 1 and *out, or 0. */
int sy__tiff_uint(const sy__tiff *t, const sy__tiff_entry *e, uint32_t *out);

/* One SRATIONAL value (count 1): 1 and numerator/denominator, or 0. */
int sy__tiff_srational(const sy__tiff *t, const sy__tiff_entry *e, int32_t *num, int32_t *den);

/* ---- writing ---- */

/* Stores v at p in the given byte order. */
void sy__tiff_put16(uint8_t *p, uint32_t v, int little_endian);
void sy__tiff_put32(uint8_t *p, uint32_t v, int little_endian);

/* The 8-byte header: "II*\0" or "MM\0*", then IFD0's offset. */
void sy__tiff_put_header(uint8_t *p, int little_endian, uint32_t ifd0);

/* One IFD entry to write. */
typedef struct sy__tiff_field {
    uint16_t tag;
    uint16_t type;
    uint32_t count;
    uint8_t value[4];    /* the entry's value field as stored (a value that fits, or an offset kept as is) */
    const uint8_t *data; /* non-NULL: count x type-size bytes placed in the data area (value = their offset) */
} sy__tiff_field;

/* A count-1 SHORT or LONG field. */
sy__tiff_field sy__tiff_field_uint(uint16_t tag, uint16_t type, uint32_t value, int little_endian);
/* `count` values of `type` from `bytes` (already in the file's byte order):
 * inline when they fit in 4 bytes, else placed in the data area. */
sy__tiff_field sy__tiff_field_bytes(uint16_t tag, uint16_t type, uint32_t count, const uint8_t *bytes);
/* A field whose value already lies at `offset` (count x type-size bytes there). */
sy__tiff_field sy__tiff_field_at(uint16_t tag, uint16_t type, uint32_t count, uint32_t offset, int little_endian);
/* The read entry as it is (its value field, offsets included, copied unchanged). */
sy__tiff_field sy__tiff_field_copy(const sy__tiff *t, const sy__tiff_entry *e);

/* The IFD's entries but those tagged `skip`, copied as they are (offsets
 * unchanged: their values stay where they lie); returns how many. */
uint32_t sy__tiff_fields_copy(const sy__tiff *t, const sy__tiff_ifd *ifd, uint16_t skip, sy__tiff_field *out);

/* Sorts by tag, keeping the order of equal tags (TIFF wants ascending tags). */
void sy__tiff_fields_sort(sy__tiff_field *fields, uint32_t n);

/* Bytes the IFD takes: count, entries, next link and its data area. */
uint64_t sy__tiff_ifd_size(const sy__tiff_field *fields, uint32_t n);

/* Writes the IFD at base + at (the caller checked sy__tiff_ifd_size bytes of
 * room there); data-area offsets count from `base`. */
void sy__tiff_ifd_write(uint8_t *base, size_t at, const sy__tiff_field *fields, uint32_t n, uint32_t next,
                        int little_endian);

#endif
