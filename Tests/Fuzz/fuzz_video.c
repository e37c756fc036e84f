/* fuzz_video.c — libFuzzer harness for the video reader (sy_video_reader_*),
 * and through it the MOV demuxer, the hvcC / avcC / SPS parsers and the
 * libde265 / openh264 stream decoders: open the main video track, check the
 * info, decode up to 4 frames (every RGB byte read so ASan sees the whole
 * frame), close, and require that every engine allocation and charge is
 * returned. Pictures are capped at 512x512 by a 64 MiB budget, so a hostile
 * SPS cannot make a run slow. Built by scripts/fuzz.sh (FUZZ_ONLY=video);
 * seeds: small ffmpeg-made HEVC / H.264 MOV and MP4 files (scripts/fuzz.sh
 * makes them) with the moov first, so mutations reach the sample data. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sy_video.h"

/* Creates missing corpus directories named `video` (see fuzz_mov.c). */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    for (int i = 1; i < *argc; i++) {
        const char *a = (*argv)[i], *slash = strrchr(a, '/');
        if (a[0] != '-' && strcmp(slash ? slash + 1 : a, "video") == 0 && access(a, F_OK) != 0) mkdir(a, 0755);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int fd = memfd_create("fuzz-video", 0);
    if (fd < 0) return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    static sy_context *ctx = NULL;
    if (!ctx) {
        sy_context_options opts;
        sy_context_options_init(&opts);
        opts.budget_bytes = 64u << 20;
        if (sy_context_create(&opts, &ctx, NULL) != SY_OK) __builtin_trap();
    }
    sy_video_reader *r = NULL;
    sy_error err;
    uint32_t sum = 0;
    if (sy_video_reader_open(ctx, path, -1, &r, &err) == SY_OK) {
        const sy_video_reader_info *info = sy_video_reader_info_get(r);
        if (!info || info->rotation % 90 || info->rotation > 270 || !info->width || !info->height) __builtin_trap();
        int swap = info->rotation == 90 || info->rotation == 270;
        if (info->width != (swap ? info->coded_height : info->coded_width)) __builtin_trap();
        for (uint32_t n = 0; n < 4; n++) {
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
                f.stride < (size_t)f.width * 3)
                __builtin_trap();
            for (uint32_t y = 0; y < f.height; y++)
                for (size_t x = 0; x < (size_t)f.width * 3; x++) sum += f.rgb[y * f.stride + x];
        }
        sy_video_reader_close(r);
    }
    sy_memory_stats stats;
    sy_context_memory_stats(ctx, &stats);
    if (stats.current_bytes != 0) __builtin_trap(); /* everything freed and discharged */
    sy_context_clear_cancel(ctx);
    if (sum == 0xFFFFFFFFu) fprintf(stderr, "unlikely\n");
    close(fd);
    return 0;
}
