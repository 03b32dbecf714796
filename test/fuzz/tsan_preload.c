/*-------------------------------------------------------------------------
 *
 * tsan_preload.c
 *	  Lets the TSan runtime be preloaded into Debian's PostgreSQL binaries.
 *
 *		cc -shared -fPIC -Wl,-z,initfirst -o tsan_preload.so test/fuzz/tsan_preload.c
 *		LD_PRELOAD=tsan_preload.so:<libclang_rt.tsan-x86_64.so> postgres ...
 *
 * Used by test/fuzz/sanitize.sh tsan only; not part of the extension.
 *
 * Unlike ASan's, TSan's runtime never initializes itself lazily on Linux:
 * it counts on __tsan_init being called from the .preinit_array of an
 * executable linked with -fsanitize=thread, before any constructor.  When
 * it is only preloaded into an uninstrumented program, the constructors of
 * the libraries that load after it run first (libstdc++'s calls
 * __cxa_atexit, libgpg-error's malloc) and enter its interceptors while
 * their pointers to the real functions are still NULL: every program, even
 * /bin/true, dies with SIGSEGV before main.
 *
 * This library is built with -z initfirst (DF_1_INITFIRST): glibc's loader
 * runs its constructor before every other library's, where the preinit
 * array would have run, and the constructor initializes the runtime.
 *
 *-------------------------------------------------------------------------
 */
void		__tsan_init(void);

static void init_tsan_first(void) __attribute__((constructor));

static void
init_tsan_first(void)
{
	__tsan_init();
}
