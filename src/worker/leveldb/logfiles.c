/*-------------------------------------------------------------------------
 *
 * logfiles.c
 *	  LevelDB's log files: the current one allocated ahead of its writes,
 *	  every one cut back to what was written before LevelDB reads it.
 *
 * LevelDB appends each commit to its log and fdatasyncs it.  While the log
 * grows, each fdatasync also writes the file's new size, a journal commit
 * on ext4: 123-133 µs a sync on the development machine, against 86-94 µs
 * into space already allocated (test/bench/analysis.md).  A single-row
 * commit pays that once.  So the newest log is allocated to a memtable's
 * size when it appears: at open, and within a second of LevelDB starting
 * one (engine.c).  Linux's fallocate, not posix_fallocate, whose fallback
 * writes zeros that would race LevelDB's writer; a file system that cannot
 * (EOPNOTSUPP) keeps growing logs.
 *
 * The allocated space reads as zeros.  LevelDB's log reader skips them (a
 * zero-length record of type 0 is what its old mmap writer's preallocation
 * left), but a write cut short by a crash now ends in them, not at the end
 * of the file: LevelDB reads past the cut record into the zeros, finds its
 * checksum wrong and, with paranoid_checks, refuses to open the database,
 * where at the end of a file it takes the same record for a write that
 * never finished and drops it.  So before a database is opened each log is
 * cut after its last whole record, when what follows is zeros but for one
 * record cut short (its last byte zero, as a cut leaves it); a log damaged
 * anywhere else is left for LevelDB to report.  A damaged last record whose
 * last byte is zero passes for one cut short and is dropped: LevelDB alone
 * would refuse the database.
 *
 * LevelDB's log format (its db/log_format.h): 32 kB blocks of records, each
 * a 7-byte header (a masked CRC-32C of the type byte and the payload, the
 * payload's length in 2 bytes, the type: 1 whole, 2 to 4 first, middle and
 * last piece) and the payload, never across a block's end; a block's last
 * bytes, too few for a header, are zeros.
 *
 * The worker's main thread only.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#include "port/pg_crc32c.h"
#include "storage/fd.h"

#include "worker/leveldb/storage.h"

#define LOG_BLOCK		32768
#define LOG_HEADER		7
#define LOG_LAST_TYPE	4
#define LOG_CRC_MASK_DELTA 0xa282ead8U

/* Is name a log's, "<number>.log"?  Its number in *number. */
static bool
log_number(const char *name, uint64 *number)
{
	size_t		len = strlen(name);
	uint64		n = 0;

	if (len < 5 || strcmp(name + len - 4, ".log") != 0)
		return false;
	for (size_t i = 0; i < len - 4; i++)
	{
		if (name[i] < '0' || name[i] > '9')
			return false;
		n = n * 10 + (name[i] - '0');
	}
	*number = n;
	return true;
}

/*
 * ldb_logs_allocate
 *		Allocate the newest log of the database in directory path to size
 *		bytes, unless it is the one *done names; *done becomes its number.
 */
void
ldb_logs_allocate(const char *path, off_t size, uint64 *done)
{
	DIR		   *dir = AllocateDir(path);
	struct dirent *de;
	uint64		newest = 0;
	char	   *name = NULL;
	int			fd;

	if (dir == NULL)
		return;
	while ((de = ReadDirExtended(dir, path, LOG)) != NULL)
	{
		uint64		n;

		if (log_number(de->d_name, &n) && (name == NULL || n > newest))
		{
			newest = n;
			if (name)
				pfree(name);
			name = psprintf("%s/%s", path, de->d_name);
		}
	}
	FreeDir(dir);
	if (name == NULL || newest == *done)
		return;
	fd = OpenTransientFile(name, O_WRONLY | PG_BINARY);
	if (fd >= 0)
	{
		struct stat st;

		if (fstat(fd, &st) == 0 && st.st_size < size)
			(void) fallocate(fd, 0, 0, size);
		CloseTransientFile(fd);
	}
	*done = newest;
	pfree(name);
}

/* Does the header h's checksum match its type and the len bytes after it? */
static bool
record_whole(const uint8 *h, uint32 len)
{
	uint32		stored = (uint32) h[0] | (uint32) h[1] << 8 |
		(uint32) h[2] << 16 | (uint32) h[3] << 24;
	pg_crc32c	crc;

	INIT_CRC32C(crc);
	/* the type byte, then the payload: one run */
	COMP_CRC32C(crc, h + 6, 1 + len);
	FIN_CRC32C(crc);
	return ((crc >> 15) | (crc << 17)) + LOG_CRC_MASK_DELTA == stored;
}

/* Read len bytes of fd at off into buf; false if the file would not give them. */
static bool
read_at(int fd, uint8 *buf, size_t len, off_t off)
{
	size_t		done = 0;

	while (done < len)
	{
		ssize_t		n = pg_pread(fd, buf + done, len - done, off + (off_t) done);

		if (n <= 0)
			return false;
		done += n;
	}
	return true;
}

/*
 * Cut the log at path back to what was written (see the header).  Records
 * never cross a block's end, so the log is read a block at a time: first to
 * its last whole record, then, past one record cut short, for zeros.
 */
static void
trim_log(const char *path)
{
	int			fd = OpenTransientFile(path, O_RDWR | PG_BINARY);
	struct stat st;
	uint8	   *block;
	off_t		size;
	off_t		base;
	off_t		end = 0;		/* of the last whole record */
	off_t		cut = -1;		/* of the bytes a cut record may hold */

	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0)
	{
		CloseTransientFile(fd);
		return;
	}
	size = st.st_size;
	block = palloc(LOG_BLOCK);
	for (base = 0; base < size && cut < 0; base += LOG_BLOCK)
	{
		size_t		n = (size_t) Min((off_t) LOG_BLOCK, size - base);
		size_t		pos = 0;

		if (!read_at(fd, block, n, base))
			goto done;
		while (pos < n && LOG_BLOCK - pos >= LOG_HEADER)
		{
			size_t		left = LOG_BLOCK - pos;
			const uint8 *h = block + pos;
			uint32		len;

			if (pos + LOG_HEADER > n)
			{
				cut = base + n;
				break;
			}
			len = (uint32) h[4] | (uint32) h[5] << 8;
			if (h[6] < 1 || h[6] > LOG_LAST_TYPE || LOG_HEADER + len > left ||
				pos + LOG_HEADER + len > n || !record_whole(h, len))
			{
				size_t		extent = Min(pos + Min(LOG_HEADER + (size_t) len, left), n);

				/*
				 * A write cut short leaves its record's last byte unwritten,
				 * so zero; one whose every byte is there, the last not zero,
				 * was damaged, not cut short.
				 */
				if (pos + LOG_HEADER + len <= n && block[extent - 1] != 0)
					goto done;
				cut = base + (off_t) extent;
				break;
			}
			pos += LOG_HEADER + len;
			end = base + pos;
		}
	}
	if (cut < 0)
		goto done;				/* whole to its end */
	for (base = cut; base < size; base += LOG_BLOCK)
	{
		size_t		n = (size_t) Min((off_t) LOG_BLOCK, size - base);

		if (!read_at(fd, block, n, base))
			goto done;
		for (size_t i = 0; i < n; i++)
			if (block[i] != 0)
				goto done;		/* damaged: LevelDB says so */
	}
	if (ftruncate(fd, end) == 0)
		(void) pg_fsync(fd);
done:
	pfree(block);
	CloseTransientFile(fd);
}

/*
 * ldb_logs_trim
 *		Before LevelDB opens the database in directory path: cut every log
 *		back to what was written.
 *
 * Under LevelDB's own lock on the directory (its LOCK file, an fcntl lock),
 * so that a log another process has open, a database wrongly shared, is
 * never cut; released before LevelDB takes it (closing any descriptor of
 * the file would release LevelDB's lock too).  Never while this process
 * has the database open: the worker opens a directory once (databases.c)
 * and closes it before opening it again.
 */
void
ldb_logs_trim(const char *path)
{
	char	   *lockname = psprintf("%s/LOCK", path);
	int			lockfd = OpenTransientFile(lockname, O_RDWR | PG_BINARY);
	struct flock lock = {.l_type = F_WRLCK,.l_whence = SEEK_SET};
	DIR		   *dir;
	struct dirent *de;

	pfree(lockname);
	/* no LOCK: LevelDB never opened it, so never wrote a log */
	if (lockfd < 0)
		return;
	if (fcntl(lockfd, F_SETLK, &lock) != 0)
	{
		CloseTransientFile(lockfd);
		return;					/* held: LevelDB's open will say so */
	}
	dir = AllocateDir(path);
	if (dir == NULL)
	{
		CloseTransientFile(lockfd);
		return;
	}
	while ((de = ReadDirExtended(dir, path, LOG)) != NULL)
	{
		uint64		n;
		char	   *name;

		if (!log_number(de->d_name, &n))
			continue;
		name = psprintf("%s/%s", path, de->d_name);
		trim_log(name);
		pfree(name);
	}
	FreeDir(dir);
	CloseTransientFile(lockfd);
}
