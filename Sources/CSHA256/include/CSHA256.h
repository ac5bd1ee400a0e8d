// SHA-256 (FIPS 180-4), streaming, for the file results' hashes: portable C, and the x86 SHA
// extensions where the CPU has them (chosen at run time). Written for recorderd so the recording
// process does not load libcrypto for one hash (1.5 MiB of RSS only to be mapped, 3.4 MiB once
// its EVP interface has initialised its providers).
#pragma once
#include <stddef.h>
#include <stdint.h>

/// A hash in progress; a plain value (copy it to finish a copy while the original goes on).
typedef struct {
    uint32_t state[8];
    uint64_t length;      // bytes hashed so far
    uint8_t block[64];    // the bytes of an incomplete block
    uint32_t used;        // how many of `block` are filled
    uint32_t accelerated; // 1: the SHA extensions compress the blocks
} recorderd_sha256;

/// Starts a hash; `allow_extensions` 0 forces the portable code (for tests comparing the two).
void recorderd_sha256_init(recorderd_sha256 *context, int allow_extensions);

/// Adds `count` bytes.
void recorderd_sha256_update(recorderd_sha256 *context, const void *bytes, size_t count);

/// Writes the 32-byte digest of the bytes so far; `context` is finished (copy it first to go on).
void recorderd_sha256_final(recorderd_sha256 *context, uint8_t digest[32]);

/// 1 when this CPU has the SHA extensions the fast path uses.
int recorderd_sha256_has_extensions(void);
