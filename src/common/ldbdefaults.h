/*-------------------------------------------------------------------------
 *
 * ldbdefaults.h
 *	  The LevelDB settings a server has when it sets none: the backend
 *	  sends them with each OPEN (fdw/model/mapping.c), and the storage
 *	  worker opens a database with them when no session has asked for it
 *	  (worker/leveldb/databases.c, at its start).
 *
 * The block cache holds uncompressed blocks: the benchmark's 1,000,000
 * rows take about 200 MB of them, and with a smaller cache random prefix
 * scans spend their time decompressing blocks again.  It grows only as
 * blocks are read.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_LDBDEFAULTS_H
#define WC_LDBDEFAULTS_H

#define WC_DEFAULT_CACHE_MB			256
#define WC_DEFAULT_WRITE_BUFFER_MB	16
#define WC_DEFAULT_BLOOM_BITS		10
#define WC_DEFAULT_COMPRESSION		true

#endif							/* WC_LDBDEFAULTS_H */
