/*-------------------------------------------------------------------------
 *
 * readrows_test.c
 *	  Unit test of src/worker/bigtable/readrows.c: Bigtable's ReadRows
 *	  cell chunks merged into rows, on synthetic chunk sequences (Google's
 *	  emulator never splits a value nor resets a row, so these are the
 *	  only tests of those paths).
 *
 * Plain C, no PostgreSQL:
 *		cc -Wall -Wextra -Isrc test/readrows_test.c src/worker/bigtable/readrows.c
 *		   src/common/bytebuf.c src/common/keycodec.c
 *
 * Each case is a sequence of chunks and what must come of it: the rows,
 * written as key{family:qualifier@ts=value ...} in order, then "end" if
 * the stream may end there, or the error that stops it.  Output: one TAP
 * line per case, then "readrows: N passed, M failed".
 *
 *-------------------------------------------------------------------------
 */
#include "worker/bigtable/readrows.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* A chunk as a case writes it: NULL is a field not set. */
typedef struct
{
	const char *key;
	const char *family;
	const char *qualifier;
	int64_t		ts;
	const char *value;
	int32_t		value_size;
	int			flags;
} Chunk;

#define COMMIT	1
#define RESET	2
#define LABELS	4

#define MAX_CHUNKS	8

static const struct
{
	const char *name;
	bool		reversed;
	Chunk		chunks[MAX_CHUNKS];
	const char *expect;
}			cases[] = {
	{"one cell, one row", false,
		{{"r1", "f", "q", 1000, "v", 0, COMMIT}},
	"r1{f:q@1000=v} end"},
	{"cells of a row: the family kept until it changes", false,
		{{"r1", "f", "a", 2000, "x", 0, 0},
			{NULL, NULL, "b", 1000, "y", 0, 0},
			{NULL, "g", "a", 3000, "z", 0, COMMIT}},
	"r1{f:a@2000=x f:b@1000=y g:a@3000=z} end"},
	{"versions of one cell: the qualifier kept too", false,
		{{"r1", "f", "q", 3000, "new", 0, 0},
			{NULL, NULL, NULL, 1000, "old", 0, COMMIT}},
	"r1{f:q@3000=new f:q@1000=old} end"},
	{"the row key named again in its row", false,
		{{"r1", "f", "q", 1, "a", 0, 0},
			{"r1", "f", "r", 2, "b", 0, COMMIT}},
	"r1{f:q@1=a f:r@2=b} end"},
	{"a value split over three chunks", false,
		{{"r1", "f", "q", 5, "ab", 6, 0},
			{NULL, NULL, NULL, 0, "cd", 6, 0},
			{NULL, NULL, NULL, 0, "ef", 0, COMMIT}},
	"r1{f:q@5=abcdef} end"},
	{"a split value, then a cell", false,
		{{"r1", "f", "q", 5, "ab", 4, 0},
			{NULL, NULL, NULL, 0, "cd", 0, 0},
			{NULL, NULL, "r", 6, "e", 0, COMMIT}},
	"r1{f:q@5=abcd f:r@6=e} end"},
	{"an empty value, and a commit on its own chunk", false,
		{{"r1", "f", "q", 0, "", 0, 0},
			{NULL, NULL, "r", 0, "", 0, COMMIT}},
	"r1{f:q@0= f:r@0=} end"},
	{"two rows in order", false,
		{{"a", "f", "q", 1, "1", 0, COMMIT},
			{"b", "f", "q", 1, "2", 0, COMMIT}},
	"a{f:q@1=1} b{f:q@1=2} end"},
	{"a reset: the row starts again", false,
		{{"r1", "f", "q", 1, "lost", 0, 0},
			{NULL, NULL, NULL, 0, NULL, 0, RESET},
			{"r1", "f", "q", 2, "kept", 0, COMMIT}},
	"r1{f:q@2=kept} end"},
	{"a reset in a split value", false,
		{{"r1", "f", "q", 1, "ab", 4, 0},
			{NULL, NULL, NULL, 0, NULL, 0, RESET},
			{"r1", "g", "q", 2, "c", 0, COMMIT}},
	"r1{g:q@2=c} end"},
	{"a reset, then another row", false,
		{{"a", "f", "q", 1, "x", 0, 0},
			{NULL, NULL, NULL, 0, NULL, 0, RESET},
			{"b", "f", "q", 1, "y", 0, COMMIT}},
	"b{f:q@1=y} end"},
	{"labels on a cell", false,
		{{"r1", "f", "q", 1, "v", 0, LABELS | COMMIT}},
	"r1{f:q@1=v} end"},
	{"a reversed read: keys descending", true,
		{{"b", "f", "q", 1, "2", 0, COMMIT},
			{"a", "f", "q", 1, "1", 0, COMMIT}},
	"b{f:q@1=2} a{f:q@1=1} end"},
	/* what is against the rules */
	{"a reset between rows", false,
		{{NULL, NULL, NULL, 0, NULL, 0, RESET}},
	"error: a reset_row chunk comes between rows"},
	{"a reset after a committed row", false,
		{{"a", "f", "q", 1, "x", 0, COMMIT},
			{NULL, NULL, NULL, 0, NULL, 0, RESET}},
	"a{f:q@1=x} error: a reset_row chunk comes between rows"},
	{"a reset with a row key", false,
		{{"r1", "f", "q", 1, "x", 0, 0},
			{"r1", NULL, NULL, 0, NULL, 0, RESET}},
	"error: a reset_row chunk has other fields set"},
	{"a reset with a value", false,
		{{"r1", "f", "q", 1, "x", 0, 0},
			{NULL, NULL, NULL, 0, "v", 0, RESET}},
	"error: a reset_row chunk has other fields set"},
	{"a reset with a commit", false,
		{{"r1", "f", "q", 1, "x", 0, 0},
			{NULL, NULL, NULL, 0, NULL, 0, RESET | COMMIT}},
	"error: a reset_row chunk has other fields set"},
	{"a commit in a split value", false,
		{{"r1", "f", "q", 1, "ab", 4, COMMIT}},
	"error: a commit_row chunk says more of its value follows"},
	{"a negative value size", false,
		{{"r1", "f", "q", 1, "ab", -1, 0}},
	"error: a chunk has a negative value_size"},
	{"a first chunk without a row key", false,
		{{NULL, "f", "q", 1, "x", 0, COMMIT}},
	"error: the first chunk of a row lacks its row key, family or qualifier"},
	{"a first chunk without a family", false,
		{{"r1", NULL, "q", 1, "x", 0, COMMIT}},
	"error: the first chunk of a row lacks its row key, family or qualifier"},
	{"a first chunk without a qualifier", false,
		{{"r1", "f", NULL, 1, "x", 0, COMMIT}},
	"error: the first chunk of a row lacks its row key, family or qualifier"},
	{"a family without a qualifier", false,
		{{"r1", "f", "q", 1, "x", 0, 0},
			{NULL, "g", NULL, 1, "y", 0, COMMIT}},
	"error: a chunk names a family without a qualifier"},
	{"a new row key before the commit", false,
		{{"r1", "f", "q", 1, "x", 0, 0},
			{"r2", "f", "q", 1, "y", 0, COMMIT}},
	"error: a chunk names another row key before its row is committed"},
	{"a qualifier in a split value", false,
		{{"r1", "f", "q", 1, "ab", 4, 0},
			{NULL, NULL, "r", 0, "cd", 0, COMMIT}},
	"error: a chunk that goes on with a split value names a cell"},
	{"a timestamp in a split value", false,
		{{"r1", "f", "q", 1, "ab", 4, 0},
			{NULL, NULL, NULL, 7, "cd", 0, COMMIT}},
	"error: a chunk that goes on with a split value names a cell"},
	{"a row key in a split value", false,
		{{"r1", "f", "q", 1, "ab", 4, 0},
			{"r1", NULL, NULL, 0, "cd", 0, COMMIT}},
	"error: a chunk that goes on with a split value names a cell"},
	{"a row key twice", false,
		{{"a", "f", "q", 1, "1", 0, COMMIT},
			{"a", "f", "q", 1, "2", 0, COMMIT}},
	"a{f:q@1=1} error: a row key comes twice"},
	{"rows out of order", false,
		{{"b", "f", "q", 1, "1", 0, COMMIT},
			{"a", "f", "q", 1, "2", 0, COMMIT}},
	"b{f:q@1=1} error: a row key is out of order"},
	{"a reversed read in ascending order", true,
		{{"a", "f", "q", 1, "1", 0, COMMIT},
			{"b", "f", "q", 1, "2", 0, COMMIT}},
	"a{f:q@1=1} error: a row key is out of order"},
	{"the stream ends in a row", false,
		{{"r1", "f", "q", 1, "x", 0, 0}},
	"error: the stream ends inside a row"},
	{"the stream ends in a split value", false,
		{{"r1", "f", "q", 1, "ab", 4, 0}},
	"error: the stream ends inside a row"},
	{"nothing after an error", false,
		{{"r1", NULL, "q", 1, "x", 0, 0},
			{"r2", "f", "q", 1, "y", 0, COMMIT}},
	"error: the first chunk of a row lacks its row key, family or qualifier"},
	{"an empty stream", false, {{NULL}}, "end"},
};

static void
append_row(char *out, size_t size, const WcBtRows *r)
{
	size_t		len = strlen(out);

	len += snprintf(out + len, size - len, "%.*s{", (int) r->key.len, (const char *) r->key.data);
	for (int i = 0; i < r->ncells && len < size; i++)
	{
		const WcBtCell *c = &r->cells[i];
		const char *a = (const char *) r->arena.data;

		len += snprintf(out + len, size - len, "%s%.*s:%.*s@%" PRId64 "=%.*s", i ? " " : "",
						(int) c->family_len, a + c->family_off,
						(int) c->qualifier_len, a + c->qualifier_off,
						c->timestamp_micros, (int) c->value_len, a + c->value_off);
	}
	if (len < size)
		snprintf(out + len, size - len, "} ");
}

static bool
is_chunk(const Chunk *c)
{
	return c->key || c->family || c->qualifier || c->ts || c->value || c->value_size || c->flags;
}

int
main(void)
{
	int			ncases = sizeof(cases) / sizeof(cases[0]);
	int			passed = 0;
	int			failed = 0;

	for (int i = 0; i < ncases; i++)
	{
		WcBtRows	r;
		char		got[1024] = "";
		bool		stopped = false;

		wc_bt_rows_init(&r, cases[i].reversed);
		for (int j = 0; j < MAX_CHUNKS && is_chunk(&cases[i].chunks[j]) && !stopped; j++)
		{
			const Chunk *k = &cases[i].chunks[j];
			WcBtChunk	c;
			int			res;

			memset(&c, 0, sizeof(c));
			if (k->key)
			{
				c.row_key = (const uint8_t *) k->key;
				c.row_key_len = strlen(k->key);
			}
			if (k->family)
			{
				c.has_family = true;
				c.family = (const uint8_t *) k->family;
				c.family_len = strlen(k->family);
			}
			if (k->qualifier)
			{
				c.has_qualifier = true;
				c.qualifier = (const uint8_t *) k->qualifier;
				c.qualifier_len = strlen(k->qualifier);
			}
			c.timestamp_micros = k->ts;
			if (k->value)
			{
				c.value = (const uint8_t *) k->value;
				c.value_len = strlen(k->value);
			}
			c.value_size = k->value_size;
			c.commit_row = (k->flags & COMMIT) != 0;
			c.reset_row = (k->flags & RESET) != 0;
			c.has_labels = (k->flags & LABELS) != 0;
			res = wc_bt_rows_chunk(&r, &c);
			if (res == WC_BT_ROW)
				append_row(got, sizeof(got), &r);
			else if (res == WC_BT_BAD)
			{
				snprintf(got + strlen(got), sizeof(got) - strlen(got), "error: %s", r.error);
				stopped = true;
			}
		}
		if (!stopped)
		{
			if (wc_bt_rows_end(&r) == WC_BT_BAD)
				snprintf(got + strlen(got), sizeof(got) - strlen(got), "error: %s", r.error);
			else
				snprintf(got + strlen(got), sizeof(got) - strlen(got), "end");
		}
		/* an error is final: one more chunk changes nothing */
		if (stopped)
		{
			WcBtChunk	c = {0};

			c.row_key = (const uint8_t *) "zz";
			c.row_key_len = 2;
			c.has_family = c.has_qualifier = true;
			c.commit_row = true;
			if (wc_bt_rows_chunk(&r, &c) != WC_BT_BAD)
				snprintf(got + strlen(got), sizeof(got) - strlen(got), " (went on)");
		}
		if (strcmp(got, cases[i].expect) == 0)
		{
			printf("ok %d - %s\n", i + 1, cases[i].name);
			passed++;
		}
		else
		{
			printf("not ok %d - %s\n#   got:    %s\n#   wanted: %s\n", i + 1, cases[i].name,
				   got, cases[i].expect);
			failed++;
		}
		wc_bt_rows_free(&r);
	}
	printf("1..%d\n", ncases);
	printf("readrows: %d passed, %d failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
