/*-------------------------------------------------------------------------
 *
 * poll.h
 *	  Polling before sleeping, for backends waiting on the storage worker
 *	  and for the worker waiting on backends (poll.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_POLL_H
#define WC_POLL_H

#include "portability/instr_time.h"

extern void wc_poll_init(void);
extern bool wc_poll_again(instr_time *start);

#endif							/* WC_POLL_H */
