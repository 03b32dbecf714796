/*-------------------------------------------------------------------------
 *
 * btpolicies.c
 *	  The garbage-collection policies of a Bigtable table's families, as
 *	  its scans apply them on read, kept for a few seconds per table.
 *
 * Bigtable collects garbage lazily (within about a week), so a cell its
 * family's policy deletes may still be read; a scan applies the policies
 * itself (btscan.c), exactly, as the LevelDB engine does.  It needs them
 * at the start of every scan, and a GetTable call per scan would double
 * the time of a point read, so a reader thread keeps each table's for
 * BT_POLICIES_FRESH_US after GetTable gave them.  A COMMIT that changed a
 * table's families through this worker forgets its entry
 * (bt_policies_forget), so our own changes apply to the next scan; one made
 * with cbt applies within that time.  A family that GetTable did not list
 * (made since) has no policy until the entry is renewed.
 *
 * Reader and commit threads call these: malloc only, under db's lock.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "worker/bigtable/bigtable.h"

/* How long a table's policies are kept: 10 s. */
#define BT_POLICIES_FRESH_US	(10 * 1000 * 1000)

typedef struct BtPolicyEntry
{
	char	   *table;			/* its full name */
	uint64		fetched_us;
	BtPolicies	p;
	struct BtPolicyEntry *next;
} BtPolicyEntry;

static void
policies_free(BtPolicies *p)
{
	for (int i = 0; i < p->n; i++)
		free(p->families[i]);
	free(p->families);
	free(p->policies);
	memset(p, 0, sizeof(*p));
}

/* A copy of from into to (malloc'd); false when out of memory. */
static bool
policies_copy(BtPolicies *to, const BtPolicies *from)
{
	memset(to, 0, sizeof(*to));
	to->families = calloc(from->n + 1, sizeof(char *));
	to->policies = calloc(from->n + 1, sizeof(WcGcPolicy));
	if (to->families == NULL || to->policies == NULL)
	{
		policies_free(to);
		return false;
	}
	for (int i = 0; i < from->n; i++)
	{
		to->families[i] = strdup(from->families[i]);
		if (to->families[i] == NULL)
		{
			policies_free(to);
			return false;
		}
		to->policies[i] = from->policies[i];
		to->n = i + 1;
	}
	to->n = from->n;
	return true;
}

/* GetTable's callback: each family with its policy. */
typedef struct BtFetch
{
	BtPolicies	p;
	int			cap;
	bool		full;
} BtFetch;

static bool
fetched_family(void *arg, const WcBtFamily *f)
{
	BtFetch    *b = arg;

	if (b->p.n == b->cap)
	{
		int			cap = b->cap == 0 ? 16 : b->cap * 2;
		char	  **families = realloc(b->p.families, sizeof(char *) * cap);
		WcGcPolicy *policies;

		if (families == NULL)
		{
			b->full = true;
			return false;
		}
		b->p.families = families;
		policies = realloc(b->p.policies, sizeof(WcGcPolicy) * cap);
		if (policies == NULL)
		{
			b->full = true;
			return false;
		}
		b->p.policies = policies;
		b->cap = cap;
	}
	b->p.families[b->p.n] = strdup(f->name);
	if (b->p.families[b->p.n] == NULL)
	{
		b->full = true;
		return false;
	}
	/* a rule with no form of ours (nested) is not applied: it deletes less */
	if (f->policy_known)
		b->p.policies[b->p.n] = f->policy;
	else
		memset(&b->p.policies[b->p.n], 0, sizeof(WcGcPolicy));
	b->p.n++;
	return true;
}

/*
 * bt_policies_get
 *		table's families and policies into *out (malloc'd: the caller frees
 *		it with bt_policies_free), now_us being the time; false with st set
 *		when GetTable fails.
 */
bool
bt_policies_get(WcBtDb *db, const char *table, uint64 now_us, BtPolicies *out,
				WcBtStatus *st)
{
	BtPolicyEntry *e;
	BtFetch		b = {0};
	bool		ok = true;
	uint64		changes;

	pthread_mutex_lock(&db->policies_lock);
	for (e = db->policies; e != NULL; e = e->next)
		if (strcmp(e->table, table) == 0)
			break;
	if (e != NULL && e->fetched_us != 0 && now_us >= e->fetched_us &&
		now_us - e->fetched_us < BT_POLICIES_FRESH_US)
	{
		ok = policies_copy(out, &e->p);
		pthread_mutex_unlock(&db->policies_lock);
		if (!ok)
			goto out_of_memory;
		return true;
	}
	changes = db->policies_changes;
	pthread_mutex_unlock(&db->policies_lock);

	/* the call outside the lock: other tables' scans go on meanwhile */
	if (!wc_bt_get_table(db->client, table, fetched_family, &b, db->timeout_ms, st))
	{
		policies_free(&b.p);
		if (b.full)
			goto out_of_memory;
		return false;
	}
	if (b.full)
	{
		policies_free(&b.p);
		goto out_of_memory;
	}
	if (!policies_copy(out, &b.p))
	{
		policies_free(&b.p);
		goto out_of_memory;
	}

	/*
	 * Kept unless a COMMIT changed some table's families while the call was
	 * out: what it gave may be from before the change.
	 */
	pthread_mutex_lock(&db->policies_lock);
	for (e = db->policies; e != NULL; e = e->next)
		if (strcmp(e->table, table) == 0)
			break;
	if (e == NULL && db->policies_changes == changes && (e = calloc(1, sizeof(BtPolicyEntry))) != NULL)
	{
		if ((e->table = strdup(table)) == NULL)
		{
			free(e);
			e = NULL;
		}
		else
		{
			e->next = db->policies;
			db->policies = e;
		}
	}
	if (e != NULL && db->policies_changes == changes)
	{
		policies_free(&e->p);
		e->p = b.p;
		e->fetched_us = now_us;
	}
	else
		policies_free(&b.p);	/* not kept: asked for again next time */
	pthread_mutex_unlock(&db->policies_lock);
	return true;

out_of_memory:
	st->code = WC_BT_RESOURCE_EXHAUSTED;
	snprintf(st->message, sizeof(st->message), "out of memory");
	return false;
}

/* A COMMIT changed table's families: the next scan asks GetTable again. */
void
bt_policies_forget(WcBtDb *db, const char *table)
{
	pthread_mutex_lock(&db->policies_lock);
	for (BtPolicyEntry *e = db->policies; e != NULL; e = e->next)
		if (strcmp(e->table, table) == 0)
			e->fetched_us = 0;
	db->policies_changes++;
	pthread_mutex_unlock(&db->policies_lock);
}

void
bt_policies_free(BtPolicies *p)
{
	policies_free(p);
}

/* The policy of family (len bytes) in p, or NULL if it has none. */
const WcGcPolicy *
bt_policy_of(const BtPolicies *p, const uint8 *family, size_t len)
{
	for (int i = 0; i < p->n; i++)
		if (strlen(p->families[i]) == len && memcmp(p->families[i], family, len) == 0)
			return p->policies[i].max_versions == 0 && p->policies[i].max_age_us == 0 ?
				NULL : &p->policies[i];
	return NULL;
}
