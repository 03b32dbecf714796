/*-------------------------------------------------------------------------
 *
 * bigtable.h
 *	  The Bigtable engine's parts, shared by its files: a database (an
 *	  instance and its channel) and a scan.  Private to this folder.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_BIGTABLE_H
#define WC_BIGTABLE_H

#include <pthread.h>

#include "worker/worker.h"
#include "worker/bigtable/btclient.h"

/* A table's families and their policies (btpolicies.c; malloc'd). */
typedef struct BtPolicies
{
	char	  **families;
	WcGcPolicy *policies;		/* 0 and 0: none */
	int			n;
} BtPolicies;

typedef struct BtPolicyEntry BtPolicyEntry;

/* A Bigtable instance the worker reaches (engine.c). */
typedef struct WcBtDb
{
	WcDatabase	base;			/* base.name: endpoint/projects/P/instances/I */
	char	   *endpoint;
	char	   *project;
	char	   *instance;
	bool		insecure;
	char	   *app_profile;	/* "": the instance's default */
	int			timeout_ms;
	char	   *instance_name;	/* projects/P/instances/I */
	WcBtClient *client;			/* shared by the threads that call it */
	pthread_mutex_t policies_lock;	/* over the two below */
	BtPolicyEntry *policies;	/* tables' policies as scans apply them */
	uint64		policies_changes;	/* COMMITs that changed families */
	struct BtSample *samples;	/* tables' last samples (btsizes.c; main
								 * thread only) */
	struct WcBtDb *next;
} WcBtDb;

typedef struct WcBtScan WcBtScan;
typedef struct BtFamilyChange BtFamilyChange;

/* in engine.c */
extern int	bt_sqlstate(int code, bool of_row);
extern void bt_wake(void);

/*
 * Jobs that run on threads of their own (a commit's, a call's) and come
 * back to the main thread when done; a job's first member is its BtJob.
 */
typedef struct BtJob
{
	struct BtJob *next;
} BtJob;

typedef struct BtJobs
{
	pthread_mutex_t lock;
	BtJob	   *done;			/* the threads' */
	int			out;			/* started and not taken (main thread) */
} BtJobs;

#define BT_JOBS_INIT {PTHREAD_MUTEX_INITIALIZER, NULL, 0}

extern int	bt_jobs_start(BtJobs *jobs, void *(*fn) (void *), BtJob *job);
extern void bt_jobs_done(BtJobs *jobs, BtJob *job);
extern BtJob *bt_jobs_take(BtJobs *jobs);
extern void bt_jobs_wait(BtJobs *jobs, bool (*collect) (void));
extern pg_attribute_noreturn() void bt_call_failed(const WcBtDb *db, const char *call,
												   const char *table, const WcBtStatus *st);
extern pg_attribute_noreturn() void bt_not_yet(const WcBtDb *db, const char *what);

/* in btcommit.c */
extern WcCommitOutcome bt_commit(WcClient *c, WcBtDb *db, WcClientWrites *w);
extern bool bt_commit_collect(void);
extern uint8 *bt_next_cell(WcReader *rows, WcCellWrite *cell, size_t *flen, size_t *qlen);
extern void bt_commit_finish(void);
extern int64 bt_commit_next_ts(void);
extern void bt_commit_wait(int64 before_us, WcBtCancel *cancel);

/* in btfamilies.c */
extern void bt_families_take(BtFamilyChange **changes, const WcBtDb *db, WcReader *rows,
							 const WcRowWrite *row, const uint8 *table, size_t tlen);
extern bool bt_families_apply(WcBtDb *db, const BtFamilyChange *changes,
							  const char **failed_table, WcBtStatus *st);

/* in btpolicies.c */
extern bool bt_policies_get(WcBtDb *db, const char *table, uint64 now_us, BtPolicies *out,
							WcBtStatus *st);
extern void bt_policies_forget(WcBtDb *db, const char *table);
extern void bt_policies_free(BtPolicies *p);
extern const WcGcPolicy *bt_policy_of(const BtPolicies *p, const uint8 *family, size_t len);

/* in btfilters.c */
extern const WcBtFilter *bt_filters_build(const WcScanRequest *req, int64 as_of_hi,
										  WcBtFilter **inner);

/* in btsizes.c */
extern bool bt_sizes_sample(WcClient *c, WcBtDb *db, const WcSampleRequest *req, StringInfo out);
extern bool bt_sizes_estimate(WcClient *c, WcBtDb *db, const WcEstimateRequest *req,
							  uint64 *bytes);
extern bool bt_sizes_rows(WcClient *c, WcBtDb *db, const WcRowsRequest *req, WcRowsAnswer *a);
extern bool bt_sizes_collect(void);
extern void bt_sizes_cancel(WcClient *c);
extern void bt_sizes_finish(void);

/* in btmeta.c */
extern void bt_meta_columns(const WcScanRequest *req, int *families_idx, int *wc_idx);
extern uint64 bt_meta_read(WcBtDb *db, const char *table, const WcBtRange *ranges, int nranges,
						   bool reverse, bool versions, uint64 limit, int families_idx,
						   int wc_idx, WcBatchWriter *batch);

/* in btoverlay.c */
typedef struct BtOverlay BtOverlay;
extern BtOverlay *bt_overlay_load(const WcScanRequest *req, const uint8 *table, size_t tlen,
								  int64 pending_ts);
extern bool bt_overlay_next_row(const BtOverlay *ov, const uint8 **key, size_t *len);
extern void bt_overlay_skip_row(BtOverlay *ov);
#define BT_MARK_PENDING	0x01	/* a version the COMMIT will stamp */
#define BT_MARK_OWN		0x02	/* a version the transaction wrote */
extern const WcBtRows *bt_overlay_merge(BtOverlay *ov, const WcBtRows *stored,
										const uint8 **marks);
extern void bt_overlay_free(BtOverlay *ov);

/* in btscan.c */
extern void bt_key_bound(const uint8 *k, size_t n, bool is_end, uint8 *out, size_t *outlen,
						 bool *adjust);
extern bool bt_ranges_hold(const WcBtRange *ranges, int n, const uint8 *k, size_t len);
extern char *bt_table_path(const WcBtDb *db, const uint8 *escaped, size_t len, size_t *name_len,
						   const char *request);
extern WcBtScan *bt_scan_open(WcBtDb *db, const WcScanRequest *req);
extern bool bt_scan_fill(WcBtScan *s);
extern void bt_scan_cancel(WcBtScan *s);
extern const WcByteBuf *bt_scan_batch(WcBtScan *s);
extern void bt_scan_close(WcBtScan *s);

#endif							/* WC_BIGTABLE_H */
