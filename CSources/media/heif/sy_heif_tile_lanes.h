/* sy_heif_tile_lanes.h — the HEIF writer's tile encoders (engine-private):
 * one still-picture x265 encoder per lane, the tiles of a row dealt to the
 * lanes in turn (tile t to lane t % lanes) and encoded at once, one thread
 * per lane that goes on to its part of the next row without waiting for the
 * other lanes (a row of 9 tiles is 5 + 4; a barrier per row left a core
 * idle a tenth of the time); finished tiles reach the sink in tile order, on
 * the caller's thread, so the file's bytes do not depend on timing.
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
 * order are held (two rows at most) until the tiles before them are sunk. */
#ifndef SY_HEIF_TILE_LANES_H
#define SY_HEIF_TILE_LANES_H

#include "base/sy_internal.h"
#include "hevc/sy_hevc_encoder.h"

#define SY__TILE_LANES_MAX 4u
#define SY__TILE_LANES_ROWS 2u /* rows in flight at most */

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
 * read the samples on their threads until a finish call says the row is
 * done, so the caller fills another buffer meanwhile. Tile c gets pts
 * first_pts + c; pts count from 0 in steps of one, row after row. Lanes poll
 * cancellation once per tile. At most SY__TILE_LANES_ROWS - 1 rows may be in
 * flight when a row starts. */
void sy__tile_lanes_start_row(sy__tile_lanes *l, uint8_t *const plane[3], const size_t stride[3], uint32_t cols,
                              uint32_t tile_w, int64_t first_pts);

/* Waits until at most `keep` rows are in flight (the oldest finish first)
 * and sinks the tiles finished in order; the finished rows' samples may be
 * reused after it. With two row buffers: start a row, then finish_rows(1)
 * before refilling the other buffer — a lane done with its part of the older
 * row goes on to the newer one meanwhile, not waiting for the other lanes. */
sy_status sy__tile_lanes_finish_rows(sy__tile_lanes *l, uint32_t keep, sy_error *err);

/* finish_rows(0): every row started is done. */
sy_status sy__tile_lanes_finish_row(sy__tile_lanes *l, sy_error *err);

/* start_row + finish_row. */
sy_status sy__tile_lanes_encode_row(sy__tile_lanes *l, uint8_t *const plane[3], const size_t stride[3], uint32_t cols,
                                    uint32_t tile_w, int64_t first_pts, sy_error *err);

/* Finishes the row in flight, drains every lane and sinks the last tiles. */
sy_status sy__tile_lanes_flush(sy__tile_lanes *l, sy_error *err);

/* How often a lane began its part of a row while another lane was still on
 * the row before (what the lanes gain over a barrier per row; for tests). */
uint64_t sy__tile_lanes_early_starts(sy__tile_lanes *l);

/* Stops the lanes at their next tile (rows in flight are dropped), waits
 * for their threads and frees all. */
void sy__tile_lanes_destroy(sy__tile_lanes *l);

#endif
