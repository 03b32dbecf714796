/*-------------------------------------------------------------------------
 *
 * wire.h
 *	  The messages between a backend and the storage worker: their layout,
 *	  and the only functions that read and write them (wire.c).
 *
 * (The BATCH answer's, which run for every cell of a scan, are inline at the
 * end of this file.)
 *
 * Every message starts with a one-byte type.  Integers are little-endian
 * (both ends are the same machine); a "str" is a u32 length and its bytes.
 * Requests are answered in the order they were sent, and only the requests
 * wc_msg_answered() names get an answer, so a backend can send a request
 * and keep working before the answer arrives.  Row keys, tables and
 * columns arrive already escaped as in keycodec.h, so the worker copies
 * bytes into keys and never re-encodes them.
 *
 * Nobody else touches the bytes: a sender calls wc_write_<message>, a
 * receiver wc_read_<message>, as PostgreSQL's logical replication protocol
 * does (replication/logical/proto.c).  The readers never trust a length: a
 * short or malformed message makes them return false (and sets r->bad)
 * instead of reading past its end.  A request that a reader accepts has
 * every length within the message, every count consistent with what
 * follows, and every key part well formed, so that nothing the worker
 * writes can break the key layout.
 *
 * wire.c needs only PostgreSQL's c.h, palloc and StringInfo, which exist in
 * the frontend library too: the fuzzer (test/fuzz/fuzz_wire.c) links it
 * without a server and checks exactly the functions the worker runs.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_WIRE_H
#define WC_WIRE_H

#include "lib/stringinfo.h"

#include "common/bytebuf.h"

typedef enum WcMsgType
{
	/* requests */
	WC_REQ_OPEN = 1,		/* str engine, str target (a LevelDB database's
							 * path), u16 n, n x (str name, str value): the
							 * engine's own options; answered OK u32 db */
	WC_REQ_SNAPSHOT = 2,	/* u32 db, u32 snapshot (an id the backend
							 * chose), then PostgreSQL's snapshot it reads
							 * under (WcXidSnapshot): u32 xmin, u32 xmax,
							 * u32 own (the reader's xid; 0: none), u32 nxip
							 * {u32 xid} */
	WC_REQ_RELEASE = 3,		/* u32 snapshot */
	WC_REQ_SCAN = 4,		/* u32 db, u32 snapshot (0: the latest data), u32
							 * scan (an id the backend chose), u8 flags, u64
							 * limit (rows, 0 = none), u64 as_of (the data
							 * as of this time, µs since the Unix epoch; 0 =
							 * now), u16 ncols {str
							 * family+qualifier, or a family alone: all its
							 * cells}, u32 nranges {str start, str end
							 * (empty: no end)}, and with WC_SCAN_CELLS u64
							 * ts_min, u64 ts_max, u32 nfams {str family},
							 * u32 nquals {str start, str end}, u32 noverlay
							 * {str key, u8 kind, u8 pending, u64 ts, str
							 * value}; with WC_SCAN_FILTER (never with
							 * WC_SCAN_CELLS) u16 nfilters {u16 column, u8
							 * kind, u8 op, u64 value}: answered BATCH */
	WC_REQ_NEXT = 5,		/* u32 scan: answered BATCH (a scan that has
							 * ended: an empty last one) */
	WC_REQ_CLOSE = 6,		/* u32 scan */
	WC_REQ_WRITE = 7,		/* u32 db, then rows until the end: str
							 * table+rowkey, u8 flags (WC_ROW_*), with
							 * WC_ROW_READ u64 version, u32 ncells {str
							 * family+qualifier, u8 tag (keycodec.h, a
							 * merge's of aggfold.h, or WC_WRITE_PUT_AT /
							 * WC_WRITE_DELETE_AT), str value} */
	WC_REQ_COMMIT = 8,		/* u32 db, u8 sync, u64 writer (the full
							 * transaction id of the PostgreSQL transaction
							 * that wrote it): answered OK */
	WC_REQ_ABORT = 9,		/* u32 db */
	WC_REQ_ESTIMATE = 10,	/* u32 db, u32 nranges {str start, str end}:
							 * answered OK u64 bytes */
	WC_REQ_COUNT = 11,		/* u32 db, str table, str family (both escaped;
							 * an empty family: all): answered OK u64 (the
							 * versions a read could return) */
	WC_REQ_COMPACT = 12,	/* u32 db, str table (escaped; empty: every
							 * table): answered OK u64 (entries deleted) */
	WC_REQ_SAMPLE = 13,		/* u32 db, str table (escaped): answered OK u64
							 * the table's bytes, u32 n {str row key
							 * (unescaped), u64 bytes before it} */
	WC_REQ_ROWS = 14,		/* u32 db, u32 max entries, u32 nranges {str
							 * start, str end}: answered OK u64 rows, u8
							 * complete, u64 bytes walked, u64 bytes */
	WC_REQ_SHARE = 15,		/* u32 snapshot: answered OK u64 token, under
							 * which other backends may read the same
							 * snapshot (a parallel scan's participants) */
	WC_REQ_ATTACH = 16,		/* u32 db, u64 token, u32 snapshot (an id the
							 * backend chose for the shared snapshot):
							 * answered OK */
	WC_REQ_HEAT = 17,		/* u32 db, str table (escaped), u64 since: answered
							 * OK u32 ncols {u64 start, u32 nranges {str
							 * start key (a row key or a prefix of one),
							 * u64 counters (WcHeatCounter)}}, the columns
							 * that end after since, oldest first
							 * (wireheat.h) */
	WC_REQ_STATS = 18,		/* u32 db, u8 reset: answered OK u32 ntables {str
							 * table (escaped), u64 counters (WcStatCounter),
							 * u64 approximate bytes, u64 last sweep, u64
							 * stats reset}, after resetting them if reset */
	WC_REQ_STAT_WORKER = 19,	/* answered OK and the worker's figures
								 * (WcWorkerStats, wirestats.c) */
	WC_REQ_STAT_DATABASES = 20, /* answered OK u32 n {WcDbStats}: LevelDB's
								 * figures of each database the worker has
								 * opened (wirestats.c) */

	/* answers; any answered request may be answered ERROR instead */
	WC_RESP_OK = 64,		/* then the request's payload, if it has one */
	WC_RESP_ERROR = 65,		/* u32 sqlstate (as PostgreSQL packs it), str
							 * message, str detail, str hint (empty: none) */
	WC_RESP_BATCH = 66		/* u8 done, u32 nrows, u64 entries read, u32
							 * rows the filters left out, u32 requests to
							 * a remote store, then
							 * rows: str rowkey (unescaped), u8 other-cells,
							 * u16 ncells {u16 column, str value}, and with
							 * WC_SCAN_VERSIONS u64 version.  The value of
							 * a family alone is its live cells, in
							 * qualifier order: {str qualifier (unescaped),
							 * str value} (wc_read_map_entry).  With
							 * WC_SCAN_CELLS a row per version: cells 0
							 * family, 1 qualifier (both unescaped), 2 the
							 * value, 3 (empty) only if the commit will
							 * stamp it, and u64 version its timestamp */
} WcMsgType;

/* Flags of a SCAN request. */
#define WC_SCAN_REVERSE		0x01	/* descending key order */
#define WC_SCAN_BULK		0x02	/* a full scan: do not fill the block cache */
#define WC_SCAN_VERSIONS	0x04	/* each row ends with its version: the
									 * newest time among its cells' newest
									 * entries, tombstones too */
#define WC_SCAN_CELLS		0x08	/* every version the policies keep, one
									 * BATCH row each (a cells-layout table),
									 * within the request's family, qualifier
									 * and timestamp bounds; never reverse */
#define WC_SCAN_FILTER		0x10	/* only rows whose cells pass the
									 * request's filters (WcScanFilter) */
#define WC_SCAN_AS_OF_START	0x20	/* as_of is the transaction's start (a
									 * Bigtable server's REPEATABLE READ),
									 * not widecolumn.as_of: a version after
									 * it was not there then, and counts for
									 * no policy's maxversions */

/*
 * The overlay of a cells scan: the transaction's own uncommitted writes to
 * the table, which the scan reads as if they were stored.  Each entry is a
 * key without its timestamp (table, row key, family, qualifier, escaped;
 * the row tombstone's family and qualifier for WC_OVERLAY_ROW_TOMBSTONE),
 * and its timestamp: ts, or with pending the time the commit will get.
 * Entries apply in order: a later one at the same key replaces an earlier.
 */
#define WC_OVERLAY_PUT				0	/* a version, value the data */
#define WC_OVERLAY_CELL_TOMBSTONE	1
#define WC_OVERLAY_ROW_TOMBSTONE	2
#define WC_OVERLAY_REMOVE			3	/* the stored version is removed */

/*
 * Tags of a WRITE request's cell that exist only on the wire: a version
 * with an explicit timestamp (the value is u64 ts then the data), the
 * removal of exactly one version (the value is u64 ts), and the removal of
 * the version the commit itself writes.  A commit with one
 * of them is always one LevelDB batch (docs/format.md, "Large commits").
 */
#define WC_WRITE_PUT_AT		0x02
#define WC_WRITE_DELETE_AT	0x03
#define WC_WRITE_DELETE_NOW	0x04	/* the removal of the version this same
									 * commit writes (empty value) */

/*
 * Flags of a WRITE request's row.  WC_ROW_READ: the transaction read the
 * row under the lock of an UPDATE or DELETE, at version (the newest
 * timestamp of its cells, as WC_SCAN_VERSIONS gives it), and its writes
 * apply only if the row has no newer cell then.  A Bigtable server's
 * condition (worker/bigtable/btcommit.c): on LevelDB the cluster's own row
 * locks already order every writer, and the engine passes over it.
 */
#define WC_ROW_DELETED		0x01	/* deleted before its cells are set */
#define WC_ROW_READ			0x02	/* a u64 version follows */

/* Largest number of columns a scan may ask for. */
#define WC_MAX_SCAN_COLUMNS	1600

/* A run of bytes inside a message. */
typedef struct WcBytes
{
	const uint8 *data;
	size_t		len;
} WcBytes;

/* An entry of a cells scan's overlay (WC_OVERLAY_*, above). */
typedef struct WcOverlayEntry
{
	WcBytes		key;
	uint8		kind;
	bool		pending;
	uint64		ts;
	WcBytes		value;
} WcOverlayEntry;

/*
 * A filter of a SCAN request: a row is sent only if the cell that column
 * (a family and qualifier) asks for compares with value as op says.  The
 * kind says how the cell's bytes read (docs/format.md, "Values"): a
 * big-endian integer of 2, 4 or 8 bytes, compared with value as an int64,
 * or an IEEE float of 4 or 8 bytes, compared with value's bits as a double,
 * NaN above every number and equal to itself, as PostgreSQL orders floats;
 * a boolean, one byte 0 or 1, compared with value as an integer; or any
 * bytes (text, bytea), equal when their wc_filter_hash is value (op is
 * then WC_FILTER_EQ or WC_FILTER_IN: a row whose bytes hash the same is
 * sent, and the backend compares the bytes).  Consecutive WC_FILTER_IN
 * filters of one column and kind are one filter, a set: the cell passes if
 * it is equal to any of their values (an IN list).  A row without the cell
 * (NULL) fails; a cell of another width, or a boolean byte other than 0 and
 * 1, passes, for the backend to raise the error it is (other bytes are
 * compared as they are, valid values of the column's type or not).
 */
typedef enum WcFilterKind
{
	WC_FILTER_INT2 = 1,
	WC_FILTER_INT4,
	WC_FILTER_INT8,
	WC_FILTER_FLOAT4,
	WC_FILTER_FLOAT8,
	WC_FILTER_BOOL,
	WC_FILTER_BYTES,
	WC_FILTER_ORDERED_BYTES		/* compared byte by byte, then by length:
								 * bytea, and text in the C collation */
} WcFilterKind;

typedef enum WcFilterOp
{
	WC_FILTER_LT = 1,
	WC_FILTER_LE,
	WC_FILTER_EQ,
	WC_FILTER_GE,
	WC_FILTER_GT,
	WC_FILTER_NE,
	WC_FILTER_IN				/* equal to this value or to the set's others */
} WcFilterOp;

/* Most filters a scan may have. */
#define WC_MAX_SCAN_FILTERS	64

typedef struct WcScanFilter
{
	uint16		col;			/* position in the request's columns */
	uint8		kind;			/* WcFilterKind */
	uint8		op;				/* WcFilterOp */
	uint64		value;			/* an int64, a double's bits, a hash, or
								 * the length of bytes */
	const uint8 *bytes;			/* WC_FILTER_ORDERED_BYTES: the value (on
								 * the wire after the length) */
} WcScanFilter;

/* The hash of a WC_FILTER_BYTES filter's value (64-bit FNV-1a). */
static inline uint64
wc_filter_hash(const uint8 *data, size_t len)
{
	uint64		h = UINT64CONST(0xcbf29ce484222325);

	for (size_t i = 0; i < len; i++)
	{
		h ^= data[i];
		h *= UINT64CONST(0x100000001b3);
	}
	return h;
}

/* A key range [start, end); an empty end has no end. */
typedef struct WcWireRange
{
	WcBytes		start;
	WcBytes		end;
} WcWireRange;

/*
 * OPEN: which engine, what it opens, and the engine's own options as
 * names and values (text, as the server's options give them: the engine
 * reads them, and refuses a name it does not know).
 */
#define WC_MAX_ENGINE_OPTIONS	32

typedef struct WcEngineOption
{
	WcBytes		name;			/* not empty */
	WcBytes		value;
} WcEngineOption;

/* Is the option's name s?  (An engine reading its OPEN's options.) */
#define WC_ENGINE_OPTION_IS(o, s) \
	((o)->name.len == strlen(s) && memcmp((o)->name.data, s, strlen(s)) == 0)

typedef struct WcOpenRequest
{
	WcBytes		engine;			/* "leveldb" */
	WcBytes		target;			/* not empty, no NUL byte */
	int			noptions;
	WcEngineOption options[WC_MAX_ENGINE_OPTIONS];
} WcOpenRequest;

typedef struct WcScanRequest
{
	uint32		db;
	uint32		snapshot;
	uint32		scan;
	uint8		flags;
	uint64		limit;
	uint64		as_of;			/* 0: now */
	int			ncols;
	WcBytes    *cols;			/* each family+qualifier, escaped */
	int			nranges;
	WcWireRange *ranges;
	/* WC_SCAN_CELLS: the versions wanted */
	uint64		ts_min;			/* timestamps in [ts_min, ts_max] */
	uint64		ts_max;
	int			nfams;			/* escaped families, ascending; 0: all */
	WcBytes    *fams;
	int			nquals;			/* ranges of escaped qualifiers (terminator
								 * included), ascending; 0: all */
	WcWireRange *quals;
	uint32		noverlay;		/* entries in overlay (WcOverlayEntry) */
	WcBytes		overlay;		/* as wc_write_overlay_entry wrote them */
	int			nfilters;		/* WC_SCAN_FILTER */
	WcScanFilter *filters;
} WcScanRequest;

/*
 * The rows of a WRITE request, and the lowest and highest of their row
 * prefixes (table and row key): a large commit's pending-commit record
 * must cover them all.  NULL lowest: no rows.
 */
typedef struct WcWriteRequest
{
	uint32		db;
	WcBytes		rows;
	WcBytes		lowest;
	WcBytes		highest;
	bool		exact;			/* a cell has WC_WRITE_PUT_AT or _DELETE_AT */
	WcBytes		exact_lowest;	/* the lowest and highest row prefix of */
	WcBytes		exact_highest;	/* the rows with such a cell */
} WcWriteRequest;

/* One row of a WRITE request's rows, and one of its cells. */
typedef struct WcRowWrite
{
	WcBytes		prefix;			/* escaped table and row key */
	bool		deleted;		/* the row is deleted before its cells are set */
	bool		read;			/* WC_ROW_READ: written only if unchanged */
	uint64		read_version;	/* since this version */
	uint32		ncells;
} WcRowWrite;

typedef struct WcCellWrite
{
	WcBytes		famqual;		/* escaped family and qualifier */
	bool		present;		/* false: the cell is deleted */
	WcBytes		value;
	bool		exact;			/* at ts, not the commit's timestamp */
	bool		now;			/* exact, but at the commit's timestamp */
	uint64		ts;
	uint8		merge;			/* a merge: its tag (aggfold.h), else 0 */
} WcCellWrite;

typedef struct WcEstimateRequest
{
	uint32		db;
	int			nranges;
	WcWireRange *ranges;
} WcEstimateRequest;

/* A SAMPLE request: the split points of a table (worker/leveldb/sizes.c). */
typedef struct WcSampleRequest
{
	uint32		db;
	WcBytes		table;			/* one escaped component */
} WcSampleRequest;

/*
 * A ROWS request: the rows met in ranges by a walk of at most max_entries
 * entries, for the planner (worker/leveldb/sizes.c).
 */
typedef struct WcRowsRequest
{
	uint32		db;
	uint32		max_entries;
	int			nranges;
	WcWireRange *ranges;
} WcRowsRequest;

/* The answer to ROWS. */
typedef struct WcRowsAnswer
{
	uint64		rows;			/* rows met (a row in two ranges: twice) */
	bool		complete;		/* the walk reached the end of every range */
	uint64		walked_bytes;	/* LevelDB's estimate of the bytes walked */
	uint64		bytes;			/* ... and of the ranges' */
} WcRowsAnswer;

/* A COUNT or COMPACT request: COMPACT has no family. */
typedef struct WcReclaimRequest
{
	uint32		db;
	WcBytes		table;			/* one escaped component, or empty */
	WcBytes		family;			/* one escaped component, or empty */
} WcReclaimRequest;

typedef struct WcErrorAnswer
{
	int			sqlstate;
	WcBytes		message;
	WcBytes		detail;
	WcBytes		hint;
} WcErrorAnswer;

typedef struct WcBatchHeader
{
	bool		done;			/* the scan's last batch */
	uint32		nrows;
	uint64		entries;		/* LevelDB entries read to fill it, or
								 * Bigtable cells received */
	uint32		skipped;		/* rows the scan's filters left out */
	uint32		requests;		/* calls to a remote store it took
								 * (Bigtable's ReadRows); 0 on LevelDB */
} WcBatchHeader;

typedef struct WcBatchRow
{
	WcBytes		key;			/* the row key, unescaped */
	bool		other;			/* the row has cells that were not asked for */
	uint16		ncells;
} WcBatchRow;

/*
 * The worker's state while it fills a BATCH answer: into a plain C buffer,
 * as its reader threads do (bytebuf.h).
 */
typedef struct WcBatchWriter
{
	WcByteBuf  *out;
	size_t		header;			/* offset of the answer's header */
	uint32		nrows;
	size_t		row_start;		/* offset of the row being written */
	size_t		row_header;		/* offset of its other-cells byte */
	uint16		ncells;
} WcBatchWriter;

/*
 * The primitives.  A WcReader never reads past its end: a short message
 * sets bad, after which every read gives zeros.
 */
typedef struct WcReader
{
	const uint8 *p;
	const uint8 *end;
	bool		bad;
} WcReader;

static inline void
wc_reader_init(WcReader *r, const void *data, size_t len)
{
	r->p = (const uint8 *) data;
	r->end = r->p + len;
	r->bad = false;
}

static inline size_t
wc_reader_left(const WcReader *r)
{
	return (size_t) (r->end - r->p);
}

static inline const uint8 *
wc_get_raw(WcReader *r, size_t n)
{
	const uint8 *s = r->p;

	if (r->bad || wc_reader_left(r) < n)
	{
		r->bad = true;
		return NULL;
	}
	r->p += n;
	return s;
}

static inline uint8
wc_get_u8(WcReader *r)
{
	const uint8 *s = wc_get_raw(r, 1);

	return s ? s[0] : 0;
}

static inline uint16
wc_get_u16(WcReader *r)
{
	const uint8 *s = wc_get_raw(r, 2);
	uint16		v = 0;

	if (s)
		memcpy(&v, s, 2);
	return v;
}

static inline uint32
wc_get_u32(WcReader *r)
{
	const uint8 *s = wc_get_raw(r, 4);
	uint32		v = 0;

	if (s)
		memcpy(&v, s, 4);
	return v;
}

static inline uint64
wc_get_u64(WcReader *r)
{
	const uint8 *s = wc_get_raw(r, 8);
	uint64		v = 0;

	if (s)
		memcpy(&v, s, 8);
	return v;
}

/* A str: a pointer into the message, or {NULL, 0} if it is short. */
static inline WcBytes
wc_get_bytes(WcReader *r)
{
	uint32		n = wc_get_u32(r);
	WcBytes		b;

	b.data = wc_get_raw(r, n);
	b.len = b.data ? n : 0;
	return b;
}

static inline void
wc_put_u32(StringInfo buf, uint32 v)
{
	appendBinaryStringInfo(buf, (const char *) &v, 4);
}

static inline void
wc_put_u64(StringInfo buf, uint64 v)
{
	appendBinaryStringInfo(buf, (const char *) &v, 8);
}

static inline void
wc_put_bytes(StringInfo buf, const void *data, size_t len)
{
	wc_put_u32(buf, (uint32) len);
	appendBinaryStringInfo(buf, (const char *) data, len);
}

/* in wire.c: which requests get an answer */
extern bool wc_msg_answered(uint8 type);

/* in wire.c: requests, as the backend writes them */
extern void wc_write_open(StringInfo buf, const WcOpenRequest *req);
/*
 * The part of a PostgreSQL snapshot that says which transactions it sees
 * (snapmgr.c's xmin, xmax and xip): a commit is visible to it when its
 * writer committed and is neither at or past xmax, nor in xip, nor the
 * reader itself (worker/leveldb/xacts.c).  xip is the snapshot's own array on the
 * backend's side; on the worker's it points into the request.
 */
typedef struct WcXidSnapshot
{
	uint32		xmin;
	uint32		xmax;
	uint32		own;			/* the reader's transaction id; 0: none */
	uint32		nxip;
	const uint32 *xip;			/* read with wc_xid_snapshot_xip */
	const uint8 *xip_bytes;		/* on the worker's side: nxip u32s */
} WcXidSnapshot;

/* The i-th transaction id of a snapshot read off the wire. */
static inline uint32
wc_xid_snapshot_xip(const WcXidSnapshot *s, uint32 i)
{
	uint32		xid;

	if (s->xip != NULL)
		return s->xip[i];
	/* in the host's order, as every number on the wire */
	memcpy(&xid, s->xip_bytes + 4 * (size_t) i, 4);
	return xid;
}

extern void wc_write_snapshot(StringInfo buf, uint32 db, uint32 snapshot,
							  const WcXidSnapshot *xs);
extern void wc_write_release(StringInfo buf, uint32 snapshot);
extern void wc_write_scan(StringInfo buf, const WcScanRequest *req);
extern void wc_write_next(StringInfo buf, uint32 scan);
extern void wc_write_close(StringInfo buf, uint32 scan);
extern void wc_write_write(StringInfo buf, uint32 db, const StringInfo rows);
extern void wc_write_row(StringInfo rows, const uint8 *prefix, size_t prefix_len,
						 bool deleted, uint32 ncells);
extern void wc_write_row_read(StringInfo rows, const uint8 *prefix, size_t prefix_len,
							  bool deleted, uint64 version, uint32 ncells);
extern void wc_write_row_cell(StringInfo rows, const uint8 *famqual, size_t famqual_len,
							  const uint8 *value, size_t value_len);
extern void wc_write_overlay_entry(StringInfo buf, const uint8 *key, size_t key_len,
								   uint8 kind, bool pending, uint64 ts,
								   const uint8 *value, size_t value_len);
extern bool wc_next_overlay_entry(WcReader *r, WcOverlayEntry *e);
extern void wc_write_row_cell_merge(StringInfo rows, const uint8 *famqual, size_t famqual_len,
									uint8 tag, const uint8 *operand);
extern void wc_write_row_cell_at(StringInfo rows, const uint8 *famqual, size_t famqual_len,
								 const uint8 *value, size_t value_len, uint64 ts);
extern void wc_write_row_cell_remove_now(StringInfo rows, const uint8 *famqual,
										 size_t famqual_len);
extern void wc_write_commit(StringInfo buf, uint32 db, bool sync, uint64 writer);
extern void wc_write_abort(StringInfo buf, uint32 db);
extern void wc_write_estimate(StringInfo buf, const WcEstimateRequest *req);
extern void wc_write_count(StringInfo buf, const WcReclaimRequest *req);
extern void wc_write_compact(StringInfo buf, const WcReclaimRequest *req);
extern void wc_write_sample(StringInfo buf, const WcSampleRequest *req);
extern void wc_write_rows(StringInfo buf, const WcRowsRequest *req);

/* in wire.c: requests, as the worker reads them (r at the type byte) */
extern uint8 wc_read_type(WcReader *r);
extern bool wc_read_open(WcReader *r, WcOpenRequest *req);
extern bool wc_read_snapshot(WcReader *r, uint32 *db, uint32 *snapshot, WcXidSnapshot *xs);
extern bool wc_read_release(WcReader *r, uint32 *snapshot);
extern void wc_write_share(StringInfo buf, uint32 snapshot);
extern bool wc_read_share(WcReader *r, uint32 *snapshot);
extern void wc_write_share_answer(StringInfo buf, uint64 token);
extern bool wc_read_share_answer(WcReader *r, uint64 *token);
extern void wc_write_attach(StringInfo buf, uint32 db, uint64 token, uint32 snapshot);
extern bool wc_read_attach(WcReader *r, uint32 *db, uint64 *token, uint32 *snapshot);
extern bool wc_read_scan(WcReader *r, WcScanRequest *req);
extern bool wc_read_next(WcReader *r, uint32 *scan);
extern bool wc_read_close(WcReader *r, uint32 *scan);
extern bool wc_read_write(WcReader *r, WcWriteRequest *req);
extern bool wc_read_row(WcReader *rows, WcRowWrite *row);
extern bool wc_read_row_cell(WcReader *rows, WcCellWrite *cell);
extern bool wc_next_row(WcReader *rows, WcRowWrite *row);
extern bool wc_next_row_cell(WcReader *rows, WcCellWrite *cell);
extern bool wc_read_commit(WcReader *r, uint32 *db, bool *sync, uint64 *writer);
extern bool wc_read_abort(WcReader *r, uint32 *db);
extern bool wc_read_estimate(WcReader *r, WcEstimateRequest *req);
extern bool wc_read_count(WcReader *r, WcReclaimRequest *req);
extern bool wc_read_compact(WcReader *r, WcReclaimRequest *req);
extern bool wc_read_sample(WcReader *r, WcSampleRequest *req);
extern bool wc_read_rows(WcReader *r, WcRowsRequest *req);

/* in wire.c: answers, as the worker writes them */
extern void wc_write_ok(StringInfo buf);
extern void wc_write_open_answer(StringInfo buf, uint32 db);
extern void wc_write_estimate_answer(StringInfo buf, uint64 bytes);
extern void wc_write_count_answer(StringInfo buf, uint64 n);
extern void wc_write_sample_answer(StringInfo buf, uint64 total, int n,
								   const WcBytes *keys, const uint64 *offsets);
extern void wc_write_rows_answer(StringInfo buf, const WcRowsAnswer *a);
extern void wc_write_error(StringInfo buf, int sqlstate, const char *message,
						   const char *detail, const char *hint);
extern void wc_write_batch_over(StringInfo buf);

/* in wire.c: answers, as the backend reads them (r at the type byte) */
extern bool wc_is_error(const void *data, size_t len);
extern bool wc_read_error(WcReader *r, WcErrorAnswer *err);
extern bool wc_read_ok(WcReader *r);
extern bool wc_read_open_answer(WcReader *r, uint32 *db);
extern bool wc_read_estimate_answer(WcReader *r, uint64 *bytes);
extern bool wc_read_count_answer(WcReader *r, uint64 *n);
extern bool wc_read_sample_answer(WcReader *r, uint64 *total, int *n,
								  WcBytes **keys, uint64 **offsets);
extern bool wc_read_rows_answer(WcReader *r, WcRowsAnswer *a);

/*
 * The BATCH answer, written by the worker and read by the backend for every
 * row and cell of a scan: inline, like the primitives above, since a call
 * per cell shows in a scan's cost.
 *
 * It is filled in place: the header is reserved first and filled in at the
 * end, and a row's other-cells flag and cell count once its cells are
 * written.  A row that turns out not to exist (all its cells deleted) is
 * taken back out.
 */
static inline void
wc_write_batch_begin(WcBatchWriter *w, WcByteBuf *out)
{
	static const uint8 header[22] = {WC_RESP_BATCH};

	w->out = out;
	w->header = out->len;
	w->nrows = 0;
	wc_bytebuf_append(out, header, sizeof(header));
}

/*
 * Begin a row: returns where its key (at most max_key_len bytes) goes, for
 * the worker to unescape it there; wc_write_batch_row_key says its length.
 */
static inline uint8 *
wc_write_batch_row(WcBatchWriter *w, size_t max_key_len)
{
	w->row_start = w->out->len;
	wc_bytebuf_reserve(w->out, 4 + max_key_len + 3);
	return w->out->data + w->out->len + 4;
}

static inline void
wc_write_batch_row_key(WcBatchWriter *w, size_t key_len)
{
	uint32		len = (uint32) key_len;

	memcpy(w->out->data + w->out->len, &len, 4);
	w->out->len += 4 + len;
	w->row_header = w->out->len;
	wc_bytebuf_append(w->out, "\0\0\0", 3);	/* other, ncells */
	w->ncells = 0;
}

static inline void
wc_write_batch_cell(WcBatchWriter *w, uint16 column, const uint8 *value, size_t len)
{
	WcByteBuf  *out = w->out;
	uint32		vlen = (uint32) len;
	uint8	   *dst;

	wc_bytebuf_reserve(out, 6 + len);
	dst = out->data + out->len;
	memcpy(dst, &column, 2);
	memcpy(dst + 2, &vlen, 4);
	memcpy(dst + 6, value, len);
	out->len += 6 + len;
	w->ncells++;
}

static inline void
wc_write_batch_row_end(WcBatchWriter *w, bool other, bool versions, uint64 version)
{
	w->out->data[w->row_header] = other ? 1 : 0;
	memcpy(w->out->data + w->row_header + 1, &w->ncells, 2);
	if (versions)
		wc_bytebuf_append(w->out, &version, 8);
	w->nrows++;
}

static inline void
wc_write_batch_row_cancel(WcBatchWriter *w)
{
	w->out->len = w->row_start;
}

static inline void
wc_write_batch_end(WcBatchWriter *w, bool done, uint64 entries, uint32 skipped)
{
	uint8	   *h = w->out->data + w->header;

	h[1] = done ? 1 : 0;
	memcpy(h + 2, &w->nrows, 4);
	memcpy(h + 6, &entries, 8);
	memcpy(h + 14, &skipped, 4);
}

/* The calls to a remote store that filled the batch (0 unless said). */
static inline void
wc_write_batch_requests(WcBatchWriter *w, uint32 requests)
{
	memcpy(w->out->data + w->header + 18, &requests, 4);
}

/* The header of a BATCH answer; r is left at its first row. */
static inline bool
wc_read_batch(WcReader *r, WcBatchHeader *header)
{
	if (wc_get_u8(r) != WC_RESP_BATCH || r->bad)
	{
		r->bad = true;
		return false;
	}
	header->done = wc_get_u8(r) != 0;
	header->nrows = wc_get_u32(r);
	header->entries = wc_get_u64(r);
	header->skipped = wc_get_u32(r);
	header->requests = wc_get_u32(r);
	return !r->bad;
}

/* A row of a BATCH answer; its ncells cells follow (wc_read_batch_cell). */
static inline bool
wc_read_batch_row(WcReader *r, WcBatchRow *row)
{
	row->key = wc_get_bytes(r);
	row->other = wc_get_u8(r) != 0;
	row->ncells = wc_get_u16(r);
	return !r->bad;
}

static inline bool
wc_read_batch_cell(WcReader *r, uint16 *column, WcBytes *value)
{
	*column = wc_get_u16(r);
	*value = wc_get_bytes(r);
	return !r->bad;
}

/*
 * One cell of a family asked for alone, inside that column's BATCH value:
 * the worker packs the family's cells so, and the backend (fdw/model/mapcolumn.c)
 * keeps a map column's value in the same form while it merges in this
 * transaction's writes.
 */
static inline void
wc_write_map_entry(StringInfo buf, const uint8 *qual, size_t qual_len,
				   const uint8 *value, size_t value_len)
{
	wc_put_bytes(buf, qual, qual_len);
	wc_put_bytes(buf, value, value_len);
}

/* The same, for the worker's plain C buffer. */
static inline void
wc_write_batch_map_entry(WcByteBuf *buf, const uint8 *qual, size_t qual_len,
						 const uint8 *value, size_t value_len)
{
	uint32		len = (uint32) qual_len;

	wc_bytebuf_reserve(buf, 8 + qual_len + value_len);
	wc_bytebuf_append(buf, &len, 4);
	wc_bytebuf_append(buf, qual, qual_len);
	len = (uint32) value_len;
	wc_bytebuf_append(buf, &len, 4);
	wc_bytebuf_append(buf, value, value_len);
}

static inline bool
wc_read_map_entry(WcReader *r, WcBytes *qual, WcBytes *value)
{
	*qual = wc_get_bytes(r);
	*value = wc_get_bytes(r);
	return !r->bad;
}

/* The row's version, after its cells, in a scan with WC_SCAN_VERSIONS. */
static inline bool
wc_read_batch_version(WcReader *r, uint64 *version)
{
	*version = wc_get_u64(r);
	return !r->bad;
}

/*
 * The storage worker's figures (widecolumn.stat_worker and its neighbours,
 * worker/workerstats.c), read and written by wirestats.c.
 */
#define WC_STAT_MAX_TYPES	32	/* request types below this are counted */
#define WC_STAT_LEVELS		7	/* LevelDB's levels */

typedef struct WcRequestStats
{
	uint8		type;			/* WcMsgType */
	uint64		calls;
	uint64		total_us;		/* from taking it off the queue to its answer */
	uint64		p99_us;			/* the histogram bucket's upper bound */
	uint64		max_us;
	uint64		deferred;		/* answered later: on a thread, or after the
								 * work of another request */
} WcRequestStats;

typedef struct WcWorkerStats
{
	int64		started;		/* TimestampTz */
	uint64		elapsed_us;
	uint64		busy_us;
	uint64		commits;		/* COMMITs that wrote */
	uint64		large_commits;
	uint64		fsyncs;
	uint64		answer_waits;	/* answers that found their queue full */
	uint64		queue_waits;	/* requests whose wait in their queue was
								 * measured, and those waits: */
	uint64		queue_wait_us;
	uint64		queue_wait_p99_us;
	uint64		queue_wait_max_us;
	int			ntypes;
	WcRequestStats types[WC_STAT_MAX_TYPES];
} WcWorkerStats;

typedef struct WcDbStats
{
	WcBytes		path;
	bool		open;			/* false: closed after a failed write */
	uint32		files[WC_STAT_LEVELS];
	uint64		size_mb[WC_STAT_LEVELS];
	uint64		compactions;	/* the worker's compactions of ranges */
	uint64		compaction_seconds;	/* LevelDB's, of every level */
	uint64		compaction_read_mb;
	uint64		compaction_write_mb;
	WcBytes		stats;			/* the leveldb.stats property */
} WcDbStats;

/* in wirestats.c */
extern void wc_write_stat_worker(StringInfo buf);
extern bool wc_read_stat_worker(WcReader *r);
extern void wc_write_stat_databases(StringInfo buf);
extern bool wc_read_stat_databases(WcReader *r);
extern void wc_write_stat_worker_answer(StringInfo buf, const WcWorkerStats *s);
extern bool wc_read_stat_worker_answer(WcReader *r, WcWorkerStats *s);
extern void wc_write_stat_databases_answer(StringInfo buf, uint32 n);
extern void wc_write_stat_database(StringInfo buf, const WcDbStats *s);
extern bool wc_read_stat_databases_answer(WcReader *r, uint32 *n);
extern bool wc_read_stat_database(WcReader *r, WcDbStats *s, bool last);

#endif							/* WC_WIRE_H */
