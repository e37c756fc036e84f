/* fuzz_video.c — libFuzzer harness for the video reader (sy_video_reader_*),
 * and through it the MOV demuxer, the hvcC / avcC / SPS parsers and the
 * libavcodec stream decoders (HEVC, H.264): open the main video track, check the
 * info (the displayed size against the stored one and the sample aspect), decode
 * up to 4 frames (every RGB byte read so ASan sees the whole frame, an
 * anamorphic one stretched to the displayed shape; an HDR stream's frames tone-mapped, with their gain plane, whose
 * every value must be a finite gain of at least 1; an HDR10+ stream's
 * messages, each one the syntax accepts; a Dolby Vision stream's RPUs, each
 * a type-62 NAL unit within its bound), close, and require that
 * every engine allocation and charge is returned. Inputs of odd length are
 * read as a viewer sees them (sy__video_reader_follow_cuts): shown frames
 * numbered from 0, their times never falling. The first sound track
 * sy__audio_source reads (LPCM, AAC) is then played through its edit list
 * (spans, cuts, pauses as silence: audio_source.c) for up to SOUND_FRAMES
 * frames, every value a finite number. Pictures are capped at
 * 512x512 by a 64 MiB budget, so a hostile SPS cannot make a run slow. Built by scripts/fuzz.sh (FUZZ_ONLY=video);
 * seeds: small ffmpeg-made HEVC / H.264 MOV and MP4 files (scripts/fuzz.sh
 * makes them) with the moov first, so mutations reach the sample data, and
 * the anamorphic ones of Tests/Fuzz/seeds/video (VUI + pasp 4:3, 3:4, a
 * VUI of 1000:1 beside a pasp of 0:1), and cut ones whose picture and
 * sound lists show two spans with a pause between (LPCM and AAC; odd length,
 * so the picture follows the cuts). */
#include <math.h>

#include "fuzz_support.h"
#include "sy_video.h"
#include "base/sy_hdr10plus.h"
#include "video/sy_video_reader_gain.h"
#include "video/sy_video_reader_dynamic.h"
#include "video/sy_video_cuts.h"
#include "audio/sy_audio.h"

#define SOUND_FRAMES 96000u /* two seconds at 48 kHz: past a seed's pause and both its spans */

/* The movie's first sound track we decode, played as its edit list says; every frame read is checked. */
static uint32_t play_sound(sy_context *ctx, const char *path) {
    static float block[4096 * 8];
    sy_mov *mov = NULL;
    sy_error err;
    uint32_t sum = 0;
    if (sy_mov_open(ctx, path, &mov, &err) != SY_OK) return 0;
    int32_t track = -1;
    for (uint32_t t = 0; t < sy_mov_track_count(mov) && track < 0; t++)
        if (sy__audio_source_supported(mov, t)) track = (int32_t)t;
    sy__audio_source *src = NULL;
    if (track >= 0 && sy__audio_source_open(ctx, mov, (uint32_t)track, "fuzz", &src, &err) == SY_OK) {
        uint32_t channels = sy__audio_source_channels(src);
        if (channels == 0 || channels > 8 || sy__audio_source_rate(src) == 0) __builtin_trap();
        uint32_t max = 4096, total = 0;
        for (int ended = 0; total < SOUND_FRAMES;) {
            uint32_t got = 0;
            if (sy__audio_source_read(src, block, max, &got, &err) != SY_OK) break;
            if (got > max || (ended && got)) __builtin_trap(); /* nothing after the end */
            if (got == 0) {
                if (ended) break;
                ended = 1; /* read once more: still the end */
                continue;
            }
            for (size_t i = 0; i < (size_t)got * channels; i++) {
                if (!isfinite(block[i])) __builtin_trap();
                sum += block[i] != 0;
            }
            total += got;
            max = 1 + (got * 7 + sum) % 4096; /* blocks of every size cross the pieces' edges */
        }
        sy__audio_source_close(src);
    }
    sy_mov_close(mov);
    return sum;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    fuzz_make_corpus_dirs(*argc, *argv, "video");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_input_path(data, size);
    if (!path) return 0;
    sy_context *ctx = fuzz_context(64u << 20);
    sy_video_reader *r = NULL;
    sy_error err;
    uint32_t sum = 0;
    if (sy_video_reader_open(ctx, path, -1, &r, &err) == SY_OK) {
        const sy_video_reader_info *info = sy_video_reader_info_get(r);
        if (!info || info->rotation % 90 || info->rotation > 270 || !info->width || !info->height) __builtin_trap();
        int swap = info->rotation == 90 || info->rotation == 270;
        /* the displayed shape: square samples as stored; else one side grown by the sample aspect, at most 4:1 */
        uint32_t uw = swap ? info->coded_height : info->coded_width, uh = swap ? info->coded_width : info->coded_height;
        if (!info->sar_num || !info->sar_den || info->sar_num > 4 * info->sar_den || info->sar_den > 4 * info->sar_num)
            __builtin_trap();
        if (info->sar_num == info->sar_den ? info->width != uw || info->height != uh || info->aspect_from
                                           : (info->width != uw && info->height != uh) || info->width < uw ||
                                                 info->height < uh || info->width > 4 * uw + 1 || info->height > 4 * uh + 1)
            __builtin_trap();
        if (info->aspect_note) sum += (uint32_t)strlen(info->aspect_note);
        int hdr = sy__video_reader_keep_gain(r, 4);
        int dynamic = sy__video_reader_keep_hdr10plus(r);
        if (dynamic && !info->hdr10plus) __builtin_trap();
        int dovi = sy__video_reader_keep_dovi_rpu(r);
        int cuts_ok = !(size & 1) || sy__video_reader_follow_cuts(r, &err) == SY_OK;
        double last_seconds = -1e300;
        for (uint32_t n = 0; cuts_ok && n < 4; n++) {
            sy_video_frame f;
            int end = 0;
            if (sy_video_reader_next(r, &f, &end, &err) != SY_OK) {
                if (f.rgb) __builtin_trap();
                break;
            }
            if (end) {
                if (f.rgb) __builtin_trap();
                break;
            }
            if (!f.rgb || f.width != info->width || f.height != info->height || f.index != n ||
                f.stride < (size_t)f.width * 3 || !(f.seconds >= last_seconds))
                __builtin_trap();
            last_seconds = f.seconds;
            for (uint32_t y = 0; y < f.height; y++)
                for (size_t x = 0; x < (size_t)f.width * 3; x++) sum += f.rgb[y * f.stride + x];
            size_t len = 0;
            const uint8_t *message = sy__video_reader_hdr10plus(r, &len);
            if (message && (!dynamic || len == 0 || len > SY__HDR10PLUS_MAX || !sy__hdr10plus_parse(message, len, NULL)))
                __builtin_trap();
            const uint8_t *rpu = sy__video_reader_dovi_rpu(r, &len);
            if (rpu && (!dovi || len < 3 || len > SY__DOVI_RPU_MAX || ((rpu[0] >> 1) & 0x3F) != 62)) __builtin_trap();
            for (size_t i = 0; rpu && i < len; i++) sum += rpu[i];
            sy__gain_plane gain;
            if (sy__video_reader_take_gain(r, &gain)) {
                if (!hdr || !gain.width || !gain.height) __builtin_trap();
                for (size_t i = 0; i < (size_t)gain.width * gain.height; i++)
                    if (!isfinite(gain.log2[i]) || gain.log2[i] < -1e-4f) __builtin_trap();
                sy__gain_plane_free(ctx, &gain);
            }
        }
        sy_video_reader_close(r);
    }
    sum += play_sound(ctx, path);
    fuzz_require_released(ctx); /* everything freed and discharged */
    sy_context_clear_cancel(ctx);
    if (sum == 0xFFFFFFFFu) fprintf(stderr, "unlikely\n");
    return 0;
}
