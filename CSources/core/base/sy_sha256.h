/* sy_sha256.h — streaming SHA-256 (engine-private). */
#ifndef SY_SHA256_H
#define SY_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "sy_base.h"

typedef struct sy__sha256 {
    uint32_t h[8];
    uint8_t block[64];
    size_t fill;
    uint64_t bytes;
    int use_sha_ni; /* chosen by sy__sha256_init from CPUID */
} sy__sha256;

void sy__sha256_init(sy__sha256 *s);
/* Uses the portable rounds even where SHA-NI exists (cross-checks). */
void sy__sha256_force_portable(sy__sha256 *s);
void sy__sha256_update(sy__sha256 *s, const uint8_t *p, size_t n);
/* Finishes the digest into 64 lowercase hex digits + NUL; `s` is spent. */
void sy__sha256_hex(sy__sha256 *s, char out[65]);

/* One-shot digest for the C API tests (non-Swift callers). */
/** SHA-256 of a buffer as 64 lowercase hex digits + NUL (the digest behind
 *  file_sha256 / pixel_sha256). Flags: SY_DIGEST_PORTABLE forces the portable
 *  rounds instead of the CPU's SHA extensions, so tests can compare the two.
 *  Returns SY_E_USAGE for NULL arguments. */
#define SY_DIGEST_PORTABLE 1u
sy_status sy_digest_sha256(const void *data, size_t len, uint32_t flags, char out[65]);

#endif
