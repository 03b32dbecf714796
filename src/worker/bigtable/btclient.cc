/*-------------------------------------------------------------------------
 *
 * btclient.cc
 *	  gRPC's wall: Bigtable's data API calls, from btclient.h's plain
 *	  structs to the messages of bigtable.proto and back.
 *
 * The only file that includes gRPC or protobuf (Debian's libgrpc++, gRPC's
 * supported C++ API; docs/architecture.md says why not the C core).  It
 * keeps no state but the channel: every call is synchronous on the calling
 * thread, with its own context and deadline, so that calls of several
 * threads run at once on one channel, which gRPC allows.  No exception
 * leaves it: a C caller could not unwind one.  No PostgreSQL either.
 *
 *-------------------------------------------------------------------------
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "bigtable.grpc.pb.h"
#include "bigtable_admin.grpc.pb.h"

#include "worker/bigtable/btclient.h"

namespace v2 = google::bigtable::v2;
namespace admin = google::bigtable::admin::v2;

struct WcBtClient
{
	std::shared_ptr<grpc::Channel> channel;
	std::unique_ptr<v2::Bigtable::Stub> stub;
	std::unique_ptr<admin::BigtableTableAdmin::Stub> admin;
	std::string features;		/* the "bigtable-features" metadata */
};

static void
set_status(WcBtStatus *st, int code, const std::string &message)
{
	st->code = code;
	snprintf(st->message, sizeof(st->message), "%s", message.c_str());
}

static bool
from_grpc(WcBtStatus *st, const grpc::Status &s)
{
	if (s.ok())
	{
		set_status(st, WC_BT_OK, "");
		return true;
	}
	set_status(st, s.error_code(), s.error_message());
	return false;
}

/* base64url with padding, as gRPC's metadata carries binary values here */
static std::string
base64url(const std::string &in)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	std::string out;
	size_t		i = 0;

	for (; i + 2 < in.size(); i += 3)
	{
		uint32_t	v = ((uint8_t) in[i] << 16) | ((uint8_t) in[i + 1] << 8) | (uint8_t) in[i + 2];

		out += digits[v >> 18];
		out += digits[(v >> 12) & 63];
		out += digits[(v >> 6) & 63];
		out += digits[v & 63];
	}
	if (i + 1 == in.size())
	{
		uint32_t	v = (uint8_t) in[i] << 16;

		out += digits[v >> 18];
		out += digits[(v >> 12) & 63];
		out += "==";
	}
	else if (i + 2 == in.size())
	{
		uint32_t	v = ((uint8_t) in[i] << 16) | ((uint8_t) in[i + 1] << 8);

		out += digits[v >> 18];
		out += digits[(v >> 12) & 63];
		out += digits[(v >> 6) & 63];
		out += '=';
	}
	return out;
}

/* A table's and app profile's names as a URL query's values. */
static std::string
url_escape(const char *s)
{
	std::string out;

	for (; *s; s++)
	{
		unsigned char ch = (unsigned char) *s;

		if (isalnum(ch) || ch == '-' || ch == '_' || ch == '.' || ch == '~')
			out += (char) ch;
		else
		{
			char		hex[4];

			snprintf(hex, sizeof(hex), "%%%02X", ch);
			out += hex;
		}
	}
	return out;
}

/* The calling thread's WcBtCancel (wc_bt_cancel_on), or NULL */
static thread_local WcBtCancel *thread_cancel = NULL;

/*
 * A call's context, in the calling thread's WcBtCancel while it lives, so
 * that another thread can cancel it (gRPC's TryCancel is thread-safe; one
 * made after the cancel is cancelled at once, and its call fails).
 */
class CallContext : public grpc::ClientContext
{
  public:
	CallContext() : cancel_(thread_cancel)
	{
		if (cancel_ == NULL)
			return;
		pthread_mutex_lock(&cancel_->mutex);
		if (cancel_->cancelled)
			TryCancel();
		cancel_->call = this;
		pthread_mutex_unlock(&cancel_->mutex);
	}
	~CallContext()
	{
		if (cancel_ == NULL)
			return;
		pthread_mutex_lock(&cancel_->mutex);
		cancel_->call = NULL;
		pthread_mutex_unlock(&cancel_->mutex);
	}
  private:
	WcBtCancel *cancel_;
};

void
wc_bt_cancel_init(WcBtCancel *c)
{
	pthread_mutex_init(&c->mutex, NULL);
	c->call = NULL;
	c->cancelled = false;
}

void
wc_bt_cancel_destroy(WcBtCancel *c)
{
	pthread_mutex_destroy(&c->mutex);
}

void
wc_bt_cancel_on(WcBtCancel *c)
{
	thread_cancel = c;
}

void
wc_bt_cancel(WcBtCancel *c)
{
	pthread_mutex_lock(&c->mutex);
	c->cancelled = true;
	if (c->call != NULL)
		static_cast<CallContext *>(c->call)->TryCancel();
	pthread_mutex_unlock(&c->mutex);
}

bool
wc_bt_cancelled(WcBtCancel *c)
{
	bool		cancelled;

	pthread_mutex_lock(&c->mutex);
	cancelled = c->cancelled;
	pthread_mutex_unlock(&c->mutex);
	return cancelled;
}

/*
 * The deadline and the metadata every call carries: the resource it is
 * about, under the request field's name (Bigtable routes by it), and what
 * this client can take.
 */
static void
prepare(grpc::ClientContext &ctx, const WcBtClient *c, const char *param, const char *resource,
		const char *app_profile, int64_t timeout_ms)
{
	std::string params = std::string(param) + "=" + url_escape(resource);

	if (app_profile != NULL && app_profile[0] != '\0')
		params += "&app_profile_id=" + url_escape(app_profile);
	ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
	ctx.AddMetadata("x-goog-request-params", params);
	ctx.AddMetadata("bigtable-features", c->features);
}

static std::string
bytes(const uint8_t *p, size_t len)
{
	return len == 0 ? std::string() : std::string(reinterpret_cast<const char *>(p), len);
}

static void
fill_range(v2::RowRange *r, const WcBtRange *w)
{
	if (w->start_len > 0)
	{
		if (w->start_open)
			r->set_start_key_open(bytes(w->start, w->start_len));
		else
			r->set_start_key_closed(bytes(w->start, w->start_len));
	}
	if (w->end_len > 0)
	{
		if (w->end_closed)
			r->set_end_key_closed(bytes(w->end, w->end_len));
		else
			r->set_end_key_open(bytes(w->end, w->end_len));
	}
}

static void
fill_filter(v2::RowFilter *f, const WcBtFilter *w)
{
	/* Bigtable refuses a chain or an interleave of one filter: it is that one */
	if ((w->kind == WC_BT_FILTER_CHAIN || w->kind == WC_BT_FILTER_INTERLEAVE) && w->nchildren == 1)
	{
		fill_filter(f, &w->children[0]);
		return;
	}
	switch (w->kind)
	{
		case WC_BT_FILTER_CHAIN:
			for (int i = 0; i < w->nchildren; i++)
				fill_filter(f->mutable_chain()->add_filters(), &w->children[i]);
			if (w->nchildren == 0)
				f->set_pass_all_filter(true);
			break;
		case WC_BT_FILTER_INTERLEAVE:
			for (int i = 0; i < w->nchildren; i++)
				fill_filter(f->mutable_interleave()->add_filters(), &w->children[i]);
			if (w->nchildren == 0)
				f->set_block_all_filter(true);
			break;
		case WC_BT_FILTER_PASS:
			f->set_pass_all_filter(true);
			break;
		case WC_BT_FILTER_BLOCK:
			f->set_block_all_filter(true);
			break;
		case WC_BT_FILTER_ROW_KEY_REGEX:
			f->set_row_key_regex_filter(bytes(w->bytes, w->len));
			break;
		case WC_BT_FILTER_FAMILY_REGEX:
			f->set_family_name_regex_filter(bytes(w->bytes, w->len));
			break;
		case WC_BT_FILTER_QUALIFIER_REGEX:
			f->set_column_qualifier_regex_filter(bytes(w->bytes, w->len));
			break;
		case WC_BT_FILTER_COLUMN_RANGE:
			{
				v2::ColumnRange *r = f->mutable_column_range_filter();

				r->set_family_name(bytes(w->bytes, w->len));
				if (w->range.start_len > 0)
				{
					if (w->range.start_open)
						r->set_start_qualifier_open(bytes(w->range.start, w->range.start_len));
					else
						r->set_start_qualifier_closed(bytes(w->range.start, w->range.start_len));
				}
				if (w->range.end_len > 0)
				{
					if (w->range.end_closed)
						r->set_end_qualifier_closed(bytes(w->range.end, w->range.end_len));
					else
						r->set_end_qualifier_open(bytes(w->range.end, w->range.end_len));
				}
			}
			break;
		case WC_BT_FILTER_TIMESTAMP_RANGE:
			f->mutable_timestamp_range_filter()->set_start_timestamp_micros(w->lo);
			f->mutable_timestamp_range_filter()->set_end_timestamp_micros(w->hi);
			break;
		case WC_BT_FILTER_VALUE_REGEX:
			f->set_value_regex_filter(bytes(w->bytes, w->len));
			break;
		case WC_BT_FILTER_CELLS_PER_COLUMN:
			f->set_cells_per_column_limit_filter(w->n);
			break;
		case WC_BT_FILTER_CELLS_PER_ROW:
			f->set_cells_per_row_limit_filter(w->n);
			break;
		case WC_BT_FILTER_CELLS_PER_ROW_OFFSET:
			f->set_cells_per_row_offset_filter(w->n);
			break;
		case WC_BT_FILTER_STRIP_VALUE:
			f->set_strip_value_transformer(true);
			break;
		case WC_BT_FILTER_CONDITION:
			fill_filter(f->mutable_condition()->mutable_predicate_filter(), &w->children[0]);
			fill_filter(f->mutable_condition()->mutable_true_filter(), &w->children[1]);
			fill_filter(f->mutable_condition()->mutable_false_filter(), &w->children[2]);
			break;
		case WC_BT_FILTER_VALUE_RANGE:
			{
				v2::ValueRange *r = f->mutable_value_range_filter();

				if (w->range.start_open)
					r->set_start_value_open(bytes(w->range.start, w->range.start_len));
				else
					r->set_start_value_closed(bytes(w->range.start, w->range.start_len));
				if (w->range.end_len > 0)
				{
					if (w->range.end_closed)
						r->set_end_value_closed(bytes(w->range.end, w->range.end_len));
					else
						r->set_end_value_open(bytes(w->range.end, w->range.end_len));
				}
			}
			break;
	}
}

static void
fill_mutation(v2::Mutation *m, const WcBtMutation *w)
{
	std::string family = w->family_len > 0 ? std::string(w->family, w->family_len) : std::string();

	switch (w->kind)
	{
		case WC_BT_SET_CELL:
			m->mutable_set_cell()->set_family_name(family);
			m->mutable_set_cell()->set_column_qualifier(bytes(w->qualifier, w->qualifier_len));
			m->mutable_set_cell()->set_timestamp_micros(w->ts);
			m->mutable_set_cell()->set_value(bytes(w->value, w->value_len));
			break;
		case WC_BT_DELETE_CELLS:
			m->mutable_delete_from_column()->set_family_name(family);
			m->mutable_delete_from_column()->set_column_qualifier(bytes(w->qualifier, w->qualifier_len));
			if (w->lo != 0 || w->hi != 0)
			{
				m->mutable_delete_from_column()->mutable_time_range()->set_start_timestamp_micros(w->lo);
				m->mutable_delete_from_column()->mutable_time_range()->set_end_timestamp_micros(w->hi);
			}
			break;
		case WC_BT_DELETE_FAMILY:
			m->mutable_delete_from_family()->set_family_name(family);
			break;
		case WC_BT_DELETE_ROW:
			m->mutable_delete_from_row();
			break;
		case WC_BT_ADD_TO_CELL:
			m->mutable_add_to_cell()->set_family_name(family);
			m->mutable_add_to_cell()->mutable_column_qualifier()->set_raw_value(bytes(w->qualifier, w->qualifier_len));
			m->mutable_add_to_cell()->mutable_timestamp()->set_raw_timestamp_micros(w->ts);
			m->mutable_add_to_cell()->mutable_input()->set_int_value(w->input);
			break;
	}
}

/*
 * body, with no exception let out: its C caller could not unwind one.
 * What one says (memory, most likely) becomes the call's status.
 */
template <typename Body>
static bool
guarded(WcBtStatus *st, Body body)
{
	try
	{
		return body();
	}
	catch (const std::exception &e)
	{
		set_status(st, 8 /* RESOURCE_EXHAUSTED */ , std::string("Bigtable client: ") + e.what());
		return false;
	}
}

/* A ReadRows answer against readrows.c's rules, as a status. */
static void
set_broken(WcBtStatus *st, const WcBtRows *rows)
{
	set_status(st, 13 /* INTERNAL */ ,
			   std::string("Bigtable's ReadRows answer broke the protocol: ") + rows->error);
}

extern "C" WcBtClient *
wc_bt_connect(const char *endpoint, bool insecure, WcBtStatus *st)
{
	WcBtClient *c = NULL;

	if (!guarded(st, [&]
	{
		std::shared_ptr<grpc::ChannelCredentials> creds =
			insecure ? grpc::InsecureChannelCredentials() : grpc::GoogleDefaultCredentials();
		grpc::ChannelArguments args;
		v2::FeatureFlags features;

		if (!creds)
		{
			set_status(st, WC_BT_UNAUTHENTICATED,
					   "Google's application-default credentials were not found");
			return false;
		}
		/* a row may be 256 MB, and a response carries whole chunks of it */
		args.SetMaxReceiveMessageSize(-1);
		args.SetMaxSendMessageSize(-1);
		c = new WcBtClient;
		c->channel = grpc::CreateCustomChannel(endpoint, creds, args);
		c->stub = v2::Bigtable::NewStub(c->channel);
		c->admin = admin::BigtableTableAdmin::NewStub(c->channel);
		features.set_reverse_scans(true);
		c->features = base64url(features.SerializeAsString());
		set_status(st, WC_BT_OK, "");
		return true;
	}))
	{
		delete c;
		return NULL;
	}
	return c;
}

extern "C" void
wc_bt_close(WcBtClient *c)
{
	delete c;
}

extern "C" bool
wc_bt_read_rows(WcBtClient *c, const WcBtRead *req, WcBtRowFn fn, void *arg,
				uint64_t *nrows, WcBtStatus *st)
{
	WcBtRows	rows;
	bool		ok;

	*nrows = 0;
	wc_bt_rows_init(&rows, req->reversed);
	ok = guarded(st, [&]
	{
		CallContext ctx;
		v2::ReadRowsRequest r;
		v2::ReadRowsResponse resp;
		bool		stopped = false;
		bool		broken = false;

		prepare(ctx, c, "table_name", req->table, req->app_profile, req->timeout_ms);
		r.set_table_name(req->table);
		if (req->app_profile != NULL)
			r.set_app_profile_id(req->app_profile);
		for (int i = 0; i < req->nkeys; i++)
			r.mutable_rows()->add_row_keys(bytes(req->keys[i], req->key_lens[i]));
		for (int i = 0; i < req->nranges; i++)
			fill_range(r.mutable_rows()->add_row_ranges(), &req->ranges[i]);
		if (req->filter != NULL)
			fill_filter(r.mutable_filter(), req->filter);
		r.set_rows_limit(req->rows_limit);
		r.set_reversed(req->reversed);

		std::unique_ptr<grpc::ClientReader<v2::ReadRowsResponse>> reader(c->stub->ReadRows(&ctx, r));

		while (!stopped && !broken && reader->Read(&resp))
		{
			for (const v2::ReadRowsResponse::CellChunk &ch : resp.chunks())
			{
				WcBtChunk	w;
				int			got;

				w.row_key = reinterpret_cast<const uint8_t *>(ch.row_key().data());
				w.row_key_len = ch.row_key().size();
				w.has_family = ch.has_family_name();
				w.family = reinterpret_cast<const uint8_t *>(ch.family_name().value().data());
				w.family_len = ch.family_name().value().size();
				w.has_qualifier = ch.has_qualifier();
				w.qualifier = reinterpret_cast<const uint8_t *>(ch.qualifier().value().data());
				w.qualifier_len = ch.qualifier().value().size();
				w.timestamp_micros = ch.timestamp_micros();
				w.has_labels = ch.labels_size() > 0;
				w.value = reinterpret_cast<const uint8_t *>(ch.value().data());
				w.value_len = ch.value().size();
				w.value_size = ch.value_size();
				w.reset_row = ch.reset_row();
				w.commit_row = ch.commit_row();
				got = wc_bt_rows_chunk(&rows, &w);
				if (got == WC_BT_BAD)
				{
					broken = true;
					break;
				}
				if (got == WC_BT_ROW)
				{
					(*nrows)++;
					if (!fn(arg, &rows))
					{
						stopped = true;
						break;
					}
				}
			}
		}
		if (stopped || broken)
			ctx.TryCancel();

		grpc::Status s = reader->Finish();

		if (broken)
			set_broken(st, &rows);
		else if (stopped)
			set_status(st, WC_BT_CANCELLED, "the read was stopped");
		else if (from_grpc(st, s))
		{
			if (wc_bt_rows_end(&rows) != WC_BT_BAD)
				return true;
			set_broken(st, &rows);
		}
		return false;
	});
	wc_bt_rows_free(&rows);
	return ok;
}

extern "C" bool
wc_bt_sample_row_keys(WcBtClient *c, const char *table, const char *app_profile,
					  int64_t timeout_ms, WcBtSampleFn fn, void *arg, WcBtStatus *st)
{
	return guarded(st, [&]
	{
		CallContext ctx;
		v2::SampleRowKeysRequest r;
		v2::SampleRowKeysResponse resp;
		bool		stopped = false;

		prepare(ctx, c, "table_name", table, app_profile, timeout_ms);
		r.set_table_name(table);
		if (app_profile != NULL)
			r.set_app_profile_id(app_profile);

		std::unique_ptr<grpc::ClientReader<v2::SampleRowKeysResponse>> reader(c->stub->SampleRowKeys(&ctx, r));

		while (!stopped && reader->Read(&resp))
			if (!fn(arg, reinterpret_cast<const uint8_t *>(resp.row_key().data()),
					resp.row_key().size(), resp.offset_bytes()))
			{
				stopped = true;
				ctx.TryCancel();
			}

		grpc::Status s = reader->Finish();

		if (stopped)
		{
			set_status(st, WC_BT_CANCELLED, "the sampling was stopped");
			return false;
		}
		return from_grpc(st, s);
	});
}

extern "C" bool
wc_bt_mutate_rows(WcBtClient *c, const char *table, const char *app_profile,
				  const WcBtEntry *entries, int nentries, int64_t timeout_ms,
				  int *codes, WcBtStatus *st)
{
	for (int i = 0; i < nentries; i++)
		codes[i] = WC_BT_UNAVAILABLE;
	return guarded(st, [&]
	{
		CallContext ctx;
		v2::MutateRowsRequest r;
		v2::MutateRowsResponse resp;
		bool		all = true;
		WcBtStatus	first;

		first.code = WC_BT_OK;
		first.message[0] = '\0';
		prepare(ctx, c, "table_name", table, app_profile, timeout_ms);
		r.set_table_name(table);
		if (app_profile != NULL)
			r.set_app_profile_id(app_profile);
		for (int i = 0; i < nentries; i++)
		{
			v2::MutateRowsRequest::Entry *e = r.add_entries();

			e->set_row_key(bytes(entries[i].row_key, entries[i].row_key_len));
			for (int j = 0; j < entries[i].nmutations; j++)
				fill_mutation(e->add_mutations(), &entries[i].mutations[j]);
		}

		std::unique_ptr<grpc::ClientReader<v2::MutateRowsResponse>> reader(c->stub->MutateRows(&ctx, r));

		while (reader->Read(&resp))
			for (const v2::MutateRowsResponse::Entry &e : resp.entries())
			{
				if (e.index() < 0 || e.index() >= nentries)
					continue;
				codes[e.index()] = e.status().code();
				if (e.status().code() != WC_BT_OK && first.code == WC_BT_OK)
					set_status(&first, e.status().code(), e.status().message());
			}

		grpc::Status s = reader->Finish();

		if (!from_grpc(st, s))
			return false;
		for (int i = 0; i < nentries; i++)
			if (codes[i] != WC_BT_OK)
				all = false;
		if (all)
			return true;
		if (first.code != WC_BT_OK)
			*st = first;
		else
			set_status(st, WC_BT_UNAVAILABLE, "Bigtable did not say what became of every row");
		return false;
	});
}

extern "C" bool
wc_bt_check_and_mutate(WcBtClient *c, const char *table, const char *app_profile,
					   const uint8_t *row_key, size_t row_key_len,
					   const WcBtFilter *predicate,
					   const WcBtMutation *if_true, int ntrue,
					   const WcBtMutation *if_false, int nfalse,
					   int64_t timeout_ms, bool *matched, WcBtStatus *st)
{
	return guarded(st, [&]
	{
		CallContext ctx;
		v2::CheckAndMutateRowRequest r;
		v2::CheckAndMutateRowResponse resp;

		prepare(ctx, c, "table_name", table, app_profile, timeout_ms);
		r.set_table_name(table);
		if (app_profile != NULL)
			r.set_app_profile_id(app_profile);
		r.set_row_key(bytes(row_key, row_key_len));
		if (predicate != NULL)
			fill_filter(r.mutable_predicate_filter(), predicate);
		for (int i = 0; i < ntrue; i++)
			fill_mutation(r.add_true_mutations(), &if_true[i]);
		for (int i = 0; i < nfalse; i++)
			fill_mutation(r.add_false_mutations(), &if_false[i]);
		if (!from_grpc(st, c->stub->CheckAndMutateRow(&ctx, r, &resp)))
			return false;
		*matched = resp.predicate_matched();
		return true;
	});
}

/* ---------------------------------------------------------------------
 * The table admin API
 * --------------------------------------------------------------------- */

static void
fill_rule(admin::GcRule *r, uint64_t versions, uint64_t age_us)
{
	if (versions > 0)
		r->set_max_num_versions((int32_t) versions);
	else
	{
		r->mutable_max_age()->set_seconds((int64_t) (age_us / 1000000));
		r->mutable_max_age()->set_nanos((int32_t) (age_us % 1000000) * 1000);
	}
}

static void
fill_family(admin::ColumnFamily *f, const WcBtFamily *w)
{
	const WcGcPolicy *p = &w->policy;

	if (p->join == WC_GC_SINGLE)
	{
		if (p->max_versions > 0 || p->max_age_us > 0)
			fill_rule(f->mutable_gc_rule(), p->max_versions, p->max_age_us);
	}
	else
	{
		google::protobuf::RepeatedPtrField<admin::GcRule> *rules =
			p->join == WC_GC_AND ? f->mutable_gc_rule()->mutable_intersection()->mutable_rules() :
			f->mutable_gc_rule()->mutable_union_()->mutable_rules();

		fill_rule(rules->Add(), p->max_versions, 0);
		fill_rule(rules->Add(), 0, p->max_age_us);
	}
	if (w->aggregate != WC_BT_AGG_NONE)
	{
		admin::Type::Aggregate *a = f->mutable_value_type()->mutable_aggregate_type();

		a->mutable_input_type()->mutable_int64_type()->mutable_encoding()->mutable_big_endian_bytes();
		if (w->aggregate == WC_BT_AGG_SUM)
			a->mutable_sum();
		else if (w->aggregate == WC_BT_AGG_MIN)
			a->mutable_min();
		else
			a->mutable_max();
	}
}

/* One rule into policy's versions or age; false if it is not a plain one. */
static bool
read_rule(const admin::GcRule &r, WcGcPolicy *p)
{
	if (r.rule_case() == admin::GcRule::kMaxNumVersions && r.max_num_versions() > 0 &&
		p->max_versions == 0)
	{
		p->max_versions = (uint64_t) r.max_num_versions();
		return true;
	}
	if (r.rule_case() == admin::GcRule::kMaxAge && p->max_age_us == 0 &&
		r.max_age().seconds() >= 0 && r.max_age().nanos() >= 0 &&
		(r.max_age().seconds() > 0 || r.max_age().nanos() >= 1000))
	{
		p->max_age_us = (uint64_t) r.max_age().seconds() * 1000000 + r.max_age().nanos() / 1000;
		return true;
	}
	return false;
}

static void
read_family(const std::string &name, const admin::ColumnFamily &f, WcBtFamily *w)
{
	const admin::GcRule &r = f.gc_rule();

	w->name = name.c_str();
	w->policy.max_versions = 0;
	w->policy.max_age_us = 0;
	w->policy.join = WC_GC_SINGLE;
	w->policy_known = true;
	switch (r.rule_case())
	{
		case admin::GcRule::RULE_NOT_SET:
			break;
		case admin::GcRule::kIntersection:
		case admin::GcRule::kUnion:
			{
				const google::protobuf::RepeatedPtrField<admin::GcRule> &rules =
					r.rule_case() == admin::GcRule::kIntersection ?
					r.intersection().rules() : r.union_().rules();

				/* one rule joined to nothing is that rule */
				if (rules.size() == 2)
					w->policy.join = r.rule_case() == admin::GcRule::kIntersection ?
						WC_GC_AND : WC_GC_OR;
				if (rules.size() < 1 || rules.size() > 2)
					w->policy_known = false;
				for (const admin::GcRule &one : rules)
					if (!read_rule(one, &w->policy))
						w->policy_known = false;
			}
			break;
		default:
			w->policy_known = read_rule(r, &w->policy);
			break;
	}
	w->aggregate = WC_BT_AGG_NONE;
	if (f.value_type().has_aggregate_type())
	{
		const admin::Type::Aggregate &a = f.value_type().aggregate_type();

		w->aggregate = a.has_sum() ? WC_BT_AGG_SUM : a.has_min() ? WC_BT_AGG_MIN :
			a.has_max() ? WC_BT_AGG_MAX : WC_BT_AGG_OTHER;
	}
}

extern "C" bool
wc_bt_create_table(WcBtClient *c, const char *instance, const char *table_id,
				   const WcBtFamily *families, int nfamilies,
				   int64_t timeout_ms, WcBtStatus *st)
{
	return guarded(st, [&]
	{
		CallContext ctx;
		admin::CreateTableRequest r;
		admin::Table resp;

		prepare(ctx, c, "parent", instance, NULL, timeout_ms);
		r.set_parent(instance);
		r.set_table_id(table_id);
		for (int i = 0; i < nfamilies; i++)
			fill_family(&(*r.mutable_table()->mutable_column_families())[families[i].name],
						&families[i]);
		return from_grpc(st, c->admin->CreateTable(&ctx, r, &resp));
	});
}

extern "C" bool
wc_bt_modify_family(WcBtClient *c, const char *table, WcBtFamilyChange change,
					const WcBtFamily *family, int64_t timeout_ms, WcBtStatus *st)
{
	return guarded(st, [&]
	{
		CallContext ctx;
		admin::ModifyColumnFamiliesRequest r;
		admin::Table resp;
		admin::ModifyColumnFamiliesRequest::Modification *m = r.add_modifications();

		prepare(ctx, c, "name", table, NULL, timeout_ms);
		r.set_name(table);
		m->set_id(family->name);
		if (change == WC_BT_FAMILY_CREATE)
			fill_family(m->mutable_create(), family);
		else if (change == WC_BT_FAMILY_UPDATE)
			fill_family(m->mutable_update(), family);
		else
			m->set_drop(true);
		return from_grpc(st, c->admin->ModifyColumnFamilies(&ctx, r, &resp));
	});
}

extern "C" bool
wc_bt_get_table(WcBtClient *c, const char *table, WcBtFamilyFn fn, void *arg,
				int64_t timeout_ms, WcBtStatus *st)
{
	return guarded(st, [&]
	{
		CallContext ctx;
		admin::GetTableRequest r;
		admin::Table resp;
		std::vector<std::string> names;

		prepare(ctx, c, "name", table, NULL, timeout_ms);
		r.set_name(table);
		r.set_view(admin::Table::SCHEMA_VIEW);
		if (!from_grpc(st, c->admin->GetTable(&ctx, r, &resp)))
			return false;
		/* a map's order is none: by name, as LevelDB's families are */
		for (const auto &f : resp.column_families())
			names.push_back(f.first);
		std::sort(names.begin(), names.end());
		for (const std::string &n : names)
		{
			WcBtFamily	w;

			read_family(n, resp.column_families().at(n), &w);
			if (!fn(arg, &w))
				break;
		}
		return true;
	});
}

extern "C" bool
wc_bt_list_tables(WcBtClient *c, const char *instance, WcBtTableFn fn, void *arg,
				  int64_t timeout_ms, WcBtStatus *st)
{
	return guarded(st, [&]
	{
		std::string token;

		do
		{
			CallContext ctx;
			admin::ListTablesRequest r;
			admin::ListTablesResponse resp;

			prepare(ctx, c, "parent", instance, NULL, timeout_ms);
			r.set_parent(instance);
			r.set_view(admin::Table::NAME_ONLY);
			r.set_page_token(token);
			if (!from_grpc(st, c->admin->ListTables(&ctx, r, &resp)))
				return false;
			for (const admin::Table &t : resp.tables())
				if (!fn(arg, t.name().c_str()))
					return true;
			token = resp.next_page_token();
		} while (!token.empty());
		return true;
	});
}

extern "C" bool
wc_bt_delete_table(WcBtClient *c, const char *table, int64_t timeout_ms, WcBtStatus *st)
{
	return guarded(st, [&]
	{
		CallContext ctx;
		admin::DeleteTableRequest r;
		google::protobuf::Empty resp;

		prepare(ctx, c, "name", table, NULL, timeout_ms);
		r.set_name(table);
		return from_grpc(st, c->admin->DeleteTable(&ctx, r, &resp));
	});
}

extern "C" bool
wc_bt_drop_row_range(WcBtClient *c, const char *table, const uint8_t *prefix,
					 size_t prefix_len, bool all, int64_t timeout_ms, WcBtStatus *st)
{
	return guarded(st, [&]
	{
		CallContext ctx;
		admin::DropRowRangeRequest r;
		google::protobuf::Empty resp;

		prepare(ctx, c, "name", table, NULL, timeout_ms);
		r.set_name(table);
		if (all)
			r.set_delete_all_data_from_table(true);
		else
			r.set_row_key_prefix(bytes(prefix, prefix_len));
		return from_grpc(st, c->admin->DropRowRange(&ctx, r, &resp));
	});
}
