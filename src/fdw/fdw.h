/*-------------------------------------------------------------------------
 *
 * fdw.h
 *	  Declarations shared by the files that run in a session's backend.
 *
 * Functions are grouped by the file that defines them.  What the backend
 * shares with the storage worker is in src/common; nothing here is seen by
 * the worker.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_FDW_H
#define WC_FDW_H

#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "lib/stringinfo.h"
#include "nodes/lockoptions.h"
#include "nodes/pathnodes.h"
#include "nodes/pg_list.h"
#include "storage/lockdefs.h"
#include "utils/snapshot.h"

#include "common/keycodec.h"
#include "common/progress.h"
#include "common/wire.h"

/*
 * The cell of the stored table of families (mapping.c, wc_get_meta_table)
 * that holds a table's families, as "family:qualifier".
 */
#define WC_META_FAMILIES_CELL	"wc:families"

/*
 * The cell of a table's row there that drop_family leaves: its version is
 * the drop's time, before which the family's versions are gone
 * (worker/tablemeta.c).  The family follows the prefix.
 */
#define WC_META_DROPPED_FAMILY	"dropped:"

/*
 * The family of those cells, and the qualifier prefixes of drop_row_range's
 * and of a range DELETE's (droprange.c): the range follows, escape(start)
 * escape(end).
 */
#define WC_META_FAMILY			"wc"
#define WC_META_DROPPED_ROWS	"dropped_rows:"
#define WC_META_DELETED_ROWS	"deleted_rows:"	/* a range DELETE's */

/*
 * The qualifier prefix of a family's record of the SQL types written to
 * it (coltypes.c); the family follows.
 */
#define WC_META_TYPES			"types:"
/* ... and the qualifier of the row key's layout */
#define WC_META_ROWKEY			"rowkey"

/* Target size of one WRITE message (commit.c). */
#define WC_WRITE_CHUNK_BYTES	(64 * 1024)

/* How a foreign table column is stored. */
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
	char	   *path;			/* database directory as the worker sees it */
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

/* The nodes of a key condition (pushdown.c, ranges.c). */
typedef enum WcKeyAtomKind
{
	WC_KEY_AND = 1,				/* children follow */
	WC_KEY_OR,
	WC_KEY_EQ,					/* then the index of the compared expression */
	WC_KEY_IN,					/* ... an array */
	WC_KEY_LT,
	WC_KEY_LE,
	WC_KEY_GT,
	WC_KEY_GE,
	WC_KEY_PREFIX,				/* ... the prefix */
	WC_KEY_LIKE,				/* ... a LIKE pattern, its prefix taken at run time;
								 * at the top, also the LIKE function and
								 * collation, for the scan to check the rows */
	WC_KEY_PARTS				/* row-key parts: see classify_parts() */
} WcKeyAtomKind;

/*
 * In a WC_KEY_PARTS condition, the lower bound's strategy when the part
 * after the equal ones starts with a text (LIKE 'abc%'): past btree's five.
 */
#define WC_PART_PREFIX_STRATEGY 6

/* in option.c */
extern bool wc_valid_family(const char *f, size_t len);
extern bool wc_valid_table_name(const char *name);
extern bool wc_cells_layout(Oid relid);

/* in modify.c */
extern void wc_return_old_row(TupleTableSlot *planSlot, AttrNumber wholerow,
							  TupleTableSlot *slot);

/* A family of a stored table, as widecolumn.families() shows it. */
typedef struct WcFamilyInfo
{
	char	   *table;
	char	   *family;
	char	   *policy;			/* canonical text */
	char	   *aggregate;		/* "sum", "min", "max"; NULL: none */
} WcFamilyInfo;

/* in families.c */
extern List *wc_families_read(Oid serverid);
extern void wc_family_restore(ForeignServer *server, const char *table, const char *family,
							  const char *policy, const char *aggregate);
extern ForeignServer *wc_owned_server_arg(FunctionCallInfo fcinfo, int n);
extern void wc_families_written(Oid serverid, const char *table,
								const char **families, int n);
extern void wc_families_changed(void);
extern void wc_families_forget(void);
extern char *wc_family_list_aggregate(const char *table, const char *list, size_t len,
									  const char *family);
extern int	wc_parse_size_option(DefElem *def, int min, int max);
extern char wc_parse_delimiter(DefElem *def);
extern bool wc_parse_compression(DefElem *def);
extern Oid	wc_parse_map_values(DefElem *def);
extern int	wc_family_policies(WcTable *t, char ***names, char ***policies,
							   char ***aggregates);

/* in coltypes.c */
struct WcTxnTable;
extern void wc_coltypes_note(WcTable *t);
extern void wc_coltypes_reset(void);
extern void wc_coltypes_written(struct WcTxnTable *tt, const char **families, int nfamilies);
extern uint8 *wc_coltypes_cell(const char *family, size_t *len);
extern WcTable *wc_coltypes_meta_table(Oid serverid);
extern char *wc_coltypes_parse(const uint8 *data, size_t len, char **families,
							   char **key);

/* in import.c */
extern List *wcImportForeignSchema(ImportForeignSchemaStmt *stmt, Oid serverOid);

/* in mapping.c */
extern WcTable *wc_get_table(Oid relid);
extern WcTable *wc_get_meta_table(Oid serverid);
extern WcTable *wc_get_stored_table(Oid serverid, const char *table);
extern WcTable *wc_table_arg(FunctionCallInfo fcinfo, AclMode mode);

/* droprange.c: drop_row_range, and what its transaction reads */
struct WcTxnTable;
extern uint8 *wc_prefix_end(const uint8 *p, size_t len, size_t *elen);
extern void wc_rowdrop(WcTable *t, const uint8 *start, size_t slen,
					   const uint8 *end, size_t elen, bool tombstone);
extern uint32 wc_rowdrop_dropped_at(struct WcTxnTable *tt, const uint8 *key, size_t len,
									uint32 horizon);
extern bool wc_rowdrop_any(void);
extern List *wc_rowdrop_ranges(WcTable *t, uint32 horizon, List *ranges);
extern void wc_rowdrop_truncate(uint32 len);
extern void wc_rowdrop_reset(void);

/* in aggregate.c */
struct WcTxnCell;
extern void wc_aggregate_map(WcTable *t);

/* in valuecodec.c */
extern void wc_encode_value(StringInfo buf, Datum value, Oid type);
extern bool wc_encode_datetime(Datum value, Oid type, int64 *stored);
extern void wc_encode_aggregate(StringInfo buf, Datum value, Oid type);
extern Datum wc_decode_value(const uint8 *data, size_t len, WcTable *t,
							 int attnum, const uint8 *rowkey, size_t rowkey_len);
extern Datum wc_decode_rowkey(const uint8 *data, size_t len, Oid type);
extern void wc_rowkey_bytes(Datum value, Oid type, const uint8 **data, size_t *len);
extern char *wc_printable_key(const uint8 *data, size_t len);
extern uint8 *wc_row_key(WcTable *t, const uint8 *rowkey, size_t len, size_t *outlen);

/* in client.c */
typedef struct WcBatchReader
{
	WcReader	r;
	uint32		rows_left;
	bool		done;
} WcBatchReader;

extern void wc_client_init(void);
extern uint32 wc_client_open_db(WcTable *t);
extern uint32 wc_client_db_id(uint32 handle);
extern uint32 wc_client_new_id(void);
extern bool wc_client_can_send(void);
extern void wc_client_send(StringInfo msg);
extern void wc_client_send_for_scan(StringInfo msg, uint32 scan);
extern void wc_client_wait_for_answer(void);
extern void wc_client_raise_error(StringInfo answer) pg_attribute_noreturn();
extern void wc_client_unexpected_answer(void) pg_attribute_noreturn();
extern void wc_client_call(StringInfo msg, WcReader *answer);
extern void wc_client_link(void);
extern void wc_client_quietly(void (*fn) (void *arg), void *arg);
extern WcWireRange *wc_client_wire_ranges(List *ranges);
extern void wc_client_send_snapshot(uint32 wid, uint32 id, Snapshot pg);
extern void wc_client_send_release(uint32 id);
extern void wc_client_write(uint32 db, StringInfo rows);
extern void wc_client_commit(uint32 db, bool sync);
extern void wc_client_abort(uint32 db);
extern uint64 wc_client_estimate(uint32 db, List *ranges);
extern uint64 wc_client_count(uint32 db, const uint8 *table, size_t tlen,
							  const uint8 *family, size_t flen);
extern uint64 wc_client_compact(uint32 db, const uint8 *table, size_t tlen);
extern void wc_client_sample(uint32 db, const uint8 *table, size_t tlen, uint64 *total,
							 int *n, WcBytes **keys, uint64 **offsets);
extern void wc_client_rows(uint32 db, List *ranges, uint32 max_entries, WcRowsAnswer *a);
extern void wc_client_xact_end(bool abort);
extern void wc_client_subxact_abort(SubTransactionId subid);

/* in remotescan.c */
extern uint32 wc_client_scan_begin(WcTable *t, uint32 db, uint32 snapshot,
								   uint64 as_of, List *ranges, bool reverse, bool bulk, bool versions,
								   uint64 limit,
								   uint8 **cols, size_t *col_lens, int ncols,
								   const WcScanFilter *filters, int nfilters,
								   SubTransactionId subid);
extern uint32 wc_client_scan_request(uint32 db, WcScanRequest *req, List *ranges,
									 SubTransactionId subid);
extern bool wc_client_scan_next_batch(uint32 scan, WcBatchReader *out);
extern void wc_client_scan_end(uint32 scan);
extern uint64 wc_client_scan_entries(uint32 scan);
extern uint64 wc_client_scan_skipped(uint32 scan);
extern void wc_scans_answer(uint32 scan, const void *data, size_t len);
extern bool wc_scans_open(void);
extern void wc_scans_forget_all(void);
extern void wc_scans_drop(void);
extern void wc_scans_subxact_abort(SubTransactionId subid);

/* in asof.c */
extern void wc_as_of_init(void);
extern uint64 wc_as_of(void);
extern uint64 wc_as_of_for_read(void);
extern void wc_as_of_forbid(bool lock);

/* in snapshot.c */
extern void wc_snapshot_init(void);
extern uint32 wc_client_snapshot_acquire(uint32 db);
extern uint64 wc_client_snapshot_share(uint32 id);
extern uint32 wc_client_snapshot_attach(uint32 db, uint64 token);
extern void wc_client_snapshot_release(uint32 snapshot);
extern bool wc_snapshots_need_link(void);
extern void wc_snapshots_forget_pg(void);
extern void wc_snapshots_drop(void);
extern void wc_snapshots_release_all(void);

/* in txn.c */
typedef struct WcTxnTable WcTxnTable;
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

extern WcTxnTable *wc_txn_table(WcTable *t, bool create);
extern void wc_txn_put_row(WcTable *t, CommandId cid, const uint8 *rowkey, size_t rowkey_len,
						   bool delete_first, int ncells, WcTxnCell *cells);
extern uint32 wc_txn_horizon(void);
extern uint32 wc_txn_horizon_at(CommandId curcid);
extern bool wc_txn_has_writes(void);
extern int	wc_txn_columns(WcTxnTable *tt, uint8 ***cols, size_t **lens);
extern void wc_txn_touch_row(WcTable *t, CommandId cid, const uint8 *rowkey, size_t rowkey_len);
extern bool wc_txn_changed_since(WcTable *t, uint32 horizon, const uint8 *rowkey,
								 size_t rowkey_len, CommandId cid, bool delete);

/* in txnrange.c */
extern int	wc_txn_rows_in_range(WcTxnTable *tt, uint32 horizon,
								 const WcKeyRange *range, bool reverse,
								 WcTxnRow **rows);
extern void wc_txn_savepoint_begin(SubTransactionId subid);
extern bool wc_txn_savepoint_end(SubTransactionId subid, bool rollback);
extern void wc_txn_reset(void);

/* in rowlock.c */
extern bool wc_txn_lock_row(WcTable *t, const uint8 *key, size_t len,
							LOCKMODE mode, LockWaitPolicy wait);
extern void wc_txn_lock_all_rows(WcTable *t);
extern void wc_txn_unlock_row(WcTable *t, const uint8 *key, size_t len,
							  LOCKMODE mode);
extern void wc_txn_forget_locks(SubTransactionId subid);
extern void wc_txn_reset_locks(void);

/* in commit.c */
extern void wc_txn_init(void);

/* in ssi.c: SERIALIZABLE's predicate locks on foreign tables */
extern void wc_ssi_read(Relation rel, Snapshot snapshot);
extern void wc_ssi_write(Relation rel);
extern void wc_ssi_pre_commit(void);
extern void wc_ssi_reset(void);

/* in mapcolumn.c */
extern bool wc_map_covers(uint8 **cols, size_t *lens, int ncols,
						  const uint8 *famqual, size_t famqual_len);
extern int	wc_map_fold_families(uint8 **cols, size_t *lens, int from, int ncols);
extern Datum wc_map_decode(const uint8 *data, size_t len, WcTable *t, int attnum,
						   const uint8 *rowkey, size_t rowkey_len);
extern Datum wc_map_empty(void);
extern int	wc_map_cells(WcTable *t, int attnum, Datum newval, bool newnull,
						 bool have_old, Datum oldval, bool oldnull,
						 WcTxnCell **cells, int n, int *cap);
extern void wc_map_apply_txn(uint8 **cols, size_t *lens, int ncols, const WcTxnRow *row,
							 const uint8 **vals, size_t *vlens);

/* in pushdown.c */
extern bool wc_collation_is_bytewise(Oid type, Oid collation);
extern void wc_like_prefix(const char *pat, int len, bool bytes, StringInfo prefix,
						   bool *pure, bool *no_wildcard);
extern List *wc_classify_clauses(PlannerInfo *root, RelOptInfo *rel, WcTable *t,
								 List *clauses, List **exprs, List **local,
								 List **pushed);

/* in ranges.c */
extern void wc_scan_key_values(List *exprs, ExprContext *econtext,
							   Datum **values, bool **nulls);
extern List *wc_eval_key_ranges(List *cond, Datum *values, bool *nulls, WcTable *t,
								const char **label, StringInfo value);
extern WcKeyRange *wc_table_range(WcTable *t);
extern WcKeyRange *wc_row_range(WcTable *t, const uint8 *key, size_t len);

/* in declcheck.c */
extern void wc_declcheck_init(void);
extern bool wc_is_widecolumn_table(Oid relid);

/* in onconflict.c */
extern void wc_onconflict_init(void);

/* in keyformat.c */
struct pg_tm;
extern const WcKeyFormat *wc_keyformat_default(Oid type);
extern WcKeyFormat *wc_keyformat_parse(const char *s);
extern void wc_keyformat_check(WcTable *t, WcColumn *col);
extern int	wc_keyformat_width(const WcKeyFormat *f);
extern const char *wc_keyformat_text(const WcKeyFormat *f);
extern bool wc_keyformat_encode(const WcKeyFormat *f, const struct pg_tm *tm, int fsec,
								bool reverse, StringInfo out);
extern bool wc_keyformat_decode(const WcKeyFormat *f, const char *p, int len, bool reverse,
								struct pg_tm *tm, int *fsec);

/* in rowkey.c */
extern bool wc_segment_type_ok(Oid type);
extern bool wc_segment_fixed_width(Oid type);
/* How a row-key part value compares with those that can be stored. */
typedef enum WcSegmentFit
{
	WC_SEGMENT_FITS,			/* it can be stored: encoded */
	WC_SEGMENT_BELOW,			/* before every value that can */
	WC_SEGMENT_ABOVE,			/* after every one */
	WC_SEGMENT_BETWEEN,			/* between two: encoded is the one before,
								 * a time with a unit the format lacks */
	WC_SEGMENT_UNORDERED		/* equal to none, and not among them */
} WcSegmentFit;

/* Why a value cannot be stored as a row-key part. */
typedef enum WcSegmentWhy
{
	WC_SEGMENT_HAS_DELIMITER,
	WC_SEGMENT_INFINITE_DATE,
	WC_SEGMENT_INFINITE_TIMESTAMP,
	WC_SEGMENT_TIMESTAMP_RANGE,
	WC_SEGMENT_YEAR_RANGE,
	WC_SEGMENT_NEGATIVE,		/* a formatted integer has no sign */
	WC_SEGMENT_TOO_WIDE,		/* ... nor more digits than its width */
	WC_SEGMENT_FINER_UNIT		/* WC_SEGMENT_BETWEEN */
} WcSegmentWhy;

extern void wc_segment_encode(WcTable *t, WcColumn *col, Datum value, StringInfo out);
extern WcSegmentFit wc_segment_fit(WcTable *t, WcColumn *col, Datum value,
								   StringInfo out, WcSegmentWhy *why);
extern void wc_key_compose(WcTable *t, Datum *values, bool *nulls, StringInfo out);
extern void wc_rowkey_check_write(const WcTable *t, size_t len);
extern void wc_key_split(WcTable *t, const uint8 *key, size_t len, Datum *values, bool *nulls);

/* in estimate.c */
extern double wc_size_rows(WcTable *t, List *ranges, double *tuples);

/* in partorder.c */
extern List *wc_parts_pathkeys(PlannerInfo *root, RelOptInfo *baserel, WcTable *t,
							   bool backward);

/* in plan.c */
extern void wc_plan_register(FdwRoutine *routine);
extern void wc_range_delete_register(FdwRoutine *routine);
extern bool wc_plan_range_delete(PlannerInfo *root, ModifyTable *plan, Index resultRelation,
								 int subplan_index);
extern void wc_scan_cost(PlannerInfo *root, double rows_read, List *local,
						 Cost *startup, Cost *total);

/* in joinpaths.c */
extern void wc_add_param_paths(PlannerInfo *root, RelOptInfo *baserel, WcTable *t);

/* in explain.c */
extern void wc_explain_register(FdwRoutine *routine);

/* in analyze.c */
extern void wc_analyze_register(FdwRoutine *routine);

/* in scan.c */
extern void wc_scan_register(FdwRoutine *routine);

/* in readrows.c */
extern const uint8 *wc_aggregate_apply_txn(const uint8 *stored, size_t *len,
										   const struct WcTxnCell *cell);
extern bool wc_row_exists(WcTable *t, const uint8 *key, size_t keylen);
extern bool wc_read_row_now(WcTable *t, const uint8 *key, size_t keylen,
							const uint8 ***vals, size_t **lens);
extern struct WcScanState *wc_read_rows_begin(WcTable *t, uint32 db, uint32 snapshot);
extern bool wc_read_rows_next(struct WcScanState *ss, const uint8 **key, size_t *keylen,
							  const uint8 ***vals, size_t **lens);
extern void wc_read_rows_end(struct WcScanState *ss);

/* in modify.c */
extern void wc_modify_register(FdwRoutine *routine);

/* in progressview.c: the progress of long work (widecolumn.progress) */
extern void wc_progress_init(void);
extern void wc_progress_begin(WcProgressOp op, const char *table, WcProgressUnit unit,
							  bool has_total, uint64 total);
extern void wc_progress_done(WcProgressUnit unit, uint64 done);
extern void wc_progress_end(void);
extern void wc_progress_tick(void);

#endif							/* WC_FDW_H */
