/* Two C23 names glibc 2.38 added, which the official package's native Linux
 * build (@earthmover/icechunk-linux-x64-gnu 2.2.2) links against: Debian 12
 * has glibc 2.36. Preloaded (LD_PRELOAD) only to write the committed
 * virtual-chunk repositories (gen-virtual.mjs); never shipped. The C23
 * versions differ from these only in also reading "0b" binary prefixes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int __isoc23_sscanf(const char *s, const char *format, ...) {
	va_list ap;
	va_start(ap, format);
	int n = vsscanf(s, format, ap);
	va_end(ap);
	return n;
}

long __isoc23_strtol(const char *s, char **end, int base) { return strtol(s, end, base); }
