/*-------------------------------------------------------------------------
 *
 * rowreads.c
 *	  The rows of Bigtable servers a transaction read under an UPDATE's or
 *	  DELETE's lock, each with the version it read: the condition its
 *	  writes to the row are sent with at COMMIT.
 *
 * The extension's row locks order the sessions of this cluster, but not
 * another Bigtable client, which may write the row between the UPDATE's
 * read and the COMMIT.  So the COMMIT sends such a row as a
 * CheckAndMutateRow that applies only if the row has no cell newer than the
 * newest one read (WC_ROW_READ, wire.h; worker/bigtable/btcommit.c), and
 * fails with 40001 otherwise, as PostgreSQL's own UPDATE does under
 * REPEATABLE READ.  A row read twice keeps the first version: the writes
 * rest on that read.  A savepoint's rollback keeps the reads made since,
 * which makes a later write of the row conditioned all the same, never
 * less.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "fdw/fdw.h"
#include "fdw/xact/xact.h"

/* A row read: its server, stored table and key, the version read. */
typedef struct WcRowRead
{
	struct WcRowRead *next;		/* of the same hash */
	Oid			serverid;
	uint8	   *bytes;			/* escaped table name, then the row key */
	size_t		table_len;
	size_t		len;
	uint64		version;
} WcRowRead;

typedef struct WcRowReadsEntry
{
	uint64		hash;			/* the key */
	WcRowRead  *rows;
} WcRowReadsEntry;

static HTAB *row_reads = NULL;	/* in TopTransactionContext */

static uint64
read_hash(Oid serverid, const uint8 *table_key, size_t table_len,
		  const uint8 *rowkey, size_t keylen)
{
	uint64		h = hash_bytes_extended(table_key, (int) table_len, serverid);

	return hash_bytes_extended(rowkey, (int) keylen, h);
}

static WcRowRead *
find(WcRowReadsEntry *e, Oid serverid, const uint8 *table_key, size_t table_len,
	 const uint8 *rowkey, size_t keylen)
{
	for (WcRowRead *r = e->rows; r != NULL; r = r->next)
		if (r->serverid == serverid && r->table_len == table_len &&
			r->len == table_len + keylen &&
			memcmp(r->bytes, table_key, table_len) == 0 &&
			memcmp(r->bytes + table_len, rowkey, keylen) == 0)
			return r;
	return NULL;
}

/*
 * wc_txn_note_read
 *		The transaction read this row of t, a table of a Bigtable server,
 *		at version under the lock of an UPDATE or DELETE.
 */
void
wc_txn_note_read(WcTable *t, const uint8 *rowkey, size_t keylen, uint64 version)
{
	uint64		h = read_hash(t->serverid, t->table_key, t->table_key_len, rowkey, keylen);
	WcRowReadsEntry *e;
	WcRowRead  *r;
	bool		found;

	Assert(t->engine == WC_ENGINE_BIGTABLE);
	if (row_reads == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(uint64);
		ctl.entrysize = sizeof(WcRowReadsEntry);
		ctl.hcxt = TopTransactionContext;
		row_reads = hash_create("widecolumn_fdw rows read", 64, &ctl,
								HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	e = hash_search(row_reads, &h, HASH_ENTER, &found);
	if (!found)
		e->rows = NULL;
	if (find(e, t->serverid, t->table_key, t->table_key_len, rowkey, keylen) != NULL)
		return;
	r = MemoryContextAlloc(TopTransactionContext, sizeof(WcRowRead));
	r->serverid = t->serverid;
	r->table_len = t->table_key_len;
	r->len = t->table_key_len + keylen;
	r->bytes = MemoryContextAlloc(TopTransactionContext, r->len + 1);
	memcpy(r->bytes, t->table_key, t->table_key_len);
	memcpy(r->bytes + t->table_key_len, rowkey, keylen);
	r->version = version;
	r->next = e->rows;
	e->rows = r;
}

/*
 * wc_txn_read_version
 *		Did the transaction read this row of tt so?  Its version then.
 */
bool
wc_txn_read_version(WcTxnTable *tt, const uint8 *rowkey, size_t keylen, uint64 *version)
{
	uint64		h;
	WcRowReadsEntry *e;
	WcRowRead  *r;

	if (row_reads == NULL)
		return false;
	h = read_hash(tt->serverid, tt->table_key, tt->table_key_len, rowkey, keylen);
	e = hash_search(row_reads, &h, HASH_FIND, NULL);
	if (e == NULL)
		return false;
	r = find(e, tt->serverid, tt->table_key, tt->table_key_len, rowkey, keylen);
	if (r == NULL)
		return false;
	*version = r->version;
	return true;
}

/* The transaction has ended: its memory went with TopTransactionContext. */
void
wc_txn_reset_reads(void)
{
	row_reads = NULL;
}
