/* motion_movie.c — the moving collage's movie: per output frame the timeline
 * says what each Live cell shows; its player draws the frame due into the
 * live canvas (only when it changed: the canvas keeps every other pixel; the
 * cells of a frame on a crew of threads while x265 takes the frame before,
 * see below), and the frame's view (live canvas, the still, a zoom, the
 * hero) goes to the encoder (x265, SPEC C14) and the muxer, which takes
 * each packet's composition offset. The encoder keeps the last frame's
 * Y'CbCr planes, so a live canvas after a live canvas is converted only
 * inside the cells that changed (stage_frame): the same planes; on the 2x2
 * benchmark collage 62 % of the whole-frame conversion's CPU samples.
 *
 * The encoder's 3 B-frames and look-ahead 10, with QP offsets from the
 * timeline (motion_offsets.c) for what x265's look-ahead cannot see. The
 * look-ahead and B-frames are what x265's memory grows with (~6 MB a frame
 * at 1080x1222); x265 encoding the 2x2 benchmark collage's frames as ffmpeg's
 * xstack peer composes them, losslessly kept, at 12 Mbps (peak RSS of
 * ffmpeg + libx265, ~61 MB of it ffmpeg's; PSNR against those frames;
 * 2026-12-06): preset fast B4 LA15 (ffmpeg's default) 304 MB 50.77 dB
 * 5.57 MB, B3 LA10 269 MB 50.30 dB, B4 LA20 332 MB 50.89 dB, B3 LA5 238 MB
 * 49.69 dB, B0 LA1 178 MB 47.83 dB; our default preset veryfast B3 LA10
 * 50.16 dB for 17 % less CPU. (An earlier table here, measured against our
 * own decoded movie, favoured B3 LA10: re-encoding a lossy movie with its
 * own settings scores high.) On the 3x3 without margins, where every cell
 * moves throughout, B3 LA10 and B4 LA15 tie (52.36 dB). The timeline's
 * offsets give the 2x2 51.10 dB in 5.84 MB at B3 LA10 (our own composite;
 * libx265 with ffmpeg's defaults on the same frames: 50.71 dB in 5.54 MB),
 * so the look-ahead stays at 10.
 *
 * Sound (the modes that have it: relay, each cell's while it plays; focus,
 * the hero's; together none — every cell at once would be noise, and SPEC C1
 * promises sound with relay only). A movie has ONE sound track, as a
 * camera's Live movie has: players that pick one track (ffmpeg, VLC,
 * Android, browsers) would otherwise play one cell's turn of a relay. With
 * one cell sounding (focus's hero, a relay with one sounding cell) the Live
 * tier (.mov) copies its sound sample for sample, placed by an empty edit at
 * its turn; otherwise (several relay turns, and every .mp4, which Android and
 * browsers play only as AAC) it is one AAC-LC track (audio/sy_audio.h): each
 * cell's sound (LPCM or AAC) decoded and encoded in turn, cut at the end of
 * the cell's turn, silence elsewhere. */
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "audio/sy_audio.h"
#include "base/sy_fourcc.h"
#include "live/sy_live_movie.h"
#include "motion/sy_motion_internal.h"
#include "mov/sy_mov_writer.h"
#include "sy_mov.h"
#include "video/sy_movie_copy.h"
#include "video/sy_video_encoder_stage.h"

#define MEDIA_TIMESCALE 600

typedef struct sound {
    sy_mov *mov;
    sy__copied_track track;
    double start;
} sound;

typedef struct movie {
    sy__motion_job *job;
    sy_mov_writer *writer;
    uint32_t video_id, movie_timescale, frame_duration;
    int64_t first_dts;         /* the first packet's: B-frames put it before the first frame's pts (0) */
    int have_first;
    sy__motion_player players[SY_MOTION_MAX_CELLS];
    int playing[SY_MOTION_MAX_CELLS], finished[SY_MOTION_MAX_CELLS];
    int changed[SY_MOTION_MAX_CELLS]; /* the cell's pixels in the live canvas changed since it was last staged */
    sound sounds[SY_MOTION_MAX_CELLS];
    uint32_t sound_count;
    sy__audio_sequence *aac;   /* the video tier's one sound track, NULL = none */
} movie;

static sy_status pump_sound(movie *m, double until_seconds, sy_error *err) {
    if (m->aac) return sy__audio_sequence_pump(m->aac, until_seconds, err);
    for (uint32_t s = 0; s < m->sound_count; s++) {
        double local = until_seconds - m->sounds[s].start;
        if (local <= 0) continue;
        sy_status st = sy__copied_track_pump(m->job->ctx, m->writer, &m->sounds[s].track, local, err);
        if (st != SY_OK) return st;
    }
    return SY_OK;
}

static sy_status on_packet(void *user, const sy_video_packet *p, sy_error *err) {
    movie *m = user;
    if (!m->have_first) m->first_dts = p->dts, m->have_first = 1;
    sy_status st = sy_mov_writer_add_sample(m->writer, m->video_id, p->data, p->size, m->frame_duration,
                                            (int32_t)(p->pts - p->dts), (int)p->keyframe, err);
    if (st != SY_OK) return st;
    return pump_sound(m, (double)(p->pts + m->frame_duration) / MEDIA_TIMESCALE + SY__AUDIO_LEAD_SECONDS, err);
}

/* The sounding cells' turns, in layout order, on one AAC track. */
static sy_status add_aac_sound(movie *m, double total_seconds, sy_error *err) {
    sy__motion_job *job = m->job;
    sy__audio_segment segments[SY_MOTION_MAX_CELLS];
    uint32_t n = 0;
    for (uint32_t k = 0; k < job->live_count; k++) {
        uint32_t cell = job->order[k];
        int plays = job->o->mode == SY_MOTION_RELAY || (job->o->mode == SY_MOTION_FOCUS && (int32_t)cell == job->hero);
        if (!plays || !job->cells[cell].has_audio) continue;
        const sy__motion_cell *c = &job->cells[cell];
        double start = job->start[cell]; /* its picture's start: the sound before it is cut */
        segments[n++] = (sy__audio_segment){.movie = c->movie, .track = -1, .start = start - c->picture_start,
                                            .end = start + c->duration, .from = start};
    }
    if (n == 0) return SY_OK;
    return sy__audio_sequence_add(job->ctx, m->writer, segments, n, total_seconds, &m->aac, err);
}

static sy_status add_sound(movie *m, uint32_t cell, sy_error *err) {
    sy__motion_job *job = m->job;
    if (!job->cells[cell].has_audio) return SY_OK;
    sound *s = &m->sounds[m->sound_count];
    memset(s, 0, sizeof *s);
    double cut = job->cells[cell].picture_start; /* the sound before the cell's picture starts is not heard */
    s->start = job->start[cell] - cut;           /* the output time of the source's movie time 0 */
    sy_status st = sy_mov_open(job->ctx, job->cells[cell].movie, &s->mov, err);
    int32_t track = st == SY_OK ? sy__movie_first_audio(s->mov) : -1;
    if (st == SY_OK && track < 0) {
        sy_mov_close(s->mov);
        return SY_OK;
    }
    m->sound_count++; /* from here on it is freed with the others */
    if (st == SY_OK) st = sy__copied_track_add(m->writer, s->mov, (uint32_t)track, m->movie_timescale, &s->track, err);
    if (st == SY_OK) { /* the source's delay and media time kept, moved by its start, less what is cut */
        double empty = s->start + s->track.empty_seconds;
        int64_t media_time = s->track.media_time;
        if (cut > s->track.empty_seconds) {
            media_time += llround((cut - s->track.empty_seconds) * s->track.timescale);
            empty = job->start[cell];
        }
        st = sy_mov_writer_set_edit(m->writer, s->track.out_id, (uint64_t)llround(empty * m->movie_timescale),
                                    media_time, err);
    }
    if (st == SY_OK) st = sy_mov_writer_set_alternate_group(m->writer, s->track.out_id, 0, err);
    return st;
}

/* ---- what each frame shows ---- */

/* Decoding threads per cell: when the cells that play at once (together)
 * are at least as many as the cores, the crew already decodes one cell per
 * core, and frame threads inside each decoder would only add their extra
 * pictures and contexts (and hand-offs); one or two cells playing (relay,
 * focus, a 2-cell collage on 4 cores) keep frame threads. */
static int decoder_threads(const sy__motion_job *job) {
    return job->o->mode == SY_MOTION_TOGETHER && job->live_count >= sy__motion_cores(job) ? 1 : 0;
}

static sy_status start_player(movie *m, uint32_t cell, sy_error *err) {
    sy__motion_job *job = m->job;
    const sy__rect *r = &job->layout.cells[cell];
    int hero = (int32_t)cell == job->hero;
    float gamut[9];
    int converts = sy__motion_movie_gamut(job, cell, gamut);
    sy_status st = sy__motion_player_open(job->ctx, job->cells[cell].movie, r->width, r->height,
                                          hero ? job->width : 0, hero ? job->height : 0, decoder_threads(job),
                                          converts ? gamut : NULL, &m->players[cell], err);
    if (st == SY_OK) m->playing[cell] = 1;
    return st;
}

static sy_status show(movie *m, uint32_t cell, double seconds, sy__render_scratch *scratch, sy_error *err) {
    sy__motion_job *job = m->job;
    if (m->finished[cell]) return SY_OK;
    if (!m->playing[cell]) {
        sy_status st = start_player(m, cell, err);
        if (st != SY_OK) return st;
    }
    const sy__rect *r = &job->layout.cells[cell];
    sy__motion_player *p = &m->players[cell];
    sy__motion_target targets[2] = {
        {p->to_cell, job->live + r->y * job->stride + (size_t)r->x * 3, job->stride, r->height},
        {p->to_canvas, job->hero_full, job->stride, job->height},
    };
    uint32_t before = p->draws;
    sy_status st = sy__motion_player_show(p, seconds, targets, p->to_canvas ? 2 : 1, scratch, err);
    if (p->draws != before) m->changed[cell] = 1;
    return st;
}

/* Relay: a cell whose turn is over closes its decoder and shows its still again. */
static void finish(movie *m, uint32_t cell) {
    sy__motion_job *job = m->job;
    sy__motion_player_close(&m->players[cell]);
    m->playing[cell] = 0;
    m->finished[cell] = 1;
    m->changed[cell] = 1;
    const sy__rect *r = &job->layout.cells[cell];
    for (uint32_t y = r->y; y < r->y + r->height; y++)
        memcpy(job->live + y * job->stride + (size_t)r->x * 3, job->key + y * job->stride + (size_t)r->x * 3,
               (size_t)r->width * 3);
}

/* Focus: the canvas crop `f` of the way (eased) from the whole canvas to the
 * hero's cell cropped to the canvas's aspect, rendered at canvas size. */
static sy_status render_zoom(sy__motion_job *job, double f, sy_error *err) {
    const sy__rect *r = &job->layout.cells[job->hero];
    double aspect = (double)job->width / job->height;
    double cw = r->width, ch = r->height, cx = r->x, cy = r->y;
    if (cw / ch > aspect) cx += (cw - ch * aspect) / 2, cw = ch * aspect;
    else cy += (ch - cw / aspect) / 2, ch = cw / aspect;
    double e = f * f * (3 - 2 * f);
    double W = job->layout.width, H = job->layout.height;
    sy_recipe zoom;
    sy_recipe_init(&zoom);
    zoom.crop = (sy_recipe_rect){e * cx / W, e * cy / H, (W + e * (cw - W)) / W, (H + e * (ch - H)) / H};
    if (zoom.crop.x + zoom.crop.width > 1) zoom.crop.width = 1 - zoom.crop.x;
    if (zoom.crop.y + zoom.crop.height > 1) zoom.crop.height = 1 - zoom.crop.y;
    sy_renderer *r2 = NULL;
    sy_status st = sy_renderer_create(job->ctx, &zoom, job->layout.width, job->layout.height, job->width, job->height,
                                      &r2, err);
    if (st == SY_OK) {
        sy_pixels src = {job->live, job->stride, job->layout.width, job->layout.height};
        st = sy_renderer_render_rows(r2, &src, 0, job->height, job->zoom, job->stride, err);
    }
    sy_renderer_destroy(r2);
    return st;
}

/* ---- the cells of one frame, on worker threads ----
 *
 * Each Live cell's step (decode to its frame, draw into its own rectangle of
 * the live canvas, or a relay cell's return to its still) touches nothing
 * another cell's does, so a frame's steps run on a small crew of threads.
 * The steps of frame k + 1 run while x265 takes frame k (its RGB already
 * staged into the encoder's own frame, so the canvas is free to change); the
 * calling thread joins the crew when x265 returns. The pixels do not depend
 * on which thread draws which cell. */

#define CREW_MAX 8

typedef struct step {
    uint32_t cell;
    double local;              /* the cell's movie time to show */
    int finish;                /* relay: its turn is over */
    sy_status status;
    sy_error err;
} step;

typedef struct crew {
    movie *m;
    pthread_t tids[CREW_MAX];
    uint32_t started;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    step steps[SY_MOTION_MAX_CELLS];
    uint32_t count, next, completed;
    int quit;
    sy__render_scratch caller_scratch; /* the calling thread's grid rows (each helper keeps its own) */
} crew;

static void run_step(movie *m, step *s, sy__render_scratch *scratch) {
    s->status = SY_OK;
    if (s->finish) finish(m, s->cell);
    else s->status = show(m, s->cell, s->local, scratch, &s->err);
}

/* Called with the lock held; runs steps until none is left to take. */
static void take_steps(crew *c, sy__render_scratch *scratch) {
    while (c->next < c->count) {
        step *s = &c->steps[c->next++];
        pthread_mutex_unlock(&c->mu);
        run_step(c->m, s, scratch);
        pthread_mutex_lock(&c->mu);
        if (++c->completed == c->count) pthread_cond_broadcast(&c->done);
    }
}

static void *crew_main(void *arg) {
    crew *c = arg;
    sy__render_scratch scratch = {0};
    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (!c->quit && c->next >= c->count) pthread_cond_wait(&c->work, &c->mu);
        if (c->quit) break;
        take_steps(c, &scratch);
    }
    pthread_mutex_unlock(&c->mu);
    sy__render_scratch_free(&scratch);
    return NULL;
}

/* Up to `threads` helpers (none when threads <= 1: the caller runs every step). */
static void crew_start(crew *c, movie *m, uint32_t threads) {
    memset(c, 0, sizeof *c);
    c->m = m;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->work, NULL);
    pthread_cond_init(&c->done, NULL);
    for (uint32_t i = 0; i < threads && i < CREW_MAX; i++) {
        if (pthread_create(&c->tids[i], NULL, crew_main, c) != 0) break; /* fewer helpers: still correct */
        c->started++;
    }
}

static void crew_stop(crew *c) {
    pthread_mutex_lock(&c->mu);
    c->quit = 1;
    pthread_cond_broadcast(&c->work);
    pthread_mutex_unlock(&c->mu);
    for (uint32_t i = 0; i < c->started; i++) pthread_join(c->tids[i], NULL);
    sy__render_scratch_free(&c->caller_scratch);
    pthread_cond_destroy(&c->work);
    pthread_cond_destroy(&c->done);
    pthread_mutex_destroy(&c->mu);
}

static void crew_post(crew *c, uint32_t count) {
    pthread_mutex_lock(&c->mu);
    c->count = count;
    c->next = c->completed = 0;
    pthread_cond_broadcast(&c->work);
    pthread_mutex_unlock(&c->mu);
}

/* Runs what is left of the posted steps here, waits for the rest, and
 * reports the first failure in step (layout) order. */
static sy_status crew_finish(crew *c, sy_error *err) {
    pthread_mutex_lock(&c->mu);
    take_steps(c, &c->caller_scratch);
    while (c->completed < c->count) pthread_cond_wait(&c->done, &c->mu);
    uint32_t count = c->count;
    c->count = c->next = c->completed = 0;
    pthread_mutex_unlock(&c->mu);
    for (uint32_t i = 0; i < count; i++)
        if (c->steps[i].status != SY_OK) {
            if (err) *err = c->steps[i].err;
            return c->steps[i].status;
        }
    return SY_OK;
}

/* The cell steps that bring the live canvas to frame k. */
static uint32_t plan_steps(movie *m, uint32_t k, step *steps) {
    sy__motion_job *job = m->job;
    double t = (double)k / job->o->fps;
    uint32_t n = 0;
    if (job->o->mode == SY_MOTION_FOCUS) {
        uint32_t h = (uint32_t)job->hero;
        double play = job->start[h];
        if (t >= job->hold_seconds) steps[n++] = (step){h, t < play ? 0 : t - play, 0, SY_OK, {0}};
        return n;
    }
    for (uint32_t i = 0; i < job->live_count; i++) {
        uint32_t c = job->order[i];
        double local = t - job->start[c];
        if (job->o->mode == SY_MOTION_RELAY) {
            if (local < 0) continue;
            if (local >= job->cells[c].duration && i + 1 < job->live_count) {
                if (!m->finished[c]) steps[n++] = (step){c, 0, 1, SY_OK, {0}};
                continue;
            }
        }
        steps[n++] = (step){c, local, 0, SY_OK, {0}};
    }
    return n;
}

/* With the cells at frame k: the pixels frame k shows. */
static sy_status frame_view(movie *m, uint32_t k, const uint8_t **pixels, sy_error *err) {
    sy__motion_job *job = m->job;
    double t = (double)k / job->o->fps;
    sy_status st = SY_OK;
    *pixels = job->live;
    if (job->o->mode == SY_MOTION_FOCUS) {
        uint32_t h = (uint32_t)job->hero;
        double play = job->start[h], end = play + job->cells[h].duration;
        if (t < job->hold_seconds) {
            *pixels = job->key;
        } else if (t < play) {
            st = render_zoom(job, job->zoom_seconds > 0 ? (t - job->hold_seconds) / job->zoom_seconds : 1, err);
            *pixels = job->zoom;
        } else if (t < end) {
            *pixels = job->hero_full;
        } else {
            double f = job->zoom_seconds > 0 ? 1 - (t - end) / job->zoom_seconds : 0;
            st = render_zoom(job, f < 0 ? 0 : f, err);
            *pixels = job->zoom;
        }
    }
    if (k == job->key_frame) *pixels = job->key; /* the still-image time shows the still itself */
    return st;
}

/* Helpers for the cell steps: one per core (or per `threads`), no more than
 * there are Live cells; the calling thread runs steps too. */
static uint32_t crew_size(const sy__motion_job *job) {
    uint32_t n = SY__MIN(sy__motion_cores(job), CREW_MAX);
    uint32_t cells = job->o->mode == SY_MOTION_FOCUS ? 1 : job->live_count;
    return cells == 0 ? 0 : SY__MIN(n, cells);
}

/* Frame k's pixels into the encoder. A live canvas after a live canvas is
 * converted only where cells changed (most of a collage often stands still:
 * cells that ended, static cells, margins); any other view, whole. */
static sy_status stage_frame(movie *m, sy_video_encoder *enc, const uint8_t *pixels, const uint8_t **staged_view,
                             uint32_t k, sy_error *err) {
    sy__motion_job *job = m->job;
    int64_t pts = (int64_t)k * m->frame_duration;
    sy_status st;
    if (pixels == job->live && *staged_view == job->live) {
        sy__video_rect rects[SY_MOTION_MAX_CELLS];
        uint32_t n = 0;
        for (uint32_t i = 0; i < job->count; i++) {
            if (!m->changed[i]) continue;
            const sy__rect *r = &job->layout.cells[i];
            rects[n++] = (sy__video_rect){r->x, r->y, r->width, r->height};
        }
        st = sy__video_encoder_stage_rgb_rects(enc, pixels, job->stride, pts, rects, n, err);
    } else {
        st = sy__video_encoder_stage_rgb(enc, pixels, job->stride, pts, err);
    }
    memset(m->changed, 0, sizeof m->changed);
    *staged_view = pixels;
    return st;
}

static sy_status encode_frames(movie *m, sy_video_encoder *enc, const sy__motion_offsets *offsets, sy_error *err) {
    sy__motion_job *job = m->job;
    crew c;
    crew_start(&c, m, crew_size(job));
    const uint8_t *pixels = NULL, *staged_view = NULL;
    crew_post(&c, plan_steps(m, 0, c.steps));
    sy_status st = crew_finish(&c, err);
    if (st == SY_OK) st = frame_view(m, 0, &pixels, err);
    for (uint32_t k = 0; k < job->frames && st == SY_OK; k++) {
        if ((st = sy__check_cancel(job->ctx, err)) != SY_OK) break;
        st = stage_frame(m, enc, pixels, &staged_view, k, err);
        if (st != SY_OK) break;
        int ahead = k + 1 < job->frames;
        if (ahead) crew_post(&c, plan_steps(m, k + 1, c.steps));
        if (offsets) sy__motion_offsets_fill(offsets, k);
        st = sy__video_encoder_encode_staged(enc, err);
        if (ahead) {
            sy_error cell_err = {0};
            sy_status cst = crew_finish(&c, &cell_err);
            if (st == SY_OK && cst != SY_OK) {
                st = cst;
                if (err) *err = cell_err;
            }
            if (st == SY_OK) st = frame_view(m, k + 1, &pixels, err);
        }
        sy__progress(job->ctx, "frames", k + 1, job->frames);
    }
    crew_stop(&c);
    return st;
}

sy_status sy__motion_write_movie(sy__motion_job *job, const char *movie_path, const char *content_identifier,
                                 sy_error *err) {
    const sy_motion_options *o = job->o;
    const int qt = content_identifier != NULL; /* Live: QuickTime; the video tier: MP4 */
    movie m = {.job = job, .movie_timescale = qt ? 600 : 1000, .frame_duration = MEDIA_TIMESCALE / o->fps};
    sy_video_encoder_options eo;
    sy_video_encoder_options_init(&eo);
    eo.width = job->width;
    eo.height = job->height;
    eo.timescale = MEDIA_TIMESCALE;
    eo.frame_duration = m.frame_duration;
    /* One closed GOP for a clip of up to 10 s (a Live movie plays from its
     * start; ffmpeg's libx265 default is 250 frames): on the 2x2 benchmark
     * ffmpeg itself took 11.4 -> 13.0 s of CPU when given an IDR every 2 s. */
    uint32_t ten_seconds = 10u * o->fps;
    eo.keyint = job->frames < ten_seconds ? job->frames : ten_seconds;
    eo.bitrate = o->bitrate ? o->bitrate : sy_video_bitrate_c14(job->width, job->height);
    if (o->preset) eo.preset = o->preset;
    eo.threads = o->threads;
    eo.primaries = sy__motion_primaries(job);
    eo.transfer = eo.matrix = 1; /* BT.709, limited range */
    eo.keyframe_at = job->key_frame; /* the still's frame an IDR: the C3 check decodes from it */
    job->report->bitrate = eo.bitrate;
    sy_video_encoder *enc = NULL;
    sy_status st = sy_video_encoder_create(job->ctx, &eo, on_packet, &m, &enc, err);
    sy_mov_writer_options wo;
    sy_mov_writer_options_init(&wo);
    wo.brand = qt ? SY_FOURCC('q', 't', ' ', ' ') : SY_FOURCC('i', 's', 'o', 'm');
    wo.movie_timescale = m.movie_timescale;
    if (st == SY_OK) st = sy_mov_writer_open(job->ctx, movie_path, &wo, &m.writer, err);
    if (st == SY_OK) {
        sy_mov_video_track vt = {0};
        vt.codec = SY_FOURCC('h', 'v', 'c', '1');
        vt.width = job->width;
        vt.height = job->height;
        vt.timescale = MEDIA_TIMESCALE;
        vt.config = sy_video_encoder_hvcc(enc, &vt.config_len);
        vt.primaries = eo.primaries;
        vt.transfer = vt.matrix_coefficients = 1;
        st = sy_mov_writer_add_video(m.writer, &vt, &m.video_id, err);
    }
    double movie_seconds = (double)job->frames * m.frame_duration / MEDIA_TIMESCALE;
    uint32_t sounding = 0;
    for (uint32_t n = 0; n < job->live_count; n++) sounding += job->cells[job->order[n]].has_audio != 0;
    int one_copy = qt && o->mode == SY_MOTION_RELAY && sounding == 1;
    if (o->mode != SY_MOTION_TOGETHER && !one_copy && (!qt || o->mode == SY_MOTION_RELAY) && st == SY_OK)
        st = add_aac_sound(&m, movie_seconds, err);
    if (one_copy)
        for (uint32_t n = 0; n < job->live_count && st == SY_OK; n++) st = add_sound(&m, job->order[n], err);
    if (qt && o->mode == SY_MOTION_FOCUS && st == SY_OK) st = add_sound(&m, (uint32_t)job->hero, err);
    sy__live_movie_plan plan;
    if (qt) sy__live_movie_plan_init(&plan, content_identifier, (int32_t)job->key_frame);
    if (st == SY_OK && qt)
        st = sy_mov_writer_add_metadata(m.writer, plan.add[0].key, plan.add[0].type, plan.add[0].value,
                                        plan.add[0].len, err);
    sy__motion_offsets offsets; /* x265 takes them only with adaptive quantization on */
    int use_offsets = 0;
    if (st == SY_OK) {
        sy_error off_err = {0};
        sy_status ost = sy__motion_offsets_open(&offsets, job, enc, eo.lookahead, &off_err);
        use_offsets = ost == SY_OK;
        if (ost != SY_OK && ost != SY_E_USAGE) { /* SY_E_USAGE: a preset without adaptive quantization */
            st = ost;
            if (err) *err = off_err;
        }
    }
    if (st == SY_OK) st = encode_frames(&m, enc, use_offsets ? &offsets : NULL, err);
    if (st == SY_OK) st = sy_video_encoder_flush(enc, err);
    if (st == SY_OK) st = pump_sound(&m, 1e300, err);
    if (st == SY_OK && m.aac) st = sy__audio_sequence_finish(m.aac, err);
    double key_seconds = (double)job->key_frame * m.frame_duration / MEDIA_TIMESCALE;
    if (st == SY_OK && qt) st = sy__movie_add_marker(m.writer, m.video_id, &plan.marker, m.movie_timescale, key_seconds, err);
    /* the edit starts where frame 0 is presented on the samples' decode timeline (its B-frame delay), so
     * movie time 0 shows frame 0 and the movie lasts its frames: 45 frames at 30 fps are 1.5 s, not 1.567 */
    if (st == SY_OK && m.have_first && m.first_dts < 0) st = sy_mov_writer_set_edit(m.writer, m.video_id, 0, -m.first_dts, err);
    if (st == SY_OK) st = sy_mov_writer_finish(m.writer, err);
    if (st == SY_OK) {
        sy_motion_report *rep = job->report;
        rep->frames = job->frames;
        rep->duration_seconds = (double)job->frames * m.frame_duration / MEDIA_TIMESCALE;
        rep->still_frame = job->key_frame;
        rep->still_time = key_seconds;
        for (uint32_t s = 0; s < m.sound_count; s++) rep->audio_tracks += m.sounds[s].track.out_id != 0;
        if (m.aac) {
            rep->audio_tracks = 1;
            rep->audio_codec = SY_FOURCC('m', 'p', '4', 'a');
            rep->audio_bitrate = sy__audio_sequence_bitrate(m.aac);
            rep->audio_rate = sy__audio_sequence_rate(m.aac);
            rep->audio_channels = sy__audio_sequence_channels(m.aac);
        } else if (m.sound_count) {
            rep->audio_codec = m.sounds[0].track.codec;
        }
    }
    sy__audio_sequence_free(m.aac);
    for (uint32_t c = 0; c < job->count; c++) sy__motion_player_close(&m.players[c]);
    sy_mov_writer_destroy(m.writer); /* removes the temporary file unless finished */
    for (uint32_t s = 0; s < m.sound_count; s++) {
        sy__copied_track_free(job->ctx, &m.sounds[s].track);
        sy_mov_close(m.sounds[s].mov);
    }
    sy_video_encoder_destroy(enc);
    return st;
}
