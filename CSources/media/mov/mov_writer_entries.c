/* mov_writer_entries.c — the sample entries the muxer builds itself:
 *
 *  - hvc1 / avc1 VisualSampleEntry: 72 dpi, frame count 1, a Pascal
 *    compressor name, depth 0x18, colour table -1; then hvcC / avcC, a Dolby
 *    Vision configuration when the track carries RPUs, `colr`
 *    (QuickTime 'nclc' in .mov, ISO 'nclx' with the range flag in .mp4 — the
 *    choice ffmpeg makes, so both players and ffprobe read it) and `pasp` 1:1.
 *  - mebx (timed metadata, live-photo.md §4.3): 6 reserved bytes, data
 *    reference 1, then a PLAIN `keys` box whose children are typed by local
 *    key id (1..n) and hold `keyd` ('mdta' + name) and `dtyp` (0, type).
 *  - sowt (16-bit little-endian PCM): a version-0 QuickTime SoundDescription
 *    (channels, sample size 16, sample rate 16.16), one sample per PCM frame.
 *  - mp4a (AAC): the ISO AudioSampleEntry (version 0: channels, 16, rate
 *    16.16) and an `esds` whose ES_Descriptor (ES_ID 0, as ISO 14496-14
 *    stores it) holds the DecoderConfigDescriptor (object type 0x40 =
 *    MPEG-4 audio, stream type audio, buffer size, max/avg bitrate) with the
 *    AudioSpecificConfig as DecoderSpecificInfo, then SLConfig predefined 2.
 */
#include <string.h>

#include "mov/sy_mov_writer_internal.h"

/* Copies what the bmff writer holds into t->entry. */
static sy_status take_entry(sy_context *ctx, sy_bmff_writer *b, mw_track *t, sy_error *err) {
    size_t n = sy_bmff_writer_length(b);
    uint8_t *copy = sy__alloc(ctx, n, 1, "mov writer sample entry", err);
    if (!copy) return err ? err->code : SY_E_BUDGET;
    memcpy(copy, sy_bmff_writer_data(b), n);
    t->entry = copy;
    t->entry_len = n;
    return SY_OK;
}

/* HDR10 static metadata: ISO `mdcv` (ST 2086, the SEI's layout) and `clli`,
 * which QuickTime reads in .mov as well (ffmpeg too, in both). */
static sy_status hdr_static_boxes(sy_bmff_writer *b, const sy_hdr_static_metadata *m, sy_error *err) {
    if (m->has_mastering) {
        MW_TRY(sy_bmff_writer_begin(b, MW_FCC('m', 'd', 'c', 'v'), -1, 0, err));
        for (int c = 0; c < 3; c++) {
            MW_TRY(sy_bmff_writer_u16(b, m->primaries_x[c], err));
            MW_TRY(sy_bmff_writer_u16(b, m->primaries_y[c], err));
        }
        MW_TRY(sy_bmff_writer_u16(b, m->white_x, err));
        MW_TRY(sy_bmff_writer_u16(b, m->white_y, err));
        MW_TRY(sy_bmff_writer_u32(b, m->max_luminance, err));
        MW_TRY(sy_bmff_writer_u32(b, m->min_luminance, err));
        MW_TRY(sy_bmff_writer_end(b, err));
    }
    if (m->has_light_level) {
        MW_TRY(sy_bmff_writer_begin(b, MW_FCC('c', 'l', 'l', 'i'), -1, 0, err));
        MW_TRY(sy_bmff_writer_u16(b, m->max_cll, err));
        MW_TRY(sy_bmff_writer_u16(b, m->max_fall, err));
        MW_TRY(sy_bmff_writer_end(b, err));
    }
    return SY_OK;
}

static sy_status video_entry(sy_bmff_writer *b, int qt, const sy_mov_video_track *v, sy_error *err) {
    const int hevc = v->codec == MW_FCC('h', 'v', 'c', '1');
    MW_TRY(sy_bmff_writer_begin(b, v->codec, -1, 0, err));
    static const uint8_t reserved[6] = {0};
    MW_TRY(sy_bmff_writer_bytes(b, reserved, 6, err));
    MW_TRY(sy_bmff_writer_u16(b, 1, err)); /* data reference index */
    MW_TRY(sy_bmff_writer_u16(b, 0, err)); /* version / pre_defined */
    MW_TRY(sy_bmff_writer_u16(b, 0, err)); /* revision / reserved */
    for (int i = 0; i < 3; i++) MW_TRY(sy_bmff_writer_u32(b, 0, err)); /* vendor, temporal, spatial quality */
    MW_TRY(sy_bmff_writer_u16(b, (uint16_t)v->width, err));
    MW_TRY(sy_bmff_writer_u16(b, (uint16_t)v->height, err));
    MW_TRY(sy_bmff_writer_u32(b, 0x00480000, err)); /* 72 dpi */
    MW_TRY(sy_bmff_writer_u32(b, 0x00480000, err));
    MW_TRY(sy_bmff_writer_u32(b, 0, err)); /* data size */
    MW_TRY(sy_bmff_writer_u16(b, 1, err)); /* frames per sample */
    uint8_t name[32] = {0};
    const char *label = hevc ? "HEVC" : "H.264";
    name[0] = (uint8_t)strlen(label);
    memcpy(name + 1, label, name[0]);
    MW_TRY(sy_bmff_writer_bytes(b, name, sizeof name, err));
    MW_TRY(sy_bmff_writer_u16(b, 0x0018, err)); /* depth: colour, no alpha */
    MW_TRY(sy_bmff_writer_u16(b, 0xFFFF, err)); /* colour table id -1 */
    MW_TRY(sy_bmff_writer_begin(b, hevc ? MW_FCC('h', 'v', 'c', 'C') : MW_FCC('a', 'v', 'c', 'C'), -1, 0, err));
    MW_TRY(sy_bmff_writer_bytes(b, v->config, v->config_len, err));
    MW_TRY(sy_bmff_writer_end(b, err));
    if (v->dovi_type) { /* Dolby Vision: the base layer's RPUs are in the samples */
        MW_TRY(sy_bmff_writer_begin(b, v->dovi_type, -1, 0, err));
        MW_TRY(sy_bmff_writer_bytes(b, v->dovi, sizeof v->dovi, err));
        MW_TRY(sy_bmff_writer_end(b, err));
    }
    if (v->primaries) {
        MW_TRY(sy_bmff_writer_begin(b, MW_FCC('c', 'o', 'l', 'r'), -1, 0, err));
        MW_TRY(sy_bmff_writer_u32(b, qt ? MW_FCC('n', 'c', 'l', 'c') : MW_FCC('n', 'c', 'l', 'x'), err));
        MW_TRY(sy_bmff_writer_u16(b, v->primaries, err));
        MW_TRY(sy_bmff_writer_u16(b, v->transfer, err));
        MW_TRY(sy_bmff_writer_u16(b, v->matrix_coefficients, err));
        if (!qt) MW_TRY(sy_bmff_writer_u8(b, v->full_range ? 0x80 : 0, err));
        MW_TRY(sy_bmff_writer_end(b, err));
    }
    MW_TRY(hdr_static_boxes(b, &v->hdr, err));
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('p', 'a', 's', 'p'), -1, 0, err));
    MW_TRY(sy_bmff_writer_u32(b, 1, err));
    MW_TRY(sy_bmff_writer_u32(b, 1, err));
    MW_TRY(sy_bmff_writer_end(b, err));
    return sy_bmff_writer_end(b, err);
}

sy_status mw__video_entry(sy_context *ctx, int qt, const sy_mov_video_track *v, mw_track *t, sy_error *err) {
    sy_bmff_writer *b = NULL;
    sy_status st = sy_bmff_writer_create(ctx, &b, err);
    if (st == SY_OK) st = video_entry(b, qt, v, err);
    if (st == SY_OK) st = take_entry(ctx, b, t, err);
    sy_bmff_writer_destroy(b);
    return st;
}

static sy_status mebx_entry(sy_bmff_writer *b, const sy_mov_mebx_key_spec *keys, uint32_t count, sy_error *err) {
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('m', 'e', 'b', 'x'), -1, 0, err));
    static const uint8_t reserved[6] = {0};
    MW_TRY(sy_bmff_writer_bytes(b, reserved, 6, err));
    MW_TRY(sy_bmff_writer_u16(b, 1, err)); /* data reference index */
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('k', 'e', 'y', 's'), -1, 0, err)); /* plain box here */
    for (uint32_t k = 0; k < count; k++) {
        MW_TRY(sy_bmff_writer_begin(b, k + 1, -1, 0, err)); /* the atom's type is the local key id */
        MW_TRY(sy_bmff_writer_begin(b, MW_FCC('k', 'e', 'y', 'd'), -1, 0, err));
        MW_TRY(sy_bmff_writer_u32(b, MW_FCC('m', 'd', 't', 'a'), err));
        MW_TRY(sy_bmff_writer_bytes(b, keys[k].name, strlen(keys[k].name), err));
        MW_TRY(sy_bmff_writer_end(b, err));
        MW_TRY(sy_bmff_writer_begin(b, MW_FCC('d', 't', 'y', 'p'), -1, 0, err));
        MW_TRY(sy_bmff_writer_u32(b, 0, err)); /* well-known types namespace */
        MW_TRY(sy_bmff_writer_u32(b, keys[k].datatype, err));
        MW_TRY(sy_bmff_writer_end(b, err));
        MW_TRY(sy_bmff_writer_end(b, err));
    }
    MW_TRY(sy_bmff_writer_end(b, err));
    return sy_bmff_writer_end(b, err);
}

sy_status mw__mebx_entry(sy_context *ctx, const sy_mov_mebx_key_spec *keys, uint32_t count, mw_track *t, sy_error *err) {
    sy_bmff_writer *b = NULL;
    sy_status st = sy_bmff_writer_create(ctx, &b, err);
    if (st == SY_OK) st = mebx_entry(b, keys, count, err);
    if (st == SY_OK) st = take_entry(ctx, b, t, err);
    sy_bmff_writer_destroy(b);
    return st;
}

static sy_status pcm_entry(sy_bmff_writer *b, uint32_t sample_rate, uint16_t channels, sy_error *err) {
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('s', 'o', 'w', 't'), -1, 0, err));
    static const uint8_t reserved[6] = {0};
    MW_TRY(sy_bmff_writer_bytes(b, reserved, 6, err));
    MW_TRY(sy_bmff_writer_u16(b, 1, err)); /* data reference index */
    MW_TRY(sy_bmff_writer_u16(b, 0, err)); /* sound description version 0 */
    MW_TRY(sy_bmff_writer_u16(b, 0, err)); /* revision */
    MW_TRY(sy_bmff_writer_u32(b, 0, err)); /* vendor */
    MW_TRY(sy_bmff_writer_u16(b, channels, err));
    MW_TRY(sy_bmff_writer_u16(b, 16, err)); /* bits per sample */
    MW_TRY(sy_bmff_writer_u16(b, 0, err));  /* compression id: uncompressed */
    MW_TRY(sy_bmff_writer_u16(b, 0, err));  /* packet size */
    MW_TRY(sy_bmff_writer_u32(b, sample_rate << 16, err));
    return sy_bmff_writer_end(b, err);
}

sy_status mw__pcm_entry(sy_context *ctx, uint32_t sample_rate, uint16_t channels, mw_track *t, sy_error *err) {
    sy_bmff_writer *b = NULL;
    sy_status st = sy_bmff_writer_create(ctx, &b, err);
    if (st == SY_OK) st = pcm_entry(b, sample_rate, channels, err);
    if (st == SY_OK) st = take_entry(ctx, b, t, err);
    sy_bmff_writer_destroy(b);
    return st;
}

/* One MPEG-4 descriptor header with a 1-byte size (every size here is < 128). */
static sy_status descriptor(sy_bmff_writer *b, uint8_t tag, size_t size, sy_error *err) {
    MW_TRY(sy_bmff_writer_u8(b, tag, err));
    return sy_bmff_writer_u8(b, (uint8_t)size, err);
}

static sy_status aac_entry(sy_bmff_writer *b, const mw_aac *a, sy_error *err) {
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('m', 'p', '4', 'a'), -1, 0, err));
    static const uint8_t reserved[6] = {0};
    MW_TRY(sy_bmff_writer_bytes(b, reserved, 6, err));
    MW_TRY(sy_bmff_writer_u16(b, 1, err)); /* data reference index */
    MW_TRY(sy_bmff_writer_u32(b, 0, err)); /* version 0, revision, vendor: reserved in ISO */
    MW_TRY(sy_bmff_writer_u32(b, 0, err));
    MW_TRY(sy_bmff_writer_u16(b, a->channels, err));
    MW_TRY(sy_bmff_writer_u16(b, 16, err));
    MW_TRY(sy_bmff_writer_u32(b, 0, err)); /* pre-defined, reserved */
    MW_TRY(sy_bmff_writer_u32(b, a->sample_rate << 16, err));
    MW_TRY(sy_bmff_writer_begin(b, MW_FCC('e', 's', 'd', 's'), 0, 0, err));
    size_t dsi = 2 + a->config_len, dcd = 13 + dsi, es = 3 + (2 + dcd) + 3;
    MW_TRY(descriptor(b, 3, es, err));
    MW_TRY(sy_bmff_writer_u16(b, 0, err)); /* ES_ID */
    MW_TRY(sy_bmff_writer_u8(b, 0, err));  /* no dependency, URL or OCR stream; priority 0 */
    MW_TRY(descriptor(b, 4, dcd, err));
    MW_TRY(sy_bmff_writer_u8(b, 0x40, err)); /* MPEG-4 audio */
    MW_TRY(sy_bmff_writer_u8(b, 0x15, err)); /* stream type 5 (audio) << 2, reserved bit */
    MW_TRY(sy_bmff_writer_u8(b, (uint8_t)(a->buffer_size >> 16), err));
    MW_TRY(sy_bmff_writer_u16(b, (uint16_t)a->buffer_size, err));
    MW_TRY(sy_bmff_writer_u32(b, a->max_bitrate, err));
    MW_TRY(sy_bmff_writer_u32(b, a->avg_bitrate, err));
    MW_TRY(descriptor(b, 5, a->config_len, err));
    MW_TRY(sy_bmff_writer_bytes(b, a->config, a->config_len, err));
    MW_TRY(descriptor(b, 6, 1, err));
    MW_TRY(sy_bmff_writer_u8(b, 2, err)); /* SLConfig predefined: MP4 files */
    MW_TRY(sy_bmff_writer_end(b, err));
    return sy_bmff_writer_end(b, err);
}

sy_status mw__aac_entry(sy_context *ctx, const mw_aac *a, mw_track *t, sy_error *err) {
    sy_bmff_writer *b = NULL;
    sy_status st = sy_bmff_writer_create(ctx, &b, err);
    if (st == SY_OK) st = aac_entry(b, a, err);
    if (st == SY_OK) st = take_entry(ctx, b, t, err);
    sy_bmff_writer_destroy(b);
    return st;
}
