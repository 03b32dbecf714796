/*-------------------------------------------------------------------------
 *
 * storage.h
 *	  The storage worker's view of LevelDB (implemented in storage.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_STORAGE_H
#define WC_STORAGE_H

#include <stdint.h>

#include "lib/stringinfo.h"

typedef struct WcDb WcDb;
typedef struct WcIter WcIter;
typedef struct WcSnap WcSnap;
typedef struct WcBatch WcBatch;

typedef struct WcDbOptions
{
	uint32_t	cache_mb;
	uint32_t	write_buffer_mb;
	uint32_t	bloom_bits;
	bool		compression;
} WcDbOptions;

extern void storage_start_background_thread(int elevel);
extern WcDb *storage_open(const char *path, const WcDbOptions *opts);
extern void storage_close(WcDb *db);
extern WcSnap *storage_snapshot(WcDb *db);
extern WcSnap *storage_snapshot_share(WcSnap *snap);
extern void storage_release(WcDb *db, WcSnap *snap);
extern WcIter *storage_iter(WcDb *db, WcSnap *snap, bool fill_cache);
extern void storage_iter_free(WcIter *it);
extern void storage_iter_seek(WcIter *it, const uint8_t *key, size_t len);
extern void storage_iter_seek_last(WcIter *it);
extern bool storage_iter_valid(WcIter *it);
extern void storage_iter_next(WcIter *it);
extern bool storage_iter_next_key(WcIter *it, const uint8_t **key, size_t *len);
extern void storage_iter_prev(WcIter *it);
extern const uint8_t *storage_iter_key(WcIter *it, size_t *len);
extern const uint8_t *storage_iter_value(WcIter *it, size_t *len);
extern void storage_iter_check(WcIter *it);
extern WcBatch *storage_batch_new(void);
extern void storage_batch_put(WcBatch *b, const uint8_t *key, size_t klen,
							  const uint8_t *val, size_t vlen);
extern void storage_batch_delete(WcBatch *b, const uint8_t *key, size_t klen);
extern size_t storage_batch_bytes(WcBatch *b);
extern void storage_batch_clear(WcBatch *b);
extern void storage_batch_free(WcBatch *b);
extern void storage_batch_encode(WcBatch *b, StringInfo out);
extern WcBatch *storage_batch_decode(const char *data, size_t len);
extern void storage_write(WcDb *db, WcBatch *b, bool sync);
extern uint64 storage_writes(WcDb *d);
extern bool storage_write_group(WcDb *db, WcBatch *const *b, int n, bool sync,
								char *err, size_t errlen);
extern bool storage_failed_flag(WcDb *db);
extern void storage_set_failed_flag(WcDb *db);
extern const char *storage_db_path(WcDb *db);
extern void storage_raise_write_error(char *msg, const char *path) pg_attribute_noreturn();
extern void storage_sync_logs(WcDb *db);
extern void storage_allocate_log(WcDb *db);

/* logfiles.c */
extern void ldb_logs_allocate(const char *path, off_t size, uint64 *done);
extern void ldb_logs_trim(const char *path);

/* commitwriter.c */
extern int	storage_writer_start(int capacity);
extern void storage_writer_stop(void);
extern void storage_submit(WcDb *db, WcBatch *b, bool sync, void *owner);
extern bool storage_next_written(void **owner);
extern void storage_finish_written(void);
extern void storage_writer_drain(void);
extern bool storage_writer_idle(void);
extern bool storage_write_failed(WcDb *db);
extern uint64_t storage_writer_fsyncs(void);
extern bool storage_exists(const char *path);
extern bool storage_compact_start(WcDb *db, const uint8_t *start, size_t slen,
								  const uint8_t *end, size_t elen);
extern bool storage_compact_busy(void);
extern void storage_compact_wait(void);
extern uint8_t *storage_get(WcDb *db, const uint8_t *key, size_t klen, size_t *vlen);
extern uint64_t storage_approximate_size(WcDb *db, const uint8_t *start, size_t slen,
										 const uint8_t *end, size_t elen);
extern uint64_t storage_fsyncs(void);
extern uint64_t storage_compactions(WcDb *db);
extern char *storage_property(WcDb *db, const char *name);

#endif							/* WC_STORAGE_H */
