// SHA-256 as FIPS 180-4 defines it (section 6.2): the portable compression below follows the
// standard's notation; the x86 one does the same rounds with the SHA extensions' instructions,
// two rounds per SHA256RNDS2, the message schedule with SHA256MSG1/SHA256MSG2.
#include "CRecorderRuntime.h"
#include <string.h>

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static inline uint32_t load_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/// Compresses `blocks` 64-byte blocks into `state` (FIPS 180-4, 6.2.2).
static void recorderd_sha256_compress_portable(uint32_t state[8], const uint8_t *data, size_t blocks) {
    uint32_t w[64];
    for (; blocks > 0; blocks--, data += 64) {
        for (int t = 0; t < 16; t++) w[t] = load_be32(data + 4 * t);
        for (int t = 16; t < 64; t++) {
            uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
            uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (int t = 0; t < 64; t++) {
            uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
            uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g; g = f; f = e; e = d + t1;
            d = c; c = b; b = a; a = t1 + t2;
        }
        state[0] += a; state[1] += b; state[2] += c; state[3] += d;
        state[4] += e; state[5] += f; state[6] += g; state[7] += h;
    }
}

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

int recorderd_sha256_has_extensions(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    int ssse3 = (ecx >> 9) & 1, sse41 = (ecx >> 19) & 1;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    int sha = (ebx >> 29) & 1;
    return ssse3 && sse41 && sha;
}

/// The same compression with the SHA extensions. The state is kept as the instructions want it:
/// one register with A, B, E, F and one with C, D, G, H.
__attribute__((target("sha,sse4.1,ssse3")))
static void recorderd_sha256_compress_extensions(uint32_t state[8], const uint8_t *data, size_t blocks) {
    // Big-endian words of the message: reverse the bytes of each 32-bit lane.
    const __m128i byteswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i dcba = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i hgfe = _mm_loadu_si128((const __m128i *)&state[4]);
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
    for (; blocks > 0; blocks--, data += 64) {
        const __m128i abef_before = abef, cdgh_before = cdgh;
        // w[i % 4]: the four words of rounds 4i…4i+3; before they are computed, those of 4(i-4).
        __m128i w[4];
        for (int i = 0; i < 16; i++) {
            __m128i words;
            if (i < 4) {
                words = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * i)), byteswap);
            } else {
                // W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16], four at a time.
                __m128i sum = _mm_sha256msg1_epu32(w[i & 3], w[(i + 1) & 3]);
                sum = _mm_add_epi32(sum, _mm_alignr_epi8(w[(i + 3) & 3], w[(i + 2) & 3], 4));
                words = _mm_sha256msg2_epu32(sum, w[(i + 3) & 3]);
            }
            w[i & 3] = words;
            __m128i keyed = _mm_add_epi32(words, _mm_loadu_si128((const __m128i *)&K[4 * i]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, keyed);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(keyed, 0x0E));
        }
        abef = _mm_add_epi32(abef, abef_before);
        cdgh = _mm_add_epi32(cdgh, cdgh_before);
    }
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}
#else
int recorderd_sha256_has_extensions(void) { return 0; }
static void recorderd_sha256_compress_extensions(uint32_t state[8], const uint8_t *data, size_t blocks) {
    recorderd_sha256_compress_portable(state, data, blocks);
}
#endif

static void recorderd_sha256_compress_blocks(recorderd_sha256 *context, const uint8_t *data, size_t blocks) {
    if (context->accelerated) recorderd_sha256_compress_extensions(context->state, data, blocks);
    else recorderd_sha256_compress_portable(context->state, data, blocks);
}

void recorderd_sha256_init(recorderd_sha256 *context, int allow_extensions) {
    static const uint32_t initial[8] = {
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    };
    memcpy(context->state, initial, sizeof initial);
    context->length = 0;
    context->used = 0;
    context->accelerated = allow_extensions && recorderd_sha256_has_extensions();
}

void recorderd_sha256_update(recorderd_sha256 *context, const void *bytes, size_t count) {
    const uint8_t *data = bytes;
    context->length += count;
    if (context->used > 0) {
        size_t take = 64 - context->used < count ? 64 - context->used : count;
        memcpy(context->block + context->used, data, take);
        context->used += (uint32_t)take;
        data += take;
        count -= take;
        if (context->used < 64) return;
        recorderd_sha256_compress_blocks(context, context->block, 1);
        context->used = 0;
    }
    if (count >= 64) {
        recorderd_sha256_compress_blocks(context, data, count / 64);
        data += count / 64 * 64;
        count %= 64;
    }
    memcpy(context->block, data, count);
    context->used = (uint32_t)count;
}

void recorderd_sha256_final(recorderd_sha256 *context, uint8_t digest[32]) {
    // Padding (5.1.1): a 1 bit, zeros to 56 bytes mod 64, the length in bits, big-endian.
    uint64_t bits = context->length * 8;
    context->block[context->used++] = 0x80;
    if (context->used > 56) {
        memset(context->block + context->used, 0, 64 - context->used);
        recorderd_sha256_compress_blocks(context, context->block, 1);
        context->used = 0;
    }
    memset(context->block + context->used, 0, 56 - context->used);
    for (int i = 0; i < 8; i++) context->block[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
    recorderd_sha256_compress_blocks(context, context->block, 1);
    for (int i = 0; i < 8; i++) {
        digest[4 * i] = (uint8_t)(context->state[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(context->state[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(context->state[i] >> 8);
        digest[4 * i + 3] = (uint8_t)context->state[i];
    }
}
