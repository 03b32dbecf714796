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
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "bigtable.grpc.pb.h"

#include "worker/bigtable/btclient.h"

namespace v2 = google::bigtable::v2;

struct WcBtClient
{
	std::shared_ptr<grpc::Channel> channel;
	std::unique_ptr<v2::Bigtable::Stub> stub;
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

/*
 * The deadline and the metadata every call carries: the request's table
 * (Bigtable routes by it) and what this client can take.
 */
static void
prepare(grpc::ClientContext &ctx, const WcBtClient *c, const char *table,
		const char *app_profile, int64_t timeout_ms)
{
	std::string params = "table_name=" + url_escape(table);

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
	}
}

/* What an exception says, as a status: memory, most likely. */
static bool
from_exception(WcBtStatus *st, const std::exception &e)
{
	set_status(st, 8 /* RESOURCE_EXHAUSTED */ , std::string("Bigtable client: ") + e.what());
	return false;
}

extern "C" WcBtClient *
wc_bt_connect(const char *endpoint, bool insecure, WcBtStatus *st)
{
	try
	{
		std::shared_ptr<grpc::ChannelCredentials> creds =
			insecure ? grpc::InsecureChannelCredentials() : grpc::GoogleDefaultCredentials();
		grpc::ChannelArguments args;
		v2::FeatureFlags features;
		WcBtClient *c;

		if (!creds)
		{
			set_status(st, WC_BT_UNAUTHENTICATED,
					   "Google's application-default credentials were not found");
			return NULL;
		}
		/* a row may be 256 MB, and a response carries whole chunks of it */
		args.SetMaxReceiveMessageSize(-1);
		args.SetMaxSendMessageSize(-1);
		c = new WcBtClient;
		c->channel = grpc::CreateCustomChannel(endpoint, creds, args);
		c->stub = v2::Bigtable::NewStub(c->channel);
		features.set_reverse_scans(true);
		c->features = base64url(features.SerializeAsString());
		set_status(st, WC_BT_OK, "");
		return c;
	}
	catch (const std::exception &e)
	{
		from_exception(st, e);
		return NULL;
	}
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
	bool		ok = false;

	*nrows = 0;
	wc_bt_rows_init(&rows, req->reversed);
	try
	{
		grpc::ClientContext ctx;
		v2::ReadRowsRequest r;
		v2::ReadRowsResponse resp;
		bool		stopped = false;
		bool		broken = false;

		prepare(ctx, c, req->table, req->app_profile, req->timeout_ms);
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
			set_status(st, 13 /* INTERNAL */ ,
					   std::string("Bigtable's ReadRows answer broke the protocol: ") + rows.error);
		else if (stopped)
			set_status(st, WC_BT_CANCELLED, "the read was stopped");
		else if (from_grpc(st, s))
		{
			if (wc_bt_rows_end(&rows) == WC_BT_BAD)
				set_status(st, 13 /* INTERNAL */ ,
						   std::string("Bigtable's ReadRows answer broke the protocol: ") + rows.error);
			else
				ok = true;
		}
	}
	catch (const std::exception &e)
	{
		from_exception(st, e);
	}
	wc_bt_rows_free(&rows);
	return ok;
}

extern "C" bool
wc_bt_sample_row_keys(WcBtClient *c, const char *table, const char *app_profile,
					  int64_t timeout_ms, WcBtSampleFn fn, void *arg, WcBtStatus *st)
{
	try
	{
		grpc::ClientContext ctx;
		v2::SampleRowKeysRequest r;
		v2::SampleRowKeysResponse resp;
		bool		stopped = false;

		prepare(ctx, c, table, app_profile, timeout_ms);
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
	}
	catch (const std::exception &e)
	{
		return from_exception(st, e);
	}
}

extern "C" bool
wc_bt_mutate_rows(WcBtClient *c, const char *table, const char *app_profile,
				  const WcBtEntry *entries, int nentries, int64_t timeout_ms,
				  int *codes, WcBtStatus *st)
{
	for (int i = 0; i < nentries; i++)
		codes[i] = WC_BT_UNAVAILABLE;
	try
	{
		grpc::ClientContext ctx;
		v2::MutateRowsRequest r;
		v2::MutateRowsResponse resp;
		bool		all = true;
		WcBtStatus	first;

		first.code = WC_BT_OK;
		first.message[0] = '\0';
		prepare(ctx, c, table, app_profile, timeout_ms);
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
	}
	catch (const std::exception &e)
	{
		return from_exception(st, e);
	}
}

extern "C" bool
wc_bt_check_and_mutate(WcBtClient *c, const char *table, const char *app_profile,
					   const uint8_t *row_key, size_t row_key_len,
					   const WcBtFilter *predicate,
					   const WcBtMutation *if_true, int ntrue,
					   const WcBtMutation *if_false, int nfalse,
					   int64_t timeout_ms, bool *matched, WcBtStatus *st)
{
	try
	{
		grpc::ClientContext ctx;
		v2::CheckAndMutateRowRequest r;
		v2::CheckAndMutateRowResponse resp;

		prepare(ctx, c, table, app_profile, timeout_ms);
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
	}
	catch (const std::exception &e)
	{
		return from_exception(st, e);
	}
}
