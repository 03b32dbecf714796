/*-------------------------------------------------------------------------
 *
 * poll.c
 *	  widecolumn_fdw.poll_microseconds: poll a little before sleeping.
 *
 * Sleeping on a latch costs a wake-up: the other process signals it (a
 * kill(2)) and the kernel schedules the sleeper again, which takes tens of
 * microseconds on a virtual machine, as long as the worker takes to fill a
 * small batch.  So a backend waiting for a scan's batch, and the worker
 * waiting for the next request, poll for up to poll_microseconds first,
 * yielding the CPU between checks so that a process that needs it runs
 * first.  Nothing polls on a machine with one CPU: the other side cannot
 * run while we spin.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sched.h>
#include <unistd.h>

#include "utils/guc.h"

#include "common/poll.h"

#define WC_DEFAULT_POLL_US	100

static int	poll_us = WC_DEFAULT_POLL_US;
static bool can_poll = false;

/*
 * wc_poll_init
 *		Define the setting (at library load, so the worker has it too).
 */
void
wc_poll_init(void)
{
	DefineCustomIntVariable("widecolumn_fdw.poll_microseconds",
							"How long sessions waiting for a scan's next batch, and the storage worker waiting for requests, poll before they sleep.",
							"Polling skips the wake-up that sleeping costs; 0 always sleeps.",
							&poll_us,
							WC_DEFAULT_POLL_US, 0, 10000,
							PGC_SIGHUP,
							0,
							NULL, NULL, NULL);
	can_poll = sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

/*
 * wc_poll_again
 *		Should a process that began to wait at *start poll once more rather
 *		than sleep?  Gives up the CPU first, if so.
 */
bool
wc_poll_again(instr_time *start)
{
	instr_time	now;

	if (!can_poll || poll_us == 0)
		return false;
	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, *start);
	if (INSTR_TIME_GET_MICROSEC(now) >= poll_us)
		return false;
	sched_yield();
	return true;
}
