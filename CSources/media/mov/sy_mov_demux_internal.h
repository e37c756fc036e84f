/* sy_mov_demux_internal.h — the QuickTime / MP4 demuxer's handle, shared by
 * its files (engine-private to mov/): mov_demux.c opens the file and parses
 * moov (tracks, sample entries, sample tables); mov_demux_meta.c reads the
 * movie's metadata (mdta keys + ilst, udta text atoms); mov_demux_samples.c
 * indexes a track's samples on first use and reads them. */
#ifndef SY_MOV_DEMUX_INTERNAL_H
#define SY_MOV_DEMUX_INTERNAL_H

#include <stdio.h>

#include "base/sy_internal.h"
#include "bmff/sy_bmff.h"
#include "sy_mov.h"

#define FCC SY_FOURCC
#define MOV_MAX_TRACKS 4096u

typedef struct mov_track {
    sy_mov_track_info info;
    uint64_t trak_offset; /* absolute, for messages */
    /* codec configuration (borrowed from moov) */
    const uint8_t *config;
    size_t config_len;
    uint32_t config_type;
    /* first sample entry, header included (borrowed from moov) */
    const uint8_t *entry;
    size_t entry_len;
    /* trak/meta box, header included (borrowed) */
    const uint8_t *meta;
    size_t meta_len;
    /* edit list (borrowed) */
    const uint8_t *elst;
    uint8_t elst_version;
    /* sample tables: pointers to the first entry inside moov, counts checked */
    const uint8_t *stts, *ctts, *stsc, *stsz, *stco, *stss;
    uint32_t stts_n, ctts_n, stsc_n, stss_n, chunk_n;
    uint32_t stsz_const, stsz_n; /* constant size (0 = table), declared count */
    uint8_t stsz_bits;           /* 32 (stsz) or 4/8/16 (stz2) */
    uint8_t co64;
    uint64_t stbl_offset;
    /* mebx keys */
    sy_mov_mebx_key *mebx;
    /* lazy index */
    int indexed;
    uint32_t *stts_first; /* stts_n + 1 */
    uint64_t *stts_dts;   /* stts_n */
    uint32_t *ctts_first; /* ctts_n + 1 */
    uint32_t *chunk_first; /* chunk_n + 1 */
    uint32_t *keys;       /* sorted 0-based keyframes */
    uint32_t key_n;
    /* sequential-access cache (offset inside a chunk) */
    int cache_valid;
    uint32_t cache_chunk, cache_sample;
    uint64_t cache_offset;
} mov_track;

typedef struct mov_meta_item {
    const char *key;
    uint32_t type;
    const uint8_t *value;
    size_t len;
} mov_meta_item;

/* Engine allocations owned by the handle besides the fixed arrays. */
typedef struct mov_block {
    struct mov_block *next;
} mov_block;

struct sy_mov {
    sy_context *ctx;
    FILE *fp;
    int fd;
    char *path;
    uint64_t base; /* file offset of the movie: 0, or where a Motion Photo's embedded movie starts */
    sy_mov_info info;
    uint8_t *moov; /* whole moov box, header included */
    mov_track *tracks;
    mov_meta_item *meta;
    uint32_t meta_n, meta_cap;
    mov_block *blocks;
};

/* ---- big-endian reads and moov spans ---- */

static inline uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}
static inline uint64_t be64(const uint8_t *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }
static inline uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static inline uint64_t abs_off(const sy_mov *m, uint64_t moov_offset) { return m->info.moov_offset + moov_offset; }

static inline sy_bmff_span span_of(const sy_mov *m, const sy_bmff_box *b) { return sy_bmff_payload(m->moov, b); }

/* "path: reason ('box', offset N)"; `offset` is absolute in the file. */
__attribute__((format(printf, 6, 7))) sy_status sy__mov_bad(const sy_mov *m, sy_error *err, sy_status code,
                                                            uint32_t box, uint64_t offset, const char *fmt, ...);
/* The next child box under the cursor (type 0 at the end). */
sy_status sy__mov_next_box(const sy_mov *m, sy_bmff_cursor *c, sy_bmff_box *b, sy_error *err);
/* Zeroed engine memory owned by the handle until close (16-byte aligned). */
void *sy__mov_block_alloc(sy_mov *m, size_t count, size_t size, const char *reason, sy_error *err);
/* `n` bytes at `offset` of the movie (after a Motion Photo's still, if any). */
sy_status sy__mov_read_at(const sy_mov *m, uint64_t offset, void *dst, size_t n, sy_error *err);

/* mov_demux_meta.c: a `meta` box in moov or udta (QuickTime keyed items or an
 * item list), and moov/udta's text atoms, into the handle's metadata items. */
sy_status sy__mov_parse_meta(sy_mov *m, const sy_bmff_cursor *parent, const sy_bmff_box *mb, sy_error *err);
sy_status sy__mov_parse_udta_facts(sy_mov *m, const sy_bmff_cursor *root, const sy_bmff_box *udta, sy_error *err);

/* mov_demux_samples.c: frees a track's sample index (built on first use). */
void sy__mov_free_index(sy_context *ctx, mov_track *t);

#endif
