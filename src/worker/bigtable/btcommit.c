/*-------------------------------------------------------------------------
 *
 * btcommit.c
 *	  A COMMIT to a Bigtable server: its rows as MutateRows entries, sent
 *	  on a thread of its own and answered when Bigtable has.
 *
 * On the main thread, bt_commit turns the writes a backend sent into
 * MutateRows calls per stored table, a row's mutations one entry (atomic
 * per row, as Bigtable is), 1,000 rows a call and never more mutations
 * than Bigtable takes in one: a deleted row DeleteFromRow, a cell SetCell at
 * the COMMIT's time in Bigtable's milliseconds (or its own, for a cell
 * written at a timestamp), a deleted cell DeleteFromColumn of every
 * version, a deleted version (the cells layout's) DeleteFromColumn of its
 * millisecond.  Everything the call needs is copied into the job's memory,
 * which only the main thread allocates and frees.  A thread made with
 * every signal blocked makes the calls and puts the job on the done list;
 * the main loop, woken by the engine's eventfd, answers it
 * (bt_commit_collect): OK, or how many rows were applied and which failed
 * first, since rows of one COMMIT are not atomic together on Bigtable.
 *
 * Rows of the table of families (the empty name) are changes to Bigtable's
 * own families and tables (btfamilies.c): made first, with the admin API,
 * so that the rows may write to a family the COMMIT creates.
 *
 * A merge into an aggregate family is an AddToCell at time 0
 * (BT_AGGREGATE_TS): Bigtable folds the inputs of one timestamp into one
 * cell, so a column of such a family is one cell, its value the fold of
 * every merge, whatever the family's policy counts; a merge at the
 * COMMIT's time would start a new cell each COMMIT, which maxversions=1
 * would collect.  A value set there comes from the backend as the cell's
 * deletion and a merge (commit.c), since Bigtable folds a SetCell into
 * such a cell too.
 *
 * A row the transaction read under an UPDATE's or DELETE's lock
 * (WC_ROW_READ, the backend's rowreads.c) is a CheckAndMutateRow of its
 * own, sent before the MutateRows calls: its mutations are the true
 * branch of a predicate that yields a cell only if the row has none newer
 * than the newest one read and still has that one, so that they apply
 * only if no other client wrote or deleted it since.
 * When the predicate yields none, nothing of the row is applied and the COMMIT
 * ends there: with 40001 if nothing else was, which the first such row
 * alone ensures, being sent before anything else; the others go several
 * at a time (send_checked).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "utils/memutils.h"

#include "common/aggfold.h"
#include "common/keycodec.h"
#include "worker/bigtable/bigtable.h"

/*
 * A call's rows: Bigtable takes at most 100,000 mutations in one MutateRows
 * call (all entries together), and a call of 1,000 rows is what the bare
 * client of make bench sends (test/bench/raw_bigtable.c).
 */
#define BT_CALL_MUTATIONS	100000
#define BT_CALL_ROWS		1000

/* Conditioned rows' calls in flight at once (send_checked). */
#define BT_CHECKED_AT_ONCE	8

/* The timestamp of an aggregate family's cells (above). */
#define BT_AGGREGATE_TS		0

/* A row to write only if unchanged since a read: a CheckAndMutateRow. */
typedef struct BtCheckedRow
{
	char	   *table;			/* projects/P/instances/I/tables/T */
	WcBtEntry	entry;
	int64		newer;			/* a cell at or after this is a change */
} BtCheckedRow;

/* A stored table's rows of a commit: MutateRows calls of BT_CALL_ROWS. */
typedef struct BtTableWrites
{
	char	   *table;			/* projects/P/instances/I/tables/T */
	WcBtEntry  *entries;
	int			nentries;
	int			cap;
} BtTableWrites;

typedef struct BtCommitJob
{
	BtJob		link;			/* first */
	WcClient   *client;
	WcBtDb	   *db;
	MemoryContext cxt;			/* holds the job and everything it sends */
	BtFamilyChange *changes;	/* to families and tables, made first */
	BtTableWrites *tables;
	int			ntables;
	BtCheckedRow *checked;		/* sent first, one call each */
	int			nchecked;
	int			checked_cap;
	int			rows;
	int64		commit_ts;		/* its cells' time, in whole milliseconds */
	/* what came of it (the thread's) */
	int			applied;
	int			failed_code;	/* WC_BT_OK: every row applied */
	const char *failed_table;
	bool		failed_families;	/* failed_table's change of families */
	bool		failed_changed;	/* failed_key was written since it was read */
	const uint8 *failed_key;
	size_t		failed_key_len;
	WcBtStatus	status;
	struct BtCommitJob *next_sending;	/* in sending */
} BtCommitJob;

static BtJobs commit_jobs = BT_JOBS_INIT;

/*
 * The COMMITs whose calls are under way (registered on the main thread,
 * taken off by their threads): a read as of a time after one's waits
 * until it is over (bt_commit_wait).  And the latest time a read has
 * waited for: a COMMIT registered after that wait is stamped at it or
 * after, outside the read's time, else one that came in the same
 * millisecond would be in the read's time without its wait.
 */
static struct
{
	pthread_mutex_t lock;
	pthread_cond_t over;
	BtCommitJob *head;
	int64		waited;			/* µs, whole milliseconds */
} sending = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0};

static void
sending_remove(BtCommitJob *job)
{
	pthread_mutex_lock(&sending.lock);
	for (BtCommitJob **p = &sending.head; *p != NULL; p = &(*p)->next_sending)
		if (*p == job)
		{
			*p = job->next_sending;
			break;
		}
	pthread_cond_broadcast(&sending.over);
	pthread_mutex_unlock(&sending.lock);
}

/*
 * bt_commit_wait
 *		Wait, on a scan's thread, until no COMMIT of this worker stamped
 *		before before_us (µs, whole milliseconds, at most the clock's
 *		next) is still being sent, or cancel is: a REPEATABLE READ scan
 *		then reads all of such a COMMIT's rows, not the part sent so far,
 *		and every later COMMIT is stamped at before_us or after.  A
 *		COMMIT's calls have its server's timeout, so the wait ends.
 */
void
bt_commit_wait(int64 before_us, WcBtCancel *cancel)
{
	pthread_mutex_lock(&sending.lock);
	for (;;)
	{
		bool		older = false;
		struct timespec until;

		for (BtCommitJob *j = sending.head; j != NULL && !older; j = j->next_sending)
			older = j->commit_ts < before_us;
		if (!older)
		{
			sending.waited = Max(sending.waited, before_us);
			break;
		}
		if (wc_bt_cancelled(cancel))
			break;
		/* a cancel sets no condition of ours: look again now and then */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 20 * 1000 * 1000;
		if (until.tv_nsec >= 1000 * 1000 * 1000)
		{
			until.tv_sec++;
			until.tv_nsec -= 1000 * 1000 * 1000;
		}
		(void) pthread_cond_timedwait(&sending.over, &sending.lock, &until);
	}
	pthread_mutex_unlock(&sending.lock);
}

/* The time the last COMMIT stamped its cells at (µs, whole milliseconds). */
static int64 last_commit_ts = 0;

/*
 * The time the next COMMIT will stamp its cells at (under sending.lock):
 * now, in Bigtable's milliseconds, and after the last COMMIT's, so that
 * two COMMITs of this worker never write one cell's version at the same
 * time (the second's SetCell would replace the first's, a removal of its
 * own version would remove the other's too), and not before a time a read
 * has waited for (bt_commit_wait).  A COMMIT is answered only once the
 * clock has reached its time (commit_main), so the time runs ahead of the
 * clock only while COMMITs come faster than one a millisecond, or by a
 * millisecond at most after a read's wait, and a worker started again
 * begins after the last.  Main thread.
 */
static int64
next_ts_locked(void)
{
	int64		now = (int64) (wc_unix_micros() / 1000) * 1000;

	return Max(Max(now, sending.waited), last_commit_ts + 1000);
}

/* The same, for a scan's own writes (btoverlay.c). */
int64
bt_commit_next_ts(void)
{
	int64		ts;

	pthread_mutex_lock(&sending.lock);
	ts = next_ts_locked();
	pthread_mutex_unlock(&sending.lock);
	return ts;
}

/*
 * A COMMIT's time, taken as it joins sending: a read that has not waited
 * yet waits for it, one that has is before its time.
 */
static void
sending_add(BtCommitJob *job)
{
	pthread_mutex_lock(&sending.lock);
	job->commit_ts = next_ts_locked();
	job->next_sending = sending.head;
	sending.head = job;
	pthread_mutex_unlock(&sending.lock);
	last_commit_ts = job->commit_ts;
}

static uint8 *
copy_bytes(const uint8 *p, size_t n)
{
	uint8	   *c = palloc(n + 1);

	memcpy(c, p, n);
	return c;
}

/*
 * bt_next_cell
 *		The next cell of a WRITE row, its family and qualifier unescaped
 *		into a palloc'd buffer (the family's flen bytes, then the
 *		qualifier's qlen).
 */
uint8 *
bt_next_cell(WcReader *rows, WcCellWrite *cell, size_t *flen, size_t *qlen)
{
	uint8	   *fq;
	size_t		used,
				used2;

	if (!wc_next_row_cell(rows, cell))
		wc_malformed("WRITE");
	fq = palloc(cell->famqual.len + 2);
	if (wc_unescape(cell->famqual.data, cell->famqual.len, fq, &used, flen) != 0 ||
		wc_unescape(cell->famqual.data + used, cell->famqual.len - used, fq + *flen, &used2,
					qlen) != 0)
		wc_malformed("WRITE");
	return fq;
}

/* The table's writes in the job, added if new. */
static BtTableWrites *
table_writes(BtCommitJob *job, const char *table)
{
	for (int i = 0; i < job->ntables; i++)
		if (strcmp(job->tables[i].table, table) == 0)
			return &job->tables[i];
	job->tables = job->ntables == 0 ? palloc(sizeof(BtTableWrites) * 4) :
		repalloc(job->tables, sizeof(BtTableWrites) * (job->ntables + 4));
	job->tables[job->ntables].table = pstrdup(table);
	job->tables[job->ntables].entries = NULL;
	job->tables[job->ntables].nentries = 0;
	job->tables[job->ntables].cap = 0;
	return &job->tables[job->ntables++];
}

/*
 * add_row
 *		One row of a WRITE payload as a MutateRows entry, or a row of the
 *		table of families as a change of families; its cells are read from
 *		rows.
 */
static void
add_row(void *arg, WcReader *rows, const WcRowWrite *row)
{
	BtCommitJob *job = arg;
	int64		commit_ts = job->commit_ts;
	uint8	   *buf = palloc(row->prefix.len + 1);
	size_t		tlen,
				tname_len,
				klen,
				key_len;
	char	   *tname;
	BtTableWrites *tw;
	WcBtEntry  *e;
	WcBtMutation *m;
	int			nm = 0;

	if (wc_unescape(row->prefix.data, row->prefix.len, buf, &tlen, &tname_len) != 0)
		wc_malformed("WRITE");
	tname = pnstrdup((const char *) buf, tname_len);
	if (wc_unescape(row->prefix.data + tlen, row->prefix.len - tlen, buf, &klen, &key_len) != 0)
		wc_malformed("WRITE");
	if (tname_len == 0)
	{
		bt_families_take(&job->changes, job->db, rows, row, buf, key_len);
		return;
	}
	m = palloc0(sizeof(WcBtMutation) * (row->ncells + 1));
	if (row->deleted)
		m[nm++].kind = WC_BT_DELETE_ROW;
	for (uint32 i = 0; i < row->ncells; i++)
	{
		WcCellWrite cell;
		uint8	   *fq;
		size_t		flen,
					qlen;

		fq = bt_next_cell(rows, &cell, &flen, &qlen);
		memset(&m[nm], 0, sizeof(WcBtMutation));
		m[nm].family = (const char *) fq;
		m[nm].family_len = flen;
		m[nm].qualifier = fq + flen;
		m[nm].qualifier_len = qlen;
		if (cell.merge)
		{
			/* into the column's one cell, whatever the family folds by */
			m[nm].kind = WC_BT_ADD_TO_CELL;
			m[nm].ts = BT_AGGREGATE_TS;
			m[nm].input = wc_agg_get(cell.value.data);
		}
		else if (cell.present)
		{
			m[nm].kind = WC_BT_SET_CELL;
			m[nm].ts = cell.exact && !cell.now ? (int64) (cell.ts - cell.ts % 1000) : commit_ts;
			m[nm].value = copy_bytes(cell.value.data, cell.value.len);
			m[nm].value_len = cell.value.len;
		}
		else
		{
			m[nm].kind = WC_BT_DELETE_CELLS;
			if (cell.exact)
			{
				/* one version (the cells layout's DELETE): its millisecond */
				m[nm].lo = cell.now ? commit_ts : (int64) (cell.ts - cell.ts % 1000);
				m[nm].hi = m[nm].lo + 1000;
			}
			/* else every version: lo and hi open */
		}
		nm++;
	}
	job->rows++;
	if (row->read && nm > 0)
	{
		BtCheckedRow *cr;

		if (job->nchecked == job->checked_cap)
		{
			job->checked_cap = job->checked_cap == 0 ? 16 : job->checked_cap * 2;
			job->checked = job->checked == NULL ?
				palloc(sizeof(BtCheckedRow) * job->checked_cap) :
				repalloc(job->checked, sizeof(BtCheckedRow) * job->checked_cap);
		}
		cr = &job->checked[job->nchecked++];
		cr->table = psprintf("%s/tables/%s", job->db->instance_name, tname);
		cr->entry.row_key = copy_bytes(buf, key_len);
		cr->entry.row_key_len = key_len;
		cr->entry.mutations = m;
		cr->entry.nmutations = nm;
		/* Bigtable's timestamps are whole milliseconds */
		cr->newer = (int64) (row->read_version / 1000 + 1) * 1000;
		return;
	}
	tw = table_writes(job, psprintf("%s/tables/%s", job->db->instance_name, tname));
	if (tw->nentries == tw->cap)
	{
		tw->cap = tw->cap == 0 ? 64 : tw->cap * 2;
		tw->entries = tw->entries == NULL ? palloc(sizeof(WcBtEntry) * tw->cap) :
			repalloc(tw->entries, sizeof(WcBtEntry) * tw->cap);
	}
	e = &tw->entries[tw->nentries++];
	e->row_key = copy_bytes(buf, key_len);
	e->row_key_len = key_len;
	e->mutations = m;
	e->nmutations = nm;
}

/* e's mutations after to's, in to (palloc'd arrays, as add_row makes them). */
static void
append_mutations(WcBtEntry *to, const WcBtEntry *e)
{
	to->mutations = repalloc((WcBtMutation *) to->mutations,
							 sizeof(WcBtMutation) * (to->nmutations + e->nmutations + 1));
	memcpy((WcBtMutation *) to->mutations + to->nmutations, e->mutations,
		   sizeof(WcBtMutation) * e->nmutations);
	to->nmutations += e->nmutations;
}

/* Entries by row key, those of one row in the order they came. */
static int
entry_cmp(const void *a, const void *b, void *arg)
{
	const WcBtEntry *entries = arg;
	int			i = *(const int *) a;
	int			j = *(const int *) b;
	int			c = wc_compare_bytes(entries[i].row_key, entries[i].row_key_len,
									 entries[j].row_key, entries[j].row_key_len);

	return c != 0 ? c : (i > j) - (i < j);
}

/*
 * join_rows
 *		One entry per row of tw, its mutations in the order the backend
 *		sent them: a transaction's rows of mapped tables come before its
 *		cells-layout writes, which come a row at a time (fdw/xact/celllog.c),
 *		so one row may come as several WRITE rows, and Bigtable applies a
 *		MutateRows call's entries in any order, even two of one row.
 */
static void
join_rows(BtTableWrites *tw)
{
	int			n = 0;
	int		   *order;
	WcBtEntry  *joined;

	if (tw->nentries < 2)
		return;
	order = palloc(sizeof(int) * tw->nentries);
	for (int i = 0; i < tw->nentries; i++)
		order[i] = i;
	qsort_arg(order, tw->nentries, sizeof(int), entry_cmp, tw->entries);
	joined = palloc(sizeof(WcBtEntry) * tw->nentries);
	for (int k = 0; k < tw->nentries; k++)
	{
		WcBtEntry  *e = &tw->entries[order[k]];
		WcBtEntry  *prev = n > 0 ? &joined[n - 1] : NULL;

		if (prev == NULL ||
			wc_compare_bytes(prev->row_key, prev->row_key_len, e->row_key, e->row_key_len) != 0)
		{
			joined[n++] = *e;
			continue;
		}
		append_mutations(prev, e);
	}
	pfree(order);
	pfree(tw->entries);
	tw->entries = joined;
	tw->nentries = n;
	tw->cap = tw->nentries;
}

static int
checked_cmp(const void *a, const void *b)
{
	const BtCheckedRow *x = a;
	const BtCheckedRow *y = b;
	int			c = strcmp(x->table, y->table);

	if (c == 0)
		c = wc_compare_bytes(x->entry.row_key, x->entry.row_key_len,
							 y->entry.row_key, y->entry.row_key_len);
	return c;
}

/*
 * join_checked
 *		A row read before it was written is one CheckAndMutateRow with every
 *		mutation of it: its writes through the cells layout, which came as
 *		WRITE rows of their own, join it after its mapped tables' writes (as
 *		they came, tw's entries joined first), and a row read through two
 *		servers of one instance is one row, conditioned on the older read.
 */
static void
join_checked(BtCommitJob *job)
{
	int			n = 0;

	/* of one row, the mapped tables' writes are one WRITE row: any order */
	if (job->nchecked > 1)
		qsort(job->checked, job->nchecked, sizeof(BtCheckedRow), checked_cmp);
	for (int i = 0; i < job->nchecked; i++)
	{
		BtCheckedRow *cr = &job->checked[i];

		if (n > 0 && checked_cmp(&job->checked[n - 1], cr) == 0)
		{
			append_mutations(&job->checked[n - 1].entry, &cr->entry);
			job->checked[n - 1].newer = Min(job->checked[n - 1].newer, cr->newer);
			continue;
		}
		job->checked[n++] = *cr;
	}
	job->nchecked = n;
	for (int t = 0; t < job->ntables; t++)
	{
		BtTableWrites *tw = &job->tables[t];
		int			kept = 0;

		for (int i = 0; i < tw->nentries; i++)
		{
			BtCheckedRow key;
			BtCheckedRow *cr;

			key.table = tw->table;
			key.entry = tw->entries[i];
			cr = job->nchecked == 0 ? NULL :
				bsearch(&key, job->checked, job->nchecked, sizeof(BtCheckedRow), checked_cmp);
			if (cr != NULL)
				append_mutations(&cr->entry, &tw->entries[i]);
			else
				tw->entries[kept++] = tw->entries[i];
		}
		tw->nentries = kept;
	}
}

/*
 * One MutateRows call of tw's n entries from first on; their outcomes into
 * codes and the job's counts.
 */
static void
send_call(BtCommitJob *job, BtTableWrites *tw, int first, int n, int *codes)
{
	if (!wc_bt_mutate_rows(job->db->client, tw->table, job->db->app_profile,
						   tw->entries + first, n, job->db->timeout_ms, codes, &job->status))
	{
		bool		whole = true;	/* the call failed, no entry's outcome came */

		for (int i = 0; i < n && whole; i++)
			whole = codes[i] == WC_BT_UNAVAILABLE;
		if (whole && job->status.code != WC_BT_OK)
		{
			job->failed_code = job->status.code;
			job->failed_table = tw->table;
			return;
		}
	}
	for (int i = 0; i < n; i++)
	{
		if (codes[i] == WC_BT_OK)
			job->applied++;
		else if (job->failed_code == WC_BT_OK)
		{
			job->failed_code = codes[i];
			job->failed_table = tw->table;
			job->failed_key = tw->entries[first + i].row_key;
			job->failed_key_len = tw->entries[first + i].row_key_len;
		}
	}
}

/*
 * The conditioned rows' calls, shared among the threads that make them
 * (send_checked): each takes the next row until the rows are done or one
 * has failed.
 */
typedef struct BtCheckedRun
{
	BtCommitJob *job;
	pthread_mutex_t lock;
	int			next;			/* the next row to send */
	int			end;
	int			failed_at;		/* the first row that failed, or end */
} BtCheckedRun;

/*
 * One conditioned row's call; false if it failed, or the row had changed
 * (*changed).  The predicate yields a cell when the row is as read: no
 * cell from the millisecond after the newest one read on, and a cell of
 * that millisecond still there, since another client's deletion leaves no
 * newer cell to see.  The mutations are its true branch.
 */
static bool
send_one_checked(BtCommitJob *job, BtCheckedRow *cr, bool *changed, WcBtStatus *st)
{
	WcBtFilter	parts[3] = {{0}};
	WcBtFilter	as_read = {0};
	bool		matched = false;

	parts[0].kind = WC_BT_FILTER_TIMESTAMP_RANGE;	/* newer than the read */
	parts[0].lo = cr->newer;
	parts[1].kind = WC_BT_FILTER_BLOCK;
	parts[2].kind = WC_BT_FILTER_TIMESTAMP_RANGE;	/* of the read's millisecond */
	parts[2].lo = cr->newer - 1000;
	parts[2].hi = cr->newer;
	as_read.kind = WC_BT_FILTER_CONDITION;
	as_read.children = parts;
	as_read.nchildren = 3;
	*changed = false;

	/*
	 * A row read with no cell (its version 0: the transaction's own, not
	 * stored yet; or only an aggregate family's cells at time 0) has no
	 * cell of its own to be still there: changed only by a newer one.
	 */
	if (cr->newer <= 1000)
	{
		if (!wc_bt_check_and_mutate(job->db->client, cr->table, job->db->app_profile,
									cr->entry.row_key, cr->entry.row_key_len, &parts[0],
									NULL, 0, cr->entry.mutations, cr->entry.nmutations,
									job->db->timeout_ms, &matched, st))
			return false;
		*changed = matched;
		return !matched;
	}
	if (!wc_bt_check_and_mutate(job->db->client, cr->table, job->db->app_profile,
								cr->entry.row_key, cr->entry.row_key_len, &as_read,
								cr->entry.mutations, cr->entry.nmutations, NULL, 0,
								job->db->timeout_ms, &matched, st))
		return false;
	*changed = !matched;
	return matched;
}

static void *
checked_main(void *arg)
{
	BtCheckedRun *run = arg;
	BtCommitJob *job = run->job;

	for (;;)
	{
		int			i;
		bool		changed;
		WcBtStatus	st;
		bool		ok;

		pthread_mutex_lock(&run->lock);
		i = run->failed_at < run->end ? run->end : run->next;
		if (i < run->end)
			run->next++;
		pthread_mutex_unlock(&run->lock);
		if (i >= run->end)
			return NULL;
		ok = send_one_checked(job, &job->checked[i], &changed, &st);
		pthread_mutex_lock(&run->lock);
		if (ok)
			job->applied++;
		else if (i < run->failed_at)
		{
			/* the first of the rows that failed is the one reported */
			BtCheckedRow *cr = &job->checked[i];

			run->failed_at = i;
			job->status = st;
			/* a change is no gRPC code: any other than OK marks it */
			job->failed_code = changed ? WC_BT_FAILED_PRECONDITION : st.code;
			job->failed_changed = changed;
			job->failed_table = cr->table;
			job->failed_key = cr->entry.row_key;
			job->failed_key_len = cr->entry.row_key_len;
		}
		pthread_mutex_unlock(&run->lock);
	}
}

/*
 * The rows read before they were written, each a CheckAndMutateRow whose
 * mutations apply only if the row has no cell newer than the read; false
 * once one fails or has changed.
 *
 * The first goes alone, so that a change there ends the COMMIT with
 * nothing applied (40001, which a retry may take).  The others go
 * BT_CHECKED_AT_ONCE at a time, on threads made for them (which inherit
 * this thread's mask of every signal), since one row's call is one round
 * trip: a large UPDATE would otherwise wait for one round trip a row.
 * Once one has failed, none is sent after it; those already in flight
 * end as they do, counted among the rows applied.
 */
static bool
send_checked(BtCommitJob *job)
{
	BtCheckedRun run;
	pthread_t	threads[BT_CHECKED_AT_ONCE - 1];
	int			nthreads = 0;

	if (job->nchecked == 0)
		return true;
	run.job = job;
	run.next = 0;
	run.end = 1;
	run.failed_at = run.end;
	pthread_mutex_init(&run.lock, NULL);
	checked_main(&run);
	if (run.failed_at == run.end && job->nchecked > 1)
	{
		run.end = job->nchecked;
		run.failed_at = run.end;
		/* fewer threads if some cannot be made: this one sends too */
		while (nthreads < Min(BT_CHECKED_AT_ONCE, job->nchecked - 1) - 1 &&
			   pthread_create(&threads[nthreads], NULL, checked_main, &run) == 0)
			nthreads++;
		checked_main(&run);
		for (int t = 0; t < nthreads; t++)
			pthread_join(threads[t], NULL);
	}
	pthread_mutex_destroy(&run.lock);
	return run.failed_at == run.end;
}

/* The time, on a commit's thread (wc_unix_micros is the main thread's). */
static int64
clock_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The thread of one commit: its calls, then the job on the done list. */
static void *
commit_main(void *arg)
{
	BtCommitJob *job = arg;

	job->failed_code = WC_BT_OK;
	if (!bt_families_apply(job->db, job->changes, &job->failed_table, &job->status))
	{
		job->failed_code = job->status.code;
		job->failed_families = true;
	}
	if (job->failed_code == WC_BT_OK)
		(void) send_checked(job);
	for (int t = 0; t < job->ntables && job->failed_code == WC_BT_OK; t++)
	{
		BtTableWrites *tw = &job->tables[t];
		int		   *codes = malloc(sizeof(int) * (tw->nentries + 1));

		if (codes == NULL)
		{
			job->failed_code = WC_BT_RESOURCE_EXHAUSTED;
			snprintf(job->status.message, sizeof(job->status.message), "out of memory");
			job->failed_table = tw->table;
			break;
		}
		for (int first = 0, n; first < tw->nentries && job->failed_code == WC_BT_OK; first += n)
		{
			int			mutations = 0;

			/* a call: BT_CALL_ROWS rows, Bigtable's mutations a call at most */
			for (n = 0; first + n < tw->nentries && n < BT_CALL_ROWS; n++)
			{
				if (n > 0 && mutations + tw->entries[first + n].nmutations > BT_CALL_MUTATIONS)
					break;
				mutations += tw->entries[first + n].nmutations;
			}
			send_call(job, tw, first, n, codes + first);
		}
		free(codes);
	}

	sending_remove(job);

	/*
	 * Answered once the clock has reached the COMMIT's time, which may run
	 * ahead of it (bt_commit_next_ts): a read that starts after the answer,
	 * bounded by its start (REPEATABLE READ, as_of), then sees the COMMIT,
	 * and a worker started again stamps after it.  Normally no wait.
	 */
	for (int64 now; (now = clock_us()) < job->commit_ts;)
		usleep((useconds_t) Min(job->commit_ts - now, 1000000));
	bt_jobs_done(&commit_jobs, &job->link);
	return NULL;
}

/*
 * check_row_mutations
 *		A row of more mutations than Bigtable takes in one request fails
 *		here, before anything of the COMMIT is sent, not as a call that
 *		fails the other rows it carries.
 */
static void
check_row_mutations(const WcBtEntry *e, const char *table)
{
	if (e->nmutations > BT_CALL_MUTATIONS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a row of %d changes is more than Bigtable takes in one request (%d)",
						e->nmutations, BT_CALL_MUTATIONS),
				 errdetail("The transaction writes that many cells and deletions to row key \"%s\" of %s; nothing of the COMMIT was sent.",
						   pnstrdup((const char *) e->row_key, e->row_key_len), table),
				 errhint("Write the row's versions in several transactions.")));
}

/*
 * bt_commit
 *		Send the rows of w on a thread of their own; answered later
 *		(bt_commit_collect).  A commit of nothing Bigtable keeps (only
 *		column types' records) is answered now.
 */
WcCommitOutcome
bt_commit(WcClient *c, WcBtDb *db, WcClientWrites *w)
{
	MemoryContext cxt = AllocSetContextCreate(TopMemoryContext, "widecolumn_fdw Bigtable commit",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	BtCommitJob *job = palloc0(sizeof(BtCommitJob));
	int			rc;

	job->client = c;
	job->db = db;
	job->cxt = cxt;
	sending_add(job);
	PG_TRY();
	{
		wc_client_writes_walk(w, add_row, job);
		/* a row is a row once, in the rows applied of M */
		for (int t = 0; t < job->ntables; t++)
			join_rows(&job->tables[t]);
		join_checked(job);
		job->rows = job->nchecked;
		for (int t = 0; t < job->ntables; t++)
		{
			job->rows += job->tables[t].nentries;
			for (int i = 0; i < job->tables[t].nentries; i++)
				check_row_mutations(&job->tables[t].entries[i], job->tables[t].table);
		}
		for (int i = 0; i < job->nchecked; i++)
			check_row_mutations(&job->checked[i].entry, job->checked[i].table);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(old);
		sending_remove(job);
		MemoryContextDelete(cxt);
		PG_RE_THROW();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(old);
	if (job->rows == 0 && job->changes == NULL)
	{
		sending_remove(job);
		MemoryContextDelete(cxt);
		return WC_COMMIT_WRITTEN;
	}

	rc = bt_jobs_start(&commit_jobs, commit_main, &job->link);
	if (rc != 0)
	{
		sending_remove(job);
		MemoryContextDelete(cxt);
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("could not start a thread for a Bigtable commit: %s", strerror(rc))));
	}
	c->answer_later = true;
	return WC_COMMIT_LATER;
}

/*
 * The answer of a commit (on the main thread): OK, or the error of one
 * that was not applied whole.
 */
static void
report_failure(void *arg, StringInfo out)
{
	BtCommitJob *job = arg;
	char	   *key;

	if (job->failed_code == WC_BT_OK)
	{
		wc_write_ok(out);
		return;
	}
	key = pnstrdup((const char *) job->failed_key, job->failed_key_len);
	/*
	 * 40001 says the transaction may be run again, which is true only if
	 * nothing of it was applied: a retry would apply the rows applied twice
	 * (an increment, say).  Otherwise the error says what was applied.
	 */
	if (job->failed_changed && job->applied == 0 && job->changes == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("could not serialize access due to concurrent update"),
				 errdetail_plural("Row key \"%s\" of %s was written or deleted by another Bigtable client after this transaction read it; COMMIT to Bigtable applied none of the transaction's %d row.",
								  "Row key \"%s\" of %s was written or deleted by another Bigtable client after this transaction read it; COMMIT to Bigtable applied none of the transaction's %d rows.",
								  job->rows, key, job->failed_table, job->rows),
				 errhint("Retry the transaction.")));
	if (job->failed_changed)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("COMMIT to Bigtable applied %d of %d rows", job->applied, job->rows),
				 errdetail("Row key \"%s\" of %s was written or deleted by another Bigtable client after this transaction read it, and the transaction's writes to it were not applied, nor to the rows not yet sent then.",
						   key, job->failed_table),
				 errhint("Rows of one COMMIT are not atomic together on a Bigtable server: the rows applied stay, so running the transaction again would apply them twice.")));
	ereport(ERROR,
			(errcode(bt_sqlstate(job->failed_code, job->failed_key != NULL)),
			 errmsg("COMMIT to Bigtable applied %d of %d rows", job->applied, job->rows),
			 job->failed_families ?
			 errdetail("Changing the families of %s failed (gRPC code %d), and nothing after it was sent: %s",
					   job->failed_table, job->failed_code, job->status.message) :
			 job->failed_key ?
			 errdetail("The first row not applied is \"%s\" of %s (gRPC code %d): %s",
					   key, job->failed_table, job->failed_code, job->status.message) :
			 errdetail("The call for %s failed (gRPC code %d): %s",
					   job->failed_table, job->failed_code, job->status.message),
			 errhint("Rows of one COMMIT are not atomic together on a Bigtable server: the rows applied stay, whatever becomes of the transaction.")));
}

/*
 * bt_commit_collect
 *		Answer the commits whose calls are over; true if any.
 */
bool
bt_commit_collect(void)
{
	BtJob	   *jobs = bt_jobs_take(&commit_jobs);
	bool		any = jobs != NULL;

	while (jobs != NULL)
	{
		BtCommitJob *job = (BtCommitJob *) jobs;

		jobs = jobs->next;
		wc_client_answer_later(job->client, report_failure, job);
		MemoryContextDelete(job->cxt);
	}
	return any;
}

/* At the worker's end: the commits under way, answered once they are over. */
void
bt_commit_finish(void)
{
	bt_jobs_wait(&commit_jobs, bt_commit_collect);
}
