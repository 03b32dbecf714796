/*-------------------------------------------------------------------------
 *
 * wire.h
 *	  Messages between a backend and the storage worker.
 *
 * Every message starts with a one-byte type.  Integers are little-endian
 * (both ends are the same machine); a string is a u32 length and its bytes.
 * Requests are answered in the order they were sent, and only the types
 * marked "answered" get an answer, so a backend can send a request and keep
 * working before the answer arrives.  Row keys, tables and columns arrive
 * already escaped as in keycodec.h, so the worker copies bytes into keys and
 * never re-encodes them.
 *
 * The reader below is plain C and never trusts a length: a short or
 * malformed message sets r->bad instead of reading past the end.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_WIRE_H
#define WC_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef enum WcMsgType
{
	/* requests */
	WC_REQ_OPEN = 1,		/* str path, u32 cache_mb, u32 write_buffer_mb,
							 * u32 bloom_bits, u8 compression: answered OK
							 * with u32 db, or ERROR */
	WC_REQ_SNAPSHOT = 2,	/* u32 db, u32 snapshot */
	WC_REQ_RELEASE = 3,		/* u32 snapshot */
	WC_REQ_SCAN = 4,		/* u32 db, u32 snapshot, u32 scan, u8 flags,
							 * u64 limit (rows, 0 = none), u16 ncols
							 * {str family+qualifier}, u32 nranges {str start,
							 * str end}: answered BATCH/ERROR */
	WC_REQ_NEXT = 5,		/* u32 scan: answered BATCH/ERROR (an ended scan: empty, done) */
	WC_REQ_CLOSE = 6,		/* u32 scan */
	WC_REQ_WRITE = 7,		/* u32 db, then rows: str table+rowkey, u8 deleted,
							 * u32 ncells {str family+qualifier, u8 tag,
							 * str value} until the end of the message */
	WC_REQ_COMMIT = 8,		/* u32 db, u8 sync: answered OK/ERROR */
	WC_REQ_ABORT = 9,		/* u32 db */
	WC_REQ_ESTIMATE = 10,	/* u32 db, u32 nranges {str start, str end}:
							 * answered OK with u64 bytes */

	/* answers */
	WC_RESP_OK = 64,		/* optional payload */
	WC_RESP_ERROR = 65,		/* u32 code (WcErrorCode), str message, str detail */
	WC_RESP_BATCH = 66		/* u8 done, u32 nrows, u64 entries read, rows:
							 * str rowkey, u8 other-cells, u16 ncells
							 * {u16 column, str value} */
} WcMsgType;

typedef enum WcErrorCode
{
	WC_ERR_INTERNAL = 1,	/* unexpected; a bug */
	WC_ERR_IO,				/* LevelDB could not open, read or write */
	WC_ERR_CORRUPT,			/* stored bytes are not what we wrote */
	WC_ERR_PROTOCOL,		/* a malformed or out-of-order request */
	WC_ERR_NO_SPACE			/* disk full while writing */
} WcErrorCode;

/* Flags of a SCAN request. */
#define WC_SCAN_REVERSE		0x01	/* descending key order */
#define WC_SCAN_BULK		0x02	/* a full scan: do not fill the block cache */
#define WC_SCAN_VERSIONS	0x04	/* each row ends with its version (u64): the
									 * newest time among its cells' newest
									 * entries, tombstones too */

/* Largest number of columns a scan may ask for. */
#define WC_MAX_SCAN_COLUMNS	1600

typedef struct WcReader
{
	const uint8_t *p;
	const uint8_t *end;
	int			bad;
} WcReader;

static inline void
wc_reader_init(WcReader *r, const void *data, size_t len)
{
	r->p = (const uint8_t *) data;
	r->end = r->p + len;
	r->bad = 0;
}

static inline size_t
wc_reader_left(const WcReader *r)
{
	return (size_t) (r->end - r->p);
}

static inline const uint8_t *
wc_get_raw(WcReader *r, size_t n)
{
	const uint8_t *s = r->p;

	if (r->bad || wc_reader_left(r) < n)
	{
		r->bad = 1;
		return NULL;
	}
	r->p += n;
	return s;
}

static inline uint8_t
wc_get_u8(WcReader *r)
{
	const uint8_t *s = wc_get_raw(r, 1);

	return s ? s[0] : 0;
}

static inline uint16_t
wc_get_u16(WcReader *r)
{
	const uint8_t *s = wc_get_raw(r, 2);
	uint16_t	v = 0;

	if (s)
		memcpy(&v, s, 2);
	return v;
}

static inline uint32_t
wc_get_u32(WcReader *r)
{
	const uint8_t *s = wc_get_raw(r, 4);
	uint32_t	v = 0;

	if (s)
		memcpy(&v, s, 4);
	return v;
}

static inline uint64_t
wc_get_u64(WcReader *r)
{
	const uint8_t *s = wc_get_raw(r, 8);
	uint64_t	v = 0;

	if (s)
		memcpy(&v, s, 8);
	return v;
}

/* A string: sets *len and returns a pointer into the message. */
static inline const uint8_t *
wc_get_str(WcReader *r, size_t *len)
{
	uint32_t	n = wc_get_u32(r);
	const uint8_t *s = wc_get_raw(r, n);

	*len = s ? n : 0;
	return s;
}

/* The lowest and highest row prefix of a WRITE request: pointers into it. */
typedef struct WcRowSpan
{
	const uint8_t *lowest;		/* NULL: the request has no rows */
	size_t		lowest_len;
	const uint8_t *highest;
	size_t		highest_len;
} WcRowSpan;

/* in wire.c */
extern int	wc_check_write(const uint8_t *data, size_t len, WcRowSpan *span);
extern int	wc_check_scan(const uint8_t *data, size_t len);

#endif							/* WC_WIRE_H */
