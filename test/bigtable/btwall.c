/*
 * btwall: the Bigtable engine's gRPC wall (src/worker/bigtable/btclient.h)
 * as a command, so that tests can hold what it writes and reads against
 * Google's emulator and Google's cbt (test/t/036_bigtable_wall.pl).
 *
 *   btwall ENDPOINT TABLE put < lines
 *	   each line one mutation; consecutive lines of one row are one entry:
 *	   set	ROW FAMILY QUALIFIER TS VALUE
 *	   delcells ROW FAMILY QUALIFIER LO HI
 *	   add	ROW FAMILY QUALIFIER TS INPUT  (AddToCell, an aggregate family's)
 *	   delfamily ROW FAMILY
 *	   delrow ROW
 *	   (fields tab-separated, \xNN and \\ escapes); prints "entry N code" for
 *	   each entry not applied, then "applied N of M".
 *   btwall ENDPOINT TABLE read [keys=K,K] [range=START,END] [prefix=P]
 *	   [limit=N] [reversed] [family=REGEX] [versions=N] [ts=LO,HI]
 *	   [stopafter=N] [timeout=MS]
 *	   prints each cell "ROW FAMILY QUALIFIER TS VALUE", then "rows N".
 *   btwall ENDPOINT TABLE sample
 *	   prints "KEY OFFSET" per sample.
 *   btwall ENDPOINT TABLE check ROW VALUE_REGEX FAMILY QUALIFIER TS VALUE
 *	   sets the cell if a cell of the row has a value matching VALUE_REGEX,
 *	   else deletes the row's FAMILY; prints "matched true|false".
 *
 *   btwall ENDPOINT INSTANCE createtable ID [FAMILY=POLICY[/AGGREGATE]]...
 *   btwall ENDPOINT INSTANCE tables
 *	   INSTANCE is projects/P/instances/I; POLICY in cbt's grammar
 *	   (gcpolicy.h), AGGREGATE sum, min or max; tables prints full names.
 *   btwall ENDPOINT TABLE families
 *	   prints "FAMILY POLICY AGGREGATE" per family ("?" for a policy with no
 *	   gcpolicy.h form, "-" for no aggregate).
 *   btwall ENDPOINT TABLE family create|update|drop FAMILY[=POLICY[/AGGREGATE]]
 *   btwall ENDPOINT TABLE deletetable
 *   btwall ENDPOINT TABLE droprange PREFIX|--all
 *
 * An error prints "error CODE MESSAGE" and exits 1.  TABLE is the full name,
 * projects/P/instances/I/tables/T.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/bigtable/btclient.h"

#define MAX_FIELDS 8

static void
fail(const WcBtStatus *st)
{
	printf("error %d %s\n", st->code, st->message);
	exit(1);
}

/* Undo \xNN and \\ in place; the length. */
static size_t
unescape(char *s)
{
	char	   *o = s;

	for (char *p = s; *p; p++)
	{
		if (p[0] == '\\' && p[1] == '\\')
		{
			*o++ = '\\';
			p++;
		}
		else if (p[0] == '\\' && p[1] == 'x' && p[2] && p[3])
		{
			char		hex[3] = {p[2], p[3], 0};

			*o++ = (char) strtol(hex, NULL, 16);
			p += 3;
		}
		else
			*o++ = *p;
	}
	*o = '\0';
	return o - s;
}

static void
print_bytes(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
	{
		if (p[i] == '\\')
			fputs("\\\\", stdout);
		else if (p[i] < 0x21 || p[i] > 0x7e)
			printf("\\x%02x", p[i]);
		else
			putchar(p[i]);
	}
}

static int	stop_after = -1;

static bool
print_row(void *arg, const WcBtRows *r)
{
	(void) arg;
	for (int i = 0; i < r->ncells; i++)
	{
		const WcBtCell *c = &r->cells[i];

		print_bytes(r->key.data, r->key.len);
		putchar('\t');
		print_bytes(r->arena.data + c->family_off, c->family_len);
		putchar('\t');
		print_bytes(r->arena.data + c->qualifier_off, c->qualifier_len);
		printf("\t%lld\t", (long long) c->timestamp_micros);
		print_bytes(r->arena.data + c->value_off, c->value_len);
		putchar('\n');
	}
	return stop_after < 0 || --stop_after > 0;
}

static bool
print_sample(void *arg, const uint8_t *key, size_t len, int64_t offset)
{
	(void) arg;
	print_bytes(key, len);
	printf("\t%lld\n", (long long) offset);
	return true;
}

/* A prefix's end: the prefix with its last byte below 0xff raised. */
static size_t
prefix_end(uint8_t *p, size_t len)
{
	while (len > 0 && p[len - 1] == 0xff)
		len--;
	if (len > 0)
		p[len - 1]++;
	return len;
}

static int
split(char *line, char **f)
{
	int			n = 0;

	line[strcspn(line, "\n")] = '\0';
	while (n < MAX_FIELDS)
	{
		f[n++] = line;
		line = strchr(line, '\t');
		if (line == NULL)
			break;
		*line++ = '\0';
	}
	return n;
}

static int
put(WcBtClient *c, const char *table, int64_t timeout)
{
	char	   *line = NULL;
	size_t		linecap = 0;
	WcBtEntry  *entries = calloc(100000, sizeof(WcBtEntry));
	WcBtMutation *muts = calloc(200000, sizeof(WcBtMutation));
	int			nentries = 0,
				nmuts = 0,
				applied = 0;
	int		   *codes;
	WcBtStatus	st;

	while (getline(&line, &linecap, stdin) > 0 && nmuts < 200000)
	{
		char	   *f[MAX_FIELDS];
		int			n = split(strdup(line), f);
		WcBtMutation *m = &muts[nmuts];
		size_t		klen;

		if (n < 2)
			continue;
		klen = unescape(f[1]);
		if (nentries == 0 || entries[nentries - 1].row_key_len != klen ||
			memcmp(entries[nentries - 1].row_key, f[1], klen) != 0)
		{
			entries[nentries].row_key = (const uint8_t *) f[1];
			entries[nentries].row_key_len = klen;
			entries[nentries].mutations = m;
			nentries++;
		}
		if (n > 2)
		{
			m->family = f[2];
			m->family_len = unescape(f[2]);
		}
		if (n > 3)
		{
			m->qualifier = (const uint8_t *) f[3];
			m->qualifier_len = unescape(f[3]);
		}
		if (strcmp(f[0], "set") == 0 && n == 6)
		{
			m->kind = WC_BT_SET_CELL;
			m->ts = strtoll(f[4], NULL, 10);
			m->value = (const uint8_t *) f[5];
			m->value_len = unescape(f[5]);
		}
		else if (strcmp(f[0], "delcells") == 0 && n == 6)
		{
			m->kind = WC_BT_DELETE_CELLS;
			m->lo = strtoll(f[4], NULL, 10);
			m->hi = strtoll(f[5], NULL, 10);
		}
		else if (strcmp(f[0], "add") == 0 && n == 6)
		{
			m->kind = WC_BT_ADD_TO_CELL;
			m->ts = strtoll(f[4], NULL, 10);
			m->input = strtoll(f[5], NULL, 10);
		}
		else if (strcmp(f[0], "delfamily") == 0 && n == 3)
			m->kind = WC_BT_DELETE_FAMILY;
		else if (strcmp(f[0], "delrow") == 0 && n == 2)
			m->kind = WC_BT_DELETE_ROW;
		else
		{
			fprintf(stderr, "btwall: bad line: %s", line);
			return 2;
		}
		nmuts++;
		entries[nentries - 1].nmutations++;
	}
	codes = calloc(nentries + 1, sizeof(int));
	if (!wc_bt_mutate_rows(c, table, NULL, entries, nentries, timeout, codes, &st) &&
		st.code != WC_BT_OK)
	{
		for (int i = 0; i < nentries; i++)
			if (codes[i] != WC_BT_OK)
				printf("entry %d %d\n", i, codes[i]);
		for (int i = 0; i < nentries; i++)
			applied += codes[i] == WC_BT_OK;
		printf("applied %d of %d\n", applied, nentries);
		fail(&st);
	}
	printf("applied %d of %d\n", nentries, nentries);
	return 0;
}

static int
read_rows(WcBtClient *c, const char *table, int64_t timeout, int argc, char **argv)
{
	WcBtRead	req;
	const uint8_t *keys[1000];
	size_t		lens[1000];
	WcBtRange	ranges[100];
	WcBtFilter	parts[4];
	WcBtFilter	chain;
	int			nparts = 0;
	uint64_t	nrows;
	WcBtStatus	st;

	memset(&req, 0, sizeof(req));
	memset(parts, 0, sizeof(parts));
	memset(&chain, 0, sizeof(chain));
	req.table = table;
	req.keys = keys;
	req.key_lens = lens;
	req.ranges = ranges;
	req.timeout_ms = timeout;
	for (int i = 0; i < argc; i++)
	{
		char	   *a = argv[i];

		if (strncmp(a, "keys=", 5) == 0)
		{
			for (char *k = strtok(a + 5, ","); k != NULL && req.nkeys < 1000; k = strtok(NULL, ","))
			{
				lens[req.nkeys] = unescape(k);
				keys[req.nkeys++] = (const uint8_t *) k;
			}
		}
		else if (strncmp(a, "range=", 6) == 0 && req.nranges < 100)
		{
			char	   *comma = strchr(a + 6, ',');
			WcBtRange  *r = &ranges[req.nranges++];

			memset(r, 0, sizeof(*r));
			if (comma == NULL)
				return 2;
			*comma = '\0';
			r->start = (const uint8_t *) (a + 6);
			r->start_len = unescape(a + 6);
			r->end = (const uint8_t *) (comma + 1);
			r->end_len = unescape(comma + 1);
		}
		else if (strncmp(a, "prefix=", 7) == 0 && req.nranges < 100)
		{
			WcBtRange  *r = &ranges[req.nranges++];
			char	   *end = strdup(a + 7);

			memset(r, 0, sizeof(*r));
			r->start = (const uint8_t *) (a + 7);
			r->start_len = unescape(a + 7);
			(void) unescape(end);
			r->end = (const uint8_t *) end;
			r->end_len = prefix_end((uint8_t *) end, r->start_len);
		}
		else if (strncmp(a, "limit=", 6) == 0)
			req.rows_limit = strtoll(a + 6, NULL, 10);
		else if (strcmp(a, "reversed") == 0)
			req.reversed = true;
		else if (strncmp(a, "family=", 7) == 0)
		{
			parts[nparts].kind = WC_BT_FILTER_FAMILY_REGEX;
			parts[nparts].bytes = (const uint8_t *) (a + 7);
			parts[nparts++].len = unescape(a + 7);
		}
		else if (strncmp(a, "versions=", 9) == 0)
		{
			parts[nparts].kind = WC_BT_FILTER_CELLS_PER_COLUMN;
			parts[nparts++].n = atoi(a + 9);
		}
		else if (strncmp(a, "ts=", 3) == 0 && strchr(a, ',') != NULL)
		{
			parts[nparts].kind = WC_BT_FILTER_TIMESTAMP_RANGE;
			parts[nparts].lo = strtoll(a + 3, NULL, 10);
			parts[nparts++].hi = strtoll(strchr(a, ',') + 1, NULL, 10);
		}
		else if (strncmp(a, "stopafter=", 10) == 0)
			stop_after = atoi(a + 10);
		else
		{
			fprintf(stderr, "btwall: unknown read option %s\n", a);
			return 2;
		}
		if (nparts == 4)
			break;
	}
	if (nparts > 0)
	{
		chain.kind = WC_BT_FILTER_CHAIN;
		chain.children = parts;
		chain.nchildren = nparts;
		req.filter = &chain;
	}
	if (!wc_bt_read_rows(c, &req, print_row, NULL, &nrows, &st))
	{
		printf("rows %llu\n", (unsigned long long) nrows);
		fail(&st);
	}
	printf("rows %llu\n", (unsigned long long) nrows);
	return 0;
}

static int
check(WcBtClient *c, const char *table, int64_t timeout, int argc, char **argv)
{
	WcBtFilter	pred;
	WcBtMutation set,
				del;
	bool		matched;
	WcBtStatus	st;
	size_t		klen;

	if (argc != 6)
		return 2;
	memset(&pred, 0, sizeof(pred));
	memset(&set, 0, sizeof(set));
	memset(&del, 0, sizeof(del));
	klen = unescape(argv[0]);
	pred.kind = WC_BT_FILTER_VALUE_REGEX;
	pred.bytes = (const uint8_t *) argv[1];
	pred.len = unescape(argv[1]);
	set.kind = WC_BT_SET_CELL;
	set.family = argv[2];
	set.family_len = unescape(argv[2]);
	set.qualifier = (const uint8_t *) argv[3];
	set.qualifier_len = unescape(argv[3]);
	set.ts = strtoll(argv[4], NULL, 10);
	set.value = (const uint8_t *) argv[5];
	set.value_len = unescape(argv[5]);
	del.kind = WC_BT_DELETE_FAMILY;
	del.family = set.family;
	del.family_len = set.family_len;
	if (!wc_bt_check_and_mutate(c, table, NULL, (const uint8_t *) argv[0], klen, &pred,
								&set, 1, &del, 1, timeout, &matched, &st))
		fail(&st);
	printf("matched %s\n", matched ? "true" : "false");
	return 0;
}

static const char *const aggregates[] = {"-", "sum", "min", "max", "other"};

/* FAMILY[=POLICY[/AGGREGATE]] into f (the text is cut up in place). */
static void
parse_family(char *arg, WcBtFamily *f)
{
	char	   *eq = strchr(arg, '=');
	size_t		where;

	memset(f, 0, sizeof(*f));
	f->name = arg;
	if (eq == NULL)
		return;
	*eq++ = '\0';
	if (strrchr(eq, '/') != NULL)
	{
		char	   *slash = strrchr(eq, '/');

		*slash++ = '\0';
		for (int i = 1; i <= 3; i++)
			if (strcmp(slash, aggregates[i]) == 0)
				f->aggregate = (WcBtAggregate) i;
		if (f->aggregate == WC_BT_AGG_NONE)
		{
			fprintf(stderr, "btwall: unknown aggregate %s\n", slash);
			exit(2);
		}
	}
	if (wc_gc_parse(eq, &f->policy, &where) != WC_GC_OK)
	{
		fprintf(stderr, "btwall: bad policy %s\n", eq);
		exit(2);
	}
}

static bool
print_family(void *arg, const WcBtFamily *f)
{
	char		policy[WC_GC_MAX_TEXT];

	(void) arg;
	if (f->policy_known)
		wc_gc_format(&f->policy, policy, sizeof(policy));
	else
		strcpy(policy, "?");
	printf("%s\t%s\t%s\n", f->name, policy, aggregates[f->aggregate]);
	return true;
}

static bool
print_table(void *arg, const char *name)
{
	(void) arg;
	printf("%s\n", name);
	return true;
}

static int
admin(WcBtClient *c, const char *name, int64_t timeout, const char *cmd, int argc, char **argv)
{
	WcBtStatus	st;
	bool		ok;

	if (strcmp(cmd, "createtable") == 0 && argc >= 1)
	{
		WcBtFamily *fams = calloc(argc, sizeof(WcBtFamily));

		for (int i = 1; i < argc; i++)
			parse_family(argv[i], &fams[i - 1]);
		ok = wc_bt_create_table(c, name, argv[0], fams, argc - 1, timeout, &st);
	}
	else if (strcmp(cmd, "tables") == 0)
		ok = wc_bt_list_tables(c, name, print_table, NULL, timeout, &st);
	else if (strcmp(cmd, "families") == 0)
		ok = wc_bt_get_table(c, name, print_family, NULL, timeout, &st);
	else if (strcmp(cmd, "family") == 0 && argc == 2)
	{
		WcBtFamily	f;
		WcBtFamilyChange change = strcmp(argv[0], "create") == 0 ? WC_BT_FAMILY_CREATE :
			strcmp(argv[0], "update") == 0 ? WC_BT_FAMILY_UPDATE : WC_BT_FAMILY_DROP;

		parse_family(argv[1], &f);
		ok = wc_bt_modify_family(c, name, change, &f, timeout, &st);
	}
	else if (strcmp(cmd, "deletetable") == 0)
		ok = wc_bt_delete_table(c, name, timeout, &st);
	else if (strcmp(cmd, "droprange") == 0 && argc == 1)
	{
		bool		all = strcmp(argv[0], "--all") == 0;
		size_t		len = all ? 0 : unescape(argv[0]);

		ok = wc_bt_drop_row_range(c, name, (const uint8_t *) argv[0], len, all, timeout, &st);
	}
	else
	{
		fprintf(stderr, "btwall: unknown command %s\n", cmd);
		return 2;
	}
	if (!ok)
		fail(&st);
	return 0;
}

int
main(int argc, char **argv)
{
	WcBtClient *c;
	WcBtStatus	st;
	int64_t		timeout = 30000;
	const char *t = getenv("BTWALL_TIMEOUT_MS");

	if (argc < 4)
	{
		fprintf(stderr, "usage: btwall ENDPOINT TABLE put|read|sample|check ...\n");
		return 2;
	}
	if (t != NULL)
		timeout = strtoll(t, NULL, 10);
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	c = wc_bt_connect(argv[1], true, &st);
	if (c == NULL)
		fail(&st);
	if (strcmp(argv[3], "put") == 0)
		return put(c, argv[2], timeout);
	if (strcmp(argv[3], "read") == 0)
		return read_rows(c, argv[2], timeout, argc - 4, argv + 4);
	if (strcmp(argv[3], "sample") == 0)
	{
		if (!wc_bt_sample_row_keys(c, argv[2], NULL, timeout, print_sample, NULL, &st))
			fail(&st);
		return 0;
	}
	if (strcmp(argv[3], "check") == 0)
		return check(c, argv[2], timeout, argc - 4, argv + 4);
	return admin(c, argv[2], timeout, argv[3], argc - 4, argv + 4);
}
