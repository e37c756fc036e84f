/* mov_writer.c — QuickTime / MP4 muxer: public API, the temporary file and
 * the mdat stream (see sy_mov_writer.h for the layout).
 *
 * open writes ftyp, an 8-byte `wide` placeholder and an mdat header to a
 * temporary file beside the target (sy__output). Samples go straight to disk
 * in call order; the tracks only remember sizes, times, sync flags and chunk
 * offsets (mov_writer_tables.c). finish appends moov (mov_writer_moov.c,
 * tables streamed), seeks back to patch the moov and mdat sizes — 32-bit when it fits, else a 64-bit
 * header that takes over the `wide` bytes — then fsyncs and renames. Any
 * failure marks the writer failed; destroy without a successful finish
 * removes the temporary file, so a full disk never leaves a partial movie
 * and never touches an existing file at the target path.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bmff/sy_bmff_file.h"
#include "mov/sy_mov_writer_internal.h"

#define BRAND_QT MW_FCC('q', 't', ' ', ' ')
#define BRAND_ISOM MW_FCC('i', 's', 'o', 'm')
#define LANGUAGE_UND 0x55C4u /* 'und' packed as three 5-bit letters */

void sy_mov_writer_options_init(sy_mov_writer_options *opts) {
    if (!opts) return;
    memset(opts, 0, sizeof *opts);
    opts->version = 1;
    opts->brand = BRAND_QT;
}

/* The file a message names: the pair's target, not its side name (sy__output_display_len), cut to its last 96 bytes. */
static const char *path_of(const sy_mov_writer *w, char *buf, size_t cap) {
    if (!w->out.final_path) return "(closed)";
    snprintf(buf, cap, "%.*s", sy__output_display_len(w->out.final_path), w->out.final_path);
    return sy__short_path(buf);
}

static void be32_put(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* ---- file output ---- */

sy_status mw__put(sy_mov_writer *w, const void *data, size_t len, sy_error *err) {
    if (len == 0) return SY_OK;
    errno = 0;
    if (fwrite(data, 1, len, w->out.file) != len) {
        int e = errno ? errno : EIO;
        w->failed = 1;
        char shown[4096];
        return sy__fail_sub(err, SY_E_IO, e, "%s: write of %zu bytes at offset %llu failed: %s",
                            path_of(w, shown, sizeof shown), len, (unsigned long long)w->pos, strerror(e));
    }
    w->pos += len;
    return SY_OK;
}

sy_status mw__put_at(sy_mov_writer *w, uint64_t offset, const void *data, size_t len, sy_error *err) {
    errno = 0;
    if (fseeko(w->out.file, (off_t)offset, SEEK_SET) != 0 || fwrite(data, 1, len, w->out.file) != len) {
        int e = errno ? errno : EIO;
        w->failed = 1;
        char shown[4096];
        return sy__fail_sub(err, SY_E_IO, e, "%s: patching %zu bytes at offset %llu failed: %s",
                            path_of(w, shown, sizeof shown), len, (unsigned long long)offset, strerror(e));
    }
    return SY_OK;
}

/* ftyp + wide + mdat header (size patched by finish). */
static sy_status write_head(sy_mov_writer *w, sy_error *err) {
    uint8_t h[64];
    size_t n = 0;
    uint32_t brands[3];
    size_t nb = 0;
    uint32_t minor = 0;
    if (w->qt) {
        brands[nb++] = BRAND_QT;
    } else {
        minor = 512;
        brands[nb++] = BRAND_ISOM;
        brands[nb++] = MW_FCC('i', 's', 'o', '2');
        brands[nb++] = MW_FCC('m', 'p', '4', '1');
    }
    be32_put(h + n, (uint32_t)(16 + 4 * nb)), be32_put(h + n + 4, MW_FCC('f', 't', 'y', 'p'));
    be32_put(h + n + 8, w->brand), be32_put(h + n + 12, minor);
    n += 16;
    for (size_t i = 0; i < nb; i++, n += 4) be32_put(h + n, brands[i]);
    w->wide_offset = n;
    be32_put(h + n, 8), be32_put(h + n + 4, MW_FCC('w', 'i', 'd', 'e'));
    be32_put(h + n + 8, 8), be32_put(h + n + 12, MW_FCC('m', 'd', 'a', 't'));
    n += 16;
    w->mdat_payload = n;
    return mw__put(w, h, n, err);
}

/* ---- open / tracks ---- */

sy_status sy_mov_writer_open(sy_context *ctx, const char *path, const sy_mov_writer_options *opts, sy_mov_writer **out,
                             sy_error *err) {
    if (out) *out = NULL;
    if (!ctx || !path || !out || !path[0]) return sy__fail(err, SY_E_USAGE, "sy_mov_writer_open: NULL argument or empty path");
    sy_mov_writer_options defaults;
    sy_mov_writer_options_init(&defaults);
    if (!opts) opts = &defaults;
    if (opts->version != 1)
        return sy__fail(err, SY_E_USAGE, "sy_mov_writer_open: options version %u (expected 1)", opts->version);
    if (opts->brand != BRAND_QT && opts->brand != BRAND_ISOM) {
        char name[16];
        return sy__fail(err, SY_E_USAGE, "sy_mov_writer_open: brand '%s' (expected 'qt  ' or 'isom')",
                        sy_bmff_fourcc_text(opts->brand, name));
    }
    sy_mov_writer *w = sy__calloc(ctx, 1, sizeof *w, "mov writer", err);
    if (!w) return err ? err->code : SY_E_BUDGET;
    w->ctx = ctx;
    w->brand = opts->brand;
    w->qt = opts->brand == BRAND_QT;
    w->movie_timescale = opts->movie_timescale ? opts->movie_timescale : w->qt ? 600 : 1000;
    w->creation_time = opts->creation_time;
    sy_status st = sy__output_open(ctx, path, &w->out, err);
    if (st == SY_OK) st = write_head(w, err);
    if (st != SY_OK) {
        sy_mov_writer_destroy(w);
        return st;
    }
    *out = w;
    return SY_OK;
}

static sy_status usable(const sy_mov_writer *w, const char *fn, sy_error *err) {
    if (!w) return sy__fail(err, SY_E_USAGE, "%s: writer is NULL", fn);
    if (w->finished) return sy__fail(err, SY_E_USAGE, "%s: the writer has finished", fn);
    if (w->failed) return sy__fail(err, SY_E_USAGE, "%s: the writer failed earlier; destroy it", fn);
    return SY_OK;
}

/* Appends a zeroed track (not yet counted: commit_track makes it visible). */
static sy_status new_track(sy_mov_writer *w, const char *fn, mw_track **out, sy_error *err) {
    if (w->track_count >= MW_MAX_TRACKS) return sy__fail(err, SY_E_USAGE, "%s: more than %u tracks", fn, MW_MAX_TRACKS);
    if (w->track_count == w->track_cap) {
        uint32_t cap = w->track_cap ? w->track_cap * 2 : 4;
        mw_track *grown = sy__calloc(w->ctx, cap, sizeof *grown, "mov writer tracks", err);
        if (!grown) return err ? err->code : SY_E_BUDGET;
        if (w->track_count) memcpy(grown, w->tracks, w->track_count * sizeof *grown);
        sy__free(w->ctx, w->tracks);
        w->tracks = grown;
        w->track_cap = cap;
    }
    mw_track *t = &w->tracks[w->track_count];
    memset(t, 0, sizeof *t);
    t->id = w->track_count + 1;
    t->all_sync = 1;
    t->language = LANGUAGE_UND;
    /* QuickTime: enabled, in movie, in preview, in poster (as iPhones write);
     * ISO: enabled + in movie (0x8 means track_size_is_aspect_ratio there) */
    t->tkhd_flags = w->qt ? 0xF : 0x3;
    *out = t;
    return SY_OK;
}

static sy_status commit_track(sy_mov_writer *w, mw_track *t, sy_status st, uint32_t *track_id) {
    if (st != SY_OK) {
        mw__track_free(w->ctx, t);
        return st;
    }
    w->track_count++;
    if (track_id) *track_id = t->id;
    return SY_OK;
}

sy_status sy_mov_writer_add_video(sy_mov_writer *w, const sy_mov_video_track *v, uint32_t *track_id, sy_error *err) {
    static const char fn[] = "sy_mov_writer_add_video";
    if (track_id) *track_id = 0;
    MW_TRY(usable(w, fn, err));
    if (!v) return sy__fail(err, SY_E_USAGE, "%s: track is NULL", fn);
    if (v->codec != MW_FCC('h', 'v', 'c', '1') && v->codec != MW_FCC('a', 'v', 'c', '1')) {
        char name[16];
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: codec '%s' (hvc1 or avc1 only)", fn,
                        sy_bmff_fourcc_text(v->codec, name));
    }
    if (v->width == 0 || v->height == 0 || v->width > 65535 || v->height > 65535)
        return sy__fail(err, SY_E_USAGE, "%s: size %ux%u (1..65535 each)", fn, v->width, v->height);
    if (v->timescale == 0) return sy__fail(err, SY_E_USAGE, "%s: timescale 0", fn);
    if (!v->config || v->config_len == 0 || v->config_len > MW_MAX_CONFIG)
        return sy__fail(err, SY_E_USAGE, "%s: decoder configuration of %zu bytes (1..%u)", fn, v->config ? v->config_len : 0,
                        MW_MAX_CONFIG);
    mw_track *t;
    MW_TRY(new_track(w, fn, &t, err));
    t->kind = MW_VIDEO;
    t->handler = MW_FCC('v', 'i', 'd', 'e');
    t->timescale = v->timescale;
    memcpy(t->matrix, v->matrix, sizeof t->matrix);
    t->width = v->width << 16;
    t->height = v->height << 16;
    return commit_track(w, t, mw__video_entry(w->ctx, w->qt, v, t, err), track_id);
}

sy_status sy_mov_writer_add_copied_track(sy_mov_writer *w, sy_mov *src, uint32_t src_track, uint32_t *track_id,
                                         sy_error *err) {
    static const char fn[] = "sy_mov_writer_add_copied_track";
    if (track_id) *track_id = 0;
    MW_TRY(usable(w, fn, err));
    const sy_mov_track_info *info = src ? sy_mov_track(src, src_track) : NULL;
    if (!info) return sy__fail(err, SY_E_USAGE, "%s: no source track %u", fn, src_track);
    size_t len = 0;
    const uint8_t *entry = sy_mov_sample_entry(src, src_track, &len);
    /* a sample entry is a plain box with a 32-bit size, 6 reserved bytes and a data reference index */
    if (!entry || len < 16 || ((uint32_t)entry[0] << 24 | (uint32_t)entry[1] << 16 | (uint32_t)entry[2] << 8 | entry[3]) != len)
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: source track %u (id %u) has no usable sample entry", fn, src_track,
                        info->id);
    if (info->timescale == 0 || !info->handler)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: source track %u (id %u) has no media timescale or handler", fn,
                        src_track, info->id);
    mw_track *t;
    MW_TRY(new_track(w, fn, &t, err));
    t->kind = MW_COPIED;
    t->handler = info->handler;
    t->timescale = info->timescale;
    t->language = info->language_code;
    t->layer = info->layer;
    t->alternate_group = info->alternate_group;
    t->volume = info->volume;
    memcpy(t->matrix, info->matrix, sizeof t->matrix);
    t->width = (uint32_t)(info->tkhd_width * 65536.0 + 0.5);
    t->height = (uint32_t)(info->tkhd_height * 65536.0 + 0.5);
    if (!(info->tkhd_flags & 1)) t->tkhd_flags &= ~1u; /* a disabled track stays disabled */
    memcpy(t->handler_name, info->handler_name, sizeof t->handler_name);
    t->handler_name[sizeof t->handler_name - 1] = 0;
    sy_status st = SY_OK;
    t->entry = sy__alloc(w->ctx, len, 1, "mov writer sample entry", err);
    if (!t->entry) st = err ? err->code : SY_E_BUDGET;
    else {
        memcpy(t->entry, entry, len);
        t->entry_len = len;
        t->entry[14] = 0, t->entry[15] = 1; /* our single data reference */
    }
    return commit_track(w, t, st, track_id);
}

/* The sound tracks' shared limits: a 16-bit sample-entry rate, 1..8 channels. */
static sy_status check_sound(const char *fn, uint32_t sample_rate, uint16_t channels, sy_error *err) {
    if (sample_rate == 0 || sample_rate > 65535 || channels == 0 || channels > 8)
        return sy__fail(err, SY_E_USAGE, "%s: %u Hz x %u channels (1..65535 Hz, 1..8 channels)", fn, sample_rate,
                        channels);
    return SY_OK;
}

sy_status sy_mov_writer_add_pcm_audio(sy_mov_writer *w, uint32_t sample_rate, uint16_t channels, uint32_t *track_id,
                                      sy_error *err) {
    static const char fn[] = "sy_mov_writer_add_pcm_audio";
    if (track_id) *track_id = 0;
    MW_TRY(usable(w, fn, err));
    MW_TRY(check_sound(fn, sample_rate, channels, err));
    mw_track *t;
    MW_TRY(new_track(w, fn, &t, err));
    t->kind = MW_COPIED; /* samples arrive ready-made, as for a copied track */
    t->handler = MW_FCC('s', 'o', 'u', 'n');
    t->timescale = sample_rate;
    t->volume = 0x0100;
    return commit_track(w, t, mw__pcm_entry(w->ctx, sample_rate, channels, t, err), track_id);
}

sy_status sy_mov_writer_add_aac_audio(sy_mov_writer *w, uint32_t sample_rate, uint16_t channels, const uint8_t *config,
                                      size_t config_len, uint32_t bitrate, uint32_t *track_id, sy_error *err) {
    static const char fn[] = "sy_mov_writer_add_aac_audio";
    if (track_id) *track_id = 0;
    MW_TRY(usable(w, fn, err));
    MW_TRY(check_sound(fn, sample_rate, channels, err));
    if (!config || config_len == 0 || config_len > 64)
        return sy__fail(err, SY_E_USAGE, "%s: AudioSpecificConfig of %zu bytes (1..64)", fn, config ? config_len : 0);
    mw_track *t;
    MW_TRY(new_track(w, fn, &t, err));
    t->kind = MW_COPIED; /* samples arrive ready-made, as for a copied track */
    t->handler = MW_FCC('s', 'o', 'u', 'n');
    t->timescale = sample_rate;
    t->volume = 0x0100;
    /* 6144 bits per channel: the largest AAC access unit (ISO 14496-3 4.5.3.2) */
    mw_aac a = {sample_rate, channels, config, config_len, 768u * channels, bitrate, bitrate};
    return commit_track(w, t, mw__aac_entry(w->ctx, &a, t, err), track_id);
}

sy_status sy_mov_writer_add_mebx(sy_mov_writer *w, const sy_mov_mebx_key_spec *keys, uint32_t count,
                                 uint32_t describes_track_id, uint32_t timescale, uint32_t *track_id, sy_error *err) {
    static const char fn[] = "sy_mov_writer_add_mebx";
    if (track_id) *track_id = 0;
    MW_TRY(usable(w, fn, err));
    if (!keys || count == 0 || count > MW_MAX_MEBX_KEYS)
        return sy__fail(err, SY_E_USAGE, "%s: %u keys (1..%u)", fn, keys ? count : 0, MW_MAX_MEBX_KEYS);
    for (uint32_t k = 0; k < count; k++)
        if (!keys[k].name || !keys[k].name[0] || strlen(keys[k].name) > 4096)
            return sy__fail(err, SY_E_USAGE, "%s: key %u has no name (or one longer than 4096 bytes)", fn, k + 1);
    if (describes_track_id == 0 || describes_track_id > w->track_count)
        return sy__fail(err, SY_E_USAGE, "%s: described track %u does not exist (%u tracks)", fn, describes_track_id,
                        w->track_count);
    if (timescale == 0) return sy__fail(err, SY_E_USAGE, "%s: timescale 0", fn);
    mw_track *t;
    MW_TRY(new_track(w, fn, &t, err));
    t->kind = MW_MEBX;
    t->handler = MW_FCC('m', 'e', 't', 'a');
    t->timescale = timescale;
    t->describes = describes_track_id;
    return commit_track(w, t, mw__mebx_entry(w->ctx, keys, count, t, err), track_id);
}

static sy_status find_track(sy_mov_writer *w, uint32_t track_id, const char *fn, mw_track **out, sy_error *err) {
    if (track_id == 0 || track_id > w->track_count)
        return sy__fail(err, SY_E_USAGE, "%s: no track %u (%u tracks)", fn, track_id, w->track_count);
    *out = &w->tracks[track_id - 1];
    return SY_OK;
}

/* ---- samples, edits, metadata ---- */

sy_status sy_mov_writer_add_sample(sy_mov_writer *w, uint32_t track_id, const void *data, size_t len, uint32_t duration,
                                   int32_t composition_offset, int sync, sy_error *err) {
    static const char fn[] = "sy_mov_writer_add_sample";
    MW_TRY(usable(w, fn, err));
    mw_track *t;
    MW_TRY(find_track(w, track_id, fn, &t, err));
    if (len > UINT32_MAX) return sy__fail(err, SY_E_USAGE, "%s: track %u: sample of %zu bytes", fn, track_id, len);
    if (!data && len) return sy__fail(err, SY_E_USAGE, "%s: track %u: data is NULL", fn, track_id);
    /* video and timed metadata need time to pass; a copied audio track may end on a 0-duration sample */
    if (duration == 0 && (t->handler == MW_FCC('v', 'i', 'd', 'e') || t->kind == MW_MEBX))
        return sy__fail(err, SY_E_USAGE, "%s: track %u: sample %u has duration 0", fn, track_id, t->sample_count + 1);
    if (t->sample_count >= SY_MOV_MAX_SAMPLES)
        return sy__fail(err, SY_E_BUDGET, "%s: track %u: more than %u samples", fn, track_id, SY_MOV_MAX_SAMPLES);
    if (w->pos > (uint64_t)INT64_MAX - len) {
        char shown[4096];
        return sy__fail(err, SY_E_IO, "%s: %s: file offset overflows", fn, path_of(w, shown, sizeof shown));
    }
    MW_TRY(sy__check_cancel(w->ctx, err));
    const uint32_t index = (uint32_t)(t - w->tracks) + 1;
    const int new_chunk = w->chunk_track != index || t->chunk_bytes + len > MW_CHUNK_BYTES ||
                          t->chunk_duration >= t->timescale;
    sy_status st = mw__track_add(w->ctx, t, w->pos, new_chunk, (uint32_t)len, duration, composition_offset, sync != 0, err);
    if (st == SY_OK) st = mw__put(w, data, len, err);
    if (st != SY_OK) {
        w->failed = 1; /* the tables may be half updated: only destroy remains */
        return st;
    }
    w->chunk_track = index;
    return SY_OK;
}

sy_status sy_mov_writer_set_describes(sy_mov_writer *w, uint32_t track_id, uint32_t describes_track_id,
                                      sy_error *err) {
    static const char fn[] = "sy_mov_writer_set_describes";
    MW_TRY(usable(w, fn, err));
    mw_track *t;
    MW_TRY(find_track(w, track_id, fn, &t, err));
    if (describes_track_id > w->track_count || describes_track_id == track_id)
        return sy__fail(err, SY_E_USAGE, "%s: track %u cannot describe track %u (%u tracks)", fn, track_id,
                        describes_track_id, w->track_count);
    t->describes = describes_track_id;
    return SY_OK;
}

sy_status sy_mov_writer_set_track_meta(sy_mov_writer *w, uint32_t track_id, const uint8_t *box, size_t len,
                                       sy_error *err) {
    static const char fn[] = "sy_mov_writer_set_track_meta";
    MW_TRY(usable(w, fn, err));
    mw_track *t;
    MW_TRY(find_track(w, track_id, fn, &t, err));
    if (!box || len < 8 || len > MW_MAX_META_VALUE ||
        ((uint32_t)box[0] << 24 | (uint32_t)box[1] << 16 | (uint32_t)box[2] << 8 | box[3]) != len ||
        memcmp(box + 4, "meta", 4) != 0)
        return sy__fail(err, SY_E_USAGE, "%s: track %u: not one 'meta' box of %zu bytes (8 B .. 1 MiB)", fn, track_id,
                        len);
    uint8_t *copy = sy__alloc_copy(w->ctx, box, len, "mov writer track meta", err);
    if (!copy) return err ? err->code : SY_E_BUDGET;
    sy__free(w->ctx, t->meta);
    t->meta = copy;
    t->meta_len = len;
    return SY_OK;
}

sy_status sy_mov_writer_set_alternate_group(sy_mov_writer *w, uint32_t track_id, int16_t group, sy_error *err) {
    static const char fn[] = "sy_mov_writer_set_alternate_group";
    MW_TRY(usable(w, fn, err));
    mw_track *t;
    MW_TRY(find_track(w, track_id, fn, &t, err));
    t->alternate_group = group;
    return SY_OK;
}

sy_status sy_mov_writer_set_edit(sy_mov_writer *w, uint32_t track_id, uint64_t empty_movie_ticks, int64_t media_time,
                                 sy_error *err) {
    static const char fn[] = "sy_mov_writer_set_edit";
    MW_TRY(usable(w, fn, err));
    mw_track *t;
    MW_TRY(find_track(w, track_id, fn, &t, err));
    if (media_time < 0)
        return sy__fail(err, SY_E_USAGE, "%s: track %u: media time %lld (an empty edit is empty_movie_ticks)", fn,
                        track_id, (long long)media_time);
    if (empty_movie_ticks > (uint64_t)INT64_MAX)
        return sy__fail(err, SY_E_USAGE, "%s: track %u: empty edit of %llu ticks", fn, track_id,
                        (unsigned long long)empty_movie_ticks);
    t->has_edit = 1;
    t->empty_ticks = empty_movie_ticks;
    t->media_time = media_time;
    return SY_OK;
}

sy_status sy_mov_writer_set_edit_list(sy_mov_writer *w, uint32_t track_id, const sy_mov_writer_edit *edits,
                                      uint32_t count, sy_error *err) {
    static const char fn[] = "sy_mov_writer_set_edit_list";
    MW_TRY(usable(w, fn, err));
    mw_track *t;
    MW_TRY(find_track(w, track_id, fn, &t, err));
    if (!edits || count < 1 || count > SY_MOV_WRITER_MAX_EDITS)
        return sy__fail(err, SY_E_USAGE, "%s: track %u: %u edits (1..%u)", fn, track_id, count, SY_MOV_WRITER_MAX_EDITS);
    for (uint32_t i = 0; i < count; i++)
        if (edits[i].media_time < -1 || edits[i].segment > (uint64_t)INT64_MAX)
            return sy__fail(err, SY_E_USAGE, "%s: track %u: edit %u (segment %llu, media time %lld)", fn, track_id, i,
                            (unsigned long long)edits[i].segment, (long long)edits[i].media_time);
    sy_mov_writer_edit *copy = sy__alloc(w->ctx, count, sizeof *copy, "mov writer edit list", err);
    if (!copy) return err ? err->code : SY_E_BUDGET;
    memcpy(copy, edits, count * sizeof *copy);
    sy__free(w->ctx, t->edit_list);
    t->edit_list = copy;
    t->edit_list_count = count;
    return SY_OK;
}

sy_status sy_mov_writer_set_presentation_end(sy_mov_writer *w, uint32_t track_id, int64_t media_end, sy_error *err) {
    static const char fn[] = "sy_mov_writer_set_presentation_end";
    MW_TRY(usable(w, fn, err));
    mw_track *t;
    MW_TRY(find_track(w, track_id, fn, &t, err));
    if (media_end <= 0)
        return sy__fail(err, SY_E_USAGE, "%s: track %u: end %lld", fn, track_id, (long long)media_end);
    t->presentation_end = media_end;
    return SY_OK;
}

static void meta_item_free(sy_context *ctx, mw_meta_item *it) {
    sy__free(ctx, it->key);
    sy__free(ctx, it->value);
}

sy_status sy_mov_writer_add_metadata(sy_mov_writer *w, const char *key, uint32_t type, const void *value, size_t len,
                                     sy_error *err) {
    static const char fn[] = "sy_mov_writer_add_metadata";
    MW_TRY(usable(w, fn, err));
    if (!key || !key[0] || strlen(key) > 4096) return sy__fail(err, SY_E_USAGE, "%s: key is empty, NULL or too long", fn);
    if (type > 0xFFFFFFu) return sy__fail(err, SY_E_USAGE, "%s: %s: type %u is not a 24-bit well-known type", fn, key, type);
    if ((!value && len) || len > MW_MAX_META_VALUE)
        return sy__fail(err, SY_E_USAGE, "%s: %s: value of %zu bytes (at most %u)", fn, key, len, MW_MAX_META_VALUE);
    if (w->meta.n >= MW_MAX_META_ITEMS) return sy__fail(err, SY_E_USAGE, "%s: more than %u items", fn, MW_MAX_META_ITEMS);
    for (mw_block *b = w->meta.head; b; b = b->next) {
        const mw_meta_item *items = mw__block_data(b);
        for (uint32_t i = 0; i < b->count; i++)
            if (strcmp(items[i].key, key) == 0) return sy__fail(err, SY_E_USAGE, "%s: key %s added twice", fn, key);
    }
    size_t klen = strlen(key);
    mw_meta_item it = {sy__alloc(w->ctx, klen + 1, 1, "mov writer metadata key", err), type, NULL, len};
    if (it.key && len) it.value = sy__alloc(w->ctx, len, 1, "mov writer metadata value", err);
    if (!it.key || (len && !it.value)) {
        meta_item_free(w->ctx, &it);
        return err ? err->code : SY_E_BUDGET;
    }
    memcpy(it.key, key, klen + 1);
    if (len) memcpy(it.value, value, len);
    sy_status st = mw__vec_push(w->ctx, &w->meta, sizeof it, &it, "mov writer metadata", err);
    if (st != SY_OK) meta_item_free(w->ctx, &it);
    return st;
}

/* ---- finish / destroy ---- */

static sy_status finish(sy_mov_writer *w, sy_error *err) {
    MW_TRY(sy__check_cancel(w->ctx, err));
    const uint64_t payload = w->pos - w->mdat_payload;
    MW_TRY(mw__write_moov(w, err));
    uint8_t h[16];
    if (payload + 8 <= UINT32_MAX) {
        be32_put(h, (uint32_t)(payload + 8)), be32_put(h + 4, MW_FCC('m', 'd', 'a', 't'));
        MW_TRY(mw__put_at(w, w->wide_offset + 8, h, 8, err));
    } else {
        /* 64-bit header: size 1, 'mdat', largesize — over the `wide` placeholder */
        uint64_t size = payload + 16;
        be32_put(h, 1), be32_put(h + 4, MW_FCC('m', 'd', 'a', 't'));
        be32_put(h + 8, (uint32_t)(size >> 32)), be32_put(h + 12, (uint32_t)size);
        MW_TRY(mw__put_at(w, w->wide_offset, h, 16, err));
    }
    return sy__output_commit(&w->out, err);
}

sy_status sy_mov_writer_finish(sy_mov_writer *w, sy_error *err) {
    MW_TRY(usable(w, "sy_mov_writer_finish", err));
    sy_status st = finish(w, err);
    if (st != SY_OK) {
        w->failed = 1;
        sy__output_abort(&w->out); /* no partial file stays behind */
        return st;
    }
    w->finished = 1;
    return SY_OK;
}

void sy_mov_writer_destroy(sy_mov_writer *w) {
    if (!w) return;
    sy_context *ctx = w->ctx;
    sy__output_abort(&w->out); /* removes the temporary file unless finish renamed it */
    for (uint32_t i = 0; i < w->track_count; i++) mw__track_free(ctx, &w->tracks[i]);
    sy__free(ctx, w->tracks);
    for (mw_block *b = w->meta.head; b; b = b->next) {
        mw_meta_item *items = mw__block_data(b);
        for (uint32_t i = 0; i < b->count; i++) meta_item_free(ctx, &items[i]);
    }
    mw__vec_free(ctx, &w->meta);
    sy__free(ctx, w);
}
