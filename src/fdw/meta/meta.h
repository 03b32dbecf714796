/*-------------------------------------------------------------------------
 *
 * meta.h
 *	  The metadata of stored tables, kept as rows of the stored table of
 *	  families (model.h, WC_META_*) and read through read: the family list,
 *	  with the SQL functions that change it (families.c: create_family,
 *	  set_gc_policy, drop_family, drop_table, families, compact), the record
 *	  of the SQL types written to each family (coltypes.c), and which
 *	  columns map an aggregate family (aggregate.c).
 *
 * A session keeps what it read of each while no commit has changed a
 * family list (WcShared.family_changes).  The planner, the executor and
 * the SQL functions read them; the end of a transaction (commit) records
 * the families and types it wrote.  Inside, families.c asks coltypes.c
 * for a family's types cell and aggregate.c asks families.c for a
 * family's aggregate: one way.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_FDW_META_META_H
#define WC_FDW_META_META_H

#include "fdw/fdw.h"
#include "fdw/xact/xact.h"

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
extern int	wc_family_policies(WcTable *t, char ***names, char ***policies,
							   char ***aggregates);

/* in coltypes.c */
extern void wc_coltypes_note(WcTable *t);
extern void wc_coltypes_reset(void);
extern void wc_coltypes_written(struct WcTxnTable *tt, const char **families, int nfamilies);
extern uint8 *wc_coltypes_cell(const char *family, size_t *len);
extern WcTable *wc_coltypes_meta_table(Oid serverid);
extern char *wc_coltypes_parse(const uint8 *data, size_t len, char **families,
							   char **key);

/* in aggregate.c */
typedef struct WcAggregateFamily
{
	uint8	   *escaped;		/* the family's name, escaped */
	size_t		escaped_len;
	uint8		tag;			/* its merges' (aggfold.h) */
} WcAggregateFamily;

extern void wc_aggregate_map(WcTable *t);
extern List *wc_aggregate_families(Oid serverid, const char *table);
extern uint8 wc_aggregate_of(List *aggs, const uint8 *famqual, size_t len);

#endif							/* WC_FDW_META_META_H */
