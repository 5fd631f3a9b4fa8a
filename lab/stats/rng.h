/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small seeded PRNG for the bootstrap and the run order: xoshiro256**
 * (Blackman & Vigna) seeded through splitmix64. Chosen because it is tiny,
 * fast, passes BigCrush and gives the same stream on every platform, which
 * is what "the report is reproducible from the JSON" needs; rand() gives
 * none of that.
 */
#ifndef LAB_RNG_H
#define LAB_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

/* One splitmix64 step: also a good 64-bit mixer for deriving seeds. */
uint64_t splitmix64(uint64_t *state);
void rng_seed(struct rng *r, uint64_t seed);

/* Inline: the bootstrap draws ~10^8 numbers per report. */
static inline uint64_t rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return result;
}

/* Uniform in [0, n) without modulo bias (Lemire's multiply-shift). n > 0. */
static inline uint32_t rng_below(struct rng *r, uint32_t n)
{
	uint64_t m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * n;
	uint32_t low = (uint32_t)m;

	/* Reject the few values that would make small results more likely. */
	if (low < n) {
		uint32_t t = -n % n;

		while (low < t) {
			m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * n;
			low = (uint32_t)m;
		}
	}
	return (uint32_t)(m >> 32);
}

/* Uniform double in [0, 1) with 53 random bits. */
static inline double rng_double(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

#endif
