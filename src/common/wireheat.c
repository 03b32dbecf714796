/*-------------------------------------------------------------------------
 *
 * wireheat.c
 *	  Reading and writing the HEAT and STATS messages (wireheat.h): the
 *	  key access heat map's history and the table statistics.
 *
 * As in wire.c, a reader checks every length and count against what is
 * left of the message before it allocates or reads.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "common/wire_int.h"
#include "common/wireheat.h"

void
wc_write_heat(StringInfo buf, const WcHeatRequest *req)
{
	begin(buf, WC_REQ_HEAT);
	wc_put_u32(buf, req->db);
	wc_put_bytes(buf, req->table.data, req->table.len);
	wc_put_u64(buf, req->since);
}

/* HEAT: one table, escaped. */
bool
wc_read_heat(WcReader *r, WcHeatRequest *req)
{
	if (!expect_type(r, WC_REQ_HEAT))
		return fail(r);
	req->db = wc_get_u32(r);
	req->table = wc_get_bytes(r);
	req->since = wc_get_u64(r);
	if (r->bad || !components(req->table, 1))
		return fail(r);
	return finish(r);
}

void
wc_write_heat_answer_begin(StringInfo buf, uint32 ncols)
{
	begin(buf, WC_RESP_OK);
	wc_put_u32(buf, ncols);
}

void
wc_write_heat_answer_column(StringInfo buf, uint64 start, uint32 nranges)
{
	wc_put_u64(buf, start);
	wc_put_u32(buf, nranges);
}

void
wc_write_heat_answer_range(StringInfo buf, const uint8 *key, size_t klen,
						   const uint64 *counters)
{
	wc_put_bytes(buf, key, klen);
	for (int i = 0; i < WC_HEAT_NCOUNTERS; i++)
		wc_put_u64(buf, counters[i]);
}

/* *ncols: the columns read, or allocated when it fails (for the fuzzer to free) */
bool
wc_read_heat_answer(WcReader *r, int *ncols, WcHeatAnswerColumn **cols)
{
	uint32		n;

	*ncols = 0;
	*cols = NULL;
	if (!expect_type(r, WC_RESP_OK))
		return fail(r);
	n = wc_get_u32(r);
	/* a column takes at least its start and its count */
	if (r->bad || n > wc_reader_left(r) / 12)
		return fail(r);
	*cols = palloc0(sizeof(WcHeatAnswerColumn) * (n + 1));
	for (uint32 i = 0; i < n; i++)
	{
		WcHeatAnswerColumn *col = &(*cols)[i];
		uint32		nranges;

		col->start = wc_get_u64(r);
		nranges = wc_get_u32(r);
		/* a range takes at least a length and its counters */
		if (r->bad || nranges > wc_reader_left(r) / (4 + 8 * WC_HEAT_NCOUNTERS))
			return fail(r);
		col->nranges = (int) nranges;
		col->keys = palloc(sizeof(WcBytes) * (nranges + 1));
		col->counters = palloc(sizeof(uint64) * WC_HEAT_NCOUNTERS * (nranges + 1));
		*ncols = (int) i + 1;
		for (uint32 j = 0; j < nranges; j++)
		{
			col->keys[j] = wc_get_bytes(r);
			for (int k = 0; k < WC_HEAT_NCOUNTERS; k++)
				col->counters[j * WC_HEAT_NCOUNTERS + k] = wc_get_u64(r);
		}
	}
	return finish(r);
}

void
wc_write_stats(StringInfo buf, const WcStatsRequest *req)
{
	begin(buf, WC_REQ_STATS);
	wc_put_u32(buf, req->db);
	appendStringInfoChar(buf, (char) (req->reset ? 1 : 0));
}

/* STATS: a database, and whether to reset its counters first. */
bool
wc_read_stats(WcReader *r, WcStatsRequest *req)
{
	uint8		reset;

	if (!expect_type(r, WC_REQ_STATS))
		return fail(r);
	req->db = wc_get_u32(r);
	reset = wc_get_u8(r);
	if (r->bad || reset > 1)
		return fail(r);
	req->reset = reset == 1;
	return finish(r);
}

void
wc_write_stats_answer_begin(StringInfo buf, uint32 ntables)
{
	begin(buf, WC_RESP_OK);
	wc_put_u32(buf, ntables);
}

void
wc_write_stats_answer_table(StringInfo buf, const WcStatsAnswerTable *t)
{
	wc_put_bytes(buf, t->table.data, t->table.len);
	for (int i = 0; i < WC_STAT_NCOUNTERS; i++)
		wc_put_u64(buf, t->totals[i]);
	wc_put_u64(buf, t->approx_bytes);
	wc_put_u64(buf, t->last_sweep);
	wc_put_u64(buf, t->stats_reset);
}

bool
wc_read_stats_answer(WcReader *r, int *ntables, WcStatsAnswerTable **tables)
{
	uint32		n;
	const uint32 size = 4 + 8 * (WC_STAT_NCOUNTERS + 3);

	*ntables = 0;
	*tables = NULL;
	if (!expect_type(r, WC_RESP_OK))
		return fail(r);
	n = wc_get_u32(r);
	if (r->bad || n > wc_reader_left(r) / size)
		return fail(r);
	*tables = palloc0(sizeof(WcStatsAnswerTable) * (n + 1));
	for (uint32 i = 0; i < n; i++)
	{
		WcStatsAnswerTable *t = &(*tables)[i];

		t->table = wc_get_bytes(r);
		for (int k = 0; k < WC_STAT_NCOUNTERS; k++)
			t->totals[k] = wc_get_u64(r);
		t->approx_bytes = wc_get_u64(r);
		t->last_sweep = wc_get_u64(r);
		t->stats_reset = wc_get_u64(r);
	}
	if (r->bad)
		return fail(r);
	for (uint32 i = 0; i < n; i++)
		if (!components((*tables)[i].table, 1))
			return fail(r);
	*ntables = (int) n;
	return finish(r);
}
