/* sy_heif_tile_lanes.h — the HEIF writer's tile encoders (engine-private):
 * one still-picture x265 encoder per lane, the tiles of a row dealt to the
 * lanes in turn (tile t to lane t % lanes) and encoded at once, one thread
 * per lane; finished tiles reach the sink in tile order, on the caller's
 * thread, so the file's bytes do not depend on timing.
 *
 * The bytes depend on the number of lanes (each encoder's rate control
 * remembers its earlier pictures), never on threads or timing.
 *
 * Why lanes and not x265's own threads: a 512x512 tile is 8 CTU rows, too
 * few for wavefront parallelism to keep two cores busy, and x265 3.5's
 * second frame thread can hang in its flush (hevc_encoder.c). Two encoders,
 * each one frame thread on one pool thread, encode two tiles at once.
 * Every lane encodes its own tiles deterministically; the lanes' parameter
 * sets are identical (checked at open), so all tiles share one hvcC.
 *
 * Memory: each lane charges its encoder's estimate; tiles finished out of
 * order are held (a row at most) until the tiles before them are sunk. */
#ifndef SY_HEIF_TILE_LANES_H
#define SY_HEIF_TILE_LANES_H

#include "base/sy_internal.h"
#include "hevc/sy_hevc_encoder.h"

#define SY__TILE_LANES_MAX 4u

typedef struct sy__tile_lanes sy__tile_lanes;

/* Lanes for pictures of `o` (SY__HEVC_STILLS): `lanes` 1..SY__TILE_LANES_MAX
 * (fewer when the budget or the parameter sets do not allow more). With
 * o->threads == 1 the lanes take turns on the caller's thread, the same
 * bytes; else they run at once, o->threads (0: one per core) x265 pool
 * threads shared out among them. */
sy_status sy__tile_lanes_open(sy_context *ctx, const sy__hevc_encoder_options *o, uint32_t lanes, sy__hevc_sink sink,
                              void *user, sy__tile_lanes **out, sy_error *err);

/* The hvcC every tile shares. Borrowed; valid until destroy. */
const uint8_t *sy__tile_lanes_hvcc(const sy__tile_lanes *l, size_t *len);

/* Starts encoding one row of `cols` tiles held side by side in `plane`
 * (tile c's luma at plane[0] + c * tile_w, chroma at plane[1..2] + c *
 * tile_w / 2; plane[1..2] NULL for 4:0:0) and returns at once: the lanes
 * read the samples on their threads until finish_row, so the caller fills
 * another buffer meanwhile. Tile c gets pts first_pts + c; pts count from 0
 * in steps of one, row after row. Lanes poll cancellation once per tile.
 * The previous row must be finished. */
void sy__tile_lanes_start_row(sy__tile_lanes *l, uint8_t *const plane[3], const size_t stride[3], uint32_t cols,
                              uint32_t tile_w, int64_t first_pts);

/* Waits for the row started last (if any) and sinks the tiles finished in
 * order; the row's samples may be reused after it. */
sy_status sy__tile_lanes_finish_row(sy__tile_lanes *l, sy_error *err);

/* start_row + finish_row. */
sy_status sy__tile_lanes_encode_row(sy__tile_lanes *l, uint8_t *const plane[3], const size_t stride[3], uint32_t cols,
                                    uint32_t tile_w, int64_t first_pts, sy_error *err);

/* Finishes the row in flight, drains every lane and sinks the last tiles. */
sy_status sy__tile_lanes_flush(sy__tile_lanes *l, sy_error *err);

/* Waits for a row still in flight (its tiles are dropped) and frees all. */
void sy__tile_lanes_destroy(sy__tile_lanes *l);

#endif
