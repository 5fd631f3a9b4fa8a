// SPDX-License-Identifier: GPL-2.0
/* Mechanisms a workload reflects and a guest mode sees (mechanism.h). */
#include "mechanism.h"

#include <string.h>

static const struct {
	unsigned m;
	const char *name, *words;
} mechs[] = {
	{ MECH_INSTRUCTIONS, "instructions", "instructions" },
	{ MECH_CACHE_LINES, "cache-lines", "cache-line traffic" },
	{ MECH_MEMORY_LATENCY, "memory-latency", "memory latency and NUMA distance" },
	{ MECH_WALL_CLOCK, "wall-clock", "wall-clock effects" },
};

const char *mechanism_name(unsigned m)
{
	for (size_t i = 0; i < sizeof(mechs) / sizeof(mechs[0]); i++)
		if (mechs[i].m == m)
			return mechs[i].name;
	return NULL;
}

const char *mechanism_words(unsigned m)
{
	for (size_t i = 0; i < sizeof(mechs) / sizeof(mechs[0]); i++)
		if (mechs[i].m == m)
			return mechs[i].words;
	return NULL;
}

unsigned mechanism_parse(const char *s)
{
	for (size_t i = 0; s && i < sizeof(mechs) / sizeof(mechs[0]); i++)
		if (!strcmp(mechs[i].name, s))
			return mechs[i].m;
	return 0;
}

unsigned mechanism_guest_sees(int kvm, int icount)
{
	if (kvm)
		return MECH_ALL;
	/* mechanism.h: the emulator distorts what it does not drop */
	return icount ? MECH_INSTRUCTIONS : MECH_INSTRUCTIONS | MECH_WALL_CLOCK;
}

const char *mechanism_guest_mode(int kvm, int icount)
{
	return kvm ? "KVM" : icount ? "TCG with icount" : "TCG on the host's clock";
}
