/*-------------------------------------------------------------------------
 *
 * heatstore.c
 *	  The heat map's history and the table statistics kept in the LevelDB
 *	  database itself, so that they survive a restart of the worker or of
 *	  PostgreSQL; and the setting that turns the counting off.
 *
 * Under keys no table can see (docs/format.md, "Access statistics"):
 * `00 00 heat` then the escaped table name for its statistics, and the
 * same followed by a column's start (8 bytes, big-endian) for a column of
 * its heat map.  They are loaded when the database is opened and written
 * every WC_HEAT_STORE_US, the columns and statistics that changed, and at
 * a clean exit.  A write never waits for a commit nor makes one wait: it
 * happens only while the commit writer holds nothing and no large commit
 * is under way (the main thread, which writes it, is then the only writer),
 * without an fsync (the next commit's makes it durable with its own, and a
 * crash loses at most the last few seconds).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <time.h>

#include "utils/memutils.h"

#include "common/keycodec.h"
#include "worker/runtime/heat.h"
#include "worker/leveldb/leveldb.h"

#define WC_HEAT_STORE_US	(5 * 1000000ULL)

/* Stored values begin with their layout's version. */
#define WC_HEAT_FORMAT		1

static const uint8 heat_prefix[] = {0x00, 0x00, 'h', 'e', 'a', 't'};

static void
put_u64(StringInfo buf, uint64 v)
{
	uint8		b[8];

	for (int i = 7; i >= 0; i--, v >>= 8)
		b[i] = (uint8) v;
	appendBinaryStringInfo(buf, (const char *) b, 8);
}

static uint64
get_u64(const uint8 *p)
{
	uint64		v = 0;

	for (int i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return v;
}

/* The key of a table's statistics, or with a column, of that column. */
static void
heat_key(StringInfo key, const WcHeatTable *t, const WcHeatColumn *col, uint64 start)
{
	resetStringInfo(key);
	appendBinaryStringInfo(key, (const char *) heat_prefix, sizeof(heat_prefix));
	appendBinaryStringInfo(key, (const char *) t->name, t->namelen);
	if (col != NULL || start != 0)
		put_u64(key, col != NULL ? col->start : start);
}

static void
totals_value(StringInfo val, const WcHeatTable *t)
{
	resetStringInfo(val);
	appendStringInfoChar(val, WC_HEAT_FORMAT);
	for (int i = 0; i < WC_STAT_NCOUNTERS; i++)
		put_u64(val, t->totals[i]);
	put_u64(val, t->last_sweep);
	put_u64(val, t->stats_reset);
}

static void
column_value(StringInfo val, const WcHeatColumn *col)
{
	resetStringInfo(val);
	appendStringInfoChar(val, WC_HEAT_FORMAT);
	appendStringInfoChar(val, (char) col->nranges);
	for (int i = 0; i < col->nranges; i++)
	{
		appendStringInfoChar(val, (char) col->r[i].klen);
		appendBinaryStringInfo(val, (const char *) col->r[i].key, col->r[i].klen);
		for (int k = 0; k < WC_HEAT_NCOUNTERS; k++)
			put_u64(val, col->r[i].c[k]);
	}
}

static bool
load_totals(WcHeatTable *t, const uint8 *v, size_t n)
{
	if (n < 1 + 8 * (WC_STAT_NCOUNTERS + 2) || v[0] != WC_HEAT_FORMAT)
		return false;
	v++;
	for (int i = 0; i < WC_STAT_NCOUNTERS; i++, v += 8)
		t->totals[i] = get_u64(v);
	t->last_sweep = get_u64(v);
	t->stats_reset = get_u64(v + 8);
	return true;
}

/*
 * load_column
 *		A stored column, as t's newest; false if the value is not one this
 *		version wrote (it is left out).
 */
static bool
load_column(WcHeatTable *t, uint64 start, const uint8 *v, size_t n)
{
	const uint8 *end = v + n;
	int			nranges;
	WcHeatColumn *col;

	if (n < 2 || v[0] != WC_HEAT_FORMAT || v[1] < 1 || v[1] > WC_HEAT_RANGES)
		return false;
	nranges = v[1];
	v += 2;
	col = wc_heat_add_column(t, start);
	col->nranges = nranges;
	for (int i = 0; i < nranges; i++)
	{
		WcHeatRange *r = &col->r[i];

		if (v >= end || *v > WC_HEAT_KEY_MAX ||
			end - v < 1 + *v + 8 * WC_HEAT_NCOUNTERS)
			break;
		r->klen = *v++;
		memcpy(r->key, v, r->klen);
		v += r->klen;
		for (int k = 0; k < WC_HEAT_NCOUNTERS; k++, v += 8)
			r->c[k] = get_u64(v);
		/* starts ascend, the first empty */
		if ((i == 0) != (r->klen == 0) ||
			(i > 0 && wc_compare_bytes(col->r[i - 1].key, col->r[i - 1].klen,
									   r->key, r->klen) >= 0))
			break;
		if (i == nranges - 1)
		{
			col->dirty = false;
			return true;
		}
	}
	/* a damaged column reads as an empty one */
	memset(col->r, 0, sizeof(col->r));
	col->nranges = 1;
	return false;
}

/*
 * load
 *		Read the stored statistics and heat map into odb->base.heat; the number
 *		of values left out.
 */
static int
load(WcOpenDb *odb)
{
	WcIter	   *it = storage_iter(odb->db, NULL, false);
	volatile int bad = 0;

	PG_TRY();
	{
		for (storage_iter_seek(it, heat_prefix, sizeof(heat_prefix));
			 storage_iter_valid(it); storage_iter_next(it))
		{
			size_t		n,
						vlen,
						tlen;
			const uint8 *k = storage_iter_key(it, &n);
			const uint8 *v;
			WcHeatTable *t;

			if (n < sizeof(heat_prefix) || memcmp(k, heat_prefix, sizeof(heat_prefix)) != 0)
				break;
			k += sizeof(heat_prefix);
			n -= sizeof(heat_prefix);
			v = storage_iter_value(it, &vlen);
			if (wc_component_end(k, n, &tlen) != 0 || (n != tlen && n != tlen + 8) ||
				(t = wc_heat_table(&odb->base, k, tlen, true)) == NULL)
			{
				bad++;
				continue;
			}
			if (n == tlen ? !load_totals(t, v, vlen) : !load_column(t, get_u64(k + tlen), v, vlen))
				bad++;
		}
		storage_iter_check(it);
	}
	PG_FINALLY();
	{
		storage_iter_free(it);
	}
	PG_END_TRY();
	return bad;
}

/*
 * ldb_heat_load
 *		Read a database's statistics and heat map, when the worker opens it
 *		(again after a failed write: what it counted since stays).  An
 *		error is logged, not raised: the database serves without its
 *		history (what it read of it stays).
 */
void
ldb_heat_load(WcOpenDb *odb)
{
	MemoryContext old = CurrentMemoryContext;
	volatile int bad = 0;

	if (odb->base.heat != NULL)
		return;
	odb->base.heat = MemoryContextAllocZero(wc_worker_cxt, sizeof(WcHeatDb));
	odb->base.heat->stored_at = wc_heat_now();
	PG_TRY();
	{
		bad = load(odb);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(old);
		edata = CopyErrorData();
		FlushErrorState();
		ereport(LOG,
				(errmsg("widecolumn_fdw storage worker could not read the access statistics of LevelDB database \"%s\": %s",
						odb->path, edata->message)));
		FreeErrorData(edata);
	}
	PG_END_TRY();
	if (bad > 0)
		ereport(LOG,
				(errmsg("widecolumn_fdw storage worker left out %d stored access statistics of LevelDB database \"%s\"",
						bad, odb->path),
				 errdetail("They are not in the layout this version writes.")));
}

/*
 * store
 *		Write what changed in a database's statistics and heat map since the
 *		last time, in one batch without an fsync.
 */
static void
store(WcOpenDb *odb)
{
	WcBatch    *batch = storage_batch_new();
	bool		any = false;
	StringInfoData key;
	StringInfoData val;

	initStringInfo(&key);
	initStringInfo(&val);
	for (WcHeatTable *t = odb->base.heat->tables; t != NULL; t = t->next)
	{
		any |= t->totals_dirty || t->nevicted > 0;
		if (t->totals_dirty)
		{
			heat_key(&key, t, NULL, 0);
			totals_value(&val, t);
			storage_batch_put(batch, (uint8 *) key.data, key.len, (uint8 *) val.data, val.len);
		}
		for (int i = 0; i < t->nevicted; i++)
		{
			heat_key(&key, t, NULL, t->evicted[i]);
			storage_batch_delete(batch, (uint8 *) key.data, key.len);
		}
		/* only the newest column changes, but one made at load */
		for (int i = t->ncols - 1; i >= 0; i--)
		{
			WcHeatColumn *col = wc_heat_column(t, i);

			if (!col->dirty)
				continue;
			any = true;
			heat_key(&key, t, col, 0);
			column_value(&val, col);
			storage_batch_put(batch, (uint8 *) key.data, key.len, (uint8 *) val.data, val.len);
		}
	}
	PG_TRY();
	{
		if (any)
		{
			ldb_redo_sync(odb, false);
			storage_write(odb->db, batch, false);
		}
	}
	PG_FINALLY();
	{
		storage_batch_free(batch);
	}
	PG_END_TRY();
	for (WcHeatTable *t = odb->base.heat->tables; t != NULL; t = t->next)
	{
		t->totals_dirty = false;
		t->nevicted = 0;
		for (int i = 0; i < t->ncols; i++)
			wc_heat_column(t, i)->dirty = false;
	}
	pfree(key.data);
	pfree(val.data);
}

/*
 * ldb_heat_store
 *		Store a database's counters if WC_HEAT_STORE_US have passed since
 *		the last time and nothing waits on a write (or, at exit, now).  A
 *		failure is logged: the counters are not worth an error.
 */
void
ldb_heat_store(WcOpenDb *odb, bool now)
{
	MemoryContext old = CurrentMemoryContext;
	uint64		at;

	if (odb->base.heat == NULL || odb->db == NULL || odb->commit_partial)
		return;
	at = wc_heat_now();
	if (!now && (at - odb->base.heat->stored_at < WC_HEAT_STORE_US ||
				 !storage_writer_idle() || ldb_large_commit_active()))
		return;
	odb->base.heat->stored_at = at;
	PG_TRY();
	{
		store(odb);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(old);
		edata = CopyErrorData();
		FlushErrorState();
		ereport(LOG,
				(errmsg("widecolumn_fdw storage worker could not store access statistics: %s",
						edata->message)));
		FreeErrorData(edata);
	}
	PG_END_TRY();
}

/* The main loop's look at every open database: stores what is due. */
void
ldb_heat_store_due(void)
{
	static uint64 looked = 0;
	WcOpenDb   *odb;

	if (!wc_loop_due(&looked, 1000000))
		return;
	for (uint32 i = 0; (odb = ldb_odb_nth(i)) != NULL; i++)
		if (ldb_odb_mine(odb))
			ldb_heat_store(odb, false);
}
