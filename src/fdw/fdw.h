/*-------------------------------------------------------------------------
 *
 * fdw.h
 *	  What every subsystem of the backend's side shares: a foreign table's
 *	  mapping (WcTable, read from the catalogs by model/mapping.c), a range
 *	  of LevelDB keys, and a row's changes.
 *
 * Each subsystem is a folder with one header, which says what it offers.
 * A file calls into its own folder and the folders below it, never above;
 * from the bottom:
 *	model	a foreign table's declaration, and how its rows are stored
 *	keys	the row key as an index: the clauses it answers, their key ranges
 *	link	the link to the storage worker, its scans and snapshots
 *	xact	what a transaction holds until it ends: its write logs, locks,
 *			dropped row ranges, widecolumn.as_of
 *	read	a stored table's rows as the transaction sees them
 *	meta	the family list, the record of written types, aggregates
 *	planner	planning a scan of a mapped table
 *	exec	the executor's callbacks of a mapped table
 *	cells	the cells layout (a row per cell version)
 *	commit	the end of a transaction
 *	admin, advise, avro, heat	SQL functions, by topic
 * src/widecolumn_fdw.c, the handler, may include any of them.
 *
 * What the backend shares with the storage worker is in src/common (the
 * keys' encoding and the wire, which every subsystem speaks, come with
 * this header); nothing here is seen by the worker.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_FDW_FDW_H
#define WC_FDW_FDW_H

#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "lib/stringinfo.h"
#include "nodes/pg_list.h"

#include "common/keycodec.h"
#include "common/wire.h"

/* How a foreign table column is stored. */
/* Microseconds from the Unix epoch to PostgreSQL's. */
#define WC_UNIX_TO_PG_US \
	((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY)

/* A server's storage engine (its option engine). */
typedef enum WcEngineKind
{
	WC_ENGINE_LEVELDB,
	WC_ENGINE_BIGTABLE
} WcEngineKind;

/* A Bigtable server's options (engine 'bigtable'). */
typedef struct WcBigtableServer
{
	char	   *project;
	char	   *instance;
	char	   *endpoint;		/* host:port */
	bool		insecure;		/* credentials 'insecure': no TLS, no token */
	char	   *app_profile;	/* NULL: the instance's default */
	int			timeout_ms;		/* each request's deadline */
} WcBigtableServer;

typedef enum WcColumnKind
{
	WC_COL_DROPPED,
	WC_COL_ROWKEY,
	WC_COL_PART,				/* a segment of the row key */
	WC_COL_CELL
} WcColumnKind;

typedef struct WcKeyFormat WcKeyFormat;	/* keyformat.c */

typedef struct WcColumn
{
	WcColumnKind kind;
	char	   *name;
	Oid			type;
	int32		typmod;
	Oid			collation;
	int			rowkey_part;	/* 1-based segment, for WC_COL_PART */
	bool		rowkey_reverse; /* digits stored as 9 - d: newest first */
	WcKeyFormat *rowkey_format; /* option rowkey_format, or NULL */
	char	   *family;
	char	   *qualifier;		/* NULL for a map column */
	Oid			map_type;		/* a map column (mapcolumn.c): the type its
								 * values decode as; else InvalidOid */
	uint8		aggregate;		/* its family's aggregate: the tag of its
								 * merges; else 0 (set by wc_aggregate_map,
								 * in aggregate.c, when a scan or write
								 * begins) */
	/* family and qualifier (a map column: family) escaped as in a key */
	uint8	   *famqual;
	size_t		famqual_len;
} WcColumn;

/* Everything known about a foreign table's mapping, from its options. */
typedef struct WcTable
{
	Oid			relid;
	char	   *relname;
	Oid			serverid;
	WcEngineKind engine;
	/*
	 * The database as the worker names it: a LevelDB directory as the
	 * worker sees it; a Bigtable instance as endpoint/projects/P/instances/I.
	 */
	char	   *path;
	WcBigtableServer *bigtable; /* engine 'bigtable': its options; else NULL */
	bool		sync;
	uint32		cache_mb;
	uint32		write_buffer_mb;
	uint32		bloom_bits;
	bool		compression;
	char	   *table;			/* stored table name */
	uint8	   *table_key;		/* escaped table name: every key's prefix */
	size_t		table_key_len;
	int			rowkey_attnum;	/* 1-based; 0 when the key has parts */
	int			nparts;			/* segments of the row key, or 0 */
	int		   *part_attnum;	/* attnum of each segment */
	char		delimiter;		/* between segments */
	int			natts;
	WcColumn   *cols;			/* indexed by attnum - 1 */
} WcTable;

/* A range of LevelDB keys, [start, end). */
typedef struct WcKeyRange
{
	uint8	   *start;
	size_t		start_len;
	uint8	   *end;
	size_t		end_len;
} WcKeyRange;

/*
 * A row's changes, as the write log keeps and replays them (xact), the
 * map columns make them (model, mapcolumn.c) and the reads merge them
 * (read).
 */
typedef struct WcTxnRow
{
	const uint8 *rowkey;
	size_t		rowkey_len;
	bool		deleted;		/* the stored row is deleted first */
	int			ncells;
	struct WcTxnCell *cells;
} WcTxnRow;

typedef struct WcTxnCell
{
	const uint8 *famqual;
	size_t		famqual_len;
	const uint8 *value;			/* NULL: the cell is deleted */
	size_t		value_len;
	uint8		merge;			/* a merge of the 8-byte value: its tag
								 * (common/aggfold.h); else 0 */
} WcTxnCell;

#endif							/* WC_FDW_FDW_H */
