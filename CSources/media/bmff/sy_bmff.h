/* sy_bmff.h — bounded ISO-BMFF box reading and writing (HEIF stills, MOV/MP4).
 *
 * Reading works on an in-memory byte range: the caller loads a box it needs
 * whole (e.g. `meta`, `moov`) and walks it; large payloads (`mdat`) are read
 * separately by offset. Nothing trusts a size or a count: every child must lie
 * inside its parent, 64-bit `largesize` and size 0 ("to end") are handled,
 * children per parent are capped.
 *
 * Writing appends to a growable buffer; `sy_bmff_writer_begin` reserves a
 * header that `sy_bmff_writer_end` patches with the final size.
 */
#ifndef SY_BMFF_H
#define SY_BMFF_H

#include "sy_base.h"
#include "base/sy_fourcc.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most children the reader accepts inside one box (hostile-input guard). */
#define SY_BMFF_MAX_CHILDREN 100000u

typedef struct sy_bmff_box {
    uint32_t type;
    uint64_t offset;         /* of the box header, relative to the walked buffer's base */
    uint64_t size;           /* whole box, header included */
    uint64_t payload_offset; /* after the header (and after version/flags for full boxes if read) */
    uint64_t payload_size;
    uint8_t uuid[16];        /* for type 'uuid' */
} sy_bmff_box;

/** A cursor over the boxes inside [begin, end) of `data` (which starts at file
 *  offset `base`, used only to report absolute offsets). */
typedef struct sy_bmff_cursor {
    const uint8_t *data;
    uint64_t base;
    uint64_t position, end;
    uint32_t seen;
} sy_bmff_cursor;

void sy_bmff_cursor_init(sy_bmff_cursor *c, const uint8_t *data, uint64_t base, uint64_t begin, uint64_t end);
/** Children of `box` (payload after `skip` bytes, e.g. 4 for a full box's version/flags). */
void sy_bmff_cursor_children(sy_bmff_cursor *c, const sy_bmff_cursor *parent, const sy_bmff_box *box, uint64_t skip);

/** A fourcc for messages: "ftyp" when printable, "0x0000a1b2" otherwise. Returns out. */
const char *sy_bmff_fourcc_text(uint32_t type, char out[16]);

/** Next box: SY_OK with *out filled, SY_OK with out->type = 0 at the end,
 *  SY_E_INVALID_INPUT when a size lies (names the box type and offsets). */
sy_status sy_bmff_next(sy_bmff_cursor *c, sy_bmff_box *out, sy_error *err);

/** Bounded big-endian reads from a payload range: each returns 0 and leaves
 *  *value untouched when fewer bytes remain. */
typedef struct sy_bmff_span {
    const uint8_t *p;
    uint64_t left;
} sy_bmff_span;
/** The payload of `box`, whose offsets count from `data` (the bytes its cursor walked). */
static inline sy_bmff_span sy_bmff_payload(const uint8_t *data, const sy_bmff_box *box) {
    sy_bmff_span s = {data + box->payload_offset, box->payload_size};
    return s;
}
int sy_bmff_u8(sy_bmff_span *s, uint8_t *value);
int sy_bmff_u16(sy_bmff_span *s, uint16_t *value);
int sy_bmff_u32(sy_bmff_span *s, uint32_t *value);
int sy_bmff_u64(sy_bmff_span *s, uint64_t *value);
/** Reads an n-byte (0, 2, 4 or 8) unsigned field, as iloc uses. */
int sy_bmff_uN(sy_bmff_span *s, unsigned bytes, uint64_t *value);
int sy_bmff_skip(sy_bmff_span *s, uint64_t n);
/** NUL-terminated string, copied (truncated) into out[cap]. A string cut off
 *  by the end of the span (no NUL) is taken whole; returns 0 with out = ""
 *  only when no bytes remain. */
int sy_bmff_cstring(sy_bmff_span *s, char *out, size_t cap);
/** A full box's version and 24-bit flags (both 0 when fewer than 4 bytes remain, returning 0). */
int sy_bmff_full_header(sy_bmff_span *s, uint8_t *version, uint32_t *flags);

/* ---- writing ---- */
typedef struct sy_bmff_writer sy_bmff_writer;

sy_status sy_bmff_writer_create(sy_context *ctx, sy_bmff_writer **out, sy_error *err);
void sy_bmff_writer_destroy(sy_bmff_writer *w);
/** Opens a box (full box when version >= 0: writes version and 24-bit flags). */
sy_status sy_bmff_writer_begin(sy_bmff_writer *w, uint32_t type, int version, uint32_t flags, sy_error *err);
/** Closes the innermost open box, patching its 32-bit size (64-bit not needed in meta). */
sy_status sy_bmff_writer_end(sy_bmff_writer *w, sy_error *err);
sy_status sy_bmff_writer_u8(sy_bmff_writer *w, uint8_t v, sy_error *err);
sy_status sy_bmff_writer_u16(sy_bmff_writer *w, uint16_t v, sy_error *err);
sy_status sy_bmff_writer_u32(sy_bmff_writer *w, uint32_t v, sy_error *err);
sy_status sy_bmff_writer_u64(sy_bmff_writer *w, uint64_t v, sy_error *err);
sy_status sy_bmff_writer_bytes(sy_bmff_writer *w, const void *data, size_t len, sy_error *err);
/** Current length, and a pointer to patch bytes already written (e.g. iloc offsets). */
size_t sy_bmff_writer_length(const sy_bmff_writer *w);
uint8_t *sy_bmff_writer_at(sy_bmff_writer *w, size_t offset);
/** Borrowed view of everything written; valid until the next write or destroy. */
const uint8_t *sy_bmff_writer_data(const sy_bmff_writer *w);

#ifdef __cplusplus
}
#endif
#endif
