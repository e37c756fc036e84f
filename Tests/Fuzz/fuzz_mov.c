/* fuzz_mov.c — libFuzzer harness for the QuickTime/MP4 demuxer (sy_mov_*),
 * and through it the BMFF box cursor: open, every track's info, codec
 * configuration, edits, mebx keys, keyframes, the first 1000 samples of each
 * track (lookup + pread of samples up to 1 MiB) and the metadata items. Every
 * returned byte is read so ASan sees any out-of-range pointer. Built by
 * scripts/fuzz.sh; alone:
 *   /opt/swift/usr/bin/clang -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
 *     -fno-sanitize-recover=undefined -ICSources/include -fuse-ld=lld Tests/Fuzz/fuzz_mov.c \
 *     CSources/video/mov_demux.c CSources/bmff/bmff_reader.c CSources/base/context.c \
 *     $(pkg-config --libs libheif) -lpthread -lm -o /tmp/fuzz_mov
 * Seeds: the corpus MOVs cut to their first 256 KiB (moov last, so these mostly
 * exercise the top-level walk), plus small ffmpeg-made MOV/MP4 files
 * (Tests/Fuzz/seeds/mov: a visual sample entry with a `pasp`). */
#include "fuzz_support.h"
#include "bmff/sy_bmff.h"
#include "sy_mov.h"

static uint8_t sample_buf[1u << 20];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    fuzz_make_corpus_dirs(*argc, *argv, "mov");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_input_path(data, size);
    if (!path) return 0;
    sy_context *ctx = fuzz_context(256u << 20);
    sy_mov *mov = NULL;
    sy_error err;
    uint32_t sum = 0;
    if (sy_mov_open(ctx, path, &mov, &err) == SY_OK) {
        const sy_mov_info *info = sy_mov_info_get(mov);
        uint32_t n = sy_mov_track_count(mov);
        if (!info || info->track_count != n) __builtin_trap();
        int32_t main_track = sy_mov_main_video_track(mov);
        if (main_track >= (int32_t)n) __builtin_trap();
        if (main_track >= 0 && sy_mov_track(mov, (uint32_t)main_track)->handler != SY_FOURCC('v', 'i', 'd', 'e'))
            __builtin_trap();
        for (uint32_t t = 0; t < n; t++) {
            const sy_mov_track_info *ti = sy_mov_track(mov, t);
            if (!ti) __builtin_trap();
            if (ti->rotation % 90 || ti->rotation > 270 || strlen(ti->language) != 3) __builtin_trap();
            sum += ti->id + ti->codec + ti->width + ti->height + ti->channels;
            if (!ti->has_pasp && (ti->pasp[0] || ti->pasp[1])) __builtin_trap();
            sum += ti->pasp[0] + ti->pasp[1];
            uint32_t type;
            size_t len;
            const uint8_t *cfg = sy_mov_codec_config(mov, t, &type, &len);
            if (cfg) sum += fuzz_sum(cfg, len);
            for (uint32_t e = 0; e < ti->edit_count && e < 16; e++) {
                uint64_t seg;
                int64_t mt;
                int32_t rate;
                if (sy_mov_edit(mov, t, e, &seg, &mt, &rate, &err) != SY_OK) __builtin_trap();
                sum += (uint32_t)seg + (uint32_t)mt;
            }
            for (uint32_t k = 0; k < sy_mov_mebx_key_count(mov, t); k++) {
                const sy_mov_mebx_key *key = sy_mov_mebx_key_at(mov, t, k);
                if (!key || !key->name) __builtin_trap();
                sum += key->local_id + (uint32_t)strlen(key->name);
            }
            const uint32_t *keys;
            uint32_t key_count;
            if (sy_mov_keyframes(mov, t, &keys, &key_count, &err) == SY_OK) {
                for (uint32_t k = 0; k < key_count; k++) {
                    if (keys[k] >= ti->sample_count || (k && keys[k] <= keys[k - 1])) __builtin_trap();
                    sum += keys[k];
                }
            }
            uint32_t limit = ti->sample_count < 1000 ? ti->sample_count : 1000;
            for (uint32_t s = 0; s < limit; s++) {
                sy_mov_sample_info si;
                if (sy_mov_sample(mov, t, s, &si, &err) != SY_OK) break;
                sum += si.size + (uint32_t)si.dts + (uint32_t)si.pts + si.sync;
                if (si.size <= sizeof sample_buf &&
                    sy_mov_read_sample(mov, t, s, sample_buf, sizeof sample_buf, &len, &err) == SY_OK) {
                    if (len != si.size) __builtin_trap();
                    sum += fuzz_sum(sample_buf, len);
                }
            }
            /* random access after sequential: the last sample, then the first again */
            sy_mov_sample_info a, b;
            if (ti->sample_count && sy_mov_sample(mov, t, ti->sample_count - 1, &a, &err) == SY_OK &&
                sy_mov_sample(mov, t, 0, &b, &err) == SY_OK)
                sum += (uint32_t)a.offset + (uint32_t)b.offset;
        }
        for (uint32_t i = 0; i < sy_mov_metadata_count(mov); i++) {
            const char *key;
            uint32_t type;
            const uint8_t *value;
            size_t len;
            if (sy_mov_metadata_at(mov, i, &key, &type, &value, &len) != SY_OK || !key) __builtin_trap();
            sum += type + (uint32_t)strlen(key) + fuzz_sum(value, len);
            if (sy_mov_metadata_find(mov, key) < 0 || sy_mov_metadata_find(mov, key) > (int32_t)i) __builtin_trap();
        }
        sy_mov_close(mov);
    }
    fuzz_require_released(ctx);
    if (sum == 0xFFFFFFFFu) fprintf(stderr, "unlikely\n");
    return 0;
}
