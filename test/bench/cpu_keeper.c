/*
 * cpu_keeper: keep one CPU from going idle for SECONDS, giving it up to any
 * other process that wants it (test/bench/run.sh).
 *
 * On some virtual machines waking an idle CPU costs far more than switching
 * between processes on a busy one.  The storage worker polls before it
 * sleeps (widecolumn_fdw.poll_microseconds), which keeps a CPU busy while
 * queries come back to back; the benchmark runs the native table once more
 * beside this program to show how much of a difference that alone makes.
 */
#include <sched.h>
#include <stdlib.h>
#include <time.h>

int
main(int argc, char **argv)
{
	time_t		end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 10);

	while (time(NULL) < end)
		sched_yield();
	return 0;
}
