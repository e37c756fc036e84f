/* sy_aac.h — AAC-LC encode and AAC decode through FFmpeg's libavcodec
 * (engine-private). libavcodec is included from this folder only (README
 * "Architecture"), so the audio codec lives beside the video decoders;
 * callers see interleaved float PCM and AAC access units, no libavcodec type.
 *
 * Encoder: libavcodec's native "aac" encoder (AAC-LC, the "fast" coder,
 * bit-exact flag set: two runs on the same PCM give the same bytes). PCM is
 * pushed in any amount; every full 1024-frame block is encoded and each
 * access unit handed to the caller's callback in decode order. The first
 * `delay` frames the decoder outputs are the encoder's priming (1024 for
 * this encoder): an MP4 edit list starting at media time `delay` hides them.
 *
 * Decoder: AAC (LC, HE via its AudioSpecificConfig) access units -> float
 * PCM, interleaved, borrowed until the next call.
 *
 * Memory: libavcodec allocates outside the engine's allocator; open() charges
 * a measured estimate of its heap (sy__aac_*_heap) to the context for the
 * codec's lifetime. */
#ifndef SY_AAC_H
#define SY_AAC_H

#include "base/sy_internal.h"

/* Bits per second per channel the encoder is given: 96 kb/s mono, 192 kb/s
 * stereo, the top of the usual 64-96 kb/s a channel for AAC-LC and about a
 * seventh of 16-bit LPCM at 44.1 kHz (705.6 kb/s a channel). Measured on the
 * iPhone 15 Plus corpus clip's LPCM sound (room noise, 44.1 kHz mono),
 * decoded by ffmpeg, waveform SNR: 80 kb/s 19.0 dB, 96 kb/s 20.3 dB, 128
 * kb/s 23.3 dB (noise substitution off, as here). */
#define SY__AAC_BITRATE_PER_CHANNEL 96000u

typedef struct sy__aac_encoder sy__aac_encoder;

/* One encoded access unit, `duration` PCM frames (1024). */
typedef sy_status (*sy__aac_packet_fn)(void *user, const uint8_t *data, size_t len, uint32_t duration, sy_error *err);

/* `channels` 1 or 2; `sample_rate` one of AAC's (8000 .. 96000 Hz);
 * `bitrate` 0 = SY__AAC_BITRATE_PER_CHANNEL x channels. */
sy_status sy__aac_encoder_open(sy_context *ctx, uint32_t sample_rate, uint32_t channels, uint32_t bitrate,
                               sy__aac_packet_fn on_packet, void *user, sy__aac_encoder **out, sy_error *err);
/* The AudioSpecificConfig (for esds), borrowed. */
const uint8_t *sy__aac_encoder_config(const sy__aac_encoder *e, size_t *len);
/* Priming frames at the start of the decoded output. */
uint32_t sy__aac_encoder_delay(const sy__aac_encoder *e);
uint32_t sy__aac_encoder_bitrate(const sy__aac_encoder *e);
/* `frames` interleaved frames (channels floats each, nominal range -1..1). */
sy_status sy__aac_encoder_push(sy__aac_encoder *e, const float *pcm, uint32_t frames, sy_error *err);
/* Encodes what is buffered (a short last block) and drains the encoder. */
sy_status sy__aac_encoder_flush(sy__aac_encoder *e, sy_error *err);
void sy__aac_encoder_close(sy__aac_encoder *e);

typedef struct sy__aac_decoder sy__aac_decoder;

/* `config`: the AudioSpecificConfig (copied); `label` names the source in errors. */
sy_status sy__aac_decoder_open(sy_context *ctx, const uint8_t *config, size_t config_len, const char *label,
                               sy__aac_decoder **out, sy_error *err);
/* Decodes one access unit: *frames interleaved frames of *channels at
 * *sample_rate in *pcm (borrowed until the next call; *frames may be 0). */
sy_status sy__aac_decoder_decode(sy__aac_decoder *d, const uint8_t *data, size_t len, const float **pcm,
                                 uint32_t *frames, uint32_t *channels, uint32_t *sample_rate, sy_error *err);
void sy__aac_decoder_close(sy__aac_decoder *d);

/* The AudioSpecificConfig inside an `esds` payload (after its version and
 * flags: the ES_Descriptor), borrowed from `esds`; NULL when there is none. */
const uint8_t *sy__aac_config_from_esds(const uint8_t *esds, size_t len, size_t *config_len);

#endif
