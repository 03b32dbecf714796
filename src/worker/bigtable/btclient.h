/*-------------------------------------------------------------------------
 *
 * btclient.h
 *	  gRPC's wall: Bigtable's data API as plain C calls (btclient.cc).
 *
 * Nothing outside btclient.cc sees gRPC or protobuf: a call takes plain
 * structs and gives rows, samples and outcomes back through callbacks, and
 * an error as gRPC's status code with its message.  No PostgreSQL either:
 * the engine's threads call it, and so do the tests' tools
 * (test/bigtable/btwall.c).  Every call has a deadline; a callback that
 * returns false cancels the call in flight.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_BTCLIENT_H
#define WC_BTCLIENT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

#include "common/gcpolicy.h"
#include "worker/bigtable/readrows.h"

/* gRPC's status codes that callers tell apart (grpc/status.h's numbers) */
#define WC_BT_OK					0
#define WC_BT_CANCELLED				1
#define WC_BT_INVALID_ARGUMENT		3
#define WC_BT_DEADLINE_EXCEEDED		4
#define WC_BT_NOT_FOUND				5
#define WC_BT_ALREADY_EXISTS		6
#define WC_BT_PERMISSION_DENIED		7
#define WC_BT_RESOURCE_EXHAUSTED	8
#define WC_BT_FAILED_PRECONDITION	9
#define WC_BT_UNAVAILABLE			14
#define WC_BT_UNAUTHENTICATED		16

typedef struct WcBtStatus
{
	int			code;			/* WC_BT_OK, or gRPC's code */
	char		message[512];
} WcBtStatus;

typedef struct WcBtClient WcBtClient;

/*
 * A channel to endpoint ("host:port"): without TLS when insecure (an
 * emulator), else TLS with Google's application-default credentials.
 * Connecting happens at the first call; NULL and st set when the
 * credentials cannot be had.
 */
extern WcBtClient *wc_bt_connect(const char *endpoint, bool insecure, WcBtStatus *st);
extern void wc_bt_close(WcBtClient *c);

/*
 * The calls a thread makes for one job (a scan's batch), cancelled from
 * another thread: wc_bt_cancel_on(c) makes c the calling thread's (NULL:
 * none) until it is set again; wc_bt_cancel(c), on any thread, cancels
 * the call of it in flight (it ends with WC_BT_CANCELLED), and every later
 * one fails so at once.
 */
typedef struct WcBtCancel
{
	pthread_mutex_t mutex;
	void	   *call;			/* the call in flight, or NULL */
	bool		cancelled;
} WcBtCancel;

extern void wc_bt_cancel_init(WcBtCancel *c);
extern void wc_bt_cancel_destroy(WcBtCancel *c);
extern void wc_bt_cancel_on(WcBtCancel *c);
extern void wc_bt_cancel(WcBtCancel *c);
extern bool wc_bt_cancelled(WcBtCancel *c);

/* A row range: an empty start is the first row, an empty end the last. */
typedef struct WcBtRange
{
	const uint8_t *start;
	size_t		start_len;
	bool		start_open;		/* start itself excluded */
	const uint8_t *end;
	size_t		end_len;
	bool		end_closed;		/* end itself included */
} WcBtRange;

/* A RowFilter, as a tree (google.bigtable.v2.RowFilter's kinds we use). */
typedef enum WcBtFilterKind
{
	WC_BT_FILTER_CHAIN,			/* children, each applied to the last's output */
	WC_BT_FILTER_INTERLEAVE,	/* children, their outputs merged */
	WC_BT_FILTER_PASS,
	WC_BT_FILTER_BLOCK,
	WC_BT_FILTER_ROW_KEY_REGEX, /* bytes (RE2) */
	WC_BT_FILTER_FAMILY_REGEX,	/* bytes */
	WC_BT_FILTER_QUALIFIER_REGEX,	/* bytes */
	WC_BT_FILTER_COLUMN_RANGE,	/* family in bytes, qualifiers in range */
	WC_BT_FILTER_TIMESTAMP_RANGE,	/* [lo, hi) microseconds, 0 open */
	WC_BT_FILTER_VALUE_REGEX,	/* bytes */
	WC_BT_FILTER_CELLS_PER_COLUMN,	/* n */
	WC_BT_FILTER_CELLS_PER_ROW, /* n */
	WC_BT_FILTER_CELLS_PER_ROW_OFFSET,	/* n */
	WC_BT_FILTER_STRIP_VALUE,
	WC_BT_FILTER_CONDITION,		/* children: predicate, if any cell, else */
	WC_BT_FILTER_VALUE_RANGE	/* values in range (an empty end: none) */
} WcBtFilterKind;

typedef struct WcBtFilter
{
	WcBtFilterKind kind;
	const struct WcBtFilter *children;
	int			nchildren;
	const uint8_t *bytes;
	size_t		len;
	WcBtRange	range;			/* COLUMN_RANGE: start and end qualifiers */
	int64_t		lo;
	int64_t		hi;
	int32_t		n;
} WcBtFilter;

typedef struct WcBtRead
{
	const char *table;			/* projects/P/instances/I/tables/T */
	const char *app_profile;	/* "" or NULL: the instance's default */
	int			nkeys;			/* with no key and no range: every row */
	const uint8_t *const *keys;
	const size_t *key_lens;
	int			nranges;
	const WcBtRange *ranges;
	const WcBtFilter *filter;	/* NULL: every cell */
	int64_t		rows_limit;		/* 0: none */
	bool		reversed;
	int64_t		timeout_ms;
} WcBtRead;

/*
 * Each merged row, in the order they come: the key and cells in rows;
 * false stops the read (cancelling the call).
 */
typedef bool (*WcBtRowFn) (void *arg, const WcBtRows *rows);

/*
 * What came of a call: false and st set on an error, a broken stream
 * (readrows.c's rule, as INTERNAL) or a stop; *nrows the rows given.
 */
extern bool wc_bt_read_rows(WcBtClient *c, const WcBtRead *req, WcBtRowFn fn, void *arg,
							uint64_t *nrows, WcBtStatus *st);

typedef bool (*WcBtSampleFn) (void *arg, const uint8_t *key, size_t len, int64_t offset);

extern bool wc_bt_sample_row_keys(WcBtClient *c, const char *table, const char *app_profile,
								  int64_t timeout_ms, WcBtSampleFn fn, void *arg,
								  WcBtStatus *st);

typedef enum WcBtMutationKind
{
	WC_BT_SET_CELL,				/* family, qualifier, ts (-1: the server's), value */
	WC_BT_DELETE_CELLS,			/* family, qualifier, versions in [lo, hi) (0 open) */
	WC_BT_DELETE_FAMILY,		/* family */
	WC_BT_DELETE_ROW,
	WC_BT_ADD_TO_CELL			/* family, qualifier, ts, input (an aggregate
								 * family's) */
} WcBtMutationKind;

typedef struct WcBtMutation
{
	WcBtMutationKind kind;
	const char *family;
	size_t		family_len;
	const uint8_t *qualifier;
	size_t		qualifier_len;
	int64_t		ts;
	const uint8_t *value;
	size_t		value_len;
	int64_t		lo;
	int64_t		hi;
	int64_t		input;
} WcBtMutation;

/* A row's mutations: applied together or not at all. */
typedef struct WcBtEntry
{
	const uint8_t *row_key;
	size_t		row_key_len;
	const WcBtMutation *mutations;
	int			nmutations;
} WcBtEntry;

/*
 * MutateRows: every entry's outcome into codes[i] (WC_BT_OK or gRPC's
 * code; one entry's message into st).  True when every entry was
 * applied.  When the call itself fails, the entries whose outcome did not
 * come keep code WC_BT_UNAVAILABLE: they may or may not have been applied.
 */
extern bool wc_bt_mutate_rows(WcBtClient *c, const char *table, const char *app_profile,
							  const WcBtEntry *entries, int nentries, int64_t timeout_ms,
							  int *codes, WcBtStatus *st);

/*
 * CheckAndMutateRow: the row's true or false mutations, as predicate
 * matches any cell of it or not; *matched says which.
 */
extern bool wc_bt_check_and_mutate(WcBtClient *c, const char *table, const char *app_profile,
								   const uint8_t *row_key, size_t row_key_len,
								   const WcBtFilter *predicate,
								   const WcBtMutation *if_true, int ntrue,
								   const WcBtMutation *if_false, int nfalse,
								   int64_t timeout_ms, bool *matched, WcBtStatus *st);

/*
 * The table admin API: tables, and their families with garbage-collection
 * policies (gcpolicy.h's, Bigtable's GcRule of at most two rules) and
 * aggregate types (Bigtable's Aggregate over big-endian Int64).
 */
typedef enum WcBtAggregate
{
	WC_BT_AGG_NONE,
	WC_BT_AGG_SUM,
	WC_BT_AGG_MIN,
	WC_BT_AGG_MAX,
	WC_BT_AGG_OTHER				/* read only: a type Bigtable has and we lack */
} WcBtAggregate;

typedef struct WcBtFamily
{
	const char *name;
	WcGcPolicy	policy;			/* 0 and 0: never */
	bool		policy_known;	/* read: false if Bigtable's rule has no
								 * gcpolicy.h form (three rules, nesting) */
	WcBtAggregate aggregate;
} WcBtFamily;

/* A table instance/tables/table_id with its families; instance is projects/P/instances/I. */
extern bool wc_bt_create_table(WcBtClient *c, const char *instance, const char *table_id,
							   const WcBtFamily *families, int nfamilies,
							   int64_t timeout_ms, WcBtStatus *st);

typedef enum WcBtFamilyChange
{
	WC_BT_FAMILY_CREATE,
	WC_BT_FAMILY_UPDATE,		/* its policy */
	WC_BT_FAMILY_DROP			/* and every cell in it */
} WcBtFamilyChange;

extern bool wc_bt_modify_family(WcBtClient *c, const char *table, WcBtFamilyChange change,
								const WcBtFamily *family, int64_t timeout_ms, WcBtStatus *st);

/* A table's families, by name; false from fn stops. */
typedef bool (*WcBtFamilyFn) (void *arg, const WcBtFamily *family);

extern bool wc_bt_get_table(WcBtClient *c, const char *table, WcBtFamilyFn fn, void *arg,
							int64_t timeout_ms, WcBtStatus *st);

/* An instance's tables (their full names), every page. */
typedef bool (*WcBtTableFn) (void *arg, const char *name);

extern bool wc_bt_list_tables(WcBtClient *c, const char *instance, WcBtTableFn fn, void *arg,
							  int64_t timeout_ms, WcBtStatus *st);
extern bool wc_bt_delete_table(WcBtClient *c, const char *table, int64_t timeout_ms,
							   WcBtStatus *st);

/* Every row whose key begins with prefix, or (all) every row. */
extern bool wc_bt_drop_row_range(WcBtClient *c, const char *table, const uint8_t *prefix,
								 size_t prefix_len, bool all, int64_t timeout_ms,
								 WcBtStatus *st);

#ifdef __cplusplus
}
#endif

#endif							/* WC_BTCLIENT_H */
