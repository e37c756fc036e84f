/* motion_offsets.c — what the timeline knows that x265's look-ahead cannot
 * see: how long each part of the canvas will stand still.
 *
 * x265's cuTree lowers the QP of a block that later frames copy, by how much
 * they copy it — but only as far as its look-ahead sees (10 frames: the
 * look-ahead is what x265's memory grows with, ~6 MB a frame at 1080x1222).
 * A moving collage is mostly still parts: a cell before its movie starts and
 * after it ends, a relay's waiting cells, static cells, the margins. For a
 * block that will stand still for R more frames, a cuTree seeing the whole
 * movie would lower its QP by about s log2(1 + R) (every later frame copies
 * it whole); x265's sees L frames and gives about s log2(1 + L). The block's
 * offset (x265 adds it to its adaptive quantization and cuTree) is the
 * difference, with s twice cuTree's own strength (5 (1 - qcomp) = 2): on the
 * 2x2 benchmark collage (real iPhone + generated pairs, together, default
 * preset, PSNR against the frames x265 was given, 2026-12-06) no offsets
 * 50.04 dB in 5.80 MB, s = 2: 50.64 dB in 5.75 MB, s = 4: 51.10 dB in
 * 5.84 MB, s = 5-6: 51.14-51.16 dB in 5.86-5.87 MB; the moving cells'
 * frames kept their PSNR (cell crops over the frames they move in, within
 * 0.1 dB), the still ones gained 2-6 dB. Relay (one cell moves at a time):
 * 53.36 -> 54.73 dB, 14.34 -> 13.99 MB (54.42 dB before the waiting cells
 * kept their offsets across the key frame's IDR). Collages where every block moves
 * all the time (3x3 without margins) get no offsets: the same bytes.
 *
 * A still run ends at the next frame that changes the block, at the next
 * IDR (nothing after it refers back: the key frame) and at the movie's end.
 * Changes: a Live cell's rectangle from the frame its movie starts to the
 * frame after it ends (relay: its return to the still); after the key frame
 * (which shows the still), every Live cell's that shows a movie frame there
 * (together: all; relay: the one whose turn it is, and the last one after
 * its turn); every block while focus zooms or shows the hero. */
#include <math.h>
#include <string.h>

#include "motion/sy_motion_internal.h"
#include "video/sy_video_encoder_stage.h"

#define QCOMPRESS 0.6 /* x265's default, which no preset changes */
#define STRENGTH_OVER_CUTREE 2.0

static uint32_t frame_of(const sy__motion_job *job, double seconds, int round_up) {
    double f = seconds * job->o->fps;
    f = round_up ? ceil(f - 1e-9) : floor(f + 1e-9);
    return f <= 0 ? 0 : f >= job->frames ? job->frames : (uint32_t)f;
}

void sy__motion_offsets_plan(sy__motion_offsets *mo, uint32_t frames, uint32_t key_frame, uint32_t lookahead) {
    mo->frames = frames;
    mo->key_frame = key_frame;
    mo->lookahead = lookahead;
    mo->strength = STRENGTH_OVER_CUTREE * 5.0 * (1.0 - QCOMPRESS);
    mo->all_from = UINT32_MAX;
    mo->cells = 0;
}

void sy__motion_offsets_add_cell(sy__motion_offsets *mo, sy__rect rect, int live, uint32_t first, uint32_t last,
                                 int still_before, int still_after) {
    if (mo->cells >= SY_MOTION_MAX_CELLS) return;
    uint32_t i = mo->cells++;
    mo->rect[i] = rect;
    mo->first[i] = live ? first : UINT32_MAX;
    mo->last[i] = live ? last : UINT32_MAX;
    mo->still_before[i] = still_before;
    mo->still_after[i] = still_after;
}

sy_status sy__motion_offsets_open(sy__motion_offsets *mo, const sy__motion_job *job, sy_video_encoder *enc,
                                  uint32_t lookahead, sy_error *err) {
    memset(mo, 0, sizeof *mo);
    mo->grid = sy__video_encoder_block_offsets(enc, &mo->cols, &mo->rows, &mo->block, err);
    if (!mo->grid) return err ? err->code : SY_E_USAGE;
    sy__motion_offsets_plan(mo, job->frames, job->key_frame, lookahead);
    int focus = job->o->mode == SY_MOTION_FOCUS, relay = job->o->mode == SY_MOTION_RELAY;
    uint32_t last_turn = job->live_count ? job->order[job->live_count - 1] : UINT32_MAX;
    for (uint32_t i = 0; i < job->count; i++) {
        uint32_t first = frame_of(job, job->start[i], 0);
        uint32_t last = frame_of(job, job->start[i] + job->cells[i].duration, 1) + 1;
        /* relay: a cell shows its still before its turn and after it (the last one keeps its last frame) */
        sy__motion_offsets_add_cell(mo, job->layout.cells[i], job->cells[i].live && !focus, first, last, relay,
                                    relay && i != last_turn);
    }
    if (focus) mo->all_from = frame_of(job, job->hold_seconds, 0);
    return SY_OK;
}

/* The first frame after k that shows cell i's rectangle changed; UINT32_MAX: none. */
static uint32_t next_change(const sy__motion_offsets *mo, uint32_t i, uint32_t k) {
    if (mo->first[i] == UINT32_MAX) return UINT32_MAX;
    int before = k + 1 < mo->first[i], after = k + 1 > mo->last[i];
    /* the key frame shows the still: a cell showing a movie frame after it changes right after */
    if (k == mo->key_frame && !(before && mo->still_before[i]) && !(after && mo->still_after[i])) return k + 1;
    if (before) return mo->first[i];
    return after ? UINT32_MAX : k + 1;
}

float sy__motion_still_offset(const sy__motion_offsets *mo, uint32_t still_frames) {
    if (still_frames <= mo->lookahead) return 0;
    return (float)(-mo->strength * (log2(1.0 + still_frames) - log2(1.0 + mo->lookahead)));
}

void sy__motion_offsets_fill(const sy__motion_offsets *mo, uint32_t k) {
    /* the frame that ends every still run from k: the next IDR (the key frame), focus's move, the end */
    uint32_t horizon = mo->key_frame > k ? mo->key_frame : mo->frames;
    if (mo->all_from != UINT32_MAX) horizon = SY__MIN(horizon, SY__MAX(mo->all_from, k + 1));
    size_t blocks = (size_t)mo->cols * mo->rows;
    float open = horizon > k + 1 ? sy__motion_still_offset(mo, horizon - k - 1) : 0; /* blocks no Live cell touches */
    for (size_t b = 0; b < blocks; b++) mo->grid[b] = open;
    if (open == 0) return;
    for (uint32_t i = 0; i < mo->cells; i++) {
        uint32_t next = next_change(mo, i, k);
        if (next >= horizon) continue;
        float off = sy__motion_still_offset(mo, next - k - 1);
        const sy__rect *r = &mo->rect[i];
        uint32_t bx0 = r->x / mo->block, by0 = r->y / mo->block;
        uint32_t bx1 = SY__MIN((r->x + r->width + mo->block - 1) / mo->block, mo->cols);
        uint32_t by1 = SY__MIN((r->y + r->height + mo->block - 1) / mo->block, mo->rows);
        for (uint32_t by = by0; by < by1; by++)
            for (uint32_t bx = bx0; bx < bx1; bx++) {
                float *g = &mo->grid[(size_t)by * mo->cols + bx];
                if (off > *g) *g = off; /* a block shared with a cell that changes sooner stands still less */
            }
    }
}
