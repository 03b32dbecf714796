/*
 * put_cell.c
 *	  Write one cell entry straight into a stopped server's LevelDB
 *	  database, as a version before 0.8.0 could have stored it: for tests
 *	  of data the current version no longer writes (test/t/033_empty_rowkey.pl:
 *	  a row with an empty row key).
 *
 * Usage: put_cell <database dir> <table> <row key> <family> <qualifier>
 *		  <timestamp, microseconds since 1970> <value>
 * The entry is escape(table) escape(row key) escape(family)
 * escape(qualifier) ~ts with the value 01 + the bytes of <value>
 * (docs/format.md), written synced.
 *
 * Build: cc -Isrc -o put_cell test/t/put_cell.c src/common/keycodec.c -lleveldb
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <leveldb/c.h>

#include "common/keycodec.h"

int
main(int argc, char **argv)
{
	leveldb_options_t *opts;
	leveldb_writeoptions_t *wopts;
	leveldb_t  *db;
	char	   *err = NULL;
	uint8_t    *key;
	uint8_t    *value;
	size_t		klen = 0;
	size_t		vlen;

	if (argc != 8)
	{
		fprintf(stderr, "usage: %s dir table rowkey family qualifier ts value\n", argv[0]);
		return 2;
	}
	/* each part escapes to at most twice its length and its terminator */
	key = malloc(2 * (strlen(argv[2]) + strlen(argv[3]) + strlen(argv[4]) + strlen(argv[5])) + 16);
	for (int i = 2; i <= 5; i++)
		klen += wc_escape((const uint8_t *) argv[i], strlen(argv[i]), key + klen);
	wc_encode_ts(strtoull(argv[6], NULL, 10), key + klen);
	klen += WC_TS_LEN;
	vlen = strlen(argv[7]) + 1;
	value = malloc(vlen);
	value[0] = 0x01;
	memcpy(value + 1, argv[7], vlen - 1);

	opts = leveldb_options_create();
	db = leveldb_open(opts, argv[1], &err);
	if (err != NULL)
	{
		fprintf(stderr, "put_cell: %s\n", err);
		return 1;
	}
	wopts = leveldb_writeoptions_create();
	leveldb_writeoptions_set_sync(wopts, 1);
	leveldb_put(db, wopts, (const char *) key, klen, (const char *) value, vlen, &err);
	if (err != NULL)
	{
		fprintf(stderr, "put_cell: %s\n", err);
		return 1;
	}
	leveldb_close(db);
	return 0;
}
