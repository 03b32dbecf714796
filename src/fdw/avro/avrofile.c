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
 * block's row count, length and sync marker): the library's file reader
 * ignores a block it cannot read or decompress and reports the end of the
 * file and a damaged block alike, so on its own it cannot tell a truncated
 * or corrupt file from a whole one, nor say where the damage is, nor read
 * a file of no rows.  A block is decompressed here, with zlib or snappy as
 * the codec says, and its rows decoded by the library's binary decoder
 * (avro_consume_binary) into the cells of the row, from a schema the
 * library parsed.  That decoder, unlike the library's generic values,
 * builds no tree of values per row: it took 0.9 s of an import of
 * 1,000,000 rows of four versions, where COPY of the same rows takes 0.6 s
 * in all.  It hands every string and bytes value over in memory of its
 * own, which is freed here when the next row is read: the consumer API's
 * documentation promises a value only for the callback, but its binary
 * decoder (consume-binary.c, Debian's 1.11) allocates each and frees none.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <avro.h>
#include <limits.h>
#include <snappy-c.h>
#include <zlib.h>

#include "common/keycodec.h"
#include "fdw/avro/avro.h"
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

typedef enum WcAvroCodec
{
	WC_AVRO_NULL,
	WC_AVRO_DEFLATE,
	WC_AVRO_SNAPPY
} WcAvroCodec;

struct WcAvroReader
{
	FILE	   *fp;
	const char *name;
	MemoryContext cxt;			/* of the reader */
	char		sync[WC_AVRO_SYNC];
	WcAvroCodec codec;
	avro_schema_t schema;
	int			key_idx,
				cells_idx,
				fam_idx,
				qual_idx,
				ts_idx,
				val_idx;
	/* the decoder's consumers: a row, its cells, a cell, and the fields */
	avro_consumer_t row_c,
				cells_c,
				cell_c,
				key_c,
				family_c,
				qualifier_c,
				ts_c,
				value_c;
	/* the row read last; its strings and bytes are the library's */
	uint8	   *key;
	size_t		keylen;
	WcAvroCell *cells;
	int			ncells;
	int			cells_cap;
	char	   *raw;			/* the block as stored */
	size_t		raw_cap;
	char	   *data;			/* and decompressed (raw, for codec null) */
	size_t		data_cap;
	avro_reader_t mem;			/* the library's reader of data */
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

static void make_consumers(WcAvroReader *r);

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
	StringInfoData header;

	r->fp = fp;
	r->name = name;
	r->cxt = CurrentMemoryContext;
	initStringInfo(&header);
	if (!take(r, magic, 4, true) || memcmp(magic, "Obj\x01", 4) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("file \"%s\" is not an Avro object container file", name),
				 errdetail("An Avro file begins with the bytes \"Obj\" and 1.")));
	/* the metadata: a map of bytes, in blocks of entries */
	while (take_long(r, &header, &n, false) && n != 0)
	{
		if (n < 0)
		{
			n = -n;
			take_long(r, &header, &len, false); /* the block's bytes */
		}
		for (int64 i = 0; i < n; i++)
		{
			char	   *k = take_bytes(r, &header, &len);
			int64		vlen;
			char	   *v = take_bytes(r, &header, &vlen);

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
	pfree(header.data);

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
	r->codec = strcmp(codec, "deflate") == 0 ? WC_AVRO_DEFLATE :
		strcmp(codec, "snappy") == 0 ? WC_AVRO_SNAPPY : WC_AVRO_NULL;
	make_consumers(r);
	return r;
}

/* Make *buf (of *cap bytes) hold at least n, its contents not kept. */
static void
room(WcAvroReader *r, char **buf, size_t *cap, size_t n)
{
	if (n <= *cap && *buf != NULL)
		return;
	if (*buf != NULL)
		pfree(*buf);
	*cap = Max(n, 1);
	*buf = MemoryContextAllocHuge(r->cxt, *cap);
}

/*
 * Decompress the block in r->raw (n bytes) into r->data; *len its bytes.
 * false: it does not decompress, and *why says what is wrong.
 */
static bool
decompress(WcAvroReader *r, size_t n, size_t *len, const char **why)
{
	if (r->codec == WC_AVRO_DEFLATE)
	{
		z_stream	z;
		int			rc;

		/* raw DEFLATE (RFC 1951), as the Avro specification says */
		memset(&z, 0, sizeof(z));
		if (inflateInit2(&z, -MAX_WBITS) != Z_OK)
			elog(ERROR, "could not start zlib's inflate");
		z.next_in = (Bytef *) r->raw;
		z.avail_in = n;
		do
		{
			if (z.total_out == r->data_cap)
			{
				size_t		cap = Max(r->data_cap * 2, 1024 * 1024);

				if (cap > (size_t) WC_AVRO_MAX_BLOCK)
				{
					inflateEnd(&z);
					*why = "it decompresses to more than 2 GB";
					return false;
				}
				r->data = r->data ? repalloc_huge(r->data, cap) :
					MemoryContextAllocHuge(r->cxt, cap);
				r->data_cap = cap;
			}
			z.next_out = (Bytef *) r->data + z.total_out;
			z.avail_out = r->data_cap - z.total_out;
			rc = inflate(&z, Z_NO_FLUSH);
		} while (rc == Z_OK);
		*len = z.total_out;
		inflateEnd(&z);
		if (rc != Z_STREAM_END)
		{
			*why = "its deflate stream is damaged or cut short";
			return false;
		}
		return true;
	}
	if (r->codec == WC_AVRO_SNAPPY)
	{
		size_t		out;
		uint32		crc;

		/* snappy's block, then the big-endian CRC-32 of what it holds */
		if (n < 4 ||
			snappy_uncompressed_length(r->raw, n - 4, &out) != SNAPPY_OK ||
			out > (size_t) WC_AVRO_MAX_BLOCK)
		{
			*why = "it is not a snappy block";
			return false;
		}
		room(r, &r->data, &r->data_cap, out);
		if (snappy_uncompress(r->raw, n - 4, r->data, &out) != SNAPPY_OK)
		{
			*why = "its snappy data is damaged";
			return false;
		}
		crc = ((uint32) (uint8) r->raw[n - 4] << 24) | ((uint32) (uint8) r->raw[n - 3] << 16) |
			((uint32) (uint8) r->raw[n - 2] << 8) | (uint32) (uint8) r->raw[n - 1];
		if (crc32(crc32(0L, Z_NULL, 0), (const Bytef *) r->data, out) != crc)
		{
			*why = "its snappy checksum does not match what it holds";
			return false;
		}
		*len = out;
		return true;
	}
	*len = n;
	return true;
}

/*
 * next_block
 *		Read the next block, check its sync marker, decompress it and point
 *		the library's reader at its rows; false at the end of the file.
 */
static bool
next_block(WcAvroReader *r)
{
	StringInfoData raw;
	int64		count,
				size;
	char		sync[WC_AVRO_SYNC];
	size_t		len;
	const char *why;

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
	pfree(raw.data);
	room(r, &r->raw, &r->raw_cap, size);
	take(r, r->raw, size, false);
	take(r, sync, WC_AVRO_SYNC, false);
	if (memcmp(sync, r->sync, WC_AVRO_SYNC) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("Avro file \"%s\" is corrupt", r->name),
				 errdetail("Block " UINT64_FORMAT ", at byte " UINT64_FORMAT ", does not end with the file's sync marker.",
						   r->blocks, r->block_offset)));
	if (!decompress(r, size, &len, &why))
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("Avro file \"%s\" is corrupt", r->name),
				 errdetail("Block " UINT64_FORMAT ", at byte " UINT64_FORMAT ", cannot be decompressed: %s.",
						   r->blocks, r->block_offset, why)));
	if (r->mem == NULL)
		r->mem = avro_reader_memory(r->codec == WC_AVRO_NULL ? r->raw : r->data, len);
	else
		avro_reader_memory_set_source(r->mem, r->codec == WC_AVRO_NULL ? r->raw : r->data, len);
	if (r->mem == NULL)
		elog(ERROR, "could not make an Avro reader: %s", avro_strerror());
	r->left = count;
	return true;
}

/* Free the strings and bytes of the row read last (the library's). */
static void
free_row(WcAvroReader *r)
{
	if (r->key != NULL)
		avro_free(r->key, r->keylen + 1);
	r->key = NULL;
	r->keylen = 0;
	for (int i = 0; i < r->ncells; i++)
	{
		WcAvroCell *c = &r->cells[i];

		/* the library counts a string's NUL, and adds one to bytes */
		if (c->family != NULL)
			avro_free((void *) c->family, c->family_len + 1);
		if (c->qualifier != NULL)
			avro_free((void *) c->qualifier, c->qualifier_len + 1);
		if (c->value != NULL)
			avro_free((void *) c->value, c->value_len + 1);
	}
	r->ncells = 0;
}

/*
 * The decoder's callbacks, with the reader as their user data.  They keep
 * what it decodes; they cannot fail (a repalloc that cannot have its
 * memory raises an error as anywhere else).
 */
static int
row_field(avro_consumer_t *c, unsigned int i, avro_consumer_t **field, void **ud, void *r_)
{
	WcAvroReader *r = r_;

	*field = (int) i == r->key_idx ? &r->key_c : &r->cells_c;
	*ud = r;
	return 0;
}

static int
key_bytes(avro_consumer_t *c, const void *v, size_t len, void *r_)
{
	WcAvroReader *r = r_;

	if (r->key != NULL)			/* (a schema has one key) */
		avro_free(r->key, r->keylen + 1);
	r->key = (uint8 *) v;
	r->keylen = len;
	return 0;
}

static int
cells_element(avro_consumer_t *c, unsigned int i, avro_consumer_t **element, void **ud, void *r_)
{
	WcAvroReader *r = r_;

	if (r->ncells == r->cells_cap)
	{
		int			cap = Max(16, r->cells_cap * 2);

		r->cells = r->cells ?
			repalloc_huge(r->cells, sizeof(WcAvroCell) * cap) :
			MemoryContextAllocHuge(r->cxt, sizeof(WcAvroCell) * cap);
		r->cells_cap = cap;
	}
	memset(&r->cells[r->ncells++], 0, sizeof(WcAvroCell));
	*element = &r->cell_c;
	*ud = r;
	return 0;
}

static int
cell_field(avro_consumer_t *c, unsigned int i, avro_consumer_t **field, void **ud, void *r_)
{
	WcAvroReader *r = r_;

	*field = (int) i == r->fam_idx ? &r->family_c :
		(int) i == r->qual_idx ? &r->qualifier_c :
		(int) i == r->ts_idx ? &r->ts_c : &r->value_c;
	*ud = r;
	return 0;
}

static int
family_string(avro_consumer_t *c, const void *v, size_t len, void *r_)
{
	WcAvroReader *r = r_;
	WcAvroCell *cell = &r->cells[r->ncells - 1];

	cell->family = v;
	cell->family_len = len > 0 ? len - 1 : 0;	/* the library counts the NUL */
	return 0;
}

static int
qualifier_bytes(avro_consumer_t *c, const void *v, size_t len, void *r_)
{
	WcAvroReader *r = r_;
	WcAvroCell *cell = &r->cells[r->ncells - 1];

	cell->qualifier = v;
	cell->qualifier_len = len;
	return 0;
}

static int
ts_long(avro_consumer_t *c, int64_t v, void *r_)
{
	WcAvroReader *r = r_;

	r->cells[r->ncells - 1].ts = v;
	return 0;
}

static int
value_bytes(avro_consumer_t *c, const void *v, size_t len, void *r_)
{
	WcAvroReader *r = r_;
	WcAvroCell *cell = &r->cells[r->ncells - 1];

	cell->value = v;
	cell->value_len = len;
	return 0;
}

/* The decoder's consumers, for the file's schema (check_schema's fields). */
static void
make_consumers(WcAvroReader *r)
{
	avro_schema_t cells = avro_schema_record_field_get_by_index(r->schema, r->cells_idx);
	avro_schema_t cell = avro_schema_array_items(cells);

	r->row_c.schema = r->schema;
	r->row_c.record_field = row_field;
	r->key_c.schema = avro_schema_record_field_get_by_index(r->schema, r->key_idx);
	r->key_c.bytes_value = key_bytes;
	r->cells_c.schema = cells;
	r->cells_c.array_element = cells_element;
	r->cell_c.schema = cell;
	r->cell_c.record_field = cell_field;
	r->family_c.schema = avro_schema_record_field_get_by_index(cell, r->fam_idx);
	r->family_c.string_value = family_string;
	r->qualifier_c.schema = avro_schema_record_field_get_by_index(cell, r->qual_idx);
	r->qualifier_c.bytes_value = qualifier_bytes;
	r->ts_c.schema = avro_schema_record_field_get_by_index(cell, r->ts_idx);
	r->ts_c.long_value = ts_long;
	r->value_c.schema = avro_schema_record_field_get_by_index(cell, r->val_idx);
	r->value_c.bytes_value = value_bytes;
}

/*
 * wc_avro_next_row
 *		The next row of the file, false at its end: its key and how many
 *		cells it has (wc_avro_row_cell gives them).
 */
bool
wc_avro_next_row(WcAvroReader *r, const uint8 **key, size_t *keylen, int *ncells)
{
	r->in_row = false;
	free_row(r);
	while (r->left == 0)
		if (!next_block(r))
			return false;
	r->rows++;
	r->left--;
	if (avro_consume_binary(r->mem, &r->row_c, r) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("Avro file \"%s\" is corrupt", r->name),
				 errdetail("Row " UINT64_FORMAT ", in block " UINT64_FORMAT " at byte " UINT64_FORMAT ", cannot be read: %s",
						   r->rows, r->blocks, r->block_offset, avro_strerror())));
	for (int i = 0; i < r->ncells; i++)
		if (r->cells[i].family == NULL || r->cells[i].qualifier == NULL ||
			r->cells[i].value == NULL)
			elog(ERROR, "the Avro decoder left a field of a cell unread");
	r->in_row = true;
	*key = r->key ? r->key : (const uint8 *) "";
	*keylen = r->keylen;
	*ncells = r->ncells;
	return true;
}

/* Cell i of the row wc_avro_next_row returned. */
void
wc_avro_row_cell(WcAvroReader *r, int i, WcAvroCell *cell)
{
	*cell = r->cells[i];
}

/* Free what the library holds; on error too. */
void
wc_avro_reader_end(WcAvroReader *r)
{
	free_row(r);
	if (r->mem != NULL)
		avro_reader_free(r->mem);
	r->mem = NULL;
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
