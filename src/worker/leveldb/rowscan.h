/*-------------------------------------------------------------------------
 *
 * rowscan.h
 *	  The state of a row scan, shared by the walk over LevelDB's entries
 *	  (rowscan.c) and what a row's entries make (rowread.c).  Private to
 *	  those two files.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_ROWSCAN_H
#define WC_ROWSCAN_H

#include "worker/runtime/heat.h"
#include "worker/leveldb/leveldb.h"
#include "worker/leveldb/rowfilter.h"

typedef struct WcSlice
{
	const uint8 *p;
	size_t		len;
	uint16		idx;
} WcSlice;

/* An entry copied out of the iterator, for reverse scans. */
typedef struct WcEntry
{
	size_t		koff,
				klen,
				voff,
				vlen;
} WcEntry;

/* The row being assembled into the batch. */
typedef struct WcRowState
{
	int			colpos;			/* first of s->cols not before the cell */
	bool		other;
	bool		live;
	uint64		tomb_ts;
	uint64		version;		/* WC_SCAN_VERSIONS */
	WcByteBuf	lastcell;
	bool		have_last;
	WcByteBuf  *fam_cells;		/* per family asked for alone: its cells */
	/* the cell being read (lastcell) */
	bool		decided;		/* its version was chosen, or it is absent */
	uint64		cell_versions;	/* its versions seen so far */
	const WcGcPolicy *policy;	/* its family's, or NULL */
	uint64		dropped;		/* its versions older than this are gone */
	uint64		range_dropped;	/* the row's, by drop_row_range or a range
								 * DELETE (rowdrops.c) */
	/* an aggregate family's cell whose merges are being folded (rowread.c, fold_entry) */
	bool		folding;		/* its value is the fold, sent at its end */
	bool		fold_closed;	/* its older entries are not part of it */
	uint8		fold_tag;
	int64		fold_value;
} WcRowState;

/* What row_entry made of an entry. */
typedef enum WcEntryKind
{
	WC_ENTRY_USED,				/* the version of its cell that counts */
	WC_ENTRY_OLDER,				/* older than the one that counts */
	WC_ENTRY_NEWER,				/* newer than as_of: an older one may count */
	WC_ENTRY_HIDDEN				/* of a commit the snapshot does not see */
} WcEntryKind;

struct WcLdbScan
{
	WcOpenDb   *odb;
	WcIter	   *it;
	WcSnap	   *held;			/* a snapshot the scan lets go of at its end */
	bool		reverse;
	bool		versions;		/* end each row with its version */
	uint64		as_of;			/* read as of this time; 0: now */
	WcHidden	hidden;			/* the commits it does not see (xacts.c) */
	WcIter	   *pre;			/* the pre-images of versions those replaced,
								 * at the scan's snapshot; NULL: none */
	WcByteBuf	pre_key;
	uint64		now;			/* when the scan began, for maxage */
	WcTableMeta meta;			/* its policies and drop times */
	WcByteBuf	last_family;	/* the family policy_of looked up last */
	bool		have_last_family;
	const WcFamilyMeta *last_policy;
	uint64		limit;
	uint64		emitted;
	uint64		entries;
	int			ncols;
	WcSlice    *cols;			/* sorted bytewise, as a row's cells are */
	int			nfams;			/* the families asked for alone */
	WcSlice    *fams;
	WcByteBuf	qual;			/* a qualifier unescaped, for fam_cells */
	int			nranges;
	WcSlice    *starts;
	WcSlice    *ends;
	int			range;			/* position in iteration order */
	bool		positioned;
	bool		done;
	int			batch_bytes;	/* a batch ends once it is this large */
	int			batches;		/* batches filled so far */
	WcByteBuf	out;			/* the BATCH answer being filled */
	WcBatchWriter batch;
	bool		fill_cache;		/* not a bulk scan */
	WcByteBuf	rowkey;			/* table+row prefix of the current row */
	WcByteBuf	seek;			/* a key to seek to (seek_in_cell) */
	WcByteBuf	arena;			/* reverse scans: the row's entries */
	WcEntry    *entries_buf;	/* malloc'd, as the buffers are */
	int			entries_cap;
	WcRowState	row;
	WcVersionScan *vs;			/* WC_SCAN_CELLS: versions.c reads */
	WcRowFilter *filter;		/* WC_SCAN_FILTER, else NULL */
	uint32		skipped;		/* rows it left out of the batch */
	WcHeatScan	heat;			/* what it read, for the heat map (heat.h) */
};

/* in rowread.c: a row's entries, in key order */
extern void ldb_row_begin(WcLdbScan *s, const uint8 *k, size_t rowend);
extern WcEntryKind ldb_row_entry(WcLdbScan *s, const uint8 *k, size_t n,
								 size_t rowend, size_t cellend, const uint8 *v, size_t vlen);
extern void ldb_row_end(WcLdbScan *s);
extern const WcGcPolicy *ldb_version_policy(void *arg, const uint8 *row, size_t rowlen,
											size_t fqlen, uint64 *dropped);

#endif							/* WC_ROWSCAN_H */
