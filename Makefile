# widecolumn_fdw: a Bigtable-model wide-column store in LevelDB, as foreign tables.
#
#   make demo   set everything up and show an example in psql
#   make test   set everything up and run every test suite
#
# The version is defined here once; test/scripts/check-version.sh checks that
# the control file, META.json and the install script agree with it.

EXTENSION = widecolumn_fdw
EXTVERSION = 0.11.0

MODULE_big = widecolumn_fdw
OBJS = src/widecolumn_fdw.o \
       src/common/shmem.o src/common/poll.o src/common/wire.o src/common/wirerows.o src/common/wirestats.o src/common/progress.o src/common/keycodec.o src/common/gcpolicy.o src/common/aggfold.o src/common/bytebuf.o src/common/wireheat.o src/common/scanuse.o \
       src/fdw/model/option.o src/fdw/model/mapping.o src/fdw/model/mapcolumn.o src/fdw/model/valuecodec.o src/fdw/model/rowkey.o src/fdw/model/keyformat.o \
       src/fdw/keys/pushdown.o src/fdw/keys/ranges.o src/fdw/keys/declcheck.o \
       src/fdw/link/client.o src/fdw/link/sizerequests.o src/fdw/link/remotescan.o src/fdw/link/snapshot.o src/fdw/link/progressview.o \
       src/fdw/xact/txn.o src/fdw/xact/txnrange.o src/fdw/xact/rowlock.o src/fdw/xact/rowreads.o src/fdw/xact/ssi.o src/fdw/xact/asof.o src/fdw/xact/droprange.o src/fdw/xact/celllog.o \
       src/fdw/read/readrows.o \
       src/fdw/meta/families.o src/fdw/meta/coltypes.o src/fdw/meta/aggregate.o \
       src/fdw/planner/plan.o src/fdw/planner/joinpaths.o src/fdw/planner/partorder.o src/fdw/planner/storefilter.o src/fdw/planner/estimate.o src/fdw/planner/partialpath.o \
       src/fdw/exec/scan.o src/fdw/exec/parscan.o src/fdw/exec/analyze.o src/fdw/exec/modify.o src/fdw/exec/rangedelete.o src/fdw/exec/explain.o src/fdw/exec/onconflict.o \
       src/fdw/cells/cellroute.o src/fdw/cells/cellplan.o src/fdw/cells/cellrows.o src/fdw/cells/cellwrite.o \
       src/fdw/commit/commit.o src/fdw/commit/xidwal.o \
       src/fdw/admin/statworker.o src/fdw/admin/import.o src/fdw/admin/tablesizes.o \
       src/fdw/advise/advise.o src/fdw/advise/advisekeys.o src/fdw/advise/adviseuse.o \
       src/fdw/avro/avro.o src/fdw/avro/avrofile.o src/fdw/avro/backup.o \
       src/fdw/heat/heatmap.o src/fdw/heat/heatsvg.o \
       src/worker/main.o src/worker/serve.o src/worker/workerstats.o src/worker/engines.o \
       src/worker/runtime/state.o src/worker/runtime/clients.o src/worker/runtime/failure.o src/worker/runtime/readers.o src/worker/runtime/snapshare.o src/worker/runtime/heat.o \
       src/worker/leveldb/engine.o src/worker/leveldb/databases.o src/worker/leveldb/largecommit.o \
       src/worker/leveldb/rowscan.o src/worker/leveldb/rowread.o src/worker/leveldb/versions.o src/worker/leveldb/rowfilter.o src/worker/leveldb/tablemeta.o src/worker/leveldb/sweep.o src/worker/leveldb/reclaim.o src/worker/leveldb/rowdrops.o src/worker/leveldb/sizes.o src/worker/leveldb/rowcommit.o src/worker/leveldb/rollback.o \
       src/worker/leveldb/heatstore.o src/worker/leveldb/xacts.o src/worker/leveldb/commitwriter.o src/worker/leveldb/storage.o src/worker/leveldb/logfiles.o src/worker/leveldb/redolog.o \
       src/worker/bigtable/engine.o src/worker/bigtable/btscan.o src/worker/bigtable/btcommit.o src/worker/bigtable/btfamilies.o src/worker/bigtable/btfilters.o src/worker/bigtable/btmeta.o src/worker/bigtable/btoverlay.o src/worker/bigtable/btpolicies.o src/worker/bigtable/btsizes.o src/worker/bigtable/readrows.o
# The install script of this version, the first version's (an older version
# installs through it and the upgrade scripts: sql/upgrade.sql) and the
# upgrade scripts.
DATA = $(wildcard widecolumn_fdw--*.sql)
PG_CPPFLAGS = -I$(srcdir)/src
# before PGXS, which adds PG_CFLAGS to CFLAGS; "override" keeps the
# PG_CFLAGS of a command line (test/scripts/build.sh's) too
override PG_CFLAGS += -MMD -MP
# gRPC's wall (C++, no bitcode: linked as objects, not OBJS) and its libraries
BT_OBJS = src/worker/bigtable/btclient.o $(patsubst %.cc,%.o,$(BT_GEN_SRCS))
SHLIB_LINK = -lleveldb -lavro -lsnappy -lz $(BT_OBJS) $(BT_LIBS) -lstdc++

REGRESS = types options ddl dml transactions commandids errors privileges pushdown storefilter rowkey_parts rowkey_format versions families asof maps cells gc aggregates upgrade seeds seeds_dynamodb seeds_tenants differential sizes keyjoins droprange parallel import monitor heatmap advise avro
ISOLATION = visibility nativepairs writeskew writers locks serializable lockfilter rrconflict snapshots families dropfamilies commitlocks maps aggregates droprange parallel import storefilter
ISOLATION_OPTS = --inputdir=test/isolation
TAP_TESTS = 1
PROVE_TESTS = test/t/*.pl
EXTRA_CLEAN = $(OBJS:.o=.d) test/keycodec_test test/gcpolicy_test test/readrows_test test/bigtable/btwall test/bigtable/build-btwall test/bench/raw_bigtable test/bench/build-raw_bigtable $(BT_GEN) $(BT_DIR)/btclient.o results regression.diffs regression.out output_iso tmp_check

PG_CONFIG ?= /usr/lib/postgresql/15/bin/pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifneq ($(PGXS),)
include $(PGXS)
endif

# Each object depends on the headers it includes, as the compiler listed
# them (PG_CFLAGS' -MMD) in a .d file beside it: a header change rebuilds
# its includers and nothing else.
-include $(OBJS:.o=.d)

.PHONY: deps demo test unit check-long bench bench-ab fuzz asan tsan

deps:
	sh test/scripts/deps.sh

# A small C program, no PostgreSQL: the key codec's round trips and order.
test/keycodec_test: test/keycodec_test.c src/common/keycodec.c src/common/keycodec.h
	$(CC) -O1 -g -Wall -Wextra -Isrc -o $@ test/keycodec_test.c src/common/keycodec.c

# The garbage-collection policy grammar (plain C).
test/gcpolicy_test: test/gcpolicy_test.c src/common/gcpolicy.c src/common/gcpolicy.h
	$(CC) -O1 -g -Wall -Wextra -Wno-missing-field-initializers -Isrc -o $@ test/gcpolicy_test.c src/common/gcpolicy.c

# The merging of Bigtable's ReadRows chunks into rows (plain C).
test/readrows_test: test/readrows_test.c src/worker/bigtable/readrows.c src/worker/bigtable/readrows.h src/common/bytebuf.c src/common/keycodec.c
	$(CC) -O1 -g -Wall -Wextra -Wno-missing-field-initializers -Isrc -o $@ test/readrows_test.c src/worker/bigtable/readrows.c src/common/bytebuf.c src/common/keycodec.c

# Bigtable's messages, compiled from our own .proto files at build time
# (src/worker/bigtable/bigtable.proto); nothing generated is in git.
BT_DIR = src/worker/bigtable
BT_GEN = $(BT_DIR)/gen
BT_PROTOS = $(BT_DIR)/bigtable.proto $(BT_DIR)/bigtable_admin.proto $(BT_DIR)/rpcstatus.proto
BT_GEN_SRCS = $(BT_GEN)/bigtable.pb.cc $(BT_GEN)/bigtable.grpc.pb.cc $(BT_GEN)/bigtable_admin.pb.cc \
	$(BT_GEN)/bigtable_admin.grpc.pb.cc $(BT_GEN)/rpcstatus.pb.cc
BT_CXXFLAGS = -O2 -g -fPIC -Wall -Wno-unused-parameter -I$(BT_GEN) -Isrc $(shell pkg-config --cflags grpc++ protobuf 2>/dev/null)
BT_LIBS = $(shell pkg-config --libs grpc++ protobuf 2>/dev/null)

# the library is linked with the wall's objects
$(shlib): $(BT_OBJS)

$(BT_GEN_SRCS) &: $(BT_PROTOS)
	mkdir -p $(BT_GEN)
	protoc -I$(BT_DIR) -I/usr/include --cpp_out=$(BT_GEN) --grpc_out=$(BT_GEN) \
		--plugin=protoc-gen-grpc=$$(command -v grpc_cpp_plugin) $(BT_PROTOS)

$(BT_GEN)/%.o: $(BT_GEN)/%.cc $(BT_GEN_SRCS)
	$(CXX) $(BT_CXXFLAGS) -c -o $@ $<

$(BT_DIR)/btclient.o: $(BT_DIR)/btclient.cc $(BT_DIR)/btclient.h $(BT_DIR)/readrows.h $(BT_GEN_SRCS)
	$(CXX) $(BT_CXXFLAGS) -Wextra -Werror -c -o $@ $<

# Commands around the wall: btwall for the tests against the emulator
# (036), raw_bigtable the bare client of make bench (test/bench/bigtable.sh).
# A command is its main file, the plain C the wall needs, and the wall.
WALL_C = $(BT_DIR)/readrows.c src/common/bytebuf.c src/common/keycodec.c src/common/gcpolicy.c
define wall_command
	mkdir -p $(dir $@)build-$(notdir $@)
	for f in $< $(WALL_C); do \
		$(CC) -O2 -g -Wall -Wextra -Werror -Wno-missing-field-initializers -Isrc \
			-c -o $(dir $@)build-$(notdir $@)/$$(basename $$f .c).o $$f || exit 1; \
	done
	$(CXX) -o $@ $(dir $@)build-$(notdir $@)/*.o $(BT_DIR)/btclient.o $(BT_GEN_SRCS:.cc=.o) $(BT_LIBS)
endef
test/bigtable/btwall: test/bigtable/btwall.c $(WALL_C) $(BT_DIR)/btclient.o $(BT_GEN_SRCS:.cc=.o)
	$(wall_command)
test/bench/raw_bigtable: test/bench/raw_bigtable.c $(WALL_C) $(BT_DIR)/btclient.o $(BT_GEN_SRCS:.cc=.o)
	$(wall_command)

unit: test/keycodec_test test/gcpolicy_test test/readrows_test
	./test/keycodec_test
	./test/gcpolicy_test
	./test/readrows_test

demo: deps
	sh test/scripts/demo.sh

test: deps
	sh test/scripts/test.sh

# The benchmark against native tables and raw LevelDB (docs/performance.md).
bench: deps
	sh test/scripts/build.sh
	$(MAKE) -s test/bigtable/btwall test/bench/raw_bigtable
	sh test/bench/run.sh

# COPY and single-row INSERTs of this tree against revision REV, the two
# builds installed turn by turn (test/bench/ab.sh).
bench-ab: deps
	sh test/bench/ab.sh

# libFuzzer harnesses (test/fuzz), FUZZ_SECONDS a target (default 10).
fuzz: deps
	sh test/fuzz/run.sh

# Every suite against an AddressSanitizer and UndefinedBehaviorSanitizer
# build, in a private copy of PostgreSQL (docs/fuzzing.md).
asan: deps
	sh test/scripts/as-postgres.sh sh test/fuzz/sanitize.sh asan

# The suites that run the storage worker's threads against a
# ThreadSanitizer build, the same way (docs/fuzzing.md).
tsan: deps
	sh test/scripts/as-postgres.sh sh test/fuzz/sanitize.sh tsan

# The slow tests: 8 clients writing concurrently, then invariant checks;
# then every suite under the sanitizers, as make asan and make tsan.
check-long: deps
	sh test/scripts/build.sh
	sh test/scripts/as-postgres.sh sh test/long/run.sh
	sh test/scripts/as-postgres.sh sh test/fuzz/sanitize.sh asan
	sh test/scripts/as-postgres.sh sh test/fuzz/sanitize.sh tsan
