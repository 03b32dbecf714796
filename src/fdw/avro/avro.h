/*-------------------------------------------------------------------------
 *
 * avro.h
 *	  Stored tables to and from Avro object container files of Bigtable's
 *	  own schema (BigtableRow of com.google.cloud.teleport.bigtable, as
 *	  Google's "Cloud Bigtable to Avro" and "Avro to Cloud Bigtable"
 *	  templates write and read them): the files, written and read with
 *	  Apache Avro's C library (avrofile.c, the only file that includes
 *	  <avro.h>); a table's versions to and from one (avro.c, which holds the
 *	  SQL functions export_avro and import_avro); and every table of a
 *	  server, widecolumn.backup and widecolumn.restore (backup.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_FDW_AVRO_AVRO_H
#define WC_FDW_AVRO_AVRO_H

#include <stdio.h>

#include "common/progress.h"
#include "fdw/fdw.h"

/* A cell version of a row read from a file; pointers valid until the next row. */
typedef struct WcAvroCell
{
	const char *family;
	size_t		family_len;
	const uint8 *qualifier;
	size_t		qualifier_len;
	int64		ts;				/* µs since the Unix epoch */
	const uint8 *value;
	size_t		value_len;
} WcAvroCell;

typedef struct WcAvroWriter WcAvroWriter;
typedef struct WcAvroReader WcAvroReader;

/* in avrofile.c */
extern bool wc_avro_codec_ok(const char *codec);
extern WcAvroWriter *wc_avro_writer_begin(FILE *fp, const char *codec, const char *name);
extern void wc_avro_write_cell(WcAvroWriter *w, const uint8 *key, size_t keylen,
							   const uint8 *family, size_t flen,
							   const uint8 *qualifier, size_t qlen, int64 ts,
							   const uint8 *value, size_t vlen);
extern uint64 wc_avro_writer_finish(WcAvroWriter *w);
extern void wc_avro_writer_abandon(WcAvroWriter *w);

extern WcAvroReader *wc_avro_reader_begin(FILE *fp, const char *name);
extern bool wc_avro_next_row(WcAvroReader *r, const uint8 **key, size_t *keylen, int *ncells);
extern void wc_avro_row_cell(WcAvroReader *r, int i, WcAvroCell *cell);
extern void wc_avro_reader_end(WcAvroReader *r);
extern void wc_avro_reader_position(WcAvroReader *r, uint64 *row, uint64 *block, uint64 *offset);

/* in avro.c */
extern uint64 wc_avro_export_table(WcTable *t, bytea *prefix, WcAvroWriter *w, bool millis,
								   WcProgressOp op, uint64 *merged);
extern uint64 wc_avro_import_file(WcTable *t, FILE *fp, const char *name, uint64 file_bytes,
								  WcProgressOp op, uint64 *versions);
extern uint64 wc_avro_file_size(FILE *fp);

#endif							/* WC_FDW_AVRO_AVRO_H */
