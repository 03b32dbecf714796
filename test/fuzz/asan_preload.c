/*-------------------------------------------------------------------------
 *
 * asan_preload.c
 *	  Lets the ASan runtime be preloaded into Debian's PostgreSQL binaries.
 *
 *		cc -shared -fPIC -o asan_preload.so test/fuzz/asan_preload.c
 *		LD_PRELOAD=<libclang_rt.asan-x86_64.so>:asan_preload.so postgres ...
 *
 * Used by test/fuzz/sanitize.sh only; not part of the extension.
 *
 * A preloaded ASan runtime initializes itself on the first call it
 * intercepts, usually a malloc.  In Debian's PostgreSQL binaries that first
 * malloc comes from a shared library's constructor while it holds one of
 * glibc's locks: libgpg-error (via libsystemd) in bindtextdomain() under
 * _nl_state_lock, libp11-kit (via libpq's GnuTLS/LDAP) in newlocale() under
 * __libc_setlocale_lock.  ASan's initialization looks up swift_demangle
 * with dlsym() and, when it is missing, clears the error with dlerror(),
 * which translates the message through gettext and so takes those locks
 * again from inside them.  The lock is left in a bad state and the process
 * hangs in a later gettext or locale call (postgres -V, psql -V and initdb
 * never return; google/sanitizers issue 1270 is the same hang).
 *
 * Defining swift_demangle makes that dlsym() succeed, so dlerror() has
 * nothing to translate.  ASan calls it only for names that look like
 * mangled Swift, and NULL means "not demangled".
 *
 *-------------------------------------------------------------------------
 */
#include <stddef.h>
#include <stdint.h>

char	   *swift_demangle(const char *mangled, size_t mangled_len,
						   char *out, size_t *out_len, uint32_t flags);

char *
swift_demangle(const char *mangled, size_t mangled_len,
			   char *out, size_t *out_len, uint32_t flags)
{
	(void) mangled;
	(void) mangled_len;
	(void) out;
	(void) out_len;
	(void) flags;
	return NULL;
}
