// SPDX-License-Identifier: GPL-2.0
#include "rng.h"

uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rng_seed(struct rng *r, uint64_t seed)
{
	uint64_t sm = seed;

	/* splitmix64 never yields an all-zero xoshiro state from any seed. */
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&sm);
}
