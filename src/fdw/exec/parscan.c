/*-------------------------------------------------------------------------
 *
 * parscan.c
 *	  Parallel scans: the executor's shared state that hands a scan's key
 *	  ranges out to the participants (the leader and the parallel workers)
 *	  in chunks, as each asks for one.  The partial path is the planner's
 *	  (partialpath.c).
 *
 * The leader splits the scan's key ranges at the table's split points
 * (the worker's SAMPLE, what widecolumn.sample_row_keys gives), so that
 * there are many chunks of about the same bytes, and a participant that
 * reads faster takes more of them.  Every participant reads the leader's
 * LevelDB snapshot: the leader shares it (SHARE) and each worker attaches
 * to it (ATTACH, snapshot.c), so a parallel scan returns exactly what the
 * serial one would.  widecolumn.as_of is the leader's too.
 *
 * A transaction's own writes live in its backend (txn.c), where the
 * parallel workers cannot read them: a plan made before the writes (a
 * prepared statement's) is run by the leader alone, which EXPLAIN (VERBOSE
 * or ANALYZE) says (wc_parscan_serial_reason).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "commands/explain.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/planmain.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "storage/dsm.h"
#include "storage/spin.h"

#include "fdw/exec/exec.h"
#include "fdw/fdw.h"
#include "fdw/link/link.h"
#include "fdw/model/model.h"
#include "fdw/planner/planner.h"
#include "fdw/read/read.h"

/* What participants read from storage, for EXPLAIN ANALYZE. */
typedef struct WcStorageRead
{
	uint64		rows;
	uint64		entries;
	uint64		skipped;
} WcStorageRead;

/*
 * The shared state, in the parallel query's DSM segment.  The chunks are
 * in data: nchunks offsets (uint32), then each chunk's start and end keys,
 * each a uint32 length and its bytes.
 */
typedef struct WcParShared
{
	slock_t		mutex;
	int			next;			/* the next chunk to hand out */
	int			nchunks;		/* -1: the leader reads the ranges alone */
	uint64		token;			/* the leader's snapshot, shared (SHARE) */
	uint64		as_of;			/* the leader's widecolumn.as_of */
	WcStorageRead workers_read;	/* what the workers read, as they end */
	Size		room;			/* bytes of data */
	char		data[FLEXIBLE_ARRAY_MEMBER];
} WcParShared;

/* A participant's side of it, in the executor's memory. */
struct WcParScan
{
	WcParShared *shared;
	bool		leader;
	bool		attached;		/* a worker: reads the leader's snapshot */
	int			nkeys;			/* the leader: the table's split points */
	uint8	  **keys;			/* (as keys: wc_row_key) */
	size_t	   *key_lens;
	StringInfoData chunks;		/* the leader: data, as last computed */
	int			nchunks;
	bool		alone;			/* the leader reads the ranges alone */
	struct WcWorkersRead *workers_read; /* the leader: see below */
};

/*
 * The leader's copy of what the workers read, made as the DSM segment is
 * detached: its EXPLAIN ANALYZE comes after.  (On an error, PostgreSQL
 * destroys the parallel context before it frees the executor's memory.)
 */
struct WcWorkersRead
{
	WcParShared *shared;
	WcStorageRead read;
};

static bool
wcIsForeignScanParallelSafe(PlannerInfo *root, RelOptInfo *rel, RangeTblEntry *rte)
{
	return !wc_cells_layout(rte->relid);
}

/* Append a uint32 and bytes to buf. */
static void
put_key(StringInfo buf, const uint8 *key, size_t len)
{
	uint32		n = (uint32) len;

	appendBinaryStringInfo(buf, (const char *) &n, sizeof(n));
	appendBinaryStringInfo(buf, (const char *) key, len);
}

/*
 * Split ranges at the split points into chunks, par->chunks the data of
 * WcParShared.  A range with no split point inside is one chunk.
 */
static void
make_chunks(struct WcParScan *par, List *ranges)
{
	StringInfoData keys;
	List	   *offsets = NIL;
	ListCell   *lc;
	int			k = 0;

	initStringInfo(&keys);
	foreach(lc, ranges)
	{
		WcKeyRange *kr = lfirst(lc);
		const uint8 *start = kr->start;
		size_t		start_len = kr->start_len;

		/* split points at or before the range's start split nothing */
		while (k < par->nkeys &&
			   wc_compare_bytes(par->keys[k], par->key_lens[k], start, start_len) <= 0)
			k++;
		for (; k < par->nkeys; k++)
		{
			if (kr->end_len > 0 &&
				wc_compare_bytes(par->keys[k], par->key_lens[k], kr->end, kr->end_len) >= 0)
				break;
			offsets = lappend_int(offsets, keys.len);
			put_key(&keys, start, start_len);
			put_key(&keys, par->keys[k], par->key_lens[k]);
			start = par->keys[k];
			start_len = par->key_lens[k];
		}
		offsets = lappend_int(offsets, keys.len);
		put_key(&keys, start, start_len);
		put_key(&keys, kr->end, kr->end_len);
	}

	par->nchunks = list_length(offsets);
	resetStringInfo(&par->chunks);
	foreach(lc, offsets)
	{
		uint32		off = sizeof(uint32) * par->nchunks + lfirst_int(lc);

		appendBinaryStringInfo(&par->chunks, (const char *) &off, sizeof(off));
	}
	appendBinaryStringInfo(&par->chunks, keys.data, keys.len);
	pfree(keys.data);
}

/* The leader's chunks for the scan's ranges now. */
static void
leader_chunks(ForeignScanState *node, struct WcParScan *par)
{
	WcScanState *ss = node->fdw_state;
	MemoryContext old = MemoryContextSwitchTo(ss->scan_cxt);
	List	   *ranges = wc_scan_ranges(node, ss);

	MemoryContextSwitchTo(node->ss.ps.state->es_query_cxt);
	make_chunks(par, ranges);
	MemoryContextSwitchTo(old);
}

static Size
wcEstimateDSMForeignScan(ForeignScanState *node, ParallelContext *pcxt)
{
	WcScanState *ss = node->fdw_state;
	WcTable    *t = ss->table;
	struct WcParScan *par;
	MemoryContext old = MemoryContextSwitchTo(node->ss.ps.state->es_query_cxt);
	uint64		total;
	int			n;
	WcBytes    *keys;
	uint64	   *offsets;

	par = palloc0(sizeof(struct WcParScan));
	par->leader = true;
	/* counts from an earlier segment of this scan's are kept */
	if (ss->par != NULL)
		par->workers_read = ss->par->workers_read;
	initStringInfo(&par->chunks);
	ss->par = par;
	if (wc_parscan_serial_reason() == NULL)
	{
		wc_client_sample(ss->db, t->table_key, t->table_key_len, &total, &n, &keys, &offsets);
		par->nkeys = n;
		par->keys = palloc(sizeof(uint8 *) * (n + 1));
		par->key_lens = palloc(sizeof(size_t) * (n + 1));
		for (int i = 0; i < n; i++)
			par->keys[i] = wc_row_key(t, keys[i].data, keys[i].len, &par->key_lens[i]);
		leader_chunks(node, par);
	}
	MemoryContextSwitchTo(old);
	return add_size(offsetof(WcParShared, data), par->chunks.len);
}

/* Fill the shared state for a (re)scan of the leader's. */
static void
fill_shared(ForeignScanState *node, WcParShared *sh)
{
	WcScanState *ss = node->fdw_state;
	struct WcParScan *par = ss->par;

	sh->next = 0;
	sh->nchunks = -1;
	par->alone = wc_parscan_serial_reason() != NULL || par->chunks.len > sh->room;
	if (par->alone)
		return;
	memcpy(sh->data, par->chunks.data, par->chunks.len);
	sh->nchunks = par->nchunks;
}

/* on_dsm_detach: keep the workers' counts (see wcInitializeDSMForeignScan) */
static void
copy_workers_read(dsm_segment *seg, Datum arg)
{
	struct WcWorkersRead *wr = (struct WcWorkersRead *) DatumGetPointer(arg);
	WcParShared *sh = wr->shared;

	/* after an error, a worker may still be ending */
	SpinLockAcquire(&sh->mutex);
	wr->read.rows += sh->workers_read.rows;
	wr->read.entries += sh->workers_read.entries;
	wr->read.skipped += sh->workers_read.skipped;
	SpinLockRelease(&sh->mutex);
	wr->shared = NULL;
}

static void
wcInitializeDSMForeignScan(ForeignScanState *node, ParallelContext *pcxt, void *coordinate)
{
	WcScanState *ss = node->fdw_state;
	WcParShared *sh = coordinate;

	SpinLockInit(&sh->mutex);
	sh->room = ss->par->chunks.len;
	sh->as_of = ss->as_of;
	sh->token = wc_parscan_serial_reason() == NULL ? wc_client_snapshot_share(ss->snapshot) : 0;
	ss->par->shared = sh;
	fill_shared(node, sh);

	/*
	 * The workers add what they read as they end (wc_parscan_end), over
	 * every loop of a rescanned scan; the leader copies it once, if it is
	 * counting for EXPLAIN ANALYZE.  With no segment there are no workers.
	 */
	memset(&sh->workers_read, 0, sizeof(sh->workers_read));
	if (pcxt->seg != NULL && node->ss.ps.instrument != NULL)
	{
		struct WcWorkersRead *wr = ss->par->workers_read;

		if (wr == NULL)
			wr = MemoryContextAllocZero(node->ss.ps.state->es_query_cxt,
										sizeof(struct WcWorkersRead));
		wr->shared = sh;
		ss->par->workers_read = wr;
		on_dsm_detach(pcxt->seg, copy_workers_read, PointerGetDatum(wr));
	}
}

/*
 * A rescan (under a nested loop, or a correlated subquery's): the ranges
 * may have changed with an initplan's value, so they are split again.  If
 * they no longer fit the shared memory, the leader reads them alone.  The
 * workers' counts are left to add up over the loops.
 */
static void
wcReInitializeDSMForeignScan(ForeignScanState *node, ParallelContext *pcxt, void *coordinate)
{
	WcScanState *ss = node->fdw_state;

	if (wc_parscan_serial_reason() == NULL)
		leader_chunks(node, ss->par);
	fill_shared(node, coordinate);
}

static void
wcInitializeWorkerForeignScan(ForeignScanState *node, shm_toc *toc, void *coordinate)
{
	WcScanState *ss = node->fdw_state;
	struct WcParScan *par;

	par = MemoryContextAllocZero(node->ss.ps.state->es_query_cxt, sizeof(struct WcParScan));
	par->shared = coordinate;
	ss->par = par;
	ss->as_of = par->shared->as_of;
}

/*
 * wc_parscan_chunked
 *		Does this participant read chunks (else the whole ranges, serially)?
 */
bool
wc_parscan_chunked(WcScanState *ss)
{
	return ss->par != NULL && !ss->par->alone;
}

static uint8 *
get_key(const char **p, size_t *len)
{
	uint32		n;
	uint8	   *key;

	memcpy(&n, *p, sizeof(n));
	*p += sizeof(n);
	key = palloc(n + 1);
	memcpy(key, *p, n);
	*p += n;
	*len = n;
	return key;
}

/*
 * wc_parscan_next_chunk
 *		The next chunk of the ranges (a list of one WcKeyRange), or NIL when
 *		every chunk has been handed out.  A worker reads it at the leader's
 *		snapshot, attached at its first chunk.
 */
List *
wc_parscan_next_chunk(WcScanState *ss)
{
	WcParShared *sh = ss->par->shared;
	int			i;
	uint32		off;
	const char *p;
	WcKeyRange *kr;

	SpinLockAcquire(&sh->mutex);
	i = sh->next;
	if (i < sh->nchunks)
		sh->next++;
	SpinLockRelease(&sh->mutex);
	if (i >= sh->nchunks)
		return NIL;

	if (!ss->par->leader && !ss->par->attached)
	{
		ss->snapshot = wc_client_snapshot_attach(ss->db, sh->token);
		ss->par->attached = true;
	}
	memcpy(&off, sh->data + sizeof(uint32) * i, sizeof(off));
	p = sh->data + off;
	kr = palloc(sizeof(WcKeyRange));
	kr->start = get_key(&p, &kr->start_len);
	kr->end = get_key(&p, &kr->end_len);
	return list_make1(kr);
}

/*
 * wc_parscan_first
 *		What a (re)scan reads first: its ranges, or in a parallel scan the
 *		first chunk this participant is handed.
 */
List *
wc_parscan_first(WcScanState *ss, List *ranges)
{
	return wc_parscan_chunked(ss) ? wc_parscan_next_chunk(ss) : ranges;
}

/*
 * wc_parscan_open_next
 *		Go on with the next chunk, if there is one left.
 */
bool
wc_parscan_open_next(WcScanState *ss)
{
	MemoryContext old = MemoryContextSwitchTo(ss->scan_cxt);
	List	   *chunk = wc_parscan_next_chunk(ss);

	if (chunk != NIL)
	{
		wc_scan_stop(ss);
		wc_scan_open(ss, chunk);
	}
	MemoryContextSwitchTo(old);
	return chunk != NIL;
}

/*
 * wc_parscan_end
 *		A parallel worker's scan ends: add what it read from storage to
 *		the shared counts, for the leader's EXPLAIN ANALYZE.
 */
void
wc_parscan_end(WcScanState *ss, uint64 rows, uint64 entries, uint64 skipped)
{
	WcParShared *sh;

	if (ss->par == NULL || ss->par->leader)
		return;
	sh = ss->par->shared;
	SpinLockAcquire(&sh->mutex);
	sh->workers_read.rows += rows;
	sh->workers_read.entries += entries;
	sh->workers_read.skipped += skipped;
	SpinLockRelease(&sh->mutex);
}

/*
 * wc_parscan_workers_read
 *		What the parallel workers of the leader's scan read from storage,
 *		as far as it is known: it is, once they have ended.
 */
void
wc_parscan_workers_read(WcScanState *ss, uint64 *rows, uint64 *entries,
						uint64 *skipped)
{
	struct WcWorkersRead *wr = ss->par != NULL ? ss->par->workers_read : NULL;

	if (wr == NULL)
		return;
	*rows += wr->read.rows;
	*entries += wr->read.entries;
	*skipped += wr->read.skipped;
}

/*
 * wc_parscan_explain
 *		A parallel plan that the leader reads alone says so, with VERBOSE
 *		or ANALYZE.
 */
void
wc_parscan_explain(ForeignScanState *node, ExplainState *es)
{
	WcScanState *ss = node->fdw_state;
	const char *why;

	if (!node->ss.ps.plan->parallel_aware || !(es->verbose || es->analyze))
		return;
	why = wc_parscan_serial_reason();
	if (why == NULL && ss != NULL && ss->par != NULL && ss->par->alone)
		why = "leader alone: the key ranges did not fit in the parallel query's shared memory";
	if (why != NULL)
		ExplainPropertyText("Parallel Scan", why, es);
}

void
wc_parscan_register(FdwRoutine *routine)
{
	routine->IsForeignScanParallelSafe = wcIsForeignScanParallelSafe;
	routine->EstimateDSMForeignScan = wcEstimateDSMForeignScan;
	routine->InitializeDSMForeignScan = wcInitializeDSMForeignScan;
	routine->ReInitializeDSMForeignScan = wcReInitializeDSMForeignScan;
	routine->InitializeWorkerForeignScan = wcInitializeWorkerForeignScan;
}
