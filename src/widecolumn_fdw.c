/*-------------------------------------------------------------------------
 *
 * widecolumn_fdw.c
 *	  Entry points: library load and the FDW handler.
 *
 * The library runs in two kinds of process: the sessions' backends (src/fdw)
 * and the storage worker (src/worker), which meet through src/common.
 * _PG_init only delegates: shared memory (common/shmem.c), the polling
 * setting both sides read (common/poll.c), the storage worker
 * (worker/main.c), transaction callbacks (fdw/commit/commit.c), the link
 * to the worker (fdw/link/client.c) and the snapshots' lifetime
 * (fdw/link/snapshot.c).  The library must be preloaded, because the
 * worker and its shared memory can only be set up at server start.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "foreign/fdwapi.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "common/poll.h"
#include "common/shmem.h"
#include "fdw/admin/admin.h"
#include "fdw/cells/cells.h"
#include "fdw/commit/commit.h"
#include "fdw/exec/exec.h"
#include "fdw/keys/keys.h"
#include "fdw/link/link.h"
#include "fdw/planner/planner.h"
#include "fdw/xact/xact.h"
#include "worker/worker.h"

PG_MODULE_MAGIC;

/* PostgreSQL 15's fmgr.h does not declare it. */
extern void _PG_init(void);

void
_PG_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("widecolumn_fdw must be loaded via shared_preload_libraries"),
				 errhint("Add widecolumn_fdw to shared_preload_libraries in postgresql.conf and restart the server.")));

	wc_shmem_init();
	wc_poll_init();
	wc_worker_register();
	wc_txn_init();
	wc_xidwal_register();
	wc_cells_init();
	wc_client_init();
	wc_progress_init();
	wc_as_of_init();
	wc_snapshot_init();
	wc_declcheck_init();
	wc_onconflict_init();
	/* After the settings are defined: it drops placeholders it does not know. */
	MarkGUCPrefixReserved("widecolumn_fdw");
	MarkGUCPrefixReserved("widecolumn");
}

PG_FUNCTION_INFO_V1(widecolumn_fdw_handler);

Datum
widecolumn_fdw_handler(PG_FUNCTION_ARGS)
{
	FdwRoutine *routine = makeNode(FdwRoutine);

	wc_plan_register(routine);
	wc_scan_register(routine);
	wc_parscan_register(routine);
	wc_explain_register(routine);
	wc_analyze_register(routine);
	wc_modify_register(routine);
	wc_range_delete_register(routine);
	routine->ImportForeignSchema = wcImportForeignSchema;
	/* last: it routes cells-layout tables away from the callbacks above */
	wc_cells_register(routine);
	PG_RETURN_POINTER(routine);
}
