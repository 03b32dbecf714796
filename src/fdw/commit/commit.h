/*-------------------------------------------------------------------------
 *
 * commit.h
 *	  The end of a transaction (commit.c): at COMMIT its write logs sent to
 *	  the storage worker and committed, with the families and types it
 *	  wrote recorded in the family list (meta); at ROLLBACK forgotten; a
 *	  savepoint's at ROLLBACK TO.  _PG_init registers its callbacks.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_FDW_COMMIT_COMMIT_H
#define WC_FDW_COMMIT_COMMIT_H

#include "fdw/fdw.h"

/* in commit.c */
extern void wc_txn_init(void);

/* in xidwal.c */
extern void wc_xidwal_log(void);
extern void wc_xidwal_register(void);

#endif							/* WC_FDW_COMMIT_COMMIT_H */
