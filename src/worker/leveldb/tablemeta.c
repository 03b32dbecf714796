/*-------------------------------------------------------------------------
 *
 * tablemeta.c
 *	  What the storage worker needs to know of a stored table before it
 *	  reads or sweeps it: its families' garbage-collection policies, and
 *	  the times its families, row ranges (rowdrops.c) or the table itself
 *	  were dropped.
 *
 * They live in the table's row of the stored table with the empty name
 * (fdw/meta/families.c, docs/format.md): the cell wc:families lists the
 * families and their policies; drop_family leaves a cell
 * wc:dropped:<family> whose version is the drop's commit time, and
 * drop_table a row tombstone.  Every version older than such a time is
 * gone (the reader hides it, the sweep deletes it: sweep.c), so a scan and
 * the sweep read the row here, with the same rules: a row tombstone hides
 * the cells of the row older than it, as in any row.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/gcpolicy.h"
#include "common/keycodec.h"
#include "worker/leveldb/leveldb.h"

/* The cells of a table's row in the table of families, escaped. */
static const uint8 families_cell[] = {'w', 'c', 0x00, 0x01, 'f', 'a', 'm', 'i', 'l', 'i', 'e', 's', 0x00, 0x01};
static const uint8 dropped_cell[] = {'w', 'c', 0x00, 0x01, 'd', 'r', 'o', 'p', 'p', 'e', 'd', ':'};

/* The family's entry, added if it has none. */
static WcFamilyMeta *
family_entry(WcTableMeta *m, const uint8 *family, size_t len, int *cap)
{
	WcFamilyMeta *fm;
	uint8	   *esc;

	esc = palloc(WC_ESCAPED_MAX(len));
	len = wc_escape(family, len, esc);
	for (int i = 0; i < m->nfamilies; i++)
		if (m->families[i].family.len == len &&
			memcmp(m->families[i].family.data, esc, len) == 0)
		{
			pfree(esc);
			return &m->families[i];
		}
	if (m->nfamilies == *cap)
	{
		*cap = Max(8, *cap * 2);
		m->families = m->families ? repalloc(m->families, sizeof(WcFamilyMeta) * *cap) :
			palloc(sizeof(WcFamilyMeta) * *cap);
	}
	fm = &m->families[m->nfamilies++];
	memset(fm, 0, sizeof(*fm));
	fm->family.data = esc;
	fm->family.len = len;
	return fm;
}

/* The policies of a family list's lines, "family<TAB>policy[<TAB>aggregate]". */
static void
parse_families(WcTableMeta *m, const char *p, const char *end, int *cap)
{
	WcFamilyLine line;

	/*
	 * A third field (since 0.3.0) names an aggregate; the worker needs none,
	 * since a merge entry's tag says how it folds.
	 */
	while (wc_family_line_next(&p, end, &line))
	{
		char		text[WC_GC_MAX_TEXT + 1];
		size_t		where;
		WcGcPolicy	policy;
		WcFamilyMeta *fm;

		if (line.family == NULL || line.policy_len > WC_GC_MAX_TEXT)
			continue;			/* not what families.c writes: no policy */
		memcpy(text, line.policy, line.policy_len);
		text[line.policy_len] = '\0';
		if (wc_gc_parse(text, &policy, &where) != WC_GC_OK)
			continue;
		fm = family_entry(m, (const uint8 *) line.family, line.family_len, cap);
		fm->listed = true;
		fm->policy = policy;
		/* "never" keeps every version */
		fm->has_policy = policy.max_versions != 0 || policy.max_age_us != 0;
	}
}

/*
 * A family that is in no list keeps one version, the policy that a write
 * through a foreign table creates it with (fdw/meta/families.c): so a table
 * written by 0.1.0, or a write whose family another session dropped
 * meanwhile, reads as the simple case should.  The table of families
 * itself keeps every version.
 */
static const WcFamilyMeta unlisted = {{NULL, 0}, true, true, {1, 0, WC_GC_SINGLE}, 0};

/*
 * ldb_table_meta_load
 *		Read the row of table (escaped, as the first component of its keys)
 *		in the table of families through it (not positioned; it is left
 *		anywhere), as a reader that does not see the commits hidden names.
 *		The meta table itself has none.
 */
void
ldb_table_meta_load(WcIter *it, const WcHidden *hidden, const uint8 *table, size_t tlen,
				   WcTableMeta *m)
{
	StringInfoData row;
	int			cap = 0;
	StringInfoData lastcell;

	memset(m, 0, sizeof(*m));
	if (tlen == sizeof(wc_meta_table) && memcmp(table, wc_meta_table, tlen) == 0)
		return;
	initStringInfo(&row);
	appendBinaryStringInfo(&row, (const char *) wc_meta_table, sizeof(wc_meta_table));
	appendBinaryStringInfo(&row, (const char *) table, tlen);
	initStringInfo(&lastcell);

	/*
	 * The row's entries in key order: row tombstones first (newest first),
	 * then wc:dropped:<family> cells, then wc:families.  Only each cell's
	 * newest entry counts; a row has few, but a list changed often has many
	 * old versions, which a seek past the cell skips.
	 */
	storage_iter_seek(it, (const uint8 *) row.data, row.len);
	while (storage_iter_valid(it))
	{
		size_t		n,
					vlen;
		const uint8 *k = storage_iter_key(it, &n);
		const uint8 *v;
		const uint8 *fq;
		size_t		fqlen;
		uint64		ts;

		if (n < (size_t) row.len + WC_TS_LEN || memcmp(k, row.data, row.len) != 0)
			break;
		fq = k + row.len;
		fqlen = n - row.len - WC_TS_LEN;
		ts = wc_decode_ts(k + n - WC_TS_LEN);
		v = storage_iter_value(it, &vlen);

		/* a change the reader does not see is not there (xacts.c) */
		if (ldb_hidden_has(hidden, ts))
		{
			m->hid_changes = true;
			storage_iter_next(it);
			continue;
		}
		if (lastcell.len == (int) fqlen && memcmp(lastcell.data, fq, fqlen) == 0)
		{
			/* an older version: skip them all (ts 0 is the oldest) */
			StringInfoData past;

			initStringInfo(&past);
			appendBinaryStringInfo(&past, (const char *) k, n - WC_TS_LEN);
			enlargeStringInfo(&past, WC_TS_LEN);
			wc_encode_ts(0, (uint8 *) past.data + past.len);
			past.len += WC_TS_LEN;
			storage_iter_seek(it, (const uint8 *) past.data, past.len);
			if (storage_iter_valid(it))
			{
				k = storage_iter_key(it, &n);
				if (n == (size_t) past.len && memcmp(k, past.data, n) == 0)
					storage_iter_next(it);
			}
			pfree(past.data);
			continue;
		}
		resetStringInfo(&lastcell);
		appendBinaryStringInfo(&lastcell, (const char *) fq, fqlen);

		if (fqlen == sizeof(wc_row_tombstone_fq) &&
			memcmp(fq, wc_row_tombstone_fq, fqlen) == 0)
			m->dropped = ts;
		else if (ts < m->dropped || vlen == 0 || v[0] != WC_VALUE_PRESENT)
		{
			/* hidden by drop_table, or deleted */
		}
		else if (fqlen == sizeof(families_cell) &&
				 memcmp(fq, families_cell, fqlen) == 0)
		{
			/* the last cell of the row: its older versions need no seek */
			parse_families(m, (const char *) v + 1, (const char *) v + vlen, &cap);
			break;
		}
		else if (ldb_rowdrops_cell(m, table, tlen, fq, fqlen, ts))
		{
			/*
			 * drop_row_range's, a range DELETE's, and the marks of writes
			 * since (rowdrops.c)
			 */
		}
		else if (fqlen > sizeof(dropped_cell) + 2 &&
				 memcmp(fq, dropped_cell, sizeof(dropped_cell)) == 0)
		{
			uint8	   *fam = palloc(fqlen);
			size_t		consumed,
						famlen;

			/* the qualifier "dropped:<family>", escaped */
			if (wc_unescape(fq + 4, fqlen - 4, fam, &consumed, &famlen) == 0 &&
				consumed == fqlen - 4 && famlen > 8)
				family_entry(m, fam + 8, famlen - 8, &cap)->dropped = ts;
			pfree(fam);
		}
		storage_iter_next(it);
	}
	storage_iter_check(it);
	pfree(row.data);
	pfree(lastcell.data);

	m->unlisted = &unlisted;
	for (int i = 0; i < m->nfamilies; i++)
		if (!m->families[i].listed)
		{
			m->families[i].has_policy = true;
			m->families[i].policy = unlisted.policy;
		}
}

/*
 * ldb_table_meta_family
 *		What m says of the family of a cell (escaped family and qualifier):
 *		NULL for the table of families, which keeps everything.
 */
const WcFamilyMeta *
ldb_table_meta_family(const WcTableMeta *m, const uint8 *fq, size_t fqlen)
{
	size_t		flen;

	if (m->unlisted == NULL || wc_component_end(fq, fqlen, &flen) != 0)
		return NULL;
	for (int i = 0; i < m->nfamilies; i++)
		if (m->families[i].family.len == flen &&
			memcmp(m->families[i].family.data, fq, flen) == 0)
			return &m->families[i];
	return m->unlisted;
}
