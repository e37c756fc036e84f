/* mov_writer_internal.h — the QuickTime/MP4 muxer's state, shared by its
 * pieces (engine-private):
 *   mov_writer.c         public API, the temporary file, mdat streaming, finish
 *   mov_writer_tables.c  per-track sample bookkeeping and the stbl tables
 *   mov_writer_entries.c sample entries built here (hvc1/avc1, mebx)
 *   mov_writer_moov.c    moov: mvhd, trak (tkhd tref edts mdia), moov/meta
 */
#ifndef MOV_WRITER_INTERNAL_H
#define MOV_WRITER_INTERNAL_H

#include "base/sy_internal.h"
#include "base/sy_output.h"
#include "bmff/sy_bmff.h"
#include "mov/sy_mov_writer.h"

#define MW_FCC SY_FOURCC
/* A chunk closes after this many bytes or one second of media, so stsc stays
 * short and a reader never has to seek far within one track. */
#define MW_CHUNK_BYTES (1u << 20)
#define MW_MAX_TRACKS 1024u
#define MW_MAX_MEBX_KEYS 1024u
#define MW_MAX_CONFIG (1u << 20)     /* decoder configuration record */
#define MW_MAX_META_VALUE (1u << 20) /* one moov/meta value */
#define MW_MAX_META_ITEMS 4096u

/* Propagates a failing status (box building is a long chain of writes). */
#define MW_TRY(call)                         \
    do {                                     \
        sy_status mw_st_ = (call);           \
        if (mw_st_ != SY_OK) return mw_st_;  \
    } while (0)

/* A list of fixed-size elements in blocks that double up to MW_BLOCK_BYTES:
 * appending never copies what is stored (no 3x peak while growing), a small
 * track costs one small block, and the tables are read back in order. */
#define MW_BLOCK_BYTES (64u << 10)
typedef struct mw_block {
    struct mw_block *next;
    uint32_t count, cap; /* elements; the data follows the 16-byte header */
} mw_block;

typedef struct mw_vec {
    mw_block *head, *tail;
    size_t n;
} mw_vec;

static inline void *mw__block_data(mw_block *b) { return (uint8_t *)b + sizeof(mw_block); }
/* The last element (the vector must not be empty). */
static inline void *mw__vec_last(const mw_vec *v, size_t elem) {
    return (uint8_t *)mw__block_data(v->tail) + (size_t)(v->tail->count - 1) * elem;
}

/* One run of equal values: stts (sample delta) or ctts (composition offset). */
typedef struct mw_run {
    uint32_t count;
    uint32_t value; /* ctts: int32 bits */
} mw_run;

typedef enum mw_kind { MW_VIDEO, MW_COPIED, MW_MEBX } mw_kind;

typedef struct mw_track {
    uint32_t id; /* tkhd track_ID, 1-based in order of adding */
    mw_kind kind;
    uint32_t handler;   /* 'vide', 'soun', 'meta', ... */
    uint32_t timescale; /* media */
    uint16_t language;  /* mdhd packed code */
    uint32_t tkhd_flags;
    int16_t layer, alternate_group;
    uint16_t volume;    /* 8.8 */
    int32_t matrix[9];
    uint32_t width, height; /* tkhd 16.16 */
    uint8_t *entry;         /* the whole stsd sample entry box */
    size_t entry_len;
    uint32_t describes; /* tref cdsc target track ID, 0 = none */
    char handler_name[64]; /* mdia/hdlr name; "" = ours for the handler */
    uint8_t *meta;         /* the track's own `meta` box (set_track_meta), written after mdia */
    size_t meta_len;
    /* edit list (set_edit) */
    int has_edit;
    uint64_t empty_ticks; /* movie timescale */
    int64_t media_time;
    sy_mov_writer_edit *edit_list; /* set_edit_list: written as it is, instead of the above */
    uint32_t edit_list_count;
    /* samples */
    uint32_t sample_count;
    uint64_t media_duration; /* sum of durations */
    int64_t dts;             /* of the next sample */
    int64_t pts_end;         /* max(pts + duration): end of presentation */
    int64_t presentation_end; /* > 0: set_presentation_end's value, used instead of pts_end */
    uint32_t const_size;     /* size of every sample while sizes_vary == 0 */
    int sizes_vary;
    mw_vec sizes;            /* uint32_t, only once sizes vary */
    mw_vec stts, ctts;       /* mw_run */
    int ctts_nonzero, ctts_negative;
    int all_sync;            /* every sample so far is a sync sample */
    mw_vec sync;             /* uint32_t 1-based sample numbers, once a non-sync sample came */
    mw_vec chunk_offset;     /* uint64_t absolute file offsets */
    mw_vec chunk_samples;    /* uint32_t samples per chunk */
    uint64_t chunk_bytes, chunk_duration; /* of the chunk being filled */
} mw_track;

typedef struct mw_meta_item {
    char *key;
    uint32_t type;
    uint8_t *value;
    size_t len;
} mw_meta_item;

struct sy_mov_writer {
    sy_context *ctx;
    sy__output out;
    int qt;                   /* QuickTime ('qt  ') rather than ISO ('isom') layout */
    uint32_t brand, movie_timescale;
    uint64_t creation_time; /* options: mvhd/tkhd/mdhd times */
    uint64_t pos;             /* bytes written to the file so far */
    uint64_t wide_offset;     /* `wide` placeholder; the mdat header follows it */
    uint64_t mdat_payload;    /* first byte of sample data */
    mw_track *tracks;
    uint32_t track_count, track_cap;
    uint32_t chunk_track;     /* 1-based index of the track whose chunk is open, 0 = none */
    mw_vec meta;              /* mw_meta_item */
    int failed, finished;
};

/* ---- mov_writer.c ---- */
/* Appends to the file at w->pos; an error marks the writer failed. */
sy_status mw__put(sy_mov_writer *w, const void *data, size_t len, sy_error *err);
/* Overwrites bytes already written (the file position moves there). */
sy_status mw__put_at(sy_mov_writer *w, uint64_t offset, const void *data, size_t len, sy_error *err);

/* ---- mov_writer_tables.c ---- */
sy_status mw__vec_push(sy_context *ctx, mw_vec *v, size_t elem, const void *value, const char *reason, sy_error *err);
void mw__vec_free(sy_context *ctx, mw_vec *v);
/* Records one sample written at `offset`; `new_chunk` starts a chunk there. */
sy_status mw__track_add(sy_context *ctx, mw_track *t, uint64_t offset, int new_chunk, uint32_t size, uint32_t duration,
                        int32_t composition_offset, int sync, sy_error *err);
/* Bytes of the stbl tables after stsd: stts, ctts, stss, stsc, stsz, stco|co64. */
uint64_t mw__tables_size(const mw_track *t);
/* Streams those tables to the file (no copy of them in memory). */
sy_status mw__write_tables(sy_mov_writer *w, const mw_track *t, sy_error *err);
void mw__track_free(sy_context *ctx, mw_track *t);

/* ---- mov_writer_entries.c ---- */
/* Builds the hvc1/avc1 visual sample entry into t->entry. */
sy_status mw__video_entry(sy_context *ctx, int qt, const sy_mov_video_track *v, mw_track *t, sy_error *err);
/* Builds the mebx sample entry (keys box with keyd/dtyp per key) into t->entry. */
/* Builds the sowt (16-bit LE PCM) sound sample entry into t->entry. */
sy_status mw__pcm_entry(sy_context *ctx, uint32_t sample_rate, uint16_t channels, mw_track *t, sy_error *err);
/* Builds the mp4a (AAC) sound sample entry with its esds into t->entry. */
typedef struct mw_aac {
    uint32_t sample_rate;
    uint16_t channels;
    const uint8_t *config;   /* AudioSpecificConfig, < 100 bytes */
    size_t config_len;
    uint32_t buffer_size, max_bitrate, avg_bitrate;
} mw_aac;
sy_status mw__aac_entry(sy_context *ctx, const mw_aac *a, mw_track *t, sy_error *err);
sy_status mw__mebx_entry(sy_context *ctx, const sy_mov_mebx_key_spec *keys, uint32_t count, mw_track *t, sy_error *err);

/* ---- mov_writer_moov.c ---- */
/* Appends moov at the end of the file: headers built with the bmff writer one
 * trak at a time, the sample tables streamed behind them. */
sy_status mw__write_moov(sy_mov_writer *w, sy_error *err);

#endif
