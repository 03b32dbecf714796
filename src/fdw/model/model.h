/*-------------------------------------------------------------------------
 *
 * model.h
 *	  What a foreign table is: its options (option.c) and its mapping onto
 *	  a stored table (mapping.c); and how its rows are stored as cells: the
 *	  values (valuecodec.c), map columns (mapcolumn.c), row keys made of
 *	  parts (rowkey.c) and their formats (keyformat.c).  Also the cells of
 *	  the stored table of families (WC_META_*), which mapping.c names and
 *	  the family list, the types record (meta) and the row drops (xact)
 *	  write.
 *
 * The bottom of the backend's side: it calls no other folder.  Inside it,
 * calls run one way, from mapping.c through option.c and rowkey.c down to
 * keyformat.c and valuecodec.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_FDW_MODEL_MODEL_H
#define WC_FDW_MODEL_MODEL_H

#include "fdw/fdw.h"

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

/* in option.c */
extern bool wc_valid_family(const char *f, size_t len);
extern bool wc_valid_table_name(const char *name);
extern bool wc_cells_layout(Oid relid);
extern int	wc_parse_size_option(DefElem *def, int min, int max);
extern char wc_parse_delimiter(DefElem *def);
extern bool wc_parse_compression(DefElem *def);
extern Oid	wc_parse_map_values(DefElem *def);
extern WcEngineKind wc_parse_engine(DefElem *def);
extern int	wc_parse_timeout(DefElem *def);
extern bool wc_parse_credentials_insecure(DefElem *def);

/* in mapping.c */
extern WcTable *wc_get_table(Oid relid);
extern WcTable *wc_get_meta_table(Oid serverid);
extern WcTable *wc_get_stored_table(Oid serverid, const char *table);
extern WcTable *wc_table_arg(FunctionCallInfo fcinfo, AclMode mode);

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

#endif							/* WC_FDW_MODEL_MODEL_H */
