/*-------------------------------------------------------------------------
 *
 * avrofile.c
 *	  Writing and reading Avro object container files of Bigtable's schema
 *	  with Apache Avro's C library; the only file that includes <avro.h>.
 *
 * Writing is the library's file writer, given a FILE the caller opened
 * (so that it never overwrites a file) and keeps (so that it sees the
 * errors of the last write and of fclose, which the library ignores).
 * The library fails a row larger than its block buffer, so the buffer is
 * as large as the largest row a commit can write, in address space only:
 * blocks are ended here every WC_AVRO_BLOCK bytes, so only that much of
 * it (and the largest row) is ever touched.
 *
 * Reading walks the container's framing itself (the header, and each
 * block's row count, length and sync marker) and hands the library one
 * block at a time, as a file of the header and that block in memory: the
 * library's file reader ignores a block it cannot read or decompress and
 * reports the end of the file and a damaged block alike, so on its own it
 * cannot tell a truncated or corrupt file from a whole one, nor say where
 * the damage is, nor read a file of no rows.  The rows themselves, the
 * schema and the codecs are the library's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <avro.h>
#include <limits.h>

#include "common/keycodec.h"
#include "fdw/avrofile.h"
#include "lib/stringinfo.h"
#include "utils/memutils.h"

/* Bigtable's schema, as the Dataflow templates have it. */
static const char wc_avro_schema_json[] =
"{\"type\":\"record\",\"name\":\"BigtableRow\","
"\"namespace\":\"com.google.cloud.teleport.bigtable\",\"fields\":["
"{\"name\":\"key\",\"type\":\"bytes\"},"
"{\"name\":\"cells\",\"type\":{\"type\":\"array\",\"items\":"
"{\"type\":\"record\",\"name\":\"BigtableCell\",\"fields\":["
"{\"name\":\"family\",\"type\":\"string\"},"
"{\"name\":\"qualifier\",\"type\":\"bytes\"},"
"{\"name\":\"timestamp\",\"type\":\"long\"},"
"{\"name\":\"value\",\"type\":\"bytes\"}]}}}]}";

/* The uncompressed bytes of rows after which a block ends. */
#define WC_AVRO_BLOCK		(1024 * 1024)
/* The library's block buffer: the largest row it can write. */
#define WC_AVRO_BUFFER		((size_t) WC_MAX_ROW + 16 * 1024 * 1024)
/* The largest header entry and block a file may have. */
#define WC_AVRO_MAX_META	(64 * 1024 * 1024)
#define WC_AVRO_MAX_BLOCK	((int64) 2 * 1024 * 1024 * 1024)

#define WC_AVRO_SYNC		16

struct WcAvroWriter
{
	FILE	   *fp;
	const char *name;
	avro_schema_t schema;
	avro_value_iface_t *iface;
	avro_value_t row;
	avro_value_t cells;
	avro_file_writer_t fw;
	bool		in_row;
	StringInfoData key;			/* of the row being built */
	StringInfoData family;		/* NUL-terminated, as the library wants it */
	size_t		row_bytes;
	size_t		block_bytes;
	uint64		rows;
};

struct WcAvroReader
{
	FILE	   *fp;
	const char *name;
	StringInfoData header;		/* its bytes, which go before each block */
	char		sync[WC_AVRO_SYNC];
	avro_schema_t schema;
	avro_value_iface_t *iface;
	avro_value_t row;
	bool		have_row;
	int			key_idx,
				cells_idx,
				fam_idx,
				qual_idx,
				ts_idx,
				val_idx;
	char	   *block;			/* the header and one block, for the library */
	FILE	   *bfp;
	avro_file_reader_t br;
	int64		left;			/* rows of the block not yet read */
	uint64		offset;			/* of the next byte of fp */
	uint64		block_offset;
	uint64		blocks;
	uint64		rows;
	bool		in_row;			/* a row was read and is being written */
};

bool
wc_avro_codec_ok(const char *codec)
{
	return strcmp(codec, "null") == 0 || strcmp(codec, "deflate") == 0 ||
		strcmp(codec, "snappy") == 0;
}

static pg_attribute_noreturn() void
avro_failed(const char *name)
{
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("could not write Avro file \"%s\"", name),
			 errdetail("Apache Avro's C library said: %s", avro_strerror())));
}

static avro_schema_t
bigtable_schema(void)
{
	avro_schema_t s;

	if (avro_schema_from_json_length(wc_avro_schema_json, strlen(wc_avro_schema_json), &s) != 0)
		elog(ERROR, "could not parse the Avro schema of Bigtable rows: %s", avro_strerror());
	return s;
}

/*
 * wc_avro_writer_begin
 *		Start a file of Bigtable rows in fp, which stays the caller's.
 */
WcAvroWriter *
wc_avro_writer_begin(FILE *fp, const char *codec, const char *name)
{
	WcAvroWriter *w = palloc0(sizeof(WcAvroWriter));

	w->fp = fp;
	w->name = name;
	initStringInfo(&w->key);
	initStringInfo(&w->family);
	w->schema = bigtable_schema();
	w->iface = avro_generic_class_from_schema(w->schema);
	if (w->iface == NULL || avro_generic_value_new(w->iface, &w->row) != 0)
		avro_failed(name);
	if (avro_value_get_by_index(&w->row, 1, &w->cells, NULL) != 0)
		avro_failed(name);
	if (avro_file_writer_create_with_codec_fp(fp, name, 0, w->schema, &w->fw, codec,
											  WC_AVRO_BUFFER) != 0)
	{
		w->fw = NULL;
		avro_failed(name);
	}
	return w;
}

static void
end_row(WcAvroWriter *w)
{
	avro_value_t key;

	if (!w->in_row)
		return;
	if (avro_value_get_by_index(&w->row, 0, &key, NULL) != 0 ||
		avro_value_set_bytes(&key, w->key.data, w->key.len) != 0 ||
		avro_file_writer_append_value(w->fw, &w->row) != 0)
		avro_failed(w->name);
	avro_value_reset(&w->row);
	w->in_row = false;
	w->rows++;
	w->block_bytes += w->row_bytes;
	if (w->block_bytes >= WC_AVRO_BLOCK)
	{
		if (avro_file_writer_sync(w->fw) != 0)
			avro_failed(w->name);
		w->block_bytes = 0;
	}
}

/*
 * wc_avro_write_cell
 *		Add a cell version to the file: to the row being built if it has
 *		that key, else to a new row.  Versions come in row-key order.
 */
void
wc_avro_write_cell(WcAvroWriter *w, const uint8 *key, size_t keylen,
				   const uint8 *family, size_t flen, const uint8 *qualifier, size_t qlen,
				   int64 ts, const uint8 *value, size_t vlen)
{
	avro_value_t cell,
				f;

	if (w->in_row && (keylen != (size_t) w->key.len || memcmp(key, w->key.data, keylen) != 0))
		end_row(w);
	if (!w->in_row)
	{
		resetStringInfo(&w->key);
		appendBinaryStringInfo(&w->key, (const char *) key, keylen);
		w->in_row = true;
		w->row_bytes = keylen;
	}
	resetStringInfo(&w->family);
	appendBinaryStringInfo(&w->family, (const char *) family, flen);
	if (avro_value_append(&w->cells, &cell, NULL) != 0 ||
		avro_value_get_by_index(&cell, 0, &f, NULL) != 0 ||
		avro_value_set_string_len(&f, w->family.data, flen + 1) != 0 ||
		avro_value_get_by_index(&cell, 1, &f, NULL) != 0 ||
		avro_value_set_bytes(&f, (void *) qualifier, qlen) != 0 ||
		avro_value_get_by_index(&cell, 2, &f, NULL) != 0 ||
		avro_value_set_long(&f, ts) != 0 ||
		avro_value_get_by_index(&cell, 3, &f, NULL) != 0 ||
		avro_value_set_bytes(&f, (void *) value, vlen) != 0)
		avro_failed(w->name);
	w->row_bytes += flen + qlen + vlen + 16;
}

static void
writer_free(WcAvroWriter *w)
{
	if (w->fw != NULL)
		avro_file_writer_close(w->fw);
	w->fw = NULL;
	if (w->iface != NULL)
	{
		avro_value_decref(&w->row);
		avro_value_iface_decref(w->iface);
		avro_schema_decref(w->schema);
	}
	w->iface = NULL;
}

/*
 * wc_avro_writer_finish
 *		Write the last row and the last block; returns the rows written.
 *		The caller flushes and closes the FILE and checks that it could.
 */
uint64
wc_avro_writer_finish(WcAvroWriter *w)
{
	end_row(w);
	if (avro_file_writer_flush(w->fw) != 0)
		avro_failed(w->name);
	writer_free(w);
	return w->rows;
}

/* Free the library's part of a file that failed (the caller removes it). */
void
wc_avro_writer_abandon(WcAvroWriter *w)
{
	writer_free(w);
}

/* Reading. */

static pg_attribute_noreturn() void
truncated(WcAvroReader *r)
{
	ereport(ERROR,
			(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
			 errmsg("Avro file \"%s\" is truncated", r->name),
			 errdetail("The file ends at byte " UINT64_FORMAT ", inside %s.", r->offset,
					   r->blocks == 0 ? "its header" : "a block")));
}

static pg_attribute_noreturn() void
bad_framing(WcAvroReader *r, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
			 errmsg("Avro file \"%s\" is corrupt", r->name),
			 errdetail("Byte " UINT64_FORMAT " does not hold %s.", r->offset, what)));
}

/* Read n bytes of the file into out; false at its end if none are left. */
static bool
take(WcAvroReader *r, void *out, size_t n, bool end_ok)
{
	size_t		got = fread(out, 1, n, r->fp);

	if (ferror(r->fp))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read Avro file \"%s\": %m", r->name)));
	r->offset += got;
	if (got == 0 && end_ok)
		return false;
	if (got < n)
		truncated(r);
	return true;
}

/* A zig-zag varint long, its bytes appended to raw. */
static bool
take_long(WcAvroReader *r, StringInfo raw, int64 *out, bool end_ok)
{
	uint64		u = 0;

	for (int shift = 0; shift < 64; shift += 7)
	{
		uint8		b;

		if (!take(r, &b, 1, end_ok && shift == 0))
			return false;
		appendStringInfoChar(raw, (char) b);
		u |= (uint64) (b & 0x7f) << shift;
		if ((b & 0x80) == 0)
		{
			*out = (int64) (u >> 1) ^ -(int64) (u & 1);
			return true;
		}
	}
	bad_framing(r, "a valid number");
}

/* Bytes of the header (a length, then that many), appended to raw. */
static char *
take_bytes(WcAvroReader *r, StringInfo raw, int64 *len)
{
	char	   *p;

	take_long(r, raw, len, false);
	if (*len < 0 || *len > WC_AVRO_MAX_META)
		bad_framing(r, "a valid length");
	p = palloc(*len + 1);
	take(r, p, *len, false);
	p[*len] = '\0';
	appendBinaryStringInfo(raw, p, *len);
	return p;
}

static bool
is_type(avro_schema_t s, avro_type_t t)
{
	return s != NULL && avro_typeof(s) == t;
}

/* Index of field name of record s if it has type t, else -1. */
static int
field_of(avro_schema_t s, const char *name, avro_type_t t)
{
	int			i = avro_schema_record_field_get_index(s, name);

	if (i < 0 || !is_type(avro_schema_record_field_get_by_index(s, i), t))
		return -1;
	return i;
}

/* Does the file's schema have Bigtable's fields (namespace, docs aside)? */
static bool
check_schema(WcAvroReader *r)
{
	avro_schema_t s = r->schema;
	avro_schema_t cells,
				cell;

	if (!is_type(s, AVRO_RECORD) || avro_schema_record_size(s) != 2 ||
		strcmp(avro_schema_name(s), "BigtableRow") != 0)
		return false;
	r->key_idx = field_of(s, "key", AVRO_BYTES);
	r->cells_idx = field_of(s, "cells", AVRO_ARRAY);
	if (r->key_idx < 0 || r->cells_idx < 0)
		return false;
	cells = avro_schema_record_field_get_by_index(s, r->cells_idx);
	cell = avro_schema_array_items(cells);
	if (!is_type(cell, AVRO_RECORD) || avro_schema_record_size(cell) != 4 ||
		strcmp(avro_schema_name(cell), "BigtableCell") != 0)
		return false;
	r->fam_idx = field_of(cell, "family", AVRO_STRING);
	r->qual_idx = field_of(cell, "qualifier", AVRO_BYTES);
	r->ts_idx = field_of(cell, "timestamp", AVRO_INT64);
	r->val_idx = field_of(cell, "value", AVRO_BYTES);
	return r->fam_idx >= 0 && r->qual_idx >= 0 && r->ts_idx >= 0 && r->val_idx >= 0;
}

/*
 * wc_avro_reader_begin
 *		Read the header of the file fp holds and check its schema and codec.
 */
WcAvroReader *
wc_avro_reader_begin(FILE *fp, const char *name)
{
	WcAvroReader *r = palloc0(sizeof(WcAvroReader));
	char		magic[4];
	char	   *schema = NULL;
	int64		schema_len = 0;
	char	   *codec = "null";
	int64		n,
				len;

	r->fp = fp;
	r->name = name;
	initStringInfo(&r->header);
	if (!take(r, magic, 4, true) || memcmp(magic, "Obj\x01", 4) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("file \"%s\" is not an Avro object container file", name),
				 errdetail("An Avro file begins with the bytes \"Obj\" and 1.")));
	appendBinaryStringInfo(&r->header, magic, 4);
	/* the metadata: a map of bytes, in blocks of entries */
	while (take_long(r, &r->header, &n, false) && n != 0)
	{
		if (n < 0)
		{
			n = -n;
			take_long(r, &r->header, &len, false);	/* the block's bytes */
		}
		for (int64 i = 0; i < n; i++)
		{
			char	   *k = take_bytes(r, &r->header, &len);
			int64		vlen;
			char	   *v = take_bytes(r, &r->header, &vlen);

			if (strcmp(k, "avro.schema") == 0)
			{
				schema = v;
				schema_len = vlen;
			}
			else if (strcmp(k, "avro.codec") == 0)
				codec = v;
		}
	}
	take(r, r->sync, WC_AVRO_SYNC, false);
	appendBinaryStringInfo(&r->header, r->sync, WC_AVRO_SYNC);

	if (schema == NULL ||
		avro_schema_from_json_length(schema, schema_len, &r->schema) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("Avro file \"%s\" has no valid schema", name),
				 errdetail("Apache Avro's C library said: %s", avro_strerror())));
	if (!check_schema(r))
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("Avro file \"%s\" does not hold Bigtable rows", name),
				 errdetail("Its schema is %s.", schema),
				 errhint("The schema must be record BigtableRow {key: bytes, cells: array of record BigtableCell {family: string, qualifier: bytes, timestamp: long, value: bytes}}, as Bigtable's Dataflow templates write it.")));
	if (!wc_avro_codec_ok(codec))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("Avro file \"%s\" uses codec \"%s\"", name, codec),
				 errdetail("The codecs supported are null, deflate and snappy.")));
	r->iface = avro_generic_class_from_schema(r->schema);
	if (r->iface == NULL || avro_generic_value_new(r->iface, &r->row) != 0)
		elog(ERROR, "could not make an Avro value: %s", avro_strerror());
	r->have_row = true;
	return r;
}

static void
close_block(WcAvroReader *r)
{
	if (r->br != NULL)
		avro_file_reader_close(r->br);
	r->br = NULL;
	if (r->bfp != NULL)
		fclose(r->bfp);
	r->bfp = NULL;
	if (r->block != NULL)
		pfree(r->block);
	r->block = NULL;
}

/*
 * next_block
 *		Read the next block, check its sync marker and open it with the
 *		library as a file of the header and that block; false at the end.
 */
static bool
next_block(WcAvroReader *r)
{
	StringInfoData raw;
	int64		count,
				size;
	size_t		total;
	char	   *p;
	char		sync[WC_AVRO_SYNC];

	close_block(r);
	initStringInfo(&raw);
	r->block_offset = r->offset;
	if (!take_long(r, &raw, &count, true))
		return false;
	r->blocks++;
	if (count <= 0)
		bad_framing(r, "a block's count of rows");
	take_long(r, &raw, &size, false);
	if (size < 0 || size > WC_AVRO_MAX_BLOCK)
		bad_framing(r, "a block's length");
	total = r->header.len + raw.len + size + WC_AVRO_SYNC;
	r->block = p = MemoryContextAllocHuge(CurrentMemoryContext, total);
	memcpy(p, r->header.data, r->header.len);
	memcpy(p + r->header.len, raw.data, raw.len);
	take(r, p + r->header.len + raw.len, size, false);
	take(r, sync, WC_AVRO_SYNC, false);
	if (memcmp(sync, r->sync, WC_AVRO_SYNC) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("Avro file \"%s\" is corrupt", r->name),
				 errdetail("Block " UINT64_FORMAT ", at byte " UINT64_FORMAT ", does not end with the file's sync marker.",
						   r->blocks, r->block_offset)));
	memcpy(p + total - WC_AVRO_SYNC, sync, WC_AVRO_SYNC);
	r->bfp = fmemopen(p, total, "rb");
	if (r->bfp == NULL)
		elog(ERROR, "could not open memory as a file: %m");
	if (avro_file_reader_fp(r->bfp, r->name, 0, &r->br) != 0)
	{
		r->br = NULL;
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("Avro file \"%s\" is corrupt", r->name),
				 errdetail("Block " UINT64_FORMAT ", at byte " UINT64_FORMAT ", cannot be read: %s",
						   r->blocks, r->block_offset, avro_strerror())));
	}
	r->left = count;
	return true;
}

/*
 * wc_avro_next_row
 *		The next row of the file, false at its end: its key and how many
 *		cells it has (wc_avro_row_cell gives them).
 */
bool
wc_avro_next_row(WcAvroReader *r, const uint8 **key, size_t *keylen, int *ncells)
{
	avro_value_t v;
	const void *p;
	size_t		n;

	r->in_row = false;
	while (r->left == 0)
		if (!next_block(r))
			return false;
	r->rows++;
	r->left--;
	avro_value_reset(&r->row);
	if (avro_file_reader_read_value(r->br, &r->row) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("Avro file \"%s\" is corrupt", r->name),
				 errdetail("Row " UINT64_FORMAT ", in block " UINT64_FORMAT " at byte " UINT64_FORMAT ", cannot be read: %s",
						   r->rows, r->blocks, r->block_offset, avro_strerror())));
	if (avro_value_get_by_index(&r->row, r->key_idx, &v, NULL) != 0 ||
		avro_value_get_bytes(&v, &p, &n) != 0 ||
		avro_value_get_by_index(&r->row, r->cells_idx, &v, NULL) != 0)
		elog(ERROR, "could not read an Avro row: %s", avro_strerror());
	r->in_row = true;
	*key = p;
	*keylen = n;
	if (avro_value_get_size(&v, &n) != 0)
		elog(ERROR, "could not read an Avro row: %s", avro_strerror());
	if (n > INT_MAX)
		bad_framing(r, "a row of at most 2^31 cells");
	*ncells = (int) n;
	return true;
}

/* Cell i of the row wc_avro_next_row returned. */
void
wc_avro_row_cell(WcAvroReader *r, int i, WcAvroCell *cell)
{
	avro_value_t cells,
				c,
				f;
	const void *p;
	const char *s;
	size_t		n;

	if (avro_value_get_by_index(&r->row, r->cells_idx, &cells, NULL) != 0 ||
		avro_value_get_by_index(&cells, i, &c, NULL) != 0 ||
		avro_value_get_by_index(&c, r->fam_idx, &f, NULL) != 0 ||
		avro_value_get_string(&f, &s, &n) != 0)
		elog(ERROR, "could not read an Avro cell: %s", avro_strerror());
	cell->family = s;
	cell->family_len = n > 0 ? n - 1 : 0;	/* the library counts the NUL */
	if (avro_value_get_by_index(&c, r->qual_idx, &f, NULL) != 0 ||
		avro_value_get_bytes(&f, &p, &n) != 0)
		elog(ERROR, "could not read an Avro cell: %s", avro_strerror());
	cell->qualifier = p;
	cell->qualifier_len = n;
	if (avro_value_get_by_index(&c, r->ts_idx, &f, NULL) != 0 ||
		avro_value_get_long(&f, &cell->ts) != 0 ||
		avro_value_get_by_index(&c, r->val_idx, &f, NULL) != 0 ||
		avro_value_get_bytes(&f, &p, &n) != 0)
		elog(ERROR, "could not read an Avro cell: %s", avro_strerror());
	cell->value = p;
	cell->value_len = n;
}

/* Free what the library holds; on error too. */
void
wc_avro_reader_end(WcAvroReader *r)
{
	close_block(r);
	if (r->have_row)
	{
		avro_value_decref(&r->row);
		avro_value_iface_decref(r->iface);
	}
	r->have_row = false;
	if (r->schema != NULL)
		avro_schema_decref(r->schema);
	r->schema = NULL;
}

/*
 * Where the reader is: the row it returned last (from 1; 0: none, or it
 * is past it), its block and the block's byte.
 */
void
wc_avro_reader_position(WcAvroReader *r, uint64 *row, uint64 *block, uint64 *offset)
{
	*row = r->in_row ? r->rows : 0;
	*block = r->blocks;
	*offset = r->block_offset;
}
