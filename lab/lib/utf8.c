// SPDX-License-Identifier: GPL-2.0
#include "utf8.h"

size_t utf8_decode(const unsigned char *s, size_t len, unsigned *cp)
{
	unsigned c = s[0], min;
	size_t n;

	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if ((c & 0xE0) == 0xC0) {
		n = 2, min = 0x80, c &= 0x1F;
	} else if ((c & 0xF0) == 0xE0) {
		n = 3, min = 0x800, c &= 0x0F;
	} else if ((c & 0xF8) == 0xF0) {
		n = 4, min = 0x10000, c &= 0x07;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3F);
	}
	/* Overlong forms and surrogates are classic filter bypasses: refuse. */
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return n;
}

size_t utf8_valid_len(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < len) {
		unsigned cp;
		size_t n = utf8_decode(s + i, len - i, &cp);

		if (!n)
			break;
		i += n;
	}
	return i;
}
