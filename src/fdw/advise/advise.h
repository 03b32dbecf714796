/*-------------------------------------------------------------------------
 *
 * advise.h
 *	  The schema advisor (widecolumn.advise): what its findings read, a
 *	  sample of the stored table (advise.c takes it), and how a finding is
 *	  reported.
 *
 * A finding is one function of the list in advise.c: it reads the sample
 * and reports with wc_advise_report, filling the evidence it returns.  A
 * later finding may add to an earlier one's evidence (wc_advise_finding),
 * as a heat map that confirms a hotspot the row keys predict.  So the
 * findings of advisekeys.c and adviseuse.c report through advise.c, which
 * runs them: a circle inside the folder, of a list and its reporter.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_FDW_ADVISE_ADVISE_H
#define WC_FDW_ADVISE_ADVISE_H

#include "fdw/fdw.h"

/* A sampled row: its key, and what its cells hold. */
typedef struct WcAdviseRow
{
	const uint8 *key;			/* the row key, as stored */
	size_t		keylen;
	bool		printable;		/* no control bytes: the key's shape is judged */
	uint32		columns;		/* distinct family:qualifier */
	uint64		versions;
	uint64		bytes;			/* row key, names and values of every version */
	bool		estimated;		/* bytes is LevelDB's estimate (compressed) */
	uint64		newest;			/* newest version's timestamp, µs */
} WcAdviseRow;

/* A column family, its policy, and what the sample saw of it. */
typedef struct WcAdviseFamily
{
	char	   *name;
	char	   *policy;			/* canonical text, as families() shows it */
	bool		aggregate;
	uint32		max_versions;	/* of one cell in the sample */
	const uint8 *max_key;		/* that cell's row key and column */
	size_t		max_keylen;
	char	   *max_column;
	uint64		versions;		/* sampled versions of the family */
	uint32		cells;			/* ... and cells */
} WcAdviseFamily;

typedef struct WcAdvice
{
	WcTable    *t;
	uint32		db;

	/* the sample: rows in key order, each once */
	int			nrows;
	WcAdviseRow *rows;
	uint64		table_bytes;	/* LevelDB's estimate of the whole table */
	int			nsplits;		/* sample_row_keys' split points */
	uint64		largest_cell;	/* bytes of the largest value sampled */
	const uint8 *largest_cell_key;	/* its row key and column */
	size_t		largest_cell_keylen;
	char	   *largest_cell_column;

	int			nfamilies;
	WcAdviseFamily *families;

	/* the row keys' shape (advisekeys.c) */
	char		delimiter;		/* between segments; 0: none seen */

	List	   *findings;		/* WcFinding, in the order reported */
} WcAdvice;

typedef struct WcFinding
{
	const char *severity;		/* "warning" or "notice" */
	const char *finding;		/* its name, e.g. "timestamp_key" */
	StringInfoData evidence;
	const char *advice;
} WcFinding;

/* Severities (README "Schema advisor"). */
#define WC_ADVISE_WARNING	"warning"	/* costs now, or breaks a limit */
#define WC_ADVISE_NOTICE	"notice"	/* worth changing; or a limit near */

/* in advise.c */
extern WcFinding *wc_advise_report(WcAdvice *a, const char *severity,
								   const char *finding, const char *advice);
extern WcFinding *wc_advise_finding(WcAdvice *a, const char *finding);
extern void wc_advise_append_key(StringInfo s, const uint8 *key, size_t len);

/* in advisekeys.c: the row keys' shape */
extern void wc_advise_key_shape(WcAdvice *a);
extern void wc_advise_timestamp_key(WcAdvice *a);
extern void wc_advise_sequential_key(WcAdvice *a);
extern void wc_advise_hashed_key(WcAdvice *a);
extern void wc_advise_domain_key(WcAdvice *a);
extern void wc_advise_unpadded_number(WcAdvice *a);

/* in adviseuse.c: what the table's use shows */
extern void wc_advise_heat_hotspot(WcAdvice *a);
extern void wc_advise_scans_exceed_reads(WcAdvice *a);

#endif							/* WC_FDW_ADVISE_ADVISE_H */
