/*-------------------------------------------------------------------------
 *
 * avro.h
 *	  A stored table's versions to and from an Avro file of Bigtable's
 *	  schema (avro.c), for the SQL functions that move whole tables:
 *	  export_avro and import_avro (avro.c), backup and restore (backup.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_FDW_AVRO_H
#define WC_FDW_AVRO_H

#include <stdio.h>

#include "common/progress.h"
#include "fdw/avrofile.h"
#include "fdw/fdw.h"

/* in avro.c */
extern uint64 wc_avro_export_table(WcTable *t, bytea *prefix, WcAvroWriter *w, bool millis,
								   WcProgressOp op, uint64 *merged);
extern uint64 wc_avro_import_file(WcTable *t, FILE *fp, const char *name, uint64 file_bytes,
								  WcProgressOp op, uint64 *versions);
extern uint64 wc_avro_file_size(FILE *fp);

#endif							/* WC_FDW_AVRO_H */
