/*-------------------------------------------------------------------------
 *
 * avro.c
 *	  widecolumn.export_avro and widecolumn.import_avro: a stored table's
 *	  every cell version, in Bigtable's own Avro format (avrofile.c), to
 *	  and from a server file or a large object.  The export and import of
 *	  one table are also backup.c's, a table at a time (avro.h).
 *
 * Export reads the versions as a cells-layout table's scan does (a SCAN
 * with WC_SCAN_CELLS: every version the families' policies keep, in key
 * order, at one snapshot, as of widecolumn.as_of), whatever the foreign
 * table maps.  Import logs each version at its timestamp as an INSERT
 * into a cells-layout table would (cellwrite.c), so it is part of the
 * transaction, commits with it and writes the families it meets with
 * maxversions=1 unless they exist; bad input is an error, which aborts
 * the transaction with nothing of the file written.
 *
 * Paths follow COPY's rules: the roles pg_write_server_files (export) and
 * pg_read_server_files (import), or superuser, an absolute path; and the
 * table privilege the statement stands for (SELECT, INSERT).  The large
 * object variants need no role: the file is built in, or read into,
 * memory, so they are for files under 1 GB.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>

#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/memutils.h"

#include "common/keycodec.h"
#include "fdw/avro/avro.h"
#include "fdw/fdw.h"
#include "fdw/keys/keys.h"
#include "fdw/link/link.h"
#include "fdw/model/model.h"
#include "fdw/xact/xact.h"

PG_FUNCTION_INFO_V1(wc_export_avro);
PG_FUNCTION_INFO_V1(wc_export_avro_lo);
PG_FUNCTION_INFO_V1(wc_import_avro);
PG_FUNCTION_INFO_V1(wc_import_avro_lo);

static void
malformed_batch(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROTOCOL_VIOLATION),
			 errmsg("malformed batch from the widecolumn_fdw storage worker")));
}

/* The key ranges of the rows whose key starts with prefix (NULL: all). */
static List *
prefix_ranges(WcTable *t, bytea *prefix)
{
	WcKeyRange *kr;
	const uint8 *p;
	size_t		len;
	uint8	   *succ;
	size_t		slen;

	if (prefix == NULL)
		return list_make1(wc_table_range(t));
	p = (const uint8 *) VARDATA_ANY(prefix);
	len = VARSIZE_ANY_EXHDR(prefix);
	succ = wc_prefix_end(p, len, &slen);
	kr = palloc0(sizeof(WcKeyRange));
	kr->start = wc_row_key(t, p, len, &kr->start_len);
	if (succ != NULL)
		kr->end = wc_row_key(t, succ, slen, &kr->end_len);
	else
	{
		/* the table's end: its name's terminator 00 01 made 00 02 */
		kr->end = memcpy(palloc(t->table_key_len), t->table_key, t->table_key_len);
		kr->end_len = t->table_key_len;
		kr->end[kr->end_len - 1]++;
	}
	return list_make1(kr);
}

/* A cell's name, (row key, family, qualifier), as an export compares them. */
typedef struct CellName
{
	StringInfoData buf;			/* the three, one after another */
	size_t		key_len;
	size_t		family_len;
} CellName;

static bool
same_cell(const CellName *last, const WcBytes *key, const WcBytes *family, const WcBytes *qualifier)
{
	const char *p = last->buf.data;

	return last->key_len == key->len && last->family_len == family->len &&
		(size_t) last->buf.len == key->len + family->len + qualifier->len &&
		memcmp(p, key->data, key->len) == 0 &&
		memcmp(p + key->len, family->data, family->len) == 0 &&
		memcmp(p + key->len + family->len, qualifier->data, qualifier->len) == 0;
}

static void
remember_cell(CellName *last, const WcBytes *key, const WcBytes *family, const WcBytes *qualifier)
{
	resetStringInfo(&last->buf);
	appendBinaryStringInfo(&last->buf, (const char *) key->data, key->len);
	appendBinaryStringInfo(&last->buf, (const char *) family->data, family->len);
	appendBinaryStringInfo(&last->buf, (const char *) qualifier->data, qualifier->len);
	last->key_len = key->len;
	last->family_len = family->len;
}

/*
 * wc_avro_export_table
 *		Write every version of t's stored table (of the rows with prefix)
 *		that its policies keep to w, from one snapshot; report the work as
 *		op in widecolumn.progress.
 *
 * For Bigtable (millis), Bigtable keeps timestamps in milliseconds and
 * refuses a timestamp_micros that is not a multiple of 1000, so each
 * version's timestamp is rounded down to its millisecond; of two versions
 * of one cell in one millisecond the newer is kept, as Bigtable keeps the
 * last write (docs/format.md, "Timestamps").  A backup keeps microseconds,
 * every version as it is.  The scan gives a cell's versions newest first.
 * Returns the versions written; *merged says how many were left out.
 */
uint64
wc_avro_export_table(WcTable *t, bytea *prefix, WcAvroWriter *w, bool millis,
					 WcProgressOp op, uint64 *merged)
{
	List	   *ranges = prefix_ranges(t, prefix);
	WcScanRequest req;
	uint32		db,
				snapshot,
				scan;
	WcBatchReader batch;
	bool		have_batch = false;
	uint64		versions = 0;
	CellName	last;			/* of the last version written */
	int64		last_ms = -1;

	/* a version the commit will stamp has no timestamp to export yet */
	if (wc_txn_table(t, false) != NULL || wc_cells_written(t) ||
		wc_rowdrop_ranges(t, wc_txn_horizon(), ranges) != ranges)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot export stored table \"%s\" after this transaction wrote to it",
						t->table),
				 errdetail("An export holds committed versions with their timestamps; this transaction's writes have none yet."),
				 errhint("Commit the writes first.")));
	initStringInfo(&last.buf);
	last.key_len = last.family_len = 0;
	*merged = 0;
	db = wc_client_open_db(t);
	wc_progress_begin(op, t->table, WC_UNIT_VERSIONS_EXPORTED, false, 0);
	snapshot = wc_client_snapshot_acquire(db);
	memset(&req, 0, sizeof(req));
	req.snapshot = snapshot;
	req.flags = WC_SCAN_CELLS | WC_SCAN_BULK;
	req.as_of = wc_as_of_for_read();
	if (t->engine == WC_ENGINE_BIGTABLE)
	{
		bool		at_start;

		req.as_of = wc_bigtable_read_time(req.as_of, &at_start);
		if (at_start)
			req.flags |= WC_SCAN_AS_OF_START;
	}
	req.ts_min = 0;
	req.ts_max = (uint64) PG_INT64_MAX;
	req.fams = palloc(sizeof(WcBytes));
	req.quals = wc_client_wire_ranges(NIL);
	scan = wc_client_scan_request(db, &req, ranges, GetCurrentSubTransactionId());
	for (;;)
	{
		WcBatchRow	row;
		WcBytes		cells[3];
		uint64		ts;

		if (!have_batch || batch.rows_left == 0)
		{
			CHECK_FOR_INTERRUPTS();
			wc_progress_done(WC_UNIT_VERSIONS_EXPORTED, versions);
			wc_progress_tick();
			if ((have_batch && batch.done) || !wc_client_scan_next_batch(scan, &batch))
				break;
			have_batch = true;
			continue;
		}
		batch.rows_left--;
		if (!wc_read_batch_row(&batch.r, &row) || row.ncells != 3)
			malformed_batch();
		for (int i = 0; i < 3; i++)
		{
			uint16		idx;

			if (!wc_read_batch_cell(&batch.r, &idx, &cells[i]) || idx != i)
				malformed_batch();
		}
		if (!wc_read_batch_version(&batch.r, &ts))
			malformed_batch();
		if (row.key.len == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("stored table \"%s\" holds a row with an empty row key", t->table),
					 errdetail("Bigtable refuses empty row keys, so its import would reject the file."),
					 errhint("Delete the row (DELETE ... WHERE rowkey = '') or copy its cells to another key first.")));
		if (millis)
		{
			if (last_ms >= 0 && same_cell(&last, &row.key, &cells[0], &cells[1]) &&
				(int64) (ts / 1000) == last_ms)
			{
				(*merged)++;
				continue;
			}
			remember_cell(&last, &row.key, &cells[0], &cells[1]);
			last_ms = (int64) (ts / 1000);
			ts = (uint64) last_ms * 1000;
		}
		wc_avro_write_cell(w, row.key.data, row.key.len, cells[0].data, cells[0].len,
						   cells[1].data, cells[1].len, (int64) ts,
						   cells[2].data, cells[2].len);
		versions++;
	}
	wc_client_scan_end(scan);
	wc_client_snapshot_release(snapshot);
	wc_progress_end();
	return versions;
}

/* Say how many versions sharing a millisecond with a newer one were left out. */
static void
report_merged(WcTable *t, uint64 merged)
{
	if (merged > 0)
		ereport(NOTICE,
				(errmsg_plural("%llu version of stored table \"%s\" was merged into a newer version of the same millisecond",
							   "%llu versions of stored table \"%s\" were merged into a newer version of the same millisecond",
							   merged, (unsigned long long) merged, t->table),
				 errdetail("Bigtable keeps timestamps in milliseconds; of the versions of a cell in one millisecond the export keeps the newest.")));
}

static bytea *
prefix_arg(FunctionCallInfo fcinfo, int n)
{
	return PG_ARGISNULL(n) ? NULL : PG_GETARG_BYTEA_PP(n);
}

static const char *
codec_arg(FunctionCallInfo fcinfo, int n)
{
	const char *codec;

	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"codec\" must not be null")));
	codec = text_to_cstring(PG_GETARG_TEXT_PP(n));
	if (!wc_avro_codec_ok(codec))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unsupported Avro codec \"%s\"", codec),
				 errhint("Use null, deflate or snappy.")));
	return codec;
}

/* A server file's path: COPY's checks. */
static char *
path_arg(FunctionCallInfo fcinfo, Oid role, bool write)
{
	char	   *path;

	if (!has_privs_of_role(GetUserId(), role))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 write ?
				 errmsg("must be superuser or have privileges of the pg_write_server_files role to export to a file") :
				 errmsg("must be superuser or have privileges of the pg_read_server_files role to import from a file"),
				 errhint("Anyone with the table privilege can use the variant with a large object, which psql moves with \\lo_export and \\lo_import.")));
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"path\" must not be null")));
	path = text_to_cstring(PG_GETARG_TEXT_PP(1));
	if (!is_absolute_path(path))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("relative path not allowed for an Avro file")));
	return path;
}

/*
 * widecolumn.export_avro(t regclass, path text, prefix text DEFAULT NULL,
 *						  codec text DEFAULT 'deflate') RETURNS bigint
 *
 * Never overwrites a file; a failed export removes the file it made.
 */
Datum
wc_export_avro(PG_FUNCTION_ARGS)
{
	char	   *path = path_arg(fcinfo, ROLE_PG_WRITE_SERVER_FILES, true);
	bytea	   *prefix = prefix_arg(fcinfo, 2);
	const char *codec = codec_arg(fcinfo, 3);
	WcTable    *t = wc_table_arg(fcinfo, ACL_SELECT);
	FILE	   *volatile fp;
	WcAvroWriter *volatile w = NULL;
	uint64		rows = 0;
	uint64		merged = 0;
	mode_t		oumask;

	/* as COPY TO: no group or other write permission */
	oumask = umask(S_IWGRP | S_IWOTH);
	PG_TRY();
	{
		fp = AllocateFile(path, PG_BINARY_W "x");
	}
	PG_FINALLY();
	{
		umask(oumask);
	}
	PG_END_TRY();
	if (fp == NULL)
	{
		bool		exists = errno == EEXIST;

		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", path),
				 exists ? errhint("An export never overwrites a file: remove it, or name another.") : 0));
	}
	PG_TRY();
	{
		w = wc_avro_writer_begin(fp, codec, path);
		(void) wc_avro_export_table(t, prefix, w, true, WC_PROGRESS_EXPORT_AVRO, &merged);
		rows = wc_avro_writer_finish(w);
		w = NULL;
		if (fflush(fp) != 0 || ferror(fp) || pg_fsync(fileno(fp)) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not write file \"%s\": %m", path)));
		if (FreeFile(fp) != 0)
		{
			fp = NULL;
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not close file \"%s\": %m", path)));
		}
		fp = NULL;
	}
	PG_CATCH();
	{
		if (w != NULL)
			wc_avro_writer_abandon(w);
		if (fp != NULL)
			FreeFile(fp);
		unlink(path);
		PG_RE_THROW();
	}
	PG_END_TRY();
	report_merged(t, merged);
	PG_RETURN_INT64((int64) rows);
}

/*
 * widecolumn.export_avro_lo(t regclass, prefix text DEFAULT NULL,
 *						  codec text DEFAULT 'deflate') RETURNS oid
 *
 * The file in a new large object, for a user who may not write server
 * files.
 */
Datum
wc_export_avro_lo(PG_FUNCTION_ARGS)
{
	bytea	   *prefix = prefix_arg(fcinfo, 1);
	const char *codec = codec_arg(fcinfo, 2);
	WcTable    *t = wc_table_arg(fcinfo, ACL_SELECT);
	char	   *volatile buf = NULL;
	size_t		size = 0;
	FILE	   *volatile fp;
	WcAvroWriter *volatile w = NULL;
	bytea	   *data;
	uint64		merged = 0;

	fp = open_memstream((char **) &buf, &size);
	if (fp == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	PG_TRY();
	{
		w = wc_avro_writer_begin(fp, codec, "large object");
		(void) wc_avro_export_table(t, prefix, w, true, WC_PROGRESS_EXPORT_AVRO, &merged);
		(void) wc_avro_writer_finish(w);
		w = NULL;
	}
	PG_CATCH();
	{
		if (w != NULL)
			wc_avro_writer_abandon(w);
		fclose(fp);
		free(buf);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (fclose(fp) != 0 || size > MaxAllocSize - VARHDRSZ)
	{
		free(buf);
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("Avro file of stored table \"%s\" is too large for a large object made in memory",
						t->table),
				 errdetail("A file exported into a large object is at most 1 GB."),
				 errhint("Export into a server file, or a prefix at a time.")));
	}
	data = palloc(VARHDRSZ + size);
	SET_VARSIZE(data, VARHDRSZ + size);
	memcpy(VARDATA(data), buf, size);
	free(buf);
	report_merged(t, merged);
	return DirectFunctionCall2(be_lo_from_bytea, ObjectIdGetDatum(InvalidOid),
							   PointerGetDatum(data));
}

/* Where in the file an import is, for an error's context. */
typedef struct WcImportPlace
{
	const char *name;
	WcAvroReader *r;
} WcImportPlace;

static void
import_error_context(void *arg)
{
	WcImportPlace *pl = arg;
	uint64		row,
				block,
				offset;

	if (pl->r == NULL)
		return;
	wc_avro_reader_position(pl->r, &row, &block, &offset);
	if (row != 0)
		errcontext("Avro file \"%s\", row " UINT64_FORMAT " (block " UINT64_FORMAT " at byte " UINT64_FORMAT ")",
				   pl->name, row, block, offset);
}

/*
 * An import's family+qualifier being built: the family's escaped form
 * stays in it while the file's cells name the same family, as a row's
 * cells mostly do.
 */
typedef struct WcImportKey
{
	StringInfoData family;		/* the family of the cell before, as in the file */
	StringInfoData famqual;		/* its escaped form, then the qualifier's */
	size_t		family_len;		/* the escaped family's bytes in famqual */
} WcImportKey;

/* Check a version of the file against what the stored table takes, and log it. */
static void
import_cell(const WcCellsRow *row, const WcAvroCell *c, WcImportKey *k, size_t *row_bytes)
{
	if (k->family_len == 0 || (size_t) k->family.len != c->family_len ||
		memcmp(k->family.data, c->family, c->family_len) != 0)
	{
		if (!wc_valid_family(c->family, c->family_len))
			ereport(ERROR,
					(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
					 errmsg("invalid column family name \"%s\"",
							pnstrdup(c->family, c->family_len)),
					 errdetail("A family name may contain only letters, digits, \"_\", \"-\" and \".\", and may not be empty.")));
		resetStringInfo(&k->family);
		appendBinaryStringInfo(&k->family, c->family, c->family_len);
		resetStringInfo(&k->famqual);
		enlargeStringInfo(&k->famqual, WC_ESCAPED_MAX(c->family_len));
		k->family_len = wc_escape((const uint8 *) c->family, c->family_len,
								  (uint8 *) k->famqual.data);
	}
	if (c->qualifier_len > WC_MAX_QUALIFIER)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("qualifier is too long"),
				 errdetail("The qualifier is %zu bytes; the limit is %d.",
						   c->qualifier_len, WC_MAX_QUALIFIER)));
	if (c->value_len > WC_MAX_VALUE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cell value is too long"),
				 errdetail("The value is %zu bytes; the limit is %d.",
						   c->value_len, WC_MAX_VALUE)));
	if (c->ts < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp out of range for a cell version"),
				 errdetail("The timestamp is " INT64_FORMAT " µs; a version's timestamp is a time from 1970-01-01 00:00:00 UTC on.",
						   c->ts)));
	*row_bytes += c->qualifier_len + c->value_len;
	if (*row_bytes > WC_MAX_ROW)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row is too large"),
				 errdetail("The row's cells hold more than %d bytes, the most a commit writes to a row.",
						   WC_MAX_ROW)));
	k->famqual.len = k->family_len;
	enlargeStringInfo(&k->famqual, WC_ESCAPED_MAX(c->qualifier_len));
	k->famqual.len += wc_escape(c->qualifier, c->qualifier_len,
								(uint8 *) k->famqual.data + k->family_len);
	wc_cells_put_at(row, (uint8 *) k->famqual.data, k->famqual.len, (uint64) c->ts,
					c->value, c->value_len);
}

/* The size of an open file, for the progress of its import (0: unknown). */
uint64
wc_avro_file_size(FILE *fp)
{
	struct stat st;

	return fstat(fileno(fp), &st) == 0 && st.st_size > 0 ? (uint64) st.st_size : 0;
}

/*
 * wc_avro_import_file
 *		Log every version of the file fp holds, reporting the work as op in
 *		widecolumn.progress; returns its rows, and *versions its versions.
 */
uint64
wc_avro_import_file(WcTable *t, FILE *fp, const char *name, uint64 file_bytes,
					WcProgressOp op, uint64 *versions)
{
	WcImportPlace place = {name, NULL};
	ErrorContextCallback errcb;
	WcAvroReader *volatile r = NULL;
	MemoryContext row_cxt;
	WcImportKey fq;
	volatile uint64 rows = 0;
	volatile uint64 cells = 0;

	PreventCommandIfReadOnly(op == WC_PROGRESS_RESTORE ? "widecolumn.restore()" :
							 "widecolumn.import_avro()");
	wc_as_of_forbid(false);
	row_cxt = AllocSetContextCreate(CurrentMemoryContext, "widecolumn_fdw import row",
									ALLOCSET_DEFAULT_SIZES);
	initStringInfo(&fq.family);
	initStringInfo(&fq.famqual);
	fq.family_len = 0;
	errcb.callback = import_error_context;
	errcb.arg = &place;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	PG_TRY();
	{
		const uint8 *key;
		size_t		keylen;
		int			ncells;
		WcCellsRow	row;

		wc_progress_begin(op, t->table, WC_UNIT_FILE_BYTES, true, file_bytes);
		r = place.r = wc_avro_reader_begin(fp, name);
		while (wc_avro_next_row(r, &key, &keylen, &ncells))
		{
			MemoryContext old = MemoryContextSwitchTo(row_cxt);
			size_t		row_bytes = 0;

			CHECK_FOR_INTERRUPTS();
			if (keylen > WC_MAX_ROWKEY)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("row key is too long"),
						 errdetail("The row key is %zu bytes; the limit is %d.",
								   keylen, WC_MAX_ROWKEY)));
			if (ncells > 0)
			{
				wc_rowkey_check_write(t, keylen);
				wc_cells_begin_row(&row, t, key, keylen);
			}
			for (int i = 0; i < ncells; i++)
			{
				WcAvroCell	c;

				wc_avro_row_cell(r, i, &c);
				import_cell(&row, &c, &fq, &row_bytes);
			}
			cells += ncells;
			MemoryContextSwitchTo(old);
			MemoryContextReset(row_cxt);
			/* this session works alone: it says how far it is itself */
			if (++rows % 1024 == 0)
			{
				long		at = ftell(fp);

				wc_progress_done(WC_UNIT_FILE_BYTES, at > 0 ? (uint64) at : 0);
				wc_progress_tick();
			}
		}
		place.r = NULL;
		wc_avro_reader_end(r);
		wc_progress_done(WC_UNIT_FILE_BYTES, file_bytes);
		wc_progress_tick();
		wc_progress_end();
	}
	PG_CATCH();
	{
		if (r != NULL)
			wc_avro_reader_end(r);
		PG_RE_THROW();
	}
	PG_END_TRY();
	error_context_stack = errcb.previous;
	MemoryContextDelete(row_cxt);
	*versions = cells;
	return rows;
}

/*
 * widecolumn.import_avro(t regclass, path text) RETURNS bigint
 */
Datum
wc_import_avro(PG_FUNCTION_ARGS)
{
	char	   *path = path_arg(fcinfo, ROLE_PG_READ_SERVER_FILES, false);
	WcTable    *t = wc_table_arg(fcinfo, ACL_INSERT);
	FILE	   *fp;
	uint64		rows;
	uint64		versions;

	fp = AllocateFile(path, PG_BINARY_R);
	if (fp == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\" for reading: %m", path)));
	rows = wc_avro_import_file(t, fp, path, wc_avro_file_size(fp), WC_PROGRESS_IMPORT_AVRO, &versions);
	FreeFile(fp);
	PG_RETURN_INT64((int64) rows);
}

/*
 * widecolumn.import_avro_lo(t regclass, lo oid) RETURNS bigint
 */
Datum
wc_import_avro_lo(PG_FUNCTION_ARGS)
{
	WcTable    *t = wc_table_arg(fcinfo, ACL_INSERT);
	bytea	   *data;
	FILE	   *volatile fp;
	uint64		rows = 0;
	uint64		versions;
	char		name[64];

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"lo\" must not be null")));
	/* lo_get checks the privilege to read it */
	data = DatumGetByteaPP(DirectFunctionCall1(be_lo_get, PG_GETARG_DATUM(1)));
	snprintf(name, sizeof(name), "large object %u", PG_GETARG_OID(1));
	fp = fmemopen(VARDATA_ANY(data), VARSIZE_ANY_EXHDR(data), "rb");
	if (fp == NULL)
		elog(ERROR, "could not open memory as a file: %m");
	PG_TRY();
	{
		rows = wc_avro_import_file(t, fp, name, VARSIZE_ANY_EXHDR(data),
								   WC_PROGRESS_IMPORT_AVRO, &versions);
	}
	PG_FINALLY();
	{
		fclose(fp);
	}
	PG_END_TRY();
	PG_RETURN_INT64((int64) rows);
}
